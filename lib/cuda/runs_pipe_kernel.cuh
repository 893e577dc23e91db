/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_pipe_kernel.cuh - the runs kernel of runs_kernel.cuh (same pairs,
 * same outputs) for sm_90, with the loads pipelined: unique, unique-by-key,
 * run-length encoding and reduce-by-key with exact operators, keys and
 * values 16-byte aligned (runs.cu picks it; other calls keep runs_kernel).
 *
 * A block stays resident and takes tile after tile from a counter. While it
 * works on one tile, the copy engine (bulk_pipe.cuh) already brings the
 * next one's keys and values into the other of two shared-memory stages, so
 * loads stay in flight through the scan, the look-back and the writes.
 *
 * Layout: vector q of thread t holds elements (q * THREADS + t) * VI + [0,
 * VI) of the tile, VI = 16 / key size (conflict-free 16-byte reads of the
 * stage); the pairs of the vectors combine in that order (q-major, then
 * warp, then lane). Per tile, three barriers:
 *   A   the previous tile's writes are done with its stage: thread 0 claims
 *       the tile after next and has it copied into that stage;
 *   B1  every thread has its elements in registers and its warp's
 *       inclusive pair scan in s_group; every warp then scans the groups
 *       itself (no second barrier), warp 0 publishes the tile's aggregate;
 *       each thread stages its outputs at their tile-local slots in its
 *       tile's stage (its input is in registers now); warp 0 looks back;
 *   B2  the tile's prefix is in s_before: the block writes the staged
 *       entries to their global slots, in order (coalesced).
 * Staged values are tile-local: the one entry whose run began in an
 * earlier tile (entry 0 of the completed runs) takes the prefix on its way
 * out: its reduction the prefix's value first, its length the distance from
 * the prefix's last head (staged: from the tile's start). Lengths of runs
 * that begin in the tile are below the tile size: staged in 32 bits. In place is as safe as in runs_kernel: a
 * tile writes only below its own end, after its look-back, when every
 * earlier tile has read its input; tiles are claimed in order, so a later
 * tile's input lies above every earlier tile's writes.
 *
 * Deadlock-free: tiles are claimed in increasing order by running blocks;
 * the earliest unfinished tile is always some block's current tile (a tile
 * claimed ahead sits behind its block's current, earlier one), and its
 * predecessors are all done. */
#ifndef GPUPRIM_CUDA_RUNS_PIPE_KERNEL_CUH
#define GPUPRIM_CUDA_RUNS_PIPE_KERNEL_CUH

#include "bulk_pipe.cuh"
#include "runs_kernel.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi {

template <typename K>
constexpr long long runs_pipe_tile_items()
{
    return (long long)runs_pipe_policy::threads * runs_pipe_policy::vectors * (16 / (long long)sizeof(K));
}
constexpr size_t round128(size_t b) { return (b + 127) / 128 * 128; }

/* A stage: the tile's keys (room for their staging, padded), then its
 * values (likewise; none for unique). LENGTHS: after both stages, one area
 * for the tile's staged lengths. */
template <typename K, typename V, runs_mode MODE>
constexpr size_t runs_pipe_key_area()
{
    return round128((size_t)stage_bytes<K>(runs_pipe_tile_items<K>()));
}
template <typename K, typename V, runs_mode MODE>
constexpr size_t runs_pipe_stage_bytes()
{
    return runs_pipe_key_area<K, V, MODE>() +
           (MODE == RUNS_NO_VALUES ? 0 : round128((size_t)stage_bytes<V>(runs_pipe_tile_items<K>())));
}
template <typename K, typename V, runs_mode MODE, bool LENGTHS>
constexpr size_t runs_pipe_smem_bytes()
{
    return 2 * runs_pipe_stage_bytes<K, V, MODE>() +
           (LENGTHS ? round128((size_t)stage_bytes<uint32_t>(runs_pipe_tile_items<K>())) : 0);
}
/* The launch bound: the policy's blocks per SM, or fewer where fewer fit
 * an SM's shared memory (228 KB, 1 KB of it reserved per block; the
 * static part under 1 KB), which leaves those more registers. */
template <typename K, typename V, runs_mode MODE, bool LENGTHS>
constexpr int runs_pipe_min_blocks()
{
    const int want = MODE == RUNS_NO_VALUES ? runs_pipe_policy::blocks_keys : runs_pipe_policy::blocks_values;
    const int fit = (int)(228 * 1024 / (runs_pipe_smem_bytes<K, V, MODE, LENGTHS>() + 2048));
    return want < fit ? want : (fit > 0 ? fit : 1);
}

/* next_tile: a zeroed counter. LENGTHS: lengths receives each run's
 * length (the pair carries pos); else a pair's pos, if it has one, is not
 * kept. */
