#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Renderer benchmark: every scene at 1024, 4096 and 8192 through the CUDA backend.
#   bench/bench_render.sh [BUILD_DIR [SNOW_PAR]]
#     BUILD_DIR  holds the `renderer` program (default: build)
#     SNOW_PAR   the snowsingle frame (default: ../shared/data/snow.par beside
#                the repository, else shared/data/snow.par inside it)
#   environment: SIZES (default "1024 4096 8192"), FRAMES (default 10),
#                BACKEND (default cuda), TIMEOUT seconds per run (default 300),
#                CSV (also write the table as CSV to this file)
# Each run is `renderer --scene S --size N --bench FRAMES --backend BACKEND`
# (snowsingle: --scene-file SNOW_PAR instead of --scene). The renderer prints
# a line containing "mean" or "ms per frame" with the milliseconds per frame (clear + advance +
# render, synchronized, mean of the frames); this script takes the number
# before "ms" on that line (else the first number after "mean") and prints
# the raw line when it cannot parse it.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
RENDERER="$BUILD/renderer"
if [ -n "${2:-}" ]; then
    SNOW="$2"
elif [ -f "$ROOT/../shared/data/snow.par" ]; then
    SNOW="$ROOT/../shared/data/snow.par"
else
    SNOW="$ROOT/shared/data/snow.par"
fi
SIZES=${SIZES:-"1024 4096 8192"}
FRAMES=${FRAMES:-10}
BACKEND=${BACKEND:-cuda}
TIMEOUT=${TIMEOUT:-300}
CSV=${CSV:-}

SCENES="rgb rgby rand10k rand100k rand1M micro2M biglittle littlebig pattern snowsingle bouncingballs hypnosis fireworks"

# The anchor: the course's public fast solution at 1024^2, ms per frame,
# measured on an H200; the target is >= 3x faster on every scene.
ref_ms() {
    case "$1" in
        rand10k) echo 0.70 ;; rand100k) echo 1.64 ;; rand1M) echo 1.78 ;; micro2M) echo 1.08 ;;
        biglittle) echo 2.06 ;; snowsingle) echo 0.64 ;; pattern) echo 0.20 ;; rgb) echo 0.078 ;;
        *) echo "" ;;
    esac
}

if [ ! -x "$RENDERER" ]; then
    echo "bench_render: no renderer program at $RENDERER (usage: $0 [BUILD_DIR [SNOW_PAR]])" >&2
    exit 2
fi
TO=""
command -v timeout >/dev/null 2>&1 && TO="timeout $TIMEOUT"

echo "bench_render  $(date '+%F %T %Z')  renderer=$RENDERER backend=$BACKEND frames=$FRAMES"
if command -v nvidia-smi >/dev/null 2>&1; then
    echo "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | head -1)"
fi
echo "ms = the renderer's own 'mean' per frame (clear + advance + render); ref = public fast solution at 1024^2; speedup = ref/ms (target >= 3)"
echo
printf "%-14s %6s %10s %8s %8s  %s\n" scene size ms ref_ms speedup status
[ -n "$CSV" ] && echo "scene,size,ms,ref_ms,speedup,status" >"$CSV"

fails=0
for size in $SIZES; do
    for scene in $SCENES; do
        if [ "$scene" = snowsingle ]; then
            if [ ! -f "$SNOW" ]; then
                printf "%-14s %6s %10s %8s %8s  %s\n" "$scene" "$size" - - - "SKIP (no $SNOW)"
                continue
            fi
            args=(--scene-file "$SNOW")
        else
            args=(--scene "$scene")
        fi
        log=$(mktemp)
        $TO "$RENDERER" "${args[@]}" --size "$size" --bench "$FRAMES" --backend "$BACKEND" >"$log" 2>&1
        rc=$?
        line=$(grep -iE 'mean|ms per frame' "$log" | tail -1)
        ms=""
        if [ -n "$line" ]; then
            # the number right before "ms" ...
            ms=$(printf '%s\n' "$line" | grep -oiE '[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)? *ms\b' | head -1 | grep -oE '^[0-9.eE+-]+')
            # ... else the first number after "mean"
            [ -n "$ms" ] || ms=$(printf '%s\n' "$line" | sed -nE 's/.*[Mm][Ee][Aa][Nn][^0-9]*([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?).*/\1/p' | head -1)
        fi
        status=OK
        if [ $rc -ne 0 ]; then
            status="rc=$rc: $(tail -1 "$log")"
            fails=$((fails + 1))
        elif [ -z "$ms" ]; then
            status="UNPARSED: ${line:-$(tail -1 "$log")}"
            fails=$((fails + 1))
        fi
        ref=""; speed=""
        [ "$size" = 1024 ] && ref=$(ref_ms "$scene")
        if [ -n "$ref" ] && [ -n "$ms" ]; then
            speed=$(awk -v r="$ref" -v m="$ms" 'BEGIN { if (m > 0) printf "%.2f", r / m }')
        fi
        printf "%-14s %6s %10s %8s %8s  %s\n" "$scene" "$size" "${ms:--}" "${ref:--}" "${speed:--}" "$status"
        [ -n "$CSV" ] && echo "$scene,$size,$ms,$ref,$speed,$(printf '%s' "$status" | tr ',' ';')" >>"$CSV"
        rm -f "$log"
    done
done
echo
[ $fails -eq 0 ] && echo "all runs parsed" || echo "$fails run(s) failed or could not be parsed (see status)"
exit $((fails > 0))
