/* SPDX-License-Identifier: BSD-3-Clause */
/* segscan_pipe_kernel.cuh - the single-pass scan by key of
 * segscan_kernel.cuh (same pairs, same layout, exact operators) for sm_90,
 * with the loads pipelined: values and keys 16-byte aligned (segmented_scan.cu
 * picks it; offsets and other calls keep segscan_kernel).
 *
 * A block stays resident and takes tile after tile from a counter; while it
 * works on one tile the copy engine (bulk_pipe.cuh) brings the next one's
 * values and keys into the other of two shared-memory stages. Per tile,
 * three barriers, as in runs_pipe_kernel.cuh:
 *   A   the stage of the tile before is free: thread 0 claims the tile
 *       after next and has it copied there;
 *   B1  every thread has its vectors in registers and its warp's inclusive
 *       pair scan in s_group; every warp scans the groups itself, warp 0
 *       publishes the aggregate. A vector whose tile-local prefix holds a
 *       head does not depend on earlier tiles: it is stored at once, while
 *       warp 0 looks back;
 *   B2  the tile's prefix is in s_before: the vectors before the tile's
 *       first head (most tiles: a few at its start) are stored.
 * In place is safe: a tile is in registers before it stores, and stores
 * only its own elements; tiles are claimed in order, so no later tile's
 * copy can read a stored element. Deadlock-free as runs_pipe_kernel.cuh. */
#ifndef GPUPRIM_CUDA_SEGSCAN_PIPE_KERNEL_CUH
#define GPUPRIM_CUDA_SEGSCAN_PIPE_KERNEL_CUH

#include "bulk_pipe.cuh"
#include "segscan_kernel.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi {

template <typename T>
constexpr long long segscan_pipe_tile_items()
{
    return (long long)segscan_pipe_policy::threads * segscan_pipe_policy::vectors * (16 / (long long)sizeof(T));
}
constexpr size_t segscan_round128(size_t b) { return (b + 127) / 128 * 128; }
/* A stage: the tile's values, then its keys. */
template <typename T, typename K>
constexpr size_t segscan_pipe_value_area()
{
    return segscan_round128((size_t)segscan_pipe_tile_items<T>() * sizeof(T));
}
template <typename T, typename K>
constexpr size_t segscan_pipe_smem_bytes()
{
    return 2 * (segscan_pipe_value_area<T, K>() + segscan_round128((size_t)segscan_pipe_tile_items<T>() * sizeof(K)));
}
/* The launch bound: the policy's blocks per SM, or as many as fit an SM's
 * shared memory (228 KB, 1 KB reserved per block). */
template <typename T, typename K>
constexpr int segscan_pipe_min_blocks()
{
    const int fit = (int)(228 * 1024 / (segscan_pipe_smem_bytes<T, K>() + 2048));
    return segscan_pipe_policy::blocks < fit ? segscan_pipe_policy::blocks : (fit > 0 ? fit : 1);
}

/* K: the key type (== decides; uint32/uint64 for integers of either sign).
 * vec_out: out is 16-byte aligned. next_tile: a zeroed counter. */
