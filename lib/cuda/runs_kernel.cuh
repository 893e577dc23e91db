/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_kernel.cuh - the single-pass kernel over runs of equal consecutive
 * keys for every exact case: unique, unique-by-key, run-length encoding,
 * and reduce-by-key with integer sums, min or max (float sums, whose bits
 * must be sequential, take runs_ordered_kernel.cuh). One read of the keys
 * (and values), one write of the runs.
 *
 * Layout: a tile of THREADS threads x IPT consecutive elements each
 * (runs_policy::key_bytes of keys: 16-byte loads), thread t at t * IPT.
 * An element is a run head when its key differs from the one before it.
 *
 * Everything crossing elements is one pair, combined left to right:
 *   (count, pos, v):  count  heads in the stretch,
 *                     pos    the position of its last head,
 *                     v      the reduction from that head (or of the whole
 *                            stretch when it holds no head) to its end;
 *   a then b = (a.count + b.count, b.count ? b.pos : a.pos,
 *               b.count ? b.v : op(a.v, b.v)),
 * associative for associative op, and exact for integer sums, min and max
 * (earlier operand always on the left: of equal values min and max keep the
 * earliest). Each thread forms its pair; block_pair_prefixes
 * (pair_lookback.cuh) scans them across the block and chains tiles by a
 * warp-wide decoupled look-back. The pair entering a thread then gives its
 * first head's output slot (count), and the run open when it starts (v,
 * pos). Unique and unique-by-key carry the count alone; run-length
 * encoding adds pos; reduce-by-key v (and pos when lengths are asked for).
 * Where the pair fits 62 bits (counts and positions below 2^31, or a count
 * below 2^30 beside a 4-byte value) it travels in one 64-bit word with its
 * flag, with no fence on either side of the look-back.
 *
 * Output: a run's key (and first value) is due at its head; its reduction
 * and length once the next head (or the last element) is met, so a tile
 * completes runs [before - 1, before + count - 1) (and the last run, if it
 * holds element n - 1). Each kind is staged in shared memory at its slot
 * within the tile, then written by the block in order (coalesced); padding
 * one element per 128 bytes keeps the staging writes of runs of one (lane l
 * at l * IPT + i) free of bank conflicts. In place is safe: a tile writes only
 * after its look-back, when every earlier tile has read all of its input; every
 * entry lands at or before the input position it comes from; and a key it could
 * write at the element the next tile reads (its last) is that key itself. */
#ifndef GPUPRIM_CUDA_RUNS_KERNEL_CUH
#define GPUPRIM_CUDA_RUNS_KERNEL_CUH

#include "ops.cuh"
#include "pair_lookback.cuh"
#include "policy/runs.cuh"
#include "runs_common.cuh"
#include "vector_io.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi {

/* ---- the pairs of each mode ---- */
struct run_count { /* unique, unique-by-key */
    unsigned long long count;
    static constexpr bool packed = true, has_pos = false, has_value = false;
    __device__ __forceinline__ unsigned long long word() const { return count; }
    __device__ static __forceinline__ run_count from_word(unsigned long long w) { return run_count{w}; }
};
struct run_count_pos { /* run-length encoding */
    unsigned long long count, pos;
    static constexpr bool packed = false, has_pos = true, has_value = false;
};
struct run_count_pos31 { /* run-length encoding, n < 2^31: count and pos 31 bits each */
    unsigned count, pos;
    static constexpr bool packed = true, has_pos = true, has_value = false;
    __device__ __forceinline__ unsigned long long word() const { return (unsigned long long)count << 31 | pos; }
    __device__ static __forceinline__ run_count_pos31 from_word(unsigned long long w)
    {
        return run_count_pos31{(unsigned)(w >> 31), (unsigned)(w & 0x7fffffffu)};
    }
};
template <typename V>
struct run_count_value30 { /* reduce-by-key, no lengths, 4-byte V, n < 2^30: count 30 bits, then v's 32 */
    static_assert(sizeof(V) == 4, "the value takes a word's low 32 bits");
    unsigned count;
    V v;
    static constexpr bool packed = true, has_pos = false, has_value = true;
    __device__ __forceinline__ unsigned long long word() const
    {
        uint32_t bits;
        memcpy(&bits, &v, 4);
        return (unsigned long long)count << 32 | bits;
    }
    __device__ static __forceinline__ run_count_value30 from_word(unsigned long long w)
    {
        const uint32_t bits = (uint32_t)w;
        run_count_value30 r;
        r.count = (unsigned)(w >> 32);
        memcpy(&r.v, &bits, 4);
        return r;
    }
};
template <typename V>
struct run_count_value { /* reduce-by-key */
    unsigned long long count, pos;
    V v;
    static constexpr bool packed = false, has_pos = true, has_value = true;
};