template <typename K, typename V, typename Op, runs_mode MODE, typename Pair, bool LENGTHS>
__global__ void __launch_bounds__(runs_pipe_policy::threads, runs_pipe_min_blocks<K, V, MODE, LENGTHS>())
    runs_pipe_kernel(const K *keys, const V *vals, long long n, K *keys_out, V *vals_out,
                     unsigned long long *lengths, pair_state<Pair> st, unsigned long long *next_tile, V identity,
                     unsigned long long *count_out)
{
#if GPI_HAS_BULK_COPY
    constexpr int THREADS = runs_pipe_policy::threads, VECS = runs_pipe_policy::vectors;
    constexpr int VI = 16 / (int)sizeof(K), WARPS = THREADS / 32, GROUPS = VECS * WARPS;
    constexpr long long ITEMS = runs_pipe_tile_items<K>();
    constexpr bool REDUCE = MODE == RUNS_REDUCE, WITH_VALUES = MODE != RUNS_NO_VALUES;
    static_assert(REDUCE == Pair::has_value, "reduce-by-key, and only it, carries a value");
    static_assert(!LENGTHS || Pair::has_pos, "lengths need the pair's pos");
    static_assert(GROUPS <= 32 && VECS * VI <= 32, "groups one a lane; head bits in one word");
    constexpr unsigned KEY_BYTES = (unsigned)(ITEMS * sizeof(K));
    constexpr unsigned VAL_BYTES = WITH_VALUES ? (unsigned)(ITEMS * sizeof(V)) : 0u;
    constexpr size_t KA = runs_pipe_key_area<K, V, MODE>(), SB = runs_pipe_stage_bytes<K, V, MODE>();
    extern __shared__ __align__(128) unsigned char pipe_mem[];
    __shared__ uint64_t landed[2];
    __shared__ long long s_tile[2];
    __shared__ Pair s_group[GROUPS];
    __shared__ Pair s_before;
    using Comb = run_combine<Pair, Op>;
    Comb comb;
    Op op;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long tiles = (n + ITEMS - 1) / ITEMS;
    Pair identity_pair{};
    if constexpr (Pair::has_value) identity_pair.v = identity;

    /* thread 0: claim the next tile into stage s; a full tile is copied,
     * a partial one read from global memory later (the arrival keeps the
     * stage's phases counting). Nothing past the last tile is copied. */
    auto claim = [&](int s) {
        const long long c = (long long)atomicAdd(next_tile, 1ull);
        s_tile[s] = c;
        if (c < tiles) {
            if ((c + 1) * ITEMS <= n) {
                mbar_arrive_expect_tx(&landed[s], KEY_BYTES + VAL_BYTES);
                bulk_load(pipe_mem + (size_t)s * SB, keys + c * ITEMS, KEY_BYTES, &landed[s]);
                if constexpr (WITH_VALUES)
                    bulk_load(pipe_mem + (size_t)s * SB + KA, vals + c * ITEMS, VAL_BYTES, &landed[s]);
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
        __syncthreads(); /* A: stage s ^ 1 is free (its tile's writes are done); s_tile[s] is set */
        if (t == 0) {
            /* the stage was last written by threads: order that before the copy engine's writes */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            claim(s ^ 1);
        }
        const long long tile = s_tile[s];
        if (tile >= tiles) break; /* uniform; then every later claim is past the end too: no copy in flight */
        const long long base = tile * ITEMS;
        const bool full = base + ITEMS <= n, last_tile = base + ITEMS >= n;
        unsigned char *stage = pipe_mem + (size_t)s * SB;
        K *sk = reinterpret_cast<K *>(stage);
        V *sv = reinterpret_cast<V *>(stage + KA);
        uint32_t *sl = reinterpret_cast<uint32_t *>(pipe_mem + 2 * SB); /* LENGTHS */
        mbar_wait(&landed[s], (it >> 1) & 1u);

        /* ---- elements, heads (bit q * VI + j), each vector's pair ---- */
        K kv[VECS][VI];
        V xv[VECS][VI];
        unsigned heads = 0;
        Pair lane_ex[VECS];
#pragma unroll
        for (int q = 0; q < VECS; q++) {
            const int off = (q * THREADS + t) * VI; /* in the tile */
            const long long e = base + off;
            const int valid = full ? VI : (e >= n ? 0 : (n - e < VI ? (int)(n - e) : VI));
            if (full) {
                load_elems<K, VI>(sk + off, kv[q], true, VI, K());
                if constexpr (WITH_VALUES) load_elems<V, VI>(sv + off, xv[q], true, VI, identity);
            } else {
                load_elems<K, VI>(keys + e, kv[q], false, valid, K());
                if constexpr (WITH_VALUES) load_elems<V, VI>(vals + e, xv[q], false, valid, identity);
            }
            /* the key before the vector: the previous lane's last, or (lane 0)
             * the stage's (global memory's at the tile's start or past a full tile) */
            K prev = __shfl_up_sync(0xffffffffu, kv[q][VI - 1], 1);
            if (lane == 0 && valid > 0) {
                if (off > 0) prev = full ? sk[off - 1] : keys[e - 1];
                else if (tile > 0) prev = keys[base - 1];
            }
            const bool first_elem = tile == 0 && off == 0; /* element 0: always a head */
            unsigned hq = 0;
#pragma unroll
            for (int j = 0; j < VI; j++) {
                if (j < valid && ((j == 0 && first_elem) || !(prev == kv[q][j]))) hq |= 1u << j;
                prev = kv[q][j];
            }
            heads |= hq << (q * VI);
            Pair p = identity_pair;
            p.count = (unsigned)__popc(hq);
            if constexpr (LENGTHS) p.pos = hq ? (unsigned long long)(e + 31 - __clz(hq)) : 0ull;
            if constexpr (REDUCE) {
                /* past `valid`: identity values and no heads, which leave acc as it is */
                V acc = identity;
#pragma unroll
                for (int j = 0; j < VI; j++) acc = (hq >> j & 1u) ? op(identity, xv[q][j]) : op(acc, xv[q][j]);
                p.v = acc;
            }
            /* warp: inclusive scan of the lanes' pairs */
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const Pair y = pair_shfl<SHFL_UP>(p, d);
                if (lane >= d) p = comb(y, p);
            }
            const Pair y = pair_shfl<SHFL_UP>(p, 1);
            lane_ex[q] = lane == 0 ? identity_pair : y;
            if (lane == 31) s_group[q * WARPS + warp] = p;
        }
        __syncthreads(); /* B1: groups in; every input read out of the stage */

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

        /* ---- stage: keys (first values) at their run's tile-local slot j;
         * reductions and lengths at the slot of the run they complete
         * (entry j: local run j - 1; entry 0 the run open at the tile's
         * start, without the part before the tile) ---- */
        const int tile_count = (int)total.count;
#pragma unroll
        for (int q = 0; q < VECS; q++) {
            const Pair in = comb(pair_shfl<SHFL_IDX>(gex, q * WARPS + warp), lane_ex[q]);
            const int off = (q * THREADS + t) * VI;
            int slot = (int)in.count;
            V acc{};
            if constexpr (REDUCE) acc = in.v;
            int start = 0; /* LENGTHS: the open run's head, tile-relative (0: before the tile) */
            if constexpr (LENGTHS) start = in.count ? (int)((long long)in.pos - base) : 0;
#pragma unroll
            for (int j = 0; j < VI; j++) {
                if (heads >> (q * VI + j) & 1u) {
                    sk[stage_at<K>(slot)] = kv[q][j];
                    if constexpr (MODE == RUNS_FIRST) sv[stage_at<V>(slot)] = xv[q][j];
                    if constexpr (REDUCE) {
                        sv[stage_at<V>(slot)] = acc;
                        acc = op(identity, xv[q][j]);
                    }
                    if constexpr (LENGTHS) {
                        sl[stage_at<uint32_t>(slot)] = (uint32_t)(off + j - start);
                        start = off + j;
                    }
                    slot++;
                } else if constexpr (REDUCE) {
                    acc = op(acc, xv[q][j]);
                }
            }
            if constexpr (REDUCE || LENGTHS) { /* element n - 1 completes the last run */
                const long long e = base + off;
                if (last_tile && e < n && n - e <= VI) {
                    if constexpr (REDUCE) sv[stage_at<V>(slot)] = acc;
                    if constexpr (LENGTHS) sl[stage_at<uint32_t>(slot)] = (uint32_t)(n - base - start);
                }
            }
        }

        /* ---- warp 0: the tile's prefix ---- */
        if (warp == 0) {
            Pair before = identity_pair;
            if (tile > 0) {
                before = pair_look_back_nearest(st, tile, comb, identity_pair, lane, runs_pipe_policy::delay_poll);
                if (lane == 0) pair_publish(st, tile, comb(before, total), TILE_INCLUSIVE);
            }
            if (lane == 0) s_before = before;
        }
        __syncthreads(); /* B2: staged; s_before set */

        /* ---- write, in order ---- */
        const Pair before = s_before;
        const unsigned long long first = before.count; /* this tile's first run */
        for (int j = t; j < tile_count; j += THREADS) keys_out[first + (unsigned long long)j] = sk[stage_at<K>(j)];
        if constexpr (MODE == RUNS_FIRST)
            for (int j = t; j < tile_count; j += THREADS) vals_out[first + (unsigned long long)j] = sv[stage_at<V>(j)];
        /* completed runs: entry j is run first - 1 + j; tile 0 has no run before its first */
        const int lo = tile == 0 ? 1 : 0, hi = tile_count + (last_tile ? 1 : 0);
        if constexpr (REDUCE) {
            for (int j = lo + t; j < hi; j += THREADS) {
                V x = sv[stage_at<V>(j)];
                if (j == 0) x = op(before.v, x);
                vals_out[first - 1 + (unsigned long long)j] = x;
            }
        }
        if constexpr (LENGTHS) {
            for (int j = lo + t; j < hi; j += THREADS) {
                unsigned long long len = sl[stage_at<uint32_t>(j)];
                if (j == 0) len = (unsigned long long)base + len - (unsigned long long)before.pos;
                lengths[first - 1 + (unsigned long long)j] = len;
            }
        }
        if (last_tile && t == 0) *count_out = first + (unsigned long long)tile_count;
    }
#else
    __trap(); /* never launched: runs.cu checks the code was built for sm_90 */
#endif
}

} // namespace gpi

#endif
