/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_scan.cu - gp_segmented_scan and gp_scan_by_key on the
 * device.
 *
 * A segmented scan is an ordinary scan of (value, head) pairs under the
 * segmented operator  (a, b) -> b.head ? b : (a.v op b.v, a.head),  which
 * is associative; head marks the first element of a segment. Heads come
 * from a byte per element in the workspace: set at each non-empty
 * segment's start (offsets, clamped as gpi_segment_bounds does, so broken
 * offsets touch nothing out of bounds), or where a key differs from the one
 * before it (by key). The pairs are then scanned as scan.cu scans float
 * sums: reduce-then-scan in tiles of 2048 with CUB's block scan, the tile
 * totals scanned the same way one level up, so the combination order is
 * fixed by n and the heads alone and float sums are the same run to run.
 * Exact operators (integer sums, min, max) take the single pass of
 * segscan_kernel.cuh instead: one read of the input, the look-back's
 * timing-dependent combination order being harmless there; by key it needs
 * no head bytes either.
 * A head element's value enters as identity op x, as the CPU reference's
 * running value does (NaN skipped by min/max from the first element on;
 * -0.0 + identity +0.0 for sums). In place is safe: a tile is loaded into
 * registers before its block stores it, and no other block touches it. */
#include "ops.cuh"
#include "segmented_internal.h"
#include "segscan_kernel.cuh"

#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

namespace {

using gpi::highest_value;
using gpi::lowest_value;
using gpi::OpMax;
using gpi::OpMin;
using gpi::OpSum;

constexpr int kThreads = 256, kItems = 8;
constexpr uint64_t kTile = (uint64_t)kThreads * kItems;
constexpr uint64_t kMaxGrid = 1u << 20; /* tiles past it: grid-stride */

template <typename T>
struct Seg {
    T v;
    uint32_t head;
};

template <typename T, typename Op>
struct SegOp {
    __device__ __forceinline__ Seg<T> operator()(const Seg<T> &a, const Seg<T> &b) const
    {
        if (b.head) return b;
        return Seg<T>{Op()(a.v, b.v), a.head};
    }
};

/* Element i of a level: TOP, the input (value and head byte); else the
 * tile totals of the level below. Past n: the identity, no head. */
template <typename T, typename Op, bool TOP>
__device__ __forceinline__ Seg<T> load_item(const void *src, const uint8_t *heads, uint64_t i, uint64_t n, T identity)
{
    if (i >= n) return Seg<T>{identity, 0};
    if constexpr (TOP) {
        const T x = static_cast<const T *>(src)[i];
        const uint32_t h = heads[i];
        return Seg<T>{h ? Op()(identity, x) : x, h};
    } else {
        return static_cast<const Seg<T> *>(src)[i];
    }
}

template <typename T, typename Op, bool TOP>
__global__ void __launch_bounds__(kThreads) seg_reduce_tiles(const void *src, const uint8_t *heads, uint64_t n,
                                                            uint64_t tiles, T identity, Seg<T> *agg)
{
    using Scan = cub::BlockScan<Seg<T>, kThreads>;
    __shared__ typename Scan::TempStorage tmp;
    for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const uint64_t first = t * kTile + (uint64_t)threadIdx.x * kItems;
        Seg<T> items[kItems], scanned[kItems], total;
#pragma unroll
        for (int j = 0; j < kItems; j++) items[j] = load_item<T, Op, TOP>(src, heads, first + j, n, identity);
        Scan(tmp).InclusiveScan(items, scanned, SegOp<T, Op>(), total);
        if (threadIdx.x == 0) agg[t] = total;
        __syncthreads(); /* tmp is reused by the next tile */
    }
}

/* TOP: writes the segment values of elements in [lo, hi) of out (lo and hi
 * from the clamped offsets, or 0 and n by key). Else: the exclusive scan of
 * the tile totals, in place. prefix NULL: one tile, from the identity. */
template <typename T, typename Op, bool TOP>
__global__ void __launch_bounds__(kThreads) seg_scan_tiles(const void *src, const uint8_t *heads, void *dst,
                                                          uint64_t n, uint64_t tiles, T identity,
                                                          const Seg<T> *prefix, bool inclusive,
                                                          const uint64_t *offsets, uint64_t segments)
{
    using Scan = cub::BlockScan<Seg<T>, kThreads>;
    __shared__ typename Scan::TempStorage tmp;
    uint64_t lo = 0, hi = n;
    if (TOP && offsets) {
        lo = std::min<uint64_t>(offsets[0], n);
        hi = std::min<uint64_t>(offsets[segments], n);
    }
    for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const uint64_t first = t * kTile + (uint64_t)threadIdx.x * kItems;
        Seg<T> items[kItems], excl[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) items[j] = load_item<T, Op, TOP>(src, heads, first + j, n, identity);
        const Seg<T> init = prefix ? prefix[t] : Seg<T>{identity, 0};
        Scan(tmp).ExclusiveScan(items, excl, init, SegOp<T, Op>());
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const uint64_t i = first + j;
            if constexpr (TOP) {
                if (i >= lo && i < hi) {
                    T v;
                    if (inclusive) v = items[j].head ? items[j].v : Op()(excl[j].v, items[j].v);
                    else v = items[j].head ? identity : excl[j].v;
                    static_cast<T *>(dst)[i] = v;
                }
            } else if (i < n) {
                static_cast<Seg<T> *>(dst)[i] = excl[j];
            }
        }
        __syncthreads(); /* tmp is reused by the next tile */
    }
}

