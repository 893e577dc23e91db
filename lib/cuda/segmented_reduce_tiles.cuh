/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_reduce_tiles.cuh - the item-balanced path of the device
 * segmented reduce, for the exact operators only (all but float sums: the
 * order of their operations does not change the result, so the tree of
 * segmented.h need not be followed).
 *
 * Work is cut by items, not by segments: block b takes the tile of items
 * [b T, b T + T) whatever the segment boundaries (T: policy, 64 bytes per
 * thread), so a tile costs the same for any segment lengths.
 *   1. tile_bounds: for every tile, the first offset index whose (clamped)
 *      offset lies at or past the tile's start, by binary search.
 *   2. tile_reduce: the tile is staged in shared memory with 16-byte loads;
 *      each thread walks its consecutive items, closing a piece at every
 *      segment boundary; a block-wide segmented scan over the threads'
 *      (boundary seen, value since the last boundary) gives each thread the
 *      part of its first segment held by the threads before it. A segment
 *      that starts and ends in the tile is written directly; the tile also
 *      writes two boundary pieces: pieces[2b] the part of the segment that
 *      enters the tile from before it, pieces[2b+1] the part of the segment
 *      that starts in the tile and leaves it (with its index in tail_seg[b]);
 *      the identity where there is none. Empty segments whose start lies in
 *      the tile get the identity.
 *   3. tile_fixup: a segment leaving tile b and ending in tile c > b is
 *      op over pieces[2b+1, 2c+1): its tail piece, the whole tiles in
 *      between (their pieces[2i]; pieces[2i+1] is the identity there) and
 *      its head piece in tile c. A warp per tile.
 * Offsets are clamped to n everywhere; broken ones give unspecified
 * results but every index stays in bounds (searches and walks are limited
 * to [0, n_segments], items to the tile, outputs to [0, n_segments)). */
#ifndef GPUPRIM_CUDA_SEGMENTED_REDUCE_TILES_CUH
#define GPUPRIM_CUDA_SEGMENTED_REDUCE_TILES_CUH

#include "lookback.cuh"
#include "ops.cuh"
#include "policy/segmented_reduce.cuh"
#include "segmented_internal.h"

#include <cuda_runtime.h>

#include <stdint.h>

