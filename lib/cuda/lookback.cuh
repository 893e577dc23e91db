/* SPDX-License-Identifier: BSD-3-Clause */
/* lookback.cuh - decoupled look-back: how tiles processed by different
 * blocks chain a running total (the scan's prefixes, compaction's and
 * find-repeats' output positions) in one pass.
 *
 * Each tile publishes its own total (aggregate) as soon as it has it, then
 * the inclusive total through itself once its predecessors' is known. A
 * tile finds the total before it by looking back over its predecessors,
 * 32 at a time (a warp's lanes), combining aggregates until it meets an
 * inclusive one. Look-back combines predecessors in an order that depends
 * on timing: exact operators only (integer sums, min, max).
 *
 * Host side: tile_state_bytes / tile_state_clear size and reset the state
 * in a caller's workspace before the kernel that uses it. */
#ifndef GPUPRIM_CUDA_LOOKBACK_CUH
#define GPUPRIM_CUDA_LOOKBACK_CUH

#include "warp_scan.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace gpi {

/* Look-back delays (ns). Warp 0 of a tile sleeps `first` after publishing
 * its aggregate, before its first look at the predecessors, and `poll`
 * between looks at a predecessor that has published nothing yet (CUB's sm_90
 * tuning does the same). Polling at once only adds L2 traffic and issue
 * slots while the predecessors are still loading; the best values grow with
 * the time a tile takes, so each primitive's policy sets its own. */
struct lookback_delay {
    unsigned first, poll;
};
/* Grids smaller than this many tiles skip the delays: a grid that fits on
 * the GPU at once (1e6 items: 123 scan tiles) has no later tiles to give
 * the time to, so there the delays only add latency. */
constexpr unsigned kDelayMinTiles = 512;

/* ---- tile status ----------------------------------------------------------------
 * flag 0: nothing yet; 1: the tile's own total (aggregate) is published;
 * 2: the inclusive prefix through this tile is published.
 * 4-byte types: flag and value share one 64-bit word, written and read with
 * single aligned accesses, so a reader always sees a value together with the
 * flag that describes it, and no fence is needed (CUB does the same).
 * 8-byte types: aggregate and inclusive prefix have separate slots, each
 * written once, and a fence orders value before flag (a reader that saw
 * flag 1 must still find the aggregate even if the inclusive prefix lands in
 * between). */
enum : uint32_t { TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_INCLUSIVE = 2 };

template <typename T>
struct tile_state {
    unsigned long long *packed; /* 4-byte T */
    uint32_t *flags;            /* 8-byte T */
    T *aggregates;
    T *inclusives;
};

template <typename T>
__device__ __forceinline__ void tile_publish(tile_state<T> st, long long tile, T v, uint32_t flag)
{
    if constexpr (sizeof(T) == 4) {
        uint32_t bits;
        memcpy(&bits, &v, 4);
        *(volatile unsigned long long *)&st.packed[tile] = ((unsigned long long)flag << 32) | bits;
    } else {
        T *slot = flag == TILE_INCLUSIVE ? st.inclusives : st.aggregates;
        *(volatile T *)&slot[tile] = v;
        __threadfence();
        *(volatile uint32_t *)&st.flags[tile] = flag;
    }
}

template <typename T>
struct tile_status {
    uint32_t flag;
    T value;
};

/* One look at tile j's status, without waiting. */
template <typename T>
__device__ __forceinline__ tile_status<T> tile_peek(tile_state<T> st, long long j)
{
    tile_status<T> r;
    if constexpr (sizeof(T) == 4) {
        const unsigned long long w = *(volatile const unsigned long long *)&st.packed[j];
        const uint32_t bits = (uint32_t)w;
        memcpy(&r.value, &bits, 4);
        r.flag = (uint32_t)(w >> 32);
    } else {
        r.flag = *(volatile const uint32_t *)&st.flags[j];
        r.value = T(0);
        if (r.flag != TILE_EMPTY) {
            __threadfence();
            r.value = r.flag == TILE_INCLUSIVE ? *(volatile const T *)&st.inclusives[j]
                                               : *(volatile const T *)&st.aggregates[j];
        }
    }
    return r;
}

/* Wait for tile j's status. */
template <typename T>
__device__ __forceinline__ tile_status<T> tile_wait(tile_state<T> st, long long j, unsigned poll_ns)
{
    for (;;) {
        const tile_status<T> r = tile_peek(st, j);
        if (r.flag != TILE_EMPTY) return r;
        if (poll_ns) __nanosleep(poll_ns);
    }
}

