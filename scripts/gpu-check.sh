#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one script for the GPU machine (H100/H200): build for sm_90, run the
# whole test suite with the GPU REQUIRED (a missing GPU fails), run
# compute-sanitizer over the GPU cases, check the renderer against the CPU
# reference, and run the benchmarks.
#   scripts/gpu-check.sh [stage ...]   stages: build test dist large sanitize render bench benchdist renderab demos count64
#                                      (default: all)
# SANITIZE_TOOLS (default: memcheck racecheck initcheck synccheck) and
# SANITIZE_TESTS (default: every test program with CUDA cases) narrow the
# sanitizer stage; all four tools over everything take about half an hour.
# Needs cmocka and libpng: carried as .deps/*.deb (see docs/gpu-machine.md) and unpacked
# to /opt/deps (zlib's, only where the machine has no zlib.h, to /opt/zlib).
# API errors are not reported by the sanitizer: the tests provoke some on
# purpose (out of memory, host pointers) and the library checks every status.
# Logs and tables go to $OUT (or ./gpu-out); a short summary prints last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
BUILD=${BUILD_DIR:-build-gpu}
STAGES=${*:-build test dist large sanitize render bench benchdist demos}
# GPU_CHECK_CMAKE_ARGS adds options to the configure step (e.g. "-DGPUPRIM_BUILD_BENCH=OFF").
# BENCH_PRIMS_ARGS passes options to bench_prims (e.g. "--only sort").
# BENCH_DIST_ONLY (bench_dist --only: prims, render, exchange) and
# BENCH_DIST_TIMEOUT (seconds a bench_dist run may take) narrow benchdist.
# (count64, not in the default: the partition's 64-bit count path in a second build.
# renderab, not in the default: renderer frame times of a base tree, carried
# as .deps/base.tar from `git archive`, and of this one, in one run.)
# NVLink multicast (NVLS) stays off: a program that uses it can put GPUs
# that others share out of service. Every NCCL user below inherits this.
export NCCL_NVLS_ENABLE=0
SUMMARY="$OUT/summary.txt"; : >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
has() { [[ " $STAGES " == *" $1 "* ]]; }