namespace gpi {
namespace segtiles {

using P = segreduce_policy;
constexpr unsigned kAllLanes = 0xffffffffu;
constexpr uint64_t kNoSegment = ~(uint64_t)0;

template <typename T>
struct tile_shape {
    static constexpr int vec_items = 16 / (int)sizeof(T);
    static constexpr int per_thread = P::vectors_per_thread * vec_items;
    static constexpr unsigned items = (unsigned)(P::threads * per_thread);
    static constexpr int vectors = P::threads * P::vectors_per_thread;
    /* One padding vector after every 8: a quarter warp reading its threads'
     * consecutive vectors then touches 8 distinct bank groups. */
    static constexpr int smem_vectors = vectors + vectors / 8;
    static_assert(P::vectors_per_thread == 4, "the padding is laid out for 4 vectors per thread");
};

__device__ __forceinline__ int padded_vector(int v) { return v + (v >> 3); }

/* offsets[i] clamped to n. */
__device__ __forceinline__ uint64_t clamped_offset(const uint64_t *off, uint64_t i, uint64_t n)
{
    const uint64_t v = __ldg(off + i);
    return v < n ? v : n;
}

/* bound[b] = the first i in [0, segments] with offset i >= b * tile_items
 * (segments + 1 if none); bound[tiles] = segments + 1. */
__global__ void __launch_bounds__(P::partition_threads) tile_bounds(const uint64_t *off, uint64_t n,
                                                                    uint64_t segments, uint64_t tiles,
                                                                    uint64_t tile_items, uint64_t *bound)
{
    const uint64_t b = (uint64_t)blockIdx.x * P::partition_threads + threadIdx.x;
    if (b > tiles) return;
    if (b == tiles) {
        bound[b] = segments + 1;
        return;
    }
    const uint64_t pos = b * tile_items;
    uint64_t lo = 0, hi = segments + 1;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (clamped_offset(off, mid, n) < pos) lo = mid + 1;
        else hi = mid;
    }
    bound[b] = lo;
}

/* Step 2 above. A segment's tag k is its index + 1: tags 0 (before
 * offsets[0]) and segments + 1 (past offsets[segments]) are the items of no
 * segment, whose pieces are dropped. A thread's tag at position p is the
 * count of offsets <= p. VEC: `in` is 16-byte aligned (full tiles are read
 * as vectors). zero: the identity. */
template <typename T, typename Op, bool VEC>
__global__ void GPI_SEGREDUCE_BOUNDS(P::threads) tile_reduce(const T *in, uint64_t n, const uint64_t *off,
                                                          uint64_t segments, uint64_t tiles, const uint64_t *bound,
                                                          T *out, T *pieces, uint64_t *tail_seg, T zero)
{
    using TS = tile_shape<T>;
    constexpr int IPT = TS::per_thread, VI = TS::vec_items, VPT = P::vectors_per_thread;
    constexpr int kWarps = P::threads / 32;
    __shared__ uint4 stage[TS::smem_vectors];
    __shared__ T warp_val[kWarps];
    __shared__ int warp_flag[kWarps];
    Op op;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint64_t S = segments;
    T *sx = reinterpret_cast<T *>(stage);
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const uint64_t tb = tile * TS::items;
        const uint64_t m = tb < n ? (n - tb < TS::items ? n - tb : TS::items) : 0;
        uint64_t lo = bound[tile], hi = bound[tile + 1];
        lo = lo < S + 1 ? lo : S + 1;
        hi = hi < S + 1 ? hi : S + 1;
        hi = hi < lo ? lo : hi;

        /* Stage the tile: coalesced loads, all in flight while this thread
         * finds its first segment, then stored. */
        const bool vec_tile = VEC && m == TS::items;
        uint4 vv[VPT];
        T vs[IPT];
        if (vec_tile) {
            const uint4 *src = reinterpret_cast<const uint4 *>(in + tb);
#pragma unroll
            for (int j = 0; j < VPT; j++) vv[j] = __ldg(src + t + j * P::threads);
        } else {
#pragma unroll
            for (int j = 0; j < IPT; j++) {
                const unsigned i = t + j * P::threads;
                vs[j] = i < m ? __ldg(in + tb + i) : zero;
            }
        }

        /* This thread's items [ub, ue): the tag at ub. */
        const uint64_t ub = tb + (uint64_t)t * IPT;
        const bool has_items = (uint64_t)t * IPT < m;
        const uint64_t ue = has_items ? (ub + IPT < tb + m ? ub + IPT : tb + m) : ub;
        uint64_t kf = 0, k = 0;       /* tags at ub and at the walk's position */
        bool head = false;            /* a segment starts at ub */
        bool interior = false;        /* a boundary lies in (ub, ue) */
        bool ends = false;            /* a boundary lies at ue */
        T first = zero, acc = zero;   /* the first piece; the piece since the last boundary */
        uint64_t next = kNoSegment;   /* the offset of tag k: the next boundary */
        if (has_items) {
            uint64_t a = lo, b = hi; /* the first i in [lo, hi) with offset > ub */
            while (a < b) {
                const uint64_t mid = a + (b - a) / 2;
                if (clamped_offset(off, mid, n) <= ub) a = mid + 1;
                else b = mid;
            }
            kf = k = a;
            head = kf >= 1 && clamped_offset(off, kf - 1, n) == ub;
            next = k <= S ? clamped_offset(off, k, n) : kNoSegment;
        }

        if (vec_tile) {
#pragma unroll
            for (int j = 0; j < VPT; j++) stage[padded_vector(t + j * P::threads)] = vv[j];
        } else {
#pragma unroll
            for (int j = 0; j < IPT; j++) {
                const int i = t + j * P::threads;
                sx[padded_vector(i / VI) * VI + i % VI] = vs[j];
            }
        }
        __syncthreads();

        /* Empty segments that start in this tile get the identity. */
        const uint64_t empty_end = hi < S ? hi : S;
        for (uint64_t i = lo + t; i < empty_end; i += P::threads)
            if (clamped_offset(off, i + 1, n) <= clamped_offset(off, i, n)) out[i] = zero;

        /* Walk the items, closing a piece at every boundary. */
        if (has_items) {
            const int count = (int)(ue - ub);
#pragma unroll
            for (int vj = 0; vj < VPT; vj++) {
                const uint4 raw = stage[padded_vector(t * VPT + vj)];
                const T *xs = reinterpret_cast<const T *>(&raw);
#pragma unroll
                for (int e = 0; e < VI; e++) {
                    const int j = vj * VI + e;
                    if (j < count) {
                        const uint64_t p = ub + (uint64_t)j;
                        if (p >= next) { /* the piece before p is complete */
                            if (!interior) first = acc, interior = true;
                            else if (k >= 1 && k <= S) out[k - 1] = acc; /* started and ended in this thread */
                            do { /* past any empty segments at p */
                                k++;
                                next = k <= S ? clamped_offset(off, k, n) : kNoSegment;
                            } while (next <= p);
                            acc = zero;
                        }
                        acc = op(acc, xs[e]);
                    }
                }
            }
            ends = next == ue;
        }

        /* Block-wide segmented scan of (a segment starts in [ub, ue), acc). */
        bool f = head || interior;
        T v = acc;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const T ov = __shfl_up_sync(kAllLanes, v, d);
            const int of = __shfl_up_sync(kAllLanes, (int)f, d);
            if (lane >= d) {
                if (!f) v = op(ov, v);
                f = f || of;
            }
        }
        if (lane == 31) warp_val[warp] = v, warp_flag[warp] = f;
        __syncthreads();
        T before = zero; /* the warps before this one, scanned */
        for (int w = 0; w < warp; w++) before = warp_flag[w] ? warp_val[w] : op(before, warp_val[w]);
        const T pv = __shfl_up_sync(kAllLanes, v, 1);
        const int pf = __shfl_up_sync(kAllLanes, (int)f, 1);
        const T excl = lane == 0 ? before : (pf ? pv : op(before, pv));