uint64_t tiles_of(uint64_t n) { return (n + kTile - 1) / kTile; }
size_t align256(size_t b) { return (b + 255) / 256 * 256; }
uint64_t padded(uint64_t elems) { return (elems + 15) & ~(uint64_t)15; } /* keeps levels 256-byte aligned */

/* Pairs all levels above the input need together. */
uint64_t scratch_pairs(uint64_t n)
{
    uint64_t total = 0;
    for (uint64_t tiles = tiles_of(n); tiles > 1; tiles = tiles_of(tiles)) total += padded(tiles);
    return total;
}

/* One level: src (TOP: the input; else tile totals, scanned in place). */
template <typename T, typename Op, bool TOP>
gp_status run_level(gp_context *ctx, const void *src, const uint8_t *heads, void *dst, uint64_t n, T identity,
                    bool inclusive, const uint64_t *offsets, uint64_t segments, Seg<T> *scratch)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uint64_t tiles = tiles_of(n);
    const unsigned grid = (unsigned)std::min(tiles, kMaxGrid);
    Seg<T> *agg = nullptr;
    gp_status s;
    if (tiles > 1) {
        agg = scratch;
        seg_reduce_tiles<T, Op, TOP><<<grid, kThreads, 0, st>>>(src, heads, n, tiles, identity, agg);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented scan (tile totals) launch"))) return s;
        s = run_level<T, Op, false>(ctx, agg, nullptr, agg, tiles, identity, false, nullptr, 0,
                                    scratch + padded(tiles));
        if (s) return s;
    }
    seg_scan_tiles<T, Op, TOP><<<grid, kThreads, 0, st>>>(src, heads, dst, n, tiles, identity, agg, inclusive,
                                                          offsets, segments);
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented scan launch");
}

/* ---- heads
 * ---------------------------------------------------------------------- */
__global__ void heads_from_offsets(const uint64_t *offsets, uint64_t segments, uint64_t n, uint8_t *heads)
{
    for (uint64_t s = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; s < segments;
         s += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t b, e;
        gpi_segment_bounds(offsets, (size_t)s, n, &b, &e);
        if (b < e) heads[b] = 1;
    }
}

/* K: the type whose == decides (uint32/uint64 for integers of either sign). */
template <typename K>
__global__ void heads_from_keys(const K *keys, uint64_t n, uint8_t *heads)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        heads[i] = i == 0 || !(keys[i - 1] == keys[i]);
}

gp_status make_heads(gp_context *ctx, const gpi_segscan_args *a, uint8_t *heads)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned grid = gpi_stride_blocks(a->n, 256);
    if (a->offsets) {
        cudaError_t e = cudaMemsetAsync(heads, 0, a->n, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented scan heads memset");
        heads_from_offsets<<<gpi_stride_blocks(a->n_segments, 256), 256, 0, st>>>(a->offsets, a->n_segments, a->n,
                                                                                  heads);
    } else {
        switch (a->key_dtype) {
        case GP_INT32:
        case GP_UINT32: heads_from_keys<<<grid, 256, 0, st>>>((const uint32_t *)a->keys, a->n, heads); break;
        case GP_INT64:
        case GP_UINT64: heads_from_keys<<<grid, 256, 0, st>>>((const uint64_t *)a->keys, a->n, heads); break;
        case GP_FLOAT32: heads_from_keys<<<grid, 256, 0, st>>>((const float *)a->keys, a->n, heads); break;
        case GP_FLOAT64: heads_from_keys<<<grid, 256, 0, st>>>((const double *)a->keys, a->n, heads); break;
        }
    }
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented scan heads launch");
}

