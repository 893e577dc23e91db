/* SPDX-License-Identifier: BSD-3-Clause */
/* block_scan.cuh - a block's scan of its vectors' totals, chained to the
 * tiles before it by decoupled look-back (lookback.cuh): the block-level
 * step of the single-pass scan, compaction and find-repeats.
 *
 * Layering (as CUB does it): thread -> a thread reduces its own 16-byte
 * vectors; warp -> shuffle scans of the vector totals; block -> warp 0
 * scans the warp totals; device -> tiles chained by look-back. */
#ifndef GPUPRIM_CUDA_BLOCK_SCAN_CUH
#define GPUPRIM_CUDA_BLOCK_SCAN_CUH

#include "lookback.cuh"
#include "warp_scan.cuh"

#include <cuda_runtime.h>

namespace gpi {

/* Each thread holds the totals of its VECTORS vectors (vector k of thread t
 * is group (k, warp) in tile order, k-major: tile_io.cuh). Writes into
 * prefix[k] the combined total of everything before that vector: earlier
 * tiles (found by look-back when LOOKBACK; otherwise only `seed`), earlier
 * (k, warp) groups and earlier lanes. Returns the inclusive total through
 * the end of the tile. Every thread of the block must call it (it has
 * barriers). */
template <typename T, typename Op, int THREADS, int VECTORS, bool LOOKBACK>
__device__ __forceinline__ T block_vector_prefixes(T (&agg)[VECTORS], T (&prefix)[VECTORS], long long tile, T identity,
                                                   tile_state<T> st, lookback_delay delay, T seed)
{
    constexpr int WARPS = THREADS / 32, GROUPS = VECTORS * WARPS, PER_LANE = GROUPS / 32;
    static_assert(GROUPS % 32 == 0, "warp 0 scans the group totals in whole lanes");
    __shared__ T group_prefix[GROUPS];
    __shared__ T tile_prefix, tile_end;
    Op op;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    /* warp: inclusive scan of the vector totals, all k at once (independent chains) */
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
#pragma unroll
        for (int k = 0; k < VECTORS; k++) {
            T y = __shfl_up_sync(0xffffffffu, agg[k], off);
            if (lane >= off) agg[k] = op(y, agg[k]);
        }
    }
    T lane_prefix[VECTORS];
#pragma unroll
    for (int k = 0; k < VECTORS; k++) {
        T y = __shfl_up_sync(0xffffffffu, agg[k], 1);
        lane_prefix[k] = lane == 0 ? identity : y;
        if (lane == 31) group_prefix[k * WARPS + warp] = agg[k]; /* warp total for now */
    }
    __syncthreads();

    /* block: warp 0 scans the (k, warp) group totals, then finds the tile prefix */
    if (warp == 0) {
        const T total = warp_exclusive_scan_shared<T, Op, PER_LANE>(group_prefix, op, identity, lane);
        /* seed: what comes before tile 0 (the identity, or a distributed
         * scan's prefix from the ranks before this one). */
        T before = seed;
        if (LOOKBACK) {
            if (tile == 0) {
                if (lane == 0) tile_publish(st, tile, op(seed, total), TILE_INCLUSIVE);
            } else {
                if (lane == 0) tile_publish(st, tile, total, TILE_AGGREGATE);
                before = tile_look_back<T, Op>(st, tile, op, identity, lane, delay);
                if (lane == 0) tile_publish(st, tile, op(before, total), TILE_INCLUSIVE);
            }
        }
        if (lane == 0) {
            tile_prefix = before;
            tile_end = op(before, total);
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < VECTORS; k++) prefix[k] = op(op(tile_prefix, group_prefix[k * WARPS + warp]), lane_prefix[k]);
    return tile_end;
}

} // namespace gpi

#endif