template <typename T, typename Op, typename K>
__global__ void __launch_bounds__(segscan_pipe_policy::threads, segscan_pipe_min_blocks<T, K>())
    segscan_pipe_kernel(const T *in, T *out, const K *keys, long long n, bool inclusive, bool vec_out, T identity,
                        pair_state<seg_pair<T>> st, unsigned long long *next_tile)
{
#if GPI_HAS_BULK_COPY
    constexpr int THREADS = segscan_pipe_policy::threads, VECS = segscan_pipe_policy::vectors;
    constexpr int VI = 16 / (int)sizeof(T), WARPS = THREADS / 32, GROUPS = VECS * WARPS;
    constexpr long long ITEMS = segscan_pipe_tile_items<T>();
    static_assert(GROUPS <= 32 && VECS * VI <= 32, "groups one a lane; head bits in one word");
    constexpr unsigned VAL_BYTES = (unsigned)(ITEMS * sizeof(T)), KEY_BYTES = (unsigned)(ITEMS * sizeof(K));
    constexpr size_t VA = segscan_pipe_value_area<T, K>(), SB = segscan_pipe_smem_bytes<T, K>() / 2;
    using Pair = seg_pair<T>;
    using Comb = seg_combine<T, Op>;
    extern __shared__ __align__(128) unsigned char pipe_mem[];
    __shared__ uint64_t landed[2];
    __shared__ long long s_tile[2];
    __shared__ Pair s_group[GROUPS];
    __shared__ Pair s_before;
    Comb comb;
    Op op;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long tiles = (n + ITEMS - 1) / ITEMS;
    const Pair identity_pair{0u, identity};

    /* thread 0: claim the next tile into stage s (a partial one is read from
     * global memory later; the arrival keeps the stage's phases counting) */
    auto claim = [&](int s) {
        const long long c = (long long)atomicAdd(next_tile, 1ull);
        s_tile[s] = c;
        if (c < tiles) {
            if ((c + 1) * ITEMS <= n) {
                mbar_arrive_expect_tx(&landed[s], VAL_BYTES + KEY_BYTES);
                bulk_load(pipe_mem + (size_t)s * SB, in + c * ITEMS, VAL_BYTES, &landed[s]);
                bulk_load(pipe_mem + (size_t)s * SB + VA, keys + c * ITEMS, KEY_BYTES, &landed[s]);
            } else {
                mbar_arrive(&landed[s]);
            }
        }
    };
    if (t == 0) {
        mbar_init(&landed[0], 1);
        mbar_init(&landed[1], 1);
        mbar_init_fence();
        claim(0);
    }

    for (unsigned it = 0;; it++) {
        const int s = (int)(it & 1u);
        __syncthreads(); /* A: stage s ^ 1 is free; s_tile[s] is set */
        if (t == 0) {
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            claim(s ^ 1);
        }
        const long long tile = s_tile[s];
        if (tile >= tiles) break; /* uniform; every later claim is past the end too: no copy in flight */
        const long long base = tile * ITEMS;
        const bool full = base + ITEMS <= n;
        const T *sv = reinterpret_cast<const T *>(pipe_mem + (size_t)s * SB);
        const K *sk = reinterpret_cast<const K *>(pipe_mem + (size_t)s * SB + VA);
        mbar_wait(&landed[s], (it >> 1) & 1u);

        /* ---- load; heads (bit q * VI + j); each vector's pair, scanned across the warp ---- */
        T x[VECS][VI];
        unsigned heads = 0;
        Pair lane_ex[VECS];
#pragma unroll
        for (int q = 0; q < VECS; q++) {
            const int off = (q * THREADS + t) * VI;
            const long long e = base + off;
            const int valid = full ? VI : (e >= n ? 0 : (n - e < VI ? (int)(n - e) : VI));
            K kv[VI];
            if (full) {
                load_elems<T, VI>(sv + off, x[q], true, VI, identity);
                load_elems<K, VI>(sk + off, kv, true, VI, K());
            } else {
                load_elems<T, VI>(in + e, x[q], false, valid, identity);
                load_elems<K, VI>(keys + e, kv, false, valid, K());
            }
            K prev = __shfl_up_sync(0xffffffffu, kv[VI - 1], 1);
            if (lane == 0 && valid > 0) {
                if (off > 0) prev = full ? sk[off - 1] : keys[e - 1];
                else if (tile > 0) prev = keys[base - 1];
            }
            const bool first_elem = tile == 0 && off == 0; /* element 0: always a head */
            unsigned hq = 0;
#pragma unroll
            for (int j = 0; j < VI; j++) {
                if (j < valid && ((j == 0 && first_elem) || !(prev == kv[j]))) hq |= 1u << j;
                prev = kv[j];
            }
            heads |= hq << (q * VI);
            Pair p = identity_pair;
#pragma unroll
            for (int j = 0; j < VI; j++) /* past `valid`: identity values, no heads: p unchanged */
                p = (hq >> j & 1u) ? Pair{1u, op(identity, x[q][j])} : Pair{p.seen, op(p.v, x[q][j])};
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const Pair y = pair_shfl<SHFL_UP>(p, d);
                if (lane >= d) p = comb(y, p);
            }
            const Pair y = pair_shfl<SHFL_UP>(p, 1);
            lane_ex[q] = lane == 0 ? identity_pair : y;
            if (lane == 31) s_group[q * WARPS + warp] = p;
        }
        __syncthreads(); /* B1: groups in */

        /* ---- every warp: the groups' exclusive scan, and the tile's total ---- */
        Pair g = lane < GROUPS ? s_group[lane] : identity_pair;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const Pair y = pair_shfl<SHFL_UP>(g, d);
            if (lane >= d) g = comb(y, g);
        }
        const Pair total = pair_shfl<SHFL_IDX>(g, 31);
        Pair gex = pair_shfl<SHFL_UP>(g, 1);
        if (lane == 0) gex = identity_pair;
        if (warp == 0 && lane == 0) pair_publish(st, tile, total, tile == 0 ? TILE_INCLUSIVE : TILE_AGGREGATE);

        /* one vector's outputs from the run entering it */
        auto store_vector = [&](int q, T run) {
            const long long e = base + (long long)(q * THREADS + t) * VI;
            T yv[VI];
#pragma unroll
            for (int j = 0; j < VI; j++) {
                const bool head = heads >> (q * VI + j) & 1u;
                const T incl = head ? op(identity, x[q][j]) : op(run, x[q][j]);
                yv[j] = inclusive ? incl : (head ? identity : run);
                run = incl;
            }
            if (full && vec_out) {
                store_elems<T, VI>(out + e, yv, true, VI);
            } else {
#pragma unroll
                for (int j = 0; j < VI; j++)
                    if (e + j < n) out[e + j] = yv[j];
            }
        };
        /* vectors after a head of this tile: now */
        unsigned deferred = 0;
#pragma unroll
        for (int q = 0; q < VECS; q++) {
            lane_ex[q] = comb(pair_shfl<SHFL_IDX>(gex, q * WARPS + warp), lane_ex[q]); /* tile-local prefix */
            if (lane_ex[q].seen) store_vector(q, lane_ex[q].v);
            else deferred |= 1u << q;
        }

        /* ---- warp 0: the tile's prefix ---- */
        if (warp == 0) {
            Pair before = identity_pair;
            if (tile > 0) {
                before = pair_look_back_nearest(st, tile, comb, identity_pair, lane, segscan_pipe_policy::delay_poll);
                if (lane == 0) pair_publish(st, tile, comb(before, total), TILE_INCLUSIVE);
            }
            if (lane == 0) s_before = before;
        }
        __syncthreads(); /* B2: s_before set */
        if (deferred) {
            const T before_v = s_before.v;
#pragma unroll
            for (int q = 0; q < VECS; q++)
                if (deferred >> q & 1u) store_vector(q, op(before_v, lane_ex[q].v));
        }
    }
#else
    __trap(); /* never launched: segmented_scan.cu checks the code was built for sm_90 */
#endif
}

} // namespace gpi

#endif