/* Float sums: head bytes, then reduce-then-scan (fixed order). */
template <typename T, typename Op>
gp_status segscan_ordered(gp_context *ctx, const gpi_segscan_args *a, T identity)
{
    const size_t head_bytes = align256(a->n);
    char *ws = nullptr;
    gp_status s = gpi_workspace_aligned(ctx, head_bytes + scratch_pairs(a->n) * sizeof(Seg<T>), (void **)&ws);
    if (s) return s;
    uint8_t *heads = (uint8_t *)ws;
    if ((s = make_heads(ctx, a, heads))) return s;
    return run_level<T, Op, true>(ctx, a->in, heads, a->out, a->n, identity, a->inclusive != 0, a->offsets,
                                  a->n_segments, (Seg<T> *)(ws + head_bytes));
}

/* Exact operators: the single pass, heads from the keys (K) or, by
 * offsets, from head bytes made first. */
template <typename T, typename Op, typename K, bool BY_KEY>
gp_status segscan_launch(gp_context *ctx, const gpi_segscan_args *a, T identity, const K *keys, char *ws,
                         long long tiles)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    gpi::pair_state<gpi::seg_pair<T>> st;
    gp_status s = gpi_cuda_status(ctx, gpi::pair_state_clear(ws, tiles, stream, &st), "segmented scan cudaMemsetAsync");
    if (s) return s;
    gpi::segscan_kernel<T, Op, K, BY_KEY><<<(unsigned)tiles, gpi::segscan_policy::threads, 0, stream>>>(
        (const T *)a->in, (T *)a->out, keys, (long long)a->n, (const unsigned long long *)a->offsets,
        (unsigned long long)a->n_segments, a->inclusive != 0, identity, st);
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented scan launch");
}

template <typename T, typename Op>
gp_status segscan_op(gp_context *ctx, const gpi_segscan_args *a, T identity)
{
    if constexpr (std::is_floating_point<T>::value && std::is_same<Op, OpSum<T>>::value) {
        return segscan_ordered<T, Op>(ctx, a, identity);
    } else {
        const long long tiles = (long long)((a->n + gpi::segscan_tile_items<T>() - 1) / gpi::segscan_tile_items<T>());
        if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "segmented scan: too many tiles");
        const size_t state_bytes = gpi::pair_state_bytes<gpi::seg_pair<T>>(tiles);
        const size_t head_bytes = a->offsets ? align256(a->n) : 0;
        char *ws = nullptr;
        gp_status s = gpi_workspace_aligned(ctx, state_bytes + head_bytes, (void **)&ws);
        if (s) return s;
        if (a->offsets) {
            uint8_t *heads = (uint8_t *)(ws + state_bytes);
            if ((s = make_heads(ctx, a, heads))) return s;
            return segscan_launch<T, Op, uint8_t, false>(ctx, a, identity, heads, ws, tiles);
        }
        switch (a->key_dtype) {
        case GP_INT32:
        case GP_UINT32:
            return segscan_launch<T, Op, uint32_t, true>(ctx, a, identity, (const uint32_t *)a->keys, ws, tiles);
        case GP_INT64:
        case GP_UINT64:
            return segscan_launch<T, Op, uint64_t, true>(ctx, a, identity, (const uint64_t *)a->keys, ws, tiles);
        case GP_FLOAT32: return segscan_launch<T, Op, float, true>(ctx, a, identity, (const float *)a->keys, ws, tiles);
        case GP_FLOAT64:
            return segscan_launch<T, Op, double, true>(ctx, a, identity, (const double *)a->keys, ws, tiles);
        }
        return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_segmented_scan: unchecked key dtype");
    }
}

/* T: the element type (min/max); S: the type its sum is computed in. */
template <typename T, typename S>
gp_status segscan_typed(gp_context *ctx, const gpi_segscan_args *a)
{
    switch (a->op) {
    case GP_OP_SUM: return segscan_op<S, OpSum<S>>(ctx, a, S(0));
    case GP_OP_MIN: return segscan_op<T, OpMin<T>>(ctx, a, highest_value<T>());
    case GP_OP_MAX: return segscan_op<T, OpMax<T>>(ctx, a, lowest_value<T>());
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_segmented_scan: unchecked op");
}

} // namespace

extern "C" gp_status gpi_cuda_segmented_scan(gp_context *ctx, const gpi_segscan_args *a)
{
    switch (a->dtype) {
    case GP_INT32: return segscan_typed<int32_t, uint32_t>(ctx, a);
    case GP_UINT32: return segscan_typed<uint32_t, uint32_t>(ctx, a);
    case GP_INT64: return segscan_typed<int64_t, uint64_t>(ctx, a);
    case GP_UINT64: return segscan_typed<uint64_t, uint64_t>(ctx, a);
    case GP_FLOAT32: return segscan_typed<float, float>(ctx, a);
    case GP_FLOAT64: return segscan_typed<double, double>(ctx, a);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_segmented_scan: unchecked dtype");
}
