#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets (tests/fuzz/CMakeLists.txt) with clang, ASan
# and UBSan, in build-fuzz/, and run each for SECONDS (default 60), all at
# once, one core each:
#   scripts/fuzz.sh [SECONDS]
# The seeds are tests/fuzz/corpus/fuzz_<target>/ (kept small; never written
# here; `ctest -R fuzz_replay` replays them in the ordinary build); what the
# fuzzers find goes to build-fuzz/corpus/<target>/, crashes to
# build-fuzz/artifacts/<target>/. Exit status 1 when any target failed.
# SECONDS=0 only builds. MINIMIZE=1 afterwards merges the grown corpus into
# a minimal set in build-fuzz/min/<target>/ (to refresh the seeds by hand).
# Replay one input: build-fuzz/fuzz_scene_file FILE
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
OUT=build-fuzz
CC_FUZZ=${CC_FUZZ:-clang}
CXX_FUZZ=${CXX_FUZZ:-clang++}
TARGETS=(fuzz_scene_file fuzz_image fuzz_cli)
command -v "$CC_FUZZ" >/dev/null || { echo "fuzz.sh: $CC_FUZZ not found (libFuzzer needs clang)" >&2; exit 2; }

mkdir -p "$OUT"
echo "== configuring $OUT with $("$CC_FUZZ" --version | head -1)"
cmake -S . -B "$OUT" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$CC_FUZZ" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
    -DGPUPRIM_BUILD_FUZZERS=ON -DGPUPRIM_BUILD_TESTS=OFF -DGPUPRIM_BUILD_EXAMPLES=OFF \
    -DGPUPRIM_BUILD_DEMOS=OFF -DGPUPRIM_BUILD_BENCH=OFF >"$OUT/configure.log" 2>&1 ||
    { cat "$OUT/configure.log"; exit 1; }
cmake --build "$OUT" -j"${JOBS:-2}" --target "${TARGETS[@]}"
[ "$SECS" -gt 0 ] || exit 0

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
declare -A PIDS
for t in "${TARGETS[@]}"; do
    mkdir -p "$OUT/corpus/$t" "$OUT/artifacts/$t"
    echo "== $t for ${SECS}s (log $OUT/$t.log)"
    "$OUT/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$OUT/artifacts/$t/" "$OUT/corpus/$t" "tests/fuzz/corpus/$t" >"$OUT/$t.log" 2>&1 &
    PIDS[$t]=$!
done
FAIL=0
for t in "${TARGETS[@]}"; do
    if wait "${PIDS[$t]}"; then
        echo "$t: OK ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/$t.log" | grep -o '[0-9]*$') runs," \
             "corpus $(ls "$OUT/corpus/$t" | wc -l) files)"
    else
        echo "$t: FAILED (see $OUT/$t.log and $OUT/artifacts/$t/)"; tail -30 "$OUT/$t.log"; FAIL=1
    fi
done
if [ "${MINIMIZE:-0}" = 1 ]; then
    for t in "${TARGETS[@]}"; do
        rm -rf "$OUT/min/$t"; mkdir -p "$OUT/min/$t"
        "$OUT/$t" -merge=1 "$OUT/min/$t" "tests/fuzz/corpus/$t" "$OUT/corpus/$t" >"$OUT/$t.merge.log" 2>&1
        echo "$t: minimal corpus $(ls "$OUT/min/$t" | wc -l) files in $OUT/min/$t"
    done
fi
exit $FAIL