        if (has_items) {
            const bool last_thread = ue == tb + m;
            bool wrote_tail = false;
            /* A piece of segment tag - 1 ending at a boundary (closes) or at
             * the tile's end (at_tile_end); may_cross: it may have started
             * before the tile. */
            auto piece = [&](uint64_t tag, T val, bool closes, bool at_tile_end, bool may_cross) {
                if (tag < 1 || tag > S) return;
                const bool crossing = may_cross && clamped_offset(off, tag - 1, n) < tb;
                if (crossing) {
                    if (closes || at_tile_end) pieces[2 * tile] = val;
                } else if (closes) {
                    out[tag - 1] = val;
                } else if (at_tile_end) {
                    pieces[2 * tile + 1] = val;
                    tail_seg[tile] = tag - 1;
                    wrote_tail = true;
                }
            };
            const T first_part = interior ? first : acc;
            piece(kf, head ? first_part : op(excl, first_part), interior || ends, last_thread && !interior, true);
            if (interior) piece(k, acc, ends, last_thread, false);
            if (last_thread && !wrote_tail) {
                pieces[2 * tile + 1] = zero;
                tail_seg[tile] = kNoSegment;
            }
            if (t == 0 && !(kf >= 1 && kf <= S && !head)) pieces[2 * tile] = zero; /* nothing enters the tile */
        } else if (t == 0) { /* the tile past the last item */
            pieces[2 * tile] = zero;
            pieces[2 * tile + 1] = zero;
            tail_seg[tile] = kNoSegment;
        }
        __syncthreads(); /* stage and the warp totals are reused by the next tile */
    }
}