template <typename Pair, typename Op>
struct run_combine {
    __device__ __forceinline__ Pair operator()(const Pair &a, const Pair &b) const
    {
        Pair r = b;
        r.count = a.count + b.count;
        if (b.count == 0) {
            if constexpr (Pair::has_pos) r.pos = a.pos;
            if constexpr (Pair::has_value) r.v = Op()(a.v, b.v);
        }
        return r;
    }
};

/* Elements per thread, and per tile. */
template <typename K>
constexpr int runs_thread_items()
{
    return runs_policy::key_bytes / (int)sizeof(K);
}
template <typename K>
constexpr long long runs_tile_items()
{
    return (long long)runs_policy::threads * runs_thread_items<K>();
}

/* Staging: element j of a tile's output of type T sits at j + j / (128 /
 * size) (one pad per 128 bytes); room for ITEMS + 1 entries. */
template <typename T>
__device__ __forceinline__ int stage_at(int j)
{
    return j + j / (128 / (int)sizeof(T));
}
template <typename T>
constexpr int stage_bytes(long long items)
{
    return (int)((items + 2 + items / (128 / (long long)sizeof(T))) * (long long)sizeof(T));
}
constexpr int max_int(int a, int b) { return a > b ? a : b; }

/* Write staged entries [lo, hi) to out[first + lo, first + hi) (first may
 * be one before 0 when lo >= 1: unsigned wrap), between barriers. */
template <int THREADS, typename T>
__device__ __forceinline__ void stage_flush(const T *stage, T *out, unsigned long long first, int lo, int hi)
{
    __syncthreads(); /* staged */
    for (int j = lo + (int)threadIdx.x; j < hi; j += THREADS)
        out[first + (unsigned long long)j] = stage[stage_at<T>(j)];
    __syncthreads(); /* the stage is free again */
}

/* The resident tiles an SM a call's kernel takes in its launch bound
 * (policy/runs.cuh), 0 for none: runs_policy::min_blocks for reduce-by-key
 * and unique-by-key of 4-byte keys and values whose pair is packed;
 * keys_min_blocks for the calls without values on 4-byte keys (the
 * measured ones). */
template <typename K, typename V, runs_mode MODE, typename Pair>
constexpr int runs_min_blocks()
{
    if (MODE == RUNS_NO_VALUES)
        return runs_policy::keys_min_blocks > 1 && sizeof(K) == 4 ? runs_policy::keys_min_blocks : 0;
    return runs_policy::min_blocks > 1 && sizeof(K) == 4 && sizeof(V) == 4 && Pair::packed ? runs_policy::min_blocks : 0;
}

