/* SPDX-License-Identifier: BSD-3-Clause */
/* pair_lookback.cuh - decoupled look-back (as lookback.cuh) for small
 * struct values under an associative operator that need not commute: the
 * (head count, open run) pairs of the runs kernel, the (head seen, value)
 * pairs of the segmented scan. Predecessors are always combined earlier
 * operand on the left, so operators like "the run that a later head
 * starts replaces the one before it" and "of equal values the earliest
 * wins" come out exact.
 *
 * A Pair type provides:
 *   static constexpr bool packed;  the whole pair fits 62 bits, and then
 *   unsigned long long word() const;  static Pair from_word(unsigned long long);
 * A packed pair is published with its flag in one 64-bit word (single
 * aligned accesses, no fence). Any other pair is stored whole in its own
 * slot (aggregate or inclusive, each written once), then a fence, then the
 * flag word; a reader that sees the flag fences and reads the slot the flag
 * names.
 *
 * Device side: block_pair_prefixes, the block-level scan of each thread's
 * vector pairs chained to earlier tiles (the layout of tile_io.cuh: vector
 * k of thread t is group (k, warp), k-major). Host side:
 * pair_state_bytes / pair_state_clear size and reset the state. */
#ifndef GPUPRIM_CUDA_PAIR_LOOKBACK_CUH
#define GPUPRIM_CUDA_PAIR_LOOKBACK_CUH

#include "lookback.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace gpi {

/* ---- word-wise shuffles and volatile copies of trivially copyable structs ---- */
template <typename T>
struct pair_words {
    static_assert(sizeof(T) % 4 == 0, "pairs are whole 32-bit words");
    static constexpr int N = (int)(sizeof(T) / 4);
    unsigned w[N];
};

template <typename T>
__device__ __forceinline__ T pair_shfl_up(const T &x, unsigned delta)
{
    pair_words<T> a, r;
    memcpy(&a, &x, sizeof(T));
#pragma unroll
    for (int i = 0; i < pair_words<T>::N; i++) r.w[i] = __shfl_up_sync(0xffffffffu, a.w[i], delta);
    T y;
    memcpy(&y, &r, sizeof(T));
    return y;
}

template <typename T>
__device__ __forceinline__ T pair_shfl_down(const T &x, unsigned delta)
{
    pair_words<T> a, r;
    memcpy(&a, &x, sizeof(T));
#pragma unroll
    for (int i = 0; i < pair_words<T>::N; i++) r.w[i] = __shfl_down_sync(0xffffffffu, a.w[i], delta);
    T y;
    memcpy(&y, &r, sizeof(T));
    return y;
}

template <typename T>
__device__ __forceinline__ T pair_shfl_idx(const T &x, int src)
{
    pair_words<T> a, r;
    memcpy(&a, &x, sizeof(T));
#pragma unroll
    for (int i = 0; i < pair_words<T>::N; i++) r.w[i] = __shfl_sync(0xffffffffu, a.w[i], src);
    T y;
    memcpy(&y, &r, sizeof(T));
    return y;
}

template <typename T>
__device__ __forceinline__ void pair_store_volatile(T *p, const T &x)
{
    pair_words<T> a;
    memcpy(&a, &x, sizeof(T));
    volatile unsigned *q = reinterpret_cast<volatile unsigned *>(p);
#pragma unroll
    for (int i = 0; i < pair_words<T>::N; i++) q[i] = a.w[i];
}

template <typename T>
__device__ __forceinline__ T pair_load_volatile(const T *p)
{
    pair_words<T> a;
    const volatile unsigned *q = reinterpret_cast<const volatile unsigned *>(p);
#pragma unroll
    for (int i = 0; i < pair_words<T>::N; i++) a.w[i] = q[i];
    T x;
    memcpy(&x, &a, sizeof(T));
    return x;
}