if ls .deps/*.deb >/dev/null 2>&1; then
    mkdir -p /opt/deps
    for f in .deps/*.deb; do
        case "$f" in *zlib1g*) continue ;; esac
        dpkg -x "$f" /opt/deps
    done
    export CMAKE_PREFIX_PATH=/opt/deps/usr
    # libpng's header needs zlib.h; its link-time libz.so (not its runtime:
    # the machine's own libz.so.1 stays the one loaded) only where missing.
    if [ ! -f /usr/include/zlib.h ] && ls .deps/zlib1g*.deb >/dev/null 2>&1; then
        mkdir -p /opt/zlib
        for f in .deps/zlib1g*.deb; do dpkg -x "$f" /opt/zlib; done
        CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH\;/opt/zlib/usr
    fi
    export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

# NCCL: the toolkit's, NCCL_ROOT, or the copy in the nvidia-nccl Python wheel
# (the GPU machines have only that one). gpuprim opens it at run time.
if [ -z "${NCCL_ROOT:-}" ] && [ ! -f /usr/local/cuda/include/nccl.h ]; then
    for d in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl \
             $(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null); do
        [ -f "$d/include/nccl.h" ] && { export NCCL_ROOT=$d; break; }
    done
fi
[ -n "${NCCL_ROOT:-}" ] && export LD_LIBRARY_PATH=$NCCL_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# ../shared does not travel to the GPU machine; a carried copy of the
# course's snow.par (in the ignored .deps/) is put where the tests look.
if [ -f .deps/snow.par ] && [ ! -f ../shared/data/snow.par ]; then
    mkdir -p ../shared/data && cp .deps/snow.par ../shared/data/snow.par
fi

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
note "device: $(sed -n 2p "$OUT/gpu.txt")  date: $(date -u +%F)"

if has build; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} ${NCCL_ROOT:+-DNCCL_ROOT=$NCCL_ROOT} ${GPU_CHECK_CMAKE_ARGS:-} >"$OUT/build.log" 2>&1 &&
    cmake --build "$BUILD" -j "$(nproc)" >>"$OUT/build.log" 2>&1
    rc=$?; note "build: rc=$rc (log build.log); $(grep -o 'gpuprim: NCCL[^(]*' "$OUT/build.log" | head -1)"
    grep -iE "spill|warning" "$OUT/build.log" | grep -v "^--" | head -20 >"$OUT/build-warnings.txt"
    [ $rc -eq 0 ] || { tail -40 "$OUT/build.log"; cat "$SUMMARY"; exit 1; }
fi

if has test; then
    GP_TEST_REQUIRE_GPU=1 ctest --test-dir "$BUILD" -j 4 --output-on-failure --timeout 900 >"$OUT/ctest.log" 2>&1
    rc=$?
    cp "$BUILD/Testing/Temporary/LastTest.log" "$OUT/ctest-detail.log" 2>/dev/null
    pass=$(grep -c '^\[       OK \]' "$OUT/ctest-detail.log"); fail=$(grep -E '^\[  (FAILED|ERROR) +\] [a-z_0-9]+ \[' "$OUT/ctest-detail.log" | sort -u | wc -l)
    skip=$(grep '^\[  SKIPPED \] [a-z_0-9]* \[' "$OUT/ctest-detail.log" | sort -u | wc -l)
    note "tests (GPU required): rc=$rc; $(tail -3 "$OUT/ctest.log" | grep 'tests passed'); cases OK=$pass failed=$fail skipped=$skip"
    [ $rc -eq 0 ] || grep -E "FAILED|ERROR|Failure|fail" "$OUT/ctest.log" | head -30
fi

if has dist; then
    # Every distributed test program's CUDA cases (the CPU ranks run in CI)
    # with every rank count up to the machine's GPUs: one process driving
    # them all (test_dist*), and one process per GPU (test_dist_mp).
    ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
    multi=0; [ "$ngpu" -ge 2 ] && multi=1
    for t in $(cd "$BUILD/tests" && ls test_dist*); do
        GP_TEST_FILTER='*cuda*' GP_TEST_REQUIRE_GPU=1 GP_TEST_REQUIRE_MULTI_GPU=$multi timeout 900 "$BUILD/tests/$t" >"$OUT/$t.log" 2>&1
        note "$t ($ngpu GPUs, NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE): rc=$?; $(grep -c '^\[       OK \]' "$OUT/$t.log") OK, $(grep -E '^\[  (FAILED|ERROR)' "$OUT/$t.log" | sort -u | wc -l) failed, $(grep -c '^\[  SKIPPED \] [a-z]' "$OUT/$t.log") skipped (log $t.log)"
    done
fi

if has large; then
    # n = 2^31 + 17 cases and the workspace out-of-memory case (which takes
    # nearly all device memory for a moment): alone, never beside other tests;
    # test_large_families and test_large_moves: the newer families past
    # 2^31 (a case without enough free memory is skipped, saying so).
    for t in test_large test_large_families test_large_moves; do
        log=${t/test_large/large}.log
        start=$SECONDS
        GP_TEST_LARGE=1 GP_TEST_REQUIRE_GPU=1 "$BUILD/tests/$t" >"$OUT/$log" 2>&1
        rc=$?
        note "$t (n = 2^31 + 17): rc=$rc in $((SECONDS - start)) s; $(grep -c '^\[       OK \]' "$OUT/$log") OK, $(grep -E '^\[  FAILED  \] [a-z_0-9]+ \[' "$OUT/$log" | sort -u | wc -l) failed, $(grep -E '^\[  SKIPPED \] [a-z_0-9]+ \[' "$OUT/$log" | sort -u | wc -l) skipped (log $log)"
    done
fi

if has count64; then
    # The CUDA partition's 64-bit tile counts run only past 2^32 - 1
    # elements; a second build with the 32-bit limit at 0 takes them at the
    # tests' sizes (test_partition's [cuda] cases).
    cmake -S . -B "$BUILD-count64" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_CUDA_FLAGS=-DGPI_PARTITION_COUNT32_MAX=0 -DGPUPRIM_BUILD_BENCH=OFF -DGPUPRIM_BUILD_DEMOS=OFF \
        ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH} >"$OUT/count64.log" 2>&1 &&
        cmake --build "$BUILD-count64" --target test_partition >>"$OUT/count64.log" 2>&1 &&
        GP_TEST_REQUIRE_GPU=1 GP_TEST_FILTER='*cuda*' "$BUILD-count64/tests/test_partition" >>"$OUT/count64.log" 2>&1
    note "count64 (partition with 64-bit tile counts): rc=$?; $(grep -c '^\[       OK \]' "$OUT/count64.log") OK (log count64.log)"
fi

if has sanitize; then
    : >"$OUT/sanitizer.log"
    for tool in ${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}; do
        bad=0; ran=0
        for t in ${SANITIZE_TESTS:-"$BUILD"/tests/test_*}; do
            [ -x "$t" ] || t="$BUILD/tests/$t"
            [ -x "$t" ] || continue
            grep -q '\[cuda\]' "$t" || continue # no CUDA cases: nothing to check
            case "$t" in *test_dist_mp) continue ;; esac # forks ranks; test_dist covers the same kernels
            # test_dist's kernels are the single-context ones (checked by every
            # tool there) plus NCCL's: memcheck alone covers its own paths.
            case "$tool:$t" in memcheck:*) ;; *test_dist | *test_dist_faults | *test_dist_render) continue ;; esac
            ran=$((ran + 1))
            # racecheck reports a hazard at every hand-off of the pipelined scan
            # (bulk copies and shared-memory barriers, mbarrier), each ordered by
            # an arrive/wait pair it may not model (bench/RESULTS.md). It checks
            # the plain single-pass kernel instead; the pipelined one runs under
            # memcheck, initcheck and synccheck.
            # racecheck slows shared-memory work by orders of magnitude: the
            # tests' racecheck sizes (GP_TEST_QUICK=2).
            scan_kernel=; quick=1; [ "$tool" = racecheck ] && scan_kernel=GP_CUDA_SCAN=onepass quick=2
            env $scan_kernel GP_TEST_QUICK=$quick GP_TEST_REQUIRE_GPU=1 GP_TEST_FILTER='*cuda*' \
                compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 99 "$t" >>"$OUT/sanitizer.log" 2>&1 || {
                bad=$((bad + 1)); echo "!! $tool $(basename "$t") failed" >>"$OUT/sanitizer.log"; }
        done
        note "compute-sanitizer $tool: $ran test program(s), $bad with errors (log sanitizer.log)"
    done
fi

if has render; then
    # Each --check renders on the GPU and with the single-threaded CPU
    # reference; the references dominate, so run the cases side by side.
    par=$(ls ../shared/data/snow.par shared/data/snow.par 2>/dev/null | head -1)
    mkdir -p /tmp/render-check
    for size in 1024 1000 2048; do
        for s in rgb rgby rand10k rand100k rand1M micro2M biglittle littlebig pattern snow bouncingballs hypnosis fireworks; do
            echo "--scene $s --size $size"
        done
        [ -n "$par" ] && echo "--scene-file $par --size $size"
    done | xargs -P "$(nproc)" -I{} sh -c '
        args="{}"; log="/tmp/render-check/$(echo "$args" | tr -c "a-zA-Z0-9" _).log"
        if "$0" $args --backend cuda --check --output "${log%.log}.ppm" >"$log" 2>&1; then echo "ok   $args: $(tail -1 "$log")";
        else echo "FAIL $args: $(tail -3 "$log" | tr "\n" " ")"; fi' "$BUILD/renderer" >"$OUT/render-check.log"
    bad=$(grep -c '^FAIL' "$OUT/render-check.log"); total=$(wc -l <"$OUT/render-check.log")
    note "renderer --check (GPU vs CPU reference, 1024/1000/2048): $bad of $total case(s) failed (log render-check.log)"
    grep '^FAIL' "$OUT/render-check.log" | head -10
fi

if has demos; then
    # The demos' figures (bench/README.md, "Demos"): each demo's CUDA path at its full size, and the
    # raytracer's CPU images (both paths) against its CUDA one.
    D="$BUILD/demos"
    {
        "$D/saxpy" --backend cuda -n 64M && "$D/saxpy" --backend cuda -n 256M && "$D/saxpy" --backend cpu -n 64M --reps 5
        "$D/vcopy" --backend cuda
        "$D/euler" --backend cuda -n 250 --method both && "$D/euler" --backend cuda -n 1000 --method fast
        "$D/euler" --backend cpu -n 250 --method both && "$D/euler" --backend cpu -n 1000 --method fast
        "$D/raytrace" --backend cuda --reps 10 --output "$OUT/raytrace_cuda.png" &&
        "$D/raytrace" --backend cpu --output "$OUT/raytrace_cpu.png" --compare "$OUT/raytrace_cuda.png" --tolerance 2 &&
        "$D/raytrace" --backend cpu --cpu-path rays --compare "$OUT/raytrace_cuda.png" --tolerance 2
    } >"$OUT/demos.txt" 2>&1
    note "demos: rc=$? (demos.txt)"
fi

if has renderab; then
    if [ -f .deps/base.tar ]; then
        bench/bench_render_ab.sh .deps/base.tar "$BUILD" >"$OUT/bench_render_ab.txt" 2>&1
        note "bench_render_ab: rc=$? (bench_render_ab.txt)"
    else
        note "bench_render_ab: not run (no .deps/base.tar)"
    fi
fi

# Two or more GPUs: 1 GPU against p, for every p. One GPU: every distributed call on one
# CUDA rank against the single-context call, its communicator made both ways
# (in one process, and through a unique id).
if has benchdist; then
    NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
    if [ ! -x "$BUILD/bench/bench_dist" ]; then
        note "bench_dist: not run (not built: needs NCCL's header)"
    elif [ "$NGPU" -ge 2 ]; then
        # Every GPU count: all of them first (every group), then 2 .. NGPU-1
        # (the all-to-all calls: sort, shuffle, group-by, top-k).
        for p in "$NGPU" $(seq 2 $((NGPU - 1))); do
            only=${BENCH_DIST_ONLY:-}; [ -z "$only" ] && [ "$p" -ne "$NGPU" ] && only=exchange
            timeout "${BENCH_DIST_TIMEOUT:-1800}" "$BUILD/bench/bench_dist" --ranks "$p" ${only:+--only $only} --csv "$OUT/bench_dist_$p.csv" >"$OUT/bench_dist_$p.txt" 2>&1
            note "bench_dist --ranks $p${only:+ --only $only}: rc=$? (bench_dist_$p.txt, .csv)"
        done
    elif [ "$NGPU" -eq 1 ]; then
        for how in init_all unique_id; do
            via=; [ "$how" = unique_id ] && via=--via-id
            log=$OUT/bench_dist_one_rank_$how
            "$BUILD/bench/bench_dist" --ranks 1 ${via:+"$via"} --csv "$log.csv" >"$log.txt" 2>&1
            rc=$?
            note "bench_dist --ranks 1 ($how): rc=$rc (bench_dist_one_rank_$how.txt, .csv); $(grep -h '^within' "$log.txt")"
        done
    else
        note "bench_dist: not run (no GPU)"
    fi
fi

if has bench; then
    if [ -x "$BUILD/bench/bench_prims" ]; then
        "$BUILD/bench/bench_prims" ${BENCH_PRIMS_ARGS:-} --csv "$OUT/bench_prims.csv" >"$OUT/bench_prims.txt" 2>&1
        note "bench_prims: rc=$? (bench_prims.txt, bench_prims.csv)"
    fi
    if [ -x bench/bench_render.sh ]; then
        bench/bench_render.sh "$BUILD" >"$OUT/bench_render.txt" 2>&1
        note "bench_render: rc=$? (bench_render.txt)"
    fi
fi

# The device tool brings back at most 8 files: pack the logs into one.
(cd "$OUT" && ls | grep -v -e '^logs.tgz$' -e '^summary.txt$' | tar czf logs.tgz -T - 2>/dev/null &&
    ls | grep -v -e '^logs.tgz$' -e '^summary.txt$' | xargs rm -f)
echo "================ summary"
cat "$SUMMARY"
