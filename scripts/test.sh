#!/usr/bin/env bash
# Build everything and run the whole test suite: the README's test command,
# and what .ci/run runs. CPU tests always run; GPU cases run when a CUDA
# device is present and are reported as SKIPPED otherwise (set
# GP_TEST_REQUIRE_GPU=1 to make a missing GPU a failure).
# Then builds the `sanitize` preset (AddressSanitizer + UndefinedBehavior-
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
    echo "NOTE: $LARGE n = 2^31 + 17 / out-of-memory case(s) SKIPPED: they run with GP_TEST_LARGE=1 on a GPU with ~40 GB free."
fi

echo "== install, packaging and examples"
scripts/check-install.sh "$BUILD"

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
