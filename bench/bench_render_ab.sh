#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Renderer before/after in one run: builds the `renderer` of another tree
# (a tarball of it, e.g. `git archive BASE > .deps/base.tar`) beside this
# one and runs bench/bench_render.sh on both, alternating A B A B, so that
# the spread between two runs of the same build is the noise.
#   bench/bench_render_ab.sh BASE_TAR [BUILD_DIR]
#   environment: as bench_render.sh (SIZES default "1024"), REPS (default 2)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TAR=$1
BUILD=${2:-build}
REPS=${REPS:-2}
export SIZES=${SIZES:-1024}
WORK=${TMPDIR:-/tmp}/gpuprim-base
rm -rf "$WORK" && mkdir -p "$WORK/src"
tar -xf "$TAR" -C "$WORK/src"
cmake -S "$WORK/src" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    ${NCCL_ROOT:+-DNCCL_ROOT=$NCCL_ROOT} -DGPUPRIM_BUILD_TESTS=OFF >/dev/null
cmake --build "$WORK/build" --target renderer -j"$(nproc)" >/dev/null
for r in $(seq 1 "$REPS"); do
    echo "==== A (base) run $r"
    "$ROOT/bench/bench_render.sh" "$WORK/build"
    echo "==== B (this tree) run $r"
    "$ROOT/bench/bench_render.sh" "$BUILD"
done
