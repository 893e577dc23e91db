#!/usr/bin/env bash
# Build everything and run the whole test suite: the README's test command,
# and what .ci/run runs. CPU tests always run; GPU cases run when a CUDA
# device is present and are reported as SKIPPED otherwise (set
# GP_TEST_REQUIRE_GPU=1 to make a missing GPU a failure).
# Installs cmocka (Debian/Ubuntu package) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

if [ ! -f /usr/include/cmocka.h ] && [ -z "${CMAKE_PREFIX_PATH:-}" ]; then
    echo "== installing cmocka (libcmocka-dev)"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libcmocka-dev pkg-config >/dev/null
fi

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

echo "== install, packaging and examples"
scripts/check-install.sh "$BUILD"
