#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build everything and run the whole test suite: the README's test command,
# and what .ci/run runs. CPU tests always run; GPU cases run when a CUDA
# device is present and are reported as SKIPPED otherwise (set
# GP_TEST_REQUIRE_GPU=1 to make a missing GPU a failure).
# Then builds the library again without CUDA (build-nocuda/: nvcc hidden
# from CMake, so the automatic fallback is what is tested), runs its tests
# and checks its install (GP_SKIP_NOCUDA=1 leaves this part out); and builds
# the `sanitize` preset (AddressSanitizer + UndefinedBehavior-
# Sanitizer on the C code, build-sanitize/) and runs its CPU tests at full
# size (about half a minute on 2 cores; GP_TEST_QUICK=1 shrinks them,
# GP_SKIP_SANITIZE=1 leaves this part out).
# Installs cmocka and libpng (Debian/Ubuntu packages) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# On a multi-GPU machine the distributed tests start NCCL: NVLink
# multicast stays off (it can take GPUs that others share out of service).
export NCCL_NVLS_ENABLE=0
BUILD=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

. scripts/deps.sh && gp_install_deps --tests

GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
echo "== configure and build ($BUILD)"
cmake -S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD" -j "$JOBS"

echo "== tests"
ctest --test-dir "$BUILD" -j "$JOBS" --output-on-failure
LOG="$BUILD/Testing/Temporary/LastTest.log"
# cmocka names each skipped case twice (when skipped, and in its summary).
SKIPPED=$(grep '^\[  SKIPPED \] .*\[cuda\]$' "$LOG" | sort -u | wc -l)
if [ "$SKIPPED" -gt 0 ]; then
    echo "NOTE: $SKIPPED GPU test case(s) SKIPPED: no CUDA device on this machine (CPU cases ran for real)."
fi
LARGE=$(grep '^\[  SKIPPED \] .*\[cuda-large\]$' "$LOG" | sort -u | wc -l)
if [ "$LARGE" -gt 0 ]; then
    echo "NOTE: $LARGE n = 2^31 + 17 / out-of-memory case(s) SKIPPED: they run with GP_TEST_LARGE=1 on a GPU with ~56 GB free."
fi

echo "== install, packaging and examples"
scripts/check-install.sh "$BUILD"

if [ "${GP_SKIP_NOCUDA:-0}" != 1 ]; then
    # The PATH without any folder that holds an nvcc, and no CUDACXX: what
    # a machine without the CUDA toolkit looks like to CMake.
    echo "== build without CUDA: nvcc hidden from CMake (build-nocuda; tests at GP_TEST_QUICK size)"
    T0=$SECONDS
    NOCUDA_PATH=$(echo "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/nvcc" ] || printf '%s\n' "$d"; done | paste -sd:)
    mkdir -p build-nocuda
    env -u CUDACXX PATH="$NOCUDA_PATH" cmake -S . -B build-nocuda "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DGPUPRIM_BUILD_BENCH=OFF -DGPUPRIM_BUILD_DEMOS=OFF ${CMAKE_ARGS:-} >build-nocuda/configure.log ||
        { cat build-nocuda/configure.log; echo "NOCUDA: FAILED (configure)"; exit 1; }
    grep -q "gpuprim: CUDA not found" build-nocuda/configure.log ||
        { cat build-nocuda/configure.log; echo "NOCUDA: FAILED (CMake found a CUDA compiler with nvcc hidden)"; exit 1; }
    env PATH="$NOCUDA_PATH" cmake --build build-nocuda -j "$JOBS"
    GP_TEST_QUICK=1 ctest --test-dir build-nocuda -j "$JOBS" --output-on-failure
    scripts/check-install.sh build-nocuda
    echo "NOCUDA: PASSED (CPU backend only: configured, built, tested, installed; $((SECONDS - T0)) s)"
fi

if [ "${GP_SKIP_SANITIZE:-0}" != 1 ]; then
    echo "== sanitize preset: ASan + UBSan build and CPU tests (build-sanitize)"
    T0=$SECONDS
    SAN_RC=0
    cmake --preset sanitize ${CMAKE_ARGS:-} >/dev/null || SAN_RC=$?
    [ "$SAN_RC" -ne 0 ] || cmake --build build-sanitize -j "$JOBS" || SAN_RC=$?
    # ctest --preset applies the preset's ASAN_OPTIONS / UBSAN_OPTIONS.
    [ "$SAN_RC" -ne 0 ] || ctest --preset sanitize -j "$JOBS" || SAN_RC=$?
    if [ "$SAN_RC" -eq 0 ]; then
        echo "SANITIZE: PASSED (AddressSanitizer + UndefinedBehaviorSanitizer, CPU cases; $((SECONDS - T0)) s)"
    else
        echo "SANITIZE: FAILED (rc=$SAN_RC; see the output above and build-sanitize/Testing/Temporary/LastTest.log; $((SECONDS - T0)) s)"
        exit 1
    fi
fi