/* ---- tile status: TILE_AGGREGATE / TILE_INCLUSIVE (lookback.cuh) in a word's top 2 bits ---- */
template <typename Pair>
struct pair_state {
    unsigned long long *words; /* flag << 62 | the packed pair (or 0) */
    Pair *aggregates;          /* unpacked pairs only */
    Pair *inclusives;
};

constexpr unsigned long long kPairPayloadMask = (1ull << 62) - 1;

template <typename Pair>
__device__ __forceinline__ void pair_publish(const pair_state<Pair> &st, long long tile, const Pair &p, uint32_t flag)
{
    if constexpr (Pair::packed) {
        *(volatile unsigned long long *)&st.words[tile] = ((unsigned long long)flag << 62) | p.word();
    } else {
        pair_store_volatile((flag == TILE_INCLUSIVE ? st.inclusives : st.aggregates) + tile, p);
        __threadfence();
        *(volatile unsigned long long *)&st.words[tile] = (unsigned long long)flag << 62;
    }
}

/* One look at tile j's status; flag TILE_EMPTY: nothing yet (p untouched). */
template <typename Pair>
__device__ __forceinline__ uint32_t pair_peek(const pair_state<Pair> &st, long long j, Pair &p)
{
    const unsigned long long w = *(volatile const unsigned long long *)&st.words[j];
    const uint32_t flag = (uint32_t)(w >> 62);
    if (flag == TILE_EMPTY) return flag;
    if constexpr (Pair::packed) {
        p = Pair::from_word(w & kPairPayloadMask);
    } else {
        __threadfence(); /* the slot was written before the flag */
        p = pair_load_volatile((flag == TILE_INCLUSIVE ? st.inclusives : st.aggregates) + j);
    }
    return flag;
}

/* A warp finds the combination of all tiles before `tile` (> 0), 32
 * predecessors a step: lane l looks at tile - 1 - l (and 32 further back
 * each step) until a step meets an inclusive one. Every lane returns it. */
template <typename Pair, typename Comb>
__device__ __forceinline__ Pair pair_look_back(const pair_state<Pair> &st, long long tile, Comb comb,
                                               const Pair &identity, int lane, lookback_delay delay)
{
    Pair prefix = identity;
    if (gridDim.x < kDelayMinTiles) delay = {0, 0};
    if (delay.first) __nanosleep(delay.first);
    for (long long pred = tile - 1;; pred -= 32) {
        const long long j = pred - lane;
        uint32_t flag = TILE_INCLUSIVE; /* before tile 0: nothing, and nothing further */
        Pair p = identity;
        if (j >= 0)
            while ((flag = pair_peek(st, j, p)) == TILE_EMPTY)
                if (delay.poll) __nanosleep(delay.poll);
        const unsigned inclusive = __ballot_sync(0xffffffffu, flag == TILE_INCLUSIVE);
        const int nearest = inclusive ? __ffs(inclusive) - 1 : 31;
        if (lane > nearest) p = identity; /* already inside the nearest inclusive one */
                                          /* Higher lanes hold earlier tiles: combine (higher, lower) pairs so
         * lane 0 ends with lanes nearest..0 in tile order. */
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const Pair y = pair_shfl_down(p, off);
            if (lane + off < 32) p = comb(y, p);
        }
        prefix = comb(pair_shfl_idx(p, 0), prefix);
        if (inclusive) return prefix;
    }
}

/* Each thread holds its VECTORS vectors' pairs (vector k of thread t is
 * group (k, warp) in tile order, k-major; VECTORS 1: a thread's pair, in
 * thread order). Writes into prefix[k] the combination of everything
 * before vector k: earlier tiles (by look-back), earlier groups and
 * earlier lanes. tile_before / tile_total receive the combination of all
 * earlier tiles and of this tile. Every thread of the block must call it
 * (it has barriers). */