/* Step 3 above: a warp per tile whose tail piece belongs to a segment that
 * ends in a later tile. */
template <typename T, typename Op>
__global__ void __launch_bounds__(P::fixup_threads) tile_fixup(const uint64_t *off, uint64_t n, uint64_t segments,
                                                               uint64_t tiles, uint64_t tile_items,
                                                               const T *pieces, const uint64_t *tail_seg, T *out,
                                                               T zero)
{
    Op op;
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (P::fixup_threads / 32);
    for (uint64_t b = ((uint64_t)blockIdx.x * P::fixup_threads + threadIdx.x) / 32; b < tiles; b += warps) {
        const uint64_t s = tail_seg[b];
        if (s >= segments) continue;
        const uint64_t e = clamped_offset(off, s + 1, n);
        if (e == 0) continue;
        uint64_t last = (e - 1) / tile_items;
        last = last < tiles - 1 ? last : tiles - 1;
        if (last <= b) continue;
        const T *x = pieces + 2 * b + 1;
        const uint64_t len = 2 * (last - b);
        T r = zero;
#pragma unroll 4
        for (uint64_t i = lane; i < len; i += 32) r = op(r, x[i]);
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) r = op(r, __shfl_down_sync(kAllLanes, r, d));
        if (lane == 0) out[s] = r;
    }
}

/* Whether the item-balanced path suits this shape (the caller checks that
 * the operator is exact). */
template <typename T>
inline bool tiles_suit(uint64_t n, uint64_t segments)
{
    const uint64_t items = tile_shape<T>::items;
    return n > items && n / segments <= (uint64_t)P::max_mean_tiles * items;
}

/* The three launches; workspace: the tile bounds, pieces and tail segments. */
template <typename T, typename Op>
gp_status segreduce_tiles(gp_context *ctx, const T *in, uint64_t n, const uint64_t *off, uint64_t segments, T *out,
                          T zero)
{
    using TS = tile_shape<T>;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uint64_t tiles = n / TS::items + 1; /* the last one also owns the empty segments at n */
    const size_t bound_bytes = align256((size_t)(tiles + 1) * sizeof(uint64_t));
    const size_t pieces_bytes = align256((size_t)(2 * tiles) * sizeof(T));
    const size_t tail_bytes = align256((size_t)tiles * sizeof(uint64_t));
    char *ws = nullptr;
    gp_status s = gpi_workspace_aligned(ctx, bound_bytes + pieces_bytes + tail_bytes, (void **)&ws);
    if (s) return s;
    uint64_t *bound = (uint64_t *)ws;
    T *pieces = (T *)(ws + bound_bytes);
    uint64_t *tail_seg = (uint64_t *)(ws + bound_bytes + pieces_bytes);

    tile_bounds<<<(unsigned)((tiles + P::partition_threads) / P::partition_threads), P::partition_threads, 0, st>>>(
        off, n, segments, tiles, TS::items, bound);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce (tile bounds) launch"))) return s;
    const unsigned grid = (unsigned)(tiles < (1u << 30) ? tiles : (1u << 30));
    if ((uintptr_t)in % 16 == 0)
        tile_reduce<T, Op, true><<<grid, P::threads, 0, st>>>(in, n, off, segments, tiles, bound, out, pieces,
                                                              tail_seg, zero);
    else
        tile_reduce<T, Op, false><<<grid, P::threads, 0, st>>>(in, n, off, segments, tiles, bound, out, pieces,
                                                               tail_seg, zero);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce (tiles) launch"))) return s;
    const uint64_t fix_blocks = (tiles + P::fixup_threads / 32 - 1) / (P::fixup_threads / 32);
    tile_fixup<T, Op><<<(unsigned)(fix_blocks < (1u << 20) ? fix_blocks : (1u << 20)), P::fixup_threads, 0, st>>>(
        off, n, segments, tiles, TS::items, pieces, tail_seg, out, zero);
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce (tile fix-up) launch");
}

} // namespace segtiles
} // namespace gpi

#endif
