/* SPDX-License-Identifier: BSD-3-Clause */
/* segscan_kernel.cuh - the single-pass segmented scan for exact operators
 * (integer sums, min, max): one read of the values (and keys, or head
 * bytes), one write, tiles chained by a warp-wide decoupled look-back.
 *
 * Layout: tile_io.cuh's, over the values: THREADS threads x VECTORS
 * vectors of VI = 16 / value size elements, vector k of thread t at
 * (k * THREADS + t) * VI (16-byte loads and stores, coalesced across the
 * warp). Heads: by key, an element whose key differs from the one before it
 * (element 0 always); by offsets, a byte per element set by the caller.
 *
 * A stretch of elements is the pair (seen, v): whether it holds a head, and
 * the reduction from its last head (or, without one, of all of it) to its
 * end; a then b = (a.seen | b.seen, b.seen ? b.v : op(a.v, b.v)), earlier
 * operand on the left. A head's value enters as identity op x, as the CPU
 * reference's running value does. block_pair_prefixes (pair_lookback.cuh)
 * gives each vector the pair before it; a 4-byte value packs with its flag
 * into one 64-bit word.
 *
 * Look-back combines in an order that depends on timing: exact operators
 * only (float sums keep the fixed-order path of segmented_scan.cu). In
 * place is safe: a tile is in registers before it writes, and writes only
 * its own elements. */
#ifndef GPUPRIM_CUDA_SEGSCAN_KERNEL_CUH
#define GPUPRIM_CUDA_SEGSCAN_KERNEL_CUH

#include "pair_lookback.cuh"
#include "policy/segmented_scan.cuh"
#include "vector_io.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi {

template <typename T>
struct seg_pair {
    uint32_t seen;
    T v;
    static constexpr bool packed = sizeof(T) == 4;
    __device__ __forceinline__ unsigned long long word() const
    {
        uint32_t bits = 0;
        memcpy(&bits, &v, 4);
        return (unsigned long long)seen << 32 | bits;
    }
    __device__ static __forceinline__ seg_pair from_word(unsigned long long w)
    {
        seg_pair p;
        const uint32_t bits = (uint32_t)w;
        p.seen = (uint32_t)(w >> 32);
        memcpy(&p.v, &bits, 4);
        return p;
    }
};

template <typename T, typename Op>
struct seg_combine {
    __device__ __forceinline__ seg_pair<T> operator()(const seg_pair<T> &a, const seg_pair<T> &b) const
    {
        return seg_pair<T>{a.seen | b.seen, b.seen ? b.v : Op()(a.v, b.v)};
    }
};

template <typename T>
constexpr int segscan_vector_items()
{
    return 16 / (int)sizeof(T);
}
template <typename T>
constexpr long long segscan_tile_items()
{
    return (long long)segscan_policy::threads * segscan_policy::vectors * segscan_vector_items<T>();
}

/* K: the key type (== decides; uint32/uint64 for integers of either sign),
 * or uint8_t with BY_KEY false: keys are head bytes. Writes out[i] only
 * for i in [lo, hi): all of [0, n) by key; by offsets, [offsets[0],
 * offsets[segments]) clamped to n. */
template <typename T, typename Op, typename K, bool BY_KEY>
__global__ void __launch_bounds__(segscan_policy::threads)
    segscan_kernel(const T *in, T *out, const K *keys, long long n, const unsigned long long *offsets,
                   unsigned long long segments, bool inclusive, T identity, pair_state<seg_pair<T>> st)
{
    constexpr int THREADS = segscan_policy::threads, VECTORS = segscan_policy::vectors, VI = segscan_vector_items<T>();
    constexpr long long ITEMS = segscan_tile_items<T>();
    using Pair = seg_pair<T>;
    using Comb = seg_combine<T, Op>;
    Op op;
    const int t = threadIdx.x, lane = t & 31;
    const long long tile = blockIdx.x, base = tile * ITEMS;
    const bool full = base + ITEMS <= n;
    const bool vec_in = full && (uintptr_t)in % 16 == 0;
    const bool vec_keys = full && (uintptr_t)keys % 16 == 0;
    long long lo = 0, hi = n;
    if (!BY_KEY) {
        const unsigned long long b = offsets[0], e = offsets[segments];
        lo = b < (unsigned long long)n ? (long long)b : n;
        hi = e < (unsigned long long)n ? (long long)e : n;
    }

    /* ---- load; heads (bit k * VI + j: element j of vector k); each vector's pair ---- */
    T x[VECTORS][VI];
    unsigned heads = 0;
    Pair agg[VECTORS], prefix[VECTORS];
#pragma unroll
    for (int q = 0; q < VECTORS; q++) {
        const long long e = base + ((long long)q * THREADS + t) * VI;
        const int valid = e >= n ? 0 : (n - e < VI ? (int)(n - e) : VI);
        load_elems<T, VI>(in + e, x[q], vec_in, valid, identity);
        K kv[VI];
        load_elems<K, VI>(keys + e, kv, BY_KEY && vec_keys, valid, K());
        if constexpr (BY_KEY) {
            /* the key before the vector: the previous lane's last, or (lane 0) from memory */
            K prev = __shfl_up_sync(0xffffffffu, kv[VI - 1], 1);
            if (lane == 0 && valid > 0 && e > 0) prev = keys[e - 1];
#pragma unroll
            for (int j = 0; j < VI; j++) {
                if (j < valid && (e + j == 0 || !(prev == kv[j]))) heads |= 1u << (q * VI + j);
                prev = kv[j];
            }
        } else {
#pragma unroll
            for (int j = 0; j < VI; j++)
                if (j < valid && kv[j]) heads |= 1u << (q * VI + j);
        }
        Pair p{0u, identity};
#pragma unroll
        for (int j = 0; j < VI; j++) {
            if (j < valid) {
                if (heads >> (q * VI + j) & 1u)
                    p = Pair{1u, op(identity, x[q][j])};
                else
                    p.v = op(p.v, x[q][j]);
            }
        }
        agg[q] = p;
    }
    Pair tile_before, tile_total;
    block_pair_prefixes<Pair, Comb, THREADS, VECTORS>(agg, prefix, tile, Pair{0u, identity}, st, segscan_policy::delay,
                                                      tile_before, tile_total);

    /* ---- each element's value, stored ---- */
    const bool all_in = full && base >= lo && base + ITEMS <= hi;
    const bool vec_out = all_in && (uintptr_t)out % 16 == 0;
#pragma unroll
    for (int q = 0; q < VECTORS; q++) {
        const long long e = base + ((long long)q * THREADS + t) * VI;
        T run = prefix[q].v, y[VI];
#pragma unroll
        for (int j = 0; j < VI; j++) {
            const bool head = heads >> (q * VI + j) & 1u;
            const T incl = head ? op(identity, x[q][j]) : op(run, x[q][j]);
            y[j] = inclusive ? incl : (head ? identity : run);
            run = incl;
        }
        if (vec_out) {
            store_elems<T, VI>(out + e, y, true, VI);
        } else {
#pragma unroll
            for (int j = 0; j < VI; j++)
                if (e + j >= lo && e + j < hi) out[e + j] = y[j];
        }
    }
}

} // namespace gpi

#endif
