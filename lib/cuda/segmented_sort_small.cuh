/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_sort_small.cuh - the segmented sort's block kernels: one
 * block sorts one segment of at most THREADS * ITEMS items in registers and
 * shared memory (CUB's BlockRadixSort, stable), for every segment id of a
 * list (one size tier of segmented_sort.cu's classification).
 *   - keys are loaded blocked (thread t holds items t*ITEMS ..), as their
 *     order images; padding items are all ones, so they sort after every
 *     key (after equal ones too: the sort is stable and they come last) and
 *     are not written;
 *   - only the bits that differ within the segment are sorted: the OR of
 *     (image ^ first image) over the segment, within [begin_bit, end_bit),
 *     gives the lowest and highest such bit; bits outside it are equal in
 *     every key, so sorting on the rest gives the same order. A segment
 *     whose keys are all equal there is not sorted (copied as it is);
 *   - pairs sort each key's position within the segment along with it
 *     (16 bits), then read the value at that position: every value is read
 *     before any is written, so values sorted in place are safe. */
#pragma once

#include "policy/segmented_sort.cuh"
#include "segmented_sort.cuh"

#include <cub/block/block_radix_sort.cuh>

#include <type_traits>

namespace gpi_segsort {

template <typename K>
struct SmallArgs {
    gp_dtype dt;
    const K *keys_in;
    K *keys_out;
    const void *values_in; /* NULL: indices */
    void *values_out;
    int value_size; /* 0 (keys only), 4 or 8 */
    const uint64_t *offsets;
    uint64_t n;
    int begin_bit, end_bit;
    K flip;
};

template <typename K>
__device__ __forceinline__ K block_or(K x, K *shared_word)
{
    if constexpr (sizeof(K) == 4) {
        x = __reduce_or_sync(0xffffffffu, (unsigned)x);
    } else {
        const unsigned lo = __reduce_or_sync(0xffffffffu, (unsigned)x);
        const unsigned hi = __reduce_or_sync(0xffffffffu, (unsigned)(x >> 32));
        x = ((K)hi << 32) | lo;
    }
    if ((threadIdx.x & 31) == 0 && x) {
        if constexpr (sizeof(K) == 4) atomicOr((unsigned *)shared_word, (unsigned)x);
        else atomicOr((unsigned long long *)shared_word, (unsigned long long)x);
    }
    __syncthreads();
    return *shared_word;
}

template <typename K>
__device__ __forceinline__ int lowest_bit(K x)
{
    if constexpr (sizeof(K) == 4) return __ffs((int)x) - 1;
    else return __ffsll((long long)x) - 1;
}

template <typename K>
__device__ __forceinline__ int bit_length(K x)
{
    if constexpr (sizeof(K) == 4) return 32 - __clz((int)x);
    else return 64 - __clzll((long long)x);
}

/* The shared memory a tier's kernel takes (dynamic). */
template <typename K, bool PAIRS, int THREADS, int ITEMS>
struct SmallSort {
    using Value = typename std::conditional<PAIRS, uint16_t, cub::NullType>::type;
    using Block = cub::BlockRadixSort<K, THREADS, ITEMS, Value>;
    static constexpr size_t kSmem = sizeof(typename Block::TempStorage);
};

template <typename K, bool PAIRS, int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    small_sort_kernel(SmallArgs<K> a, const uint32_t *ids, uint32_t count)
{
    using S = SmallSort<K, PAIRS, THREADS, ITEMS>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ K diff_word;
    typename S::Block::TempStorage &ts = *reinterpret_cast<typename S::Block::TempStorage *>(smem);
    constexpr int kBits = 8 * sizeof(K);
    const int t = threadIdx.x;
    const K range_mask = a.begin_bit == a.end_bit ? (K)0
                         : ((a.end_bit - a.begin_bit == kBits ? ~(K)0 : (((K)1 << (a.end_bit - a.begin_bit)) - 1))
                            << a.begin_bit);

    for (uint32_t at = blockIdx.x; at < count; at += gridDim.x) {
        uint64_t b, e;
        gpi_segment_bounds(a.offsets, ids[at], a.n, &b, &e);
        const uint32_t len = (uint32_t)(e - b); /* <= THREADS * ITEMS by its class */
        const K *kin = a.keys_in + b;
        const K first = to_image<K>(a.dt, kin[0], a.flip);
        K img[ITEMS];
        typename S::Value pos[ITEMS];
        K diff = 0;
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t j = (uint32_t)t * ITEMS + i;
            if (j < len) {
                img[i] = to_image<K>(a.dt, kin[j], a.flip);
                diff |= img[i] ^ first;
            } else {
                img[i] = ~(K)0;
            }
            if constexpr (PAIRS) pos[i] = (uint16_t)j;
        }
        if (t == 0) diff_word = 0;
        __syncthreads();
        diff = block_or<K>(diff & range_mask, &diff_word);
        const bool sorted = diff != 0;
        if (sorted) {
            if constexpr (PAIRS)
                typename S::Block(ts).SortBlockedToStriped(img, pos, lowest_bit(diff), bit_length(diff));
            else
                typename S::Block(ts).SortBlockedToStriped(img, lowest_bit(diff), bit_length(diff));
        }
        /* item i of thread t now holds rank i*THREADS + t (striped), or is
         * still at t*ITEMS + i (blocked) when nothing was sorted */
        uint64_t v[ITEMS];
        if constexpr (PAIRS) {
#pragma unroll
            for (int i = 0; i < ITEMS; i++) {
                const uint32_t r = sorted ? (uint32_t)i * THREADS + t : (uint32_t)t * ITEMS + i;
                const uint64_t src = b + pos[i];
                v[i] = src;
                if (r < len && a.values_in)
                    v[i] = a.value_size == 4 ? ((const uint32_t *)a.values_in)[src]
                                             : ((const uint64_t *)a.values_in)[src];
            }
            __syncthreads(); /* every value read before any is written (in place) */
        }
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t r = sorted ? (uint32_t)i * THREADS + t : (uint32_t)t * ITEMS + i;
            if (r < len) {
                a.keys_out[b + r] = from_image<K>(a.dt, img[i], a.flip);
                if constexpr (PAIRS) {
                    if (a.value_size == 4) ((uint32_t *)a.values_out)[b + r] = (uint32_t)v[i];
                    else ((uint64_t *)a.values_out)[b + r] = v[i];
                }
            }
        }
        __syncthreads(); /* the shared memory is reused by the next segment */
    }
}

}  // namespace gpi_segsort