/* One tile; the body of both kernels below. */
template <typename K, typename V, typename Op, runs_mode MODE, typename Pair>
__device__ __forceinline__ void runs_tile(const K *keys, const V *vals, long long n, K *keys_out, V *vals_out,
                                          unsigned long long *lengths, const pair_state<Pair> &st, V identity,
                                          unsigned long long *count_out)
{
    constexpr int THREADS = runs_policy::threads, IPT = runs_thread_items<K>();
    constexpr long long ITEMS = runs_tile_items<K>();
    constexpr bool REDUCE = MODE == RUNS_REDUCE, WITH_VALUES = MODE != RUNS_NO_VALUES;
    static_assert(REDUCE == Pair::has_value, "reduce-by-key, and only it, carries a value");
    constexpr int STAGE = max_int(max_int(stage_bytes<K>(ITEMS), WITH_VALUES ? stage_bytes<V>(ITEMS) : 0),
                                  Pair::has_pos ? stage_bytes<unsigned long long>(ITEMS) : 0);
    __shared__ __align__(16) unsigned char s_stage[STAGE];
    using Comb = run_combine<Pair, Op>;
    Op op;
    const int t = threadIdx.x, lane = t & 31;
    const long long tile = blockIdx.x, base = tile * ITEMS;
    const long long first = base + (long long)t * IPT;
    const int valid = first >= n ? 0 : (n - first < IPT ? (int)(n - first) : IPT);
    const bool full = base + ITEMS <= n, last_tile = base + ITEMS >= n;

    /* ---- load; mark heads (bit i: element first + i) ---- */
    K k[IPT];
    V v[IPT];
    unsigned heads = 0;
    {
        load_elems<K, IPT>(keys + first, k, full && (uintptr_t)keys % 16 == 0, valid, K());
        if constexpr (WITH_VALUES)
            load_elems<V, IPT>(vals + first, v, full && (uintptr_t)vals % 16 == 0, valid, identity);
        /* the key before: the previous lane's last, or (lane 0) from memory */
        K prev = __shfl_up_sync(0xffffffffu, k[IPT - 1], 1);
        if (lane == 0 && valid > 0 && first > 0) prev = keys[first - 1];
#pragma unroll
        for (int i = 0; i < IPT; i++) {
            if (i < valid && (first + i == 0 || !(prev == k[i]))) heads |= 1u << i;
            prev = k[i];
        }
    }
    /* A run's value starts as identity op its first value (a sum: that
     * value; min, max: a NaN first value is skipped like the others). */
    auto open = [&](V x) { return op(identity, x); };

    /* ---- this thread's pair; the pair entering it ---- */
    Pair identity_pair{};
    if constexpr (Pair::has_value) identity_pair.v = identity;
    Pair agg[1] = {identity_pair}, prefix[1];
    agg[0].count = (unsigned long long)__popc(heads);
    if constexpr (Pair::has_pos) agg[0].pos = heads ? (unsigned long long)(first + 31 - __clz(heads)) : 0ull;
    if constexpr (Pair::has_value) {
        V acc = identity;
#pragma unroll
        for (int i = 0; i < IPT; i++)
            if (i < valid) acc = (heads >> i & 1u) ? open(v[i]) : op(acc, v[i]);
        agg[0].v = acc;
    }
    Pair tile_before, tile_total;
    block_pair_prefixes<Pair, Comb, THREADS, 1>(agg, prefix, tile, identity_pair, st, runs_policy::delay, tile_before,
                                                tile_total);
    const Pair in = prefix[0];
    const unsigned long long before = tile_before.count;
    const int tile_count = (int)tile_total.count;

    /* keys (and first values): entry j is run before + j */
    {
        K *sk = reinterpret_cast<K *>(s_stage);
        unsigned long long slot = in.count;
#pragma unroll
        for (int i = 0; i < IPT; i++) {
            if (heads >> i & 1u) sk[stage_at<K>((int)(slot - before))] = k[i], slot++;
            if (i < valid && first + i == n - 1) *count_out = slot;
        }
        stage_flush<THREADS>(sk, keys_out, before, 0, tile_count);
    }
    if constexpr (MODE == RUNS_FIRST) {
        V *sv = reinterpret_cast<V *>(s_stage);
        unsigned long long slot = in.count;
#pragma unroll
        for (int i = 0; i < IPT; i++)
            if (heads >> i & 1u) sv[stage_at<V>((int)(slot - before))] = v[i], slot++;
        stage_flush<THREADS>(sv, vals_out, before, 0, tile_count);
    }

    /* Completed runs: entry j is run before - 1 + j; a head completes the
     * run before it (none before element 0), element n - 1 the last. */
    const int done_lo = tile == 0 ? 1 : 0, done_hi = tile_count + (last_tile ? 1 : 0);
    if constexpr (Pair::has_value) {
        V *sv = reinterpret_cast<V *>(s_stage);
        unsigned long long slot = in.count;
        V acc = in.v;
#pragma unroll
        for (int i = 0; i < IPT; i++) {
            if (i < valid) {
                if (heads >> i & 1u) {
                    if (first + i > 0) sv[stage_at<V>((int)(slot - before))] = acc;
                    acc = open(v[i]);
                    slot++;
                } else {
                    acc = op(acc, v[i]);
                }
                if (first + i == n - 1) sv[stage_at<V>((int)(slot - before))] = acc;
            }
        }
        stage_flush<THREADS>(sv, vals_out, before - 1, done_lo, done_hi);
    }
    if constexpr (Pair::has_pos) {
        if (lengths) { /* uniform: a kernel argument */
            unsigned long long *sl = reinterpret_cast<unsigned long long *>(s_stage);
            unsigned long long slot = in.count, start = in.pos;
#pragma unroll
            for (int i = 0; i < IPT; i++) {
                if (i < valid) {
                    const unsigned long long e = (unsigned long long)(first + i);
                    if (heads >> i & 1u) {
                        if (e > 0) sl[stage_at<unsigned long long>((int)(slot - before))] = e - start;
                        start = e;
                        slot++;
                    }
                    if (e == (unsigned long long)n - 1)
                        sl[stage_at<unsigned long long>((int)(slot - before))] = (unsigned long long)n - start;
                }
            }
            stage_flush<THREADS>(sl, lengths, before - 1, done_lo, done_hi);
        }
    }
}

template <typename K, typename V, typename Op, runs_mode MODE, typename Pair>
__global__ void __launch_bounds__(runs_policy::threads)
    runs_kernel(const K *keys, const V *vals, long long n, K *keys_out, V *vals_out, unsigned long long *lengths,
                pair_state<Pair> st, V identity, unsigned long long *count_out)
{
    runs_tile<K, V, Op, MODE, Pair>(keys, vals, n, keys_out, vals_out, lengths, st, identity, count_out);
}

template <typename K, typename V, typename Op, runs_mode MODE, typename Pair, int MIN_BLOCKS>
__global__ void __launch_bounds__(runs_policy::threads, MIN_BLOCKS)
    runs_kernel_capped(const K *keys, const V *vals, long long n, K *keys_out, V *vals_out,
                       unsigned long long *lengths, pair_state<Pair> st, V identity, unsigned long long *count_out)
{
    runs_tile<K, V, Op, MODE, Pair>(keys, vals, n, keys_out, vals_out, lengths, st, identity, count_out);
}

} // namespace gpi

#endif
