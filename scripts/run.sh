#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the library and the renderer, then draw the main job:
#   renderer --scene rand100k   (on the GPU when one is present, else on the CPU)
# Extra arguments go to the renderer, e.g. scripts/run.sh --check.
# Without a CUDA compiler (no nvcc on the PATH, CUDACXX unset) it builds the
# CPU backend alone and renders on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh && gp_install_deps
BUILD=${BUILD_DIR:-build-run}
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DGPUPRIM_BUILD_TESTS=OFF -DGPUPRIM_BUILD_BENCH=OFF -DGPUPRIM_BUILD_EXAMPLES=OFF -DGPUPRIM_BUILD_DEMOS=OFF \
    ${CMAKE_ARGS:-} | grep '^-- gpuprim: CUDA'  # says whether this build has CUDA
cmake --build "$BUILD" -j "$(nproc)" --target renderer
"$BUILD/renderer" --scene rand100k --output rand100k.ppm "$@"
