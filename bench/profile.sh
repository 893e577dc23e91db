#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Nsight Compute profiles of the kernels that matter most, on the GPU
# machine: speed of light, occupancy and warp stall reasons for the scan,
# find-repeats, stencil and transpose kernels (the scan at 2^28: the pipelined
# kernel; GP_CUDA_SCAN=onepass profiles the plain one), and the per-kernel time split
# of one renderer frame. Clocks are left alone (--clock-control none); the
# renderer's kernels keep L2 between them (--cache-control none), since its
# binning data lives there (with flushes, CUB's sort read 51 us, in the frame 90).
#   bench/profile.sh [BUILD_DIR]      (default build-gpu); output on stdout
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-gpu}
NCU="ncu --clock-control none"
SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis"
METRICS="--metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_requests_op_read.sum"
for spec in "scan_(onepass|pipelined)_kernel scan 268435456" "find_repeats_kernel find_repeats 268435456" \
            "stencil_2d stencil 16384" "transpose transpose 16384"; do
    set -- $spec
    [ $# -eq 3 ] || continue
    echo "==== $1 ($2, n = $3)"
    $NCU $SECTIONS $METRICS -k "regex:$1" -s 1 -c 1 "$B/bench/prof_one" "$2" "$3" 3 2>&1 |
        grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Stall|stalled|Warp Cycles|Registers Per|Block Limit|L2 Hit|Mem Busy|Max Bandwidth|dram__bytes|lts__t_" | head -32
done
for s in rand1M biglittle rand100k; do
    echo "==== renderer $s 1024: per-kernel time of one frame (L2 not flushed between kernels, as in the frame)"
    $NCU --cache-control none --metrics gpu__time_duration.sum --print-summary per-kernel "$B/renderer" --scene "$s" --backend cuda \
        --bench 1 --output /tmp/p.ppm 2>&1 | grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" | sed -E 's/\(int, .*|\(Args.*//' | cut -c1-150
done