template <typename Pair, typename Comb, int THREADS, int VECTORS>
__device__ __forceinline__ void block_pair_prefixes(const Pair (&agg)[VECTORS], Pair (&prefix)[VECTORS], long long tile,
                                                    const Pair &identity, const pair_state<Pair> &st,
                                                    lookback_delay delay, Pair &tile_before, Pair &tile_total)
{
    constexpr int WARPS = THREADS / 32, GROUPS = VECTORS * WARPS, PER_LANE = GROUPS > 32 ? GROUPS / 32 : 1;
    static_assert(THREADS % 32 == 0 && (GROUPS <= 32 || GROUPS % 32 == 0),
                  "warp 0 scans the group totals, PER_LANE a lane");
    __shared__ Pair s_group[GROUPS];
    __shared__ Pair s_before, s_total;
    Comb comb;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    /* warp: inclusive scan of the vector pairs, all k at once */
    Pair x[VECTORS];
#pragma unroll
    for (int k = 0; k < VECTORS; k++) x[k] = agg[k];
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
#pragma unroll
        for (int k = 0; k < VECTORS; k++) {
            const Pair y = pair_shfl_up(x[k], off);
            if (lane >= off) x[k] = comb(y, x[k]);
        }
    }
    Pair lane_prefix[VECTORS];
#pragma unroll
    for (int k = 0; k < VECTORS; k++) {
        const Pair y = pair_shfl_up(x[k], 1);
        lane_prefix[k] = lane == 0 ? identity : y;
        if (lane == 31) s_group[k * WARPS + warp] = x[k];
    }
    __syncthreads();

    /* block: warp 0 scans the group totals (exclusive, in place), then looks back */
    if (warp == 0) {
        Pair g[PER_LANE];
        Pair run = identity;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++) {
            const int at = lane * PER_LANE + i;
            g[i] = at < GROUPS ? s_group[at] : identity;
            run = comb(run, g[i]);
        }
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const Pair y = pair_shfl_up(run, off);
            if (lane >= off) run = comb(y, run);
        }
        Pair excl = pair_shfl_up(run, 1);
        if (lane == 0) excl = identity;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++) {
            const int at = lane * PER_LANE + i;
            if (at < GROUPS) s_group[at] = excl;
            excl = comb(excl, g[i]);
        }
        const Pair total = pair_shfl_idx(run, 31);
        Pair before = identity;
        if (tile == 0) {
            if (lane == 0) pair_publish(st, tile, total, TILE_INCLUSIVE);
        } else {
            if (lane == 0) pair_publish(st, tile, total, TILE_AGGREGATE);
            before = pair_look_back(st, tile, comb, identity, lane, delay);
            if (lane == 0) pair_publish(st, tile, comb(before, total), TILE_INCLUSIVE);
        }
        if (lane == 0) {
            s_before = before;
            s_total = total;
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < VECTORS; k++) prefix[k] = comb(comb(s_before, s_group[k * WARPS + warp]), lane_prefix[k]);
    tile_before = s_before;
    tile_total = s_total;
}

/* ---- host side ---- */
template <typename Pair>
size_t pair_state_bytes(long long tiles)
{
    const size_t t = (size_t)tiles;
    size_t b = align256(t * sizeof(unsigned long long));
    if (!Pair::packed) b += 2 * align256(t * sizeof(Pair));
    return b;
}

/* Lay the state out in ws (256-byte aligned, pair_state_bytes<Pair>(tiles)
 * long) and clear its words on `stream`, before the kernel that uses it. */
template <typename Pair>
cudaError_t pair_state_clear(void *ws, long long tiles, cudaStream_t stream, pair_state<Pair> *st)
{
    const size_t t = (size_t)tiles;
    char *p = static_cast<char *>(ws);
    st->words = reinterpret_cast<unsigned long long *>(p);
    st->aggregates = nullptr;
    st->inclusives = nullptr;
    if (!Pair::packed) {
        p += align256(t * sizeof(unsigned long long));
        st->aggregates = reinterpret_cast<Pair *>(p);
        st->inclusives = reinterpret_cast<Pair *>(p + align256(t * sizeof(Pair)));
    }
    return cudaMemsetAsync(st->words, 0, t * sizeof(unsigned long long), stream);
}

} // namespace gpi

#endif