/* Warp 0 of tile `tile` (> 0) finds the combined total of all earlier tiles. */
template <typename T, typename Op>
__device__ T tile_look_back(tile_state<T> st, long long tile, Op op, T identity, int lane, lookback_delay delay)
{
    T prefix = identity;
    long long pred = tile - 1;
    if (gridDim.x < kDelayMinTiles) delay = {0, 0};
    if (delay.first) __nanosleep(delay.first);
    for (;;) {
        long long j = pred - lane; /* lane 0 is the nearest predecessor */
        uint32_t f = TILE_INCLUSIVE;
        T v = identity;
        if (j >= 0) {
            tile_status<T> ts = tile_wait(st, j, delay.poll);
            f = ts.flag;
            v = ts.value;
        }
        unsigned inclusive = __ballot_sync(0xffffffffu, f == TILE_INCLUSIVE);
        /* Lanes past the nearest inclusive tile must not count twice. */
        if (inclusive) {
            int first = __ffs(inclusive) - 1;
            if (lane > first) v = identity;
        }
        prefix = op(warp_reduce(v, op), prefix);
        if (inclusive) return prefix;
        pred -= 32;
    }
}

/* Look-back for a dedicated look-back warp (the pipelined scan): like
 * tile_look_back, but a lane waits for its predecessor only if it is nearer
 * than the nearest inclusive one the warp has seen. (There, tiles claimed
 * ahead by a busy block may still be empty behind an inclusive predecessor:
 * waiting for them, as tile_look_back does, stretches every chain.) */
template <typename T, typename Op>
__device__ T tile_look_back_nearest(tile_state<T> st, long long tile, Op op, T identity, int lane, unsigned poll_ns)
{
    T prefix = identity;
    for (long long pred = tile - 1;; pred -= 32) {
        const long long j = pred - lane; /* lane 0 is the nearest predecessor */
        tile_status<T> ts = j >= 0 ? tile_peek(st, j) : tile_status<T>{TILE_INCLUSIVE, identity};
        unsigned inclusive;
        int nearest;
        for (;;) {
            inclusive = __ballot_sync(0xffffffffu, ts.flag == TILE_INCLUSIVE);
            nearest = inclusive ? __ffs(inclusive) - 1 : 32;
            const bool missing = lane < nearest && ts.flag == TILE_EMPTY;
            if (!__any_sync(0xffffffffu, missing)) break;
            if (poll_ns) __nanosleep(poll_ns);
            if (missing) ts = tile_peek(st, j);
        }
        prefix = op(warp_reduce(lane <= nearest ? ts.value : identity, op), prefix);
        if (inclusive) return prefix;
    }
}

/* ---- host side ------------------------------------------------------------------ */
static inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* Look-back state of `tiles` tiles (see tile_state): 4-byte T, the packed
 * words; 8-byte T, aggregates, inclusive prefixes and flags, each part
 * 256-byte aligned. */
template <typename T>
size_t tile_state_bytes(long long tiles)
{
    const size_t t = (size_t)tiles;
    if (sizeof(T) == 4) return align256(t * sizeof(unsigned long long));
    return 2 * align256(t * sizeof(T)) + align256(t * sizeof(uint32_t));
}

/* Lay the state out in ws (256-byte aligned, tile_state_bytes<T>(tiles)
 * long) and clear its flags on `stream`, before the kernel that uses it. */
template <typename T>
cudaError_t tile_state_clear(void *ws, long long tiles, cudaStream_t stream, tile_state<T> *st)
{
    char *p = static_cast<char *>(ws);
    *st = tile_state<T>{};
    if (sizeof(T) == 4) {
        st->packed = reinterpret_cast<unsigned long long *>(p);
        return cudaMemsetAsync(st->packed, 0, (size_t)tiles * sizeof(unsigned long long), stream);
    }
    st->aggregates = reinterpret_cast<T *>(p);
    st->inclusives = reinterpret_cast<T *>(p + align256((size_t)tiles * sizeof(T)));
    st->flags = reinterpret_cast<uint32_t *>(p + 2 * align256((size_t)tiles * sizeof(T)));
    return cudaMemsetAsync(st->flags, 0, (size_t)tiles * sizeof(uint32_t), stream);
}

} // namespace gpi

#endif
