/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_reduce.cu - gp_segmented_reduce on the device.
 *
 * Every operator follows gp_reduce's fixed tree over each segment
 * (segmented.h): for float sums that fixes the bits (the CPU backend
 * replays the same tree), for the exact operators the order is free anyway.
 *
 * Level 0: a warp per segment. A segment of at most 4096 elements is one
 * tree block: the warp plays the block's 8 warps one after another (lane l
 * of turn w is thread 32 w + l, adding elements 32 w + l + 256 j), folds
 * each turn with shuffles and combines the 8 turn sums in the tree's order,
 * then writes the result. A longer segment writes its block count instead.
 * An exclusive scan of those counts numbers every block of every long
 * segment; one thread block per such block then writes its sum (the block
 * level of the tree), into an array where each long segment's block sums
 * lie together, addressed by the scanned counts: that array with the
 * scanned counts as its offsets is a segmented reduce again, one level up.
 * Levels repeat until no segment is longer than 4096 (each level is at
 * least 2048 times shorter). So a huge segment is spread over the whole
 * GPU, and many short ones cost a warp each. Offsets are clamped to n at
 * level 0 (gpi_segment_bounds): broken ones read nothing out of bounds.
 *
 * For the exact operators (all but float sums) the order of the
 * operations is free, so a short segment's warp reads it as 16-byte
 * vectors, all of them in flight at once, instead of playing the tree's
 * turns one after another. A tree block issues all 16 of a thread's loads
 * before adding them in the tree's order.
 *
 * Many short segments of an exact operator go to the item-balanced path
 * instead (segmented_reduce_tiles.cuh): a fixed tile of items per block
 * whatever the segment lengths, so no warp idles on a short segment while
 * another reads a long one. The host picks it from the mean segment length. */
#include "ops.cuh"
#include "scan_kernels.cuh"
#include "segmented_internal.h"
#include "segmented_reduce_tiles.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

namespace {

using gpi::highest_value;
using gpi::lowest_value;
using gpi::OpMax;
using gpi::OpMin;
using gpi::OpSum;

constexpr unsigned kBlockItems = 4096; /* gp_reduce's tree block */
constexpr int kTreeThreads = 256, kTreeWarps = kTreeThreads / 32;
constexpr int kMaxLevels = 8;
constexpr unsigned kFull = 0xffffffffu;

/* The tree block over x[0, m), m <= 4096, by one warp; the result in lane 0.
 * zero: -0.0 for float sums (exactly neutral), else the identity. */
template <typename T, typename Op>
__device__ __forceinline__ T warp_tree_block(const T *x, unsigned m, T zero, int lane)
{
    Op op;
    T w[kTreeWarps];
#pragma unroll
    for (int wi = 0; wi < kTreeWarps; wi++) {
        T s = zero;
        if ((unsigned)wi * 32 < m) { /* warp-uniform: turns past the end add only -0.0 */
            for (unsigned i = (unsigned)wi * 32 + lane; i < m; i += kTreeThreads) s = op(s, x[i]);
#pragma unroll
            for (int d = 16; d > 0; d >>= 1) s = op(s, __shfl_down_sync(kFull, s, d));
        }
        w[wi] = s;
    }
    return op(op(op(w[0], w[4]), op(w[2], w[6])), op(op(w[1], w[5]), op(w[3], w[7])));
}

/* op over x[0, m) by one warp in any order (exact operators only); the
 * result in lane 0. zero: the identity. */
template <typename T, typename Op>
__device__ __forceinline__ T warp_any_order(const T *x, uint64_t m, T zero, int lane)
{
    constexpr int VI = 16 / (int)sizeof(T);
    Op op;
    T s = zero;
    const uint64_t head = std::min<uint64_t>(m, ((16 - (uintptr_t)x % 16) % 16) / sizeof(T));
    if ((uint64_t)lane < head) s = op(s, x[lane]);
    const uint64_t nv = (m - head) / VI;
    const uint4 *v4 = reinterpret_cast<const uint4 *>(x + head);
    uint64_t v = lane;
    for (; v + 32 < nv; v += 64) { /* two vectors in flight per lane */
        const uint4 a = __ldg(v4 + v), b = __ldg(v4 + v + 32);
        const T *pa = reinterpret_cast<const T *>(&a), *pb = reinterpret_cast<const T *>(&b);
#pragma unroll
        for (int j = 0; j < VI; j++) s = op(op(s, pa[j]), pb[j]);
    }
    if (v < nv) {
        const uint4 a = __ldg(v4 + v);
        const T *pa = reinterpret_cast<const T *>(&a);
#pragma unroll
        for (int j = 0; j < VI; j++) s = op(s, pa[j]);
    }
    const uint64_t tail = head + nv * VI;
    if (tail + lane < m) s = op(s, x[tail + lane]);
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) s = op(s, __shfl_down_sync(kFull, s, d));
    return s;
}

/* Segment s's range, clamped at every level: from broken offsets at
 * level 0 the segments may overlap and their blocks number more than the
 * level above has room for; those past it are dropped, and the clamp keeps
 * every read of the level above within what was written. */
__device__ __forceinline__ void bounds(const uint64_t *off, uint64_t s, uint64_t n, uint64_t &b, uint64_t &e)
{
    gpi_segment_bounds(off, (size_t)s, n, &b, &e);
}

/* A warp per segment: short segments (or, above level 0, the last level of
 * a long one) write out[s]; long ones write their block count to counts[s]
 * (counts NULL: the last level, none is long). counts[S] = 0 closes the
 * array for the exclusive scan. Above level 0 an empty segment was done at
 * an earlier level and is skipped. */
template <typename T, typename Op, bool ANY_ORDER>
__global__ void __launch_bounds__(kTreeThreads) segment_warps(const T *in, uint64_t n, const uint64_t *off,
                                                             uint64_t segments, bool level0, T *out,
                                                             uint64_t *counts, T zero, T empty)
{
    const int lane = threadIdx.x & 31;
    const uint64_t warps = (uint64_t)gridDim.x * (kTreeThreads / 32);
    if (counts && blockIdx.x == 0 && threadIdx.x == 0) counts[segments] = 0;
    for (uint64_t s = ((uint64_t)blockIdx.x * kTreeThreads + threadIdx.x) / 32; s < segments; s += warps) {
        uint64_t b, e;
        bounds(off, s, n, b, e);
        const uint64_t m = e - b;
        if (m > kBlockItems && counts) {
            if (lane == 0) counts[s] = (m + kBlockItems - 1) / kBlockItems;
            continue;
        }
        if (counts && lane == 0) counts[s] = 0;
        if (m == 0) {
            if (level0 && lane == 0) out[s] = empty;
            continue;
        }
        const T r = ANY_ORDER ? warp_any_order<T, Op>(in + b, m, zero, lane)
                              : warp_tree_block<T, Op>(in + b, (unsigned)m, zero, lane);
        if (lane == 0) out[s] = r;
    }
}

/* A thread block per tree block of the long segments: block g (numbered by
 * the scanned counts, prefix) of segment s sums its <= 4096 elements
 * exactly as gp_reduce's tree_sum_level does, into sums[g]. */
template <typename T, typename Op>
__global__ void __launch_bounds__(kTreeThreads) segment_blocks(const T *in, uint64_t n, const uint64_t *off,
                                                              const uint64_t *prefix, uint64_t segments,
                                                              uint64_t room, T *sums, T zero)
{
    __shared__ T warp_sum[kTreeWarps];
    Op op;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint64_t total = std::min(prefix[segments], room);
    for (uint64_t g = blockIdx.x; g < total; g += gridDim.x) {
        uint64_t lo = 0, hi = segments; /* prefix[lo] <= g < prefix[hi] */
        while (hi - lo > 1) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (prefix[mid] <= g) lo = mid;
            else hi = mid;
        }
        uint64_t b, e;
        bounds(off, lo, n, b, e);
        const uint64_t first = b + (g - prefix[lo]) * kBlockItems;
        const unsigned m = (unsigned)std::min<uint64_t>(kBlockItems, e - first);
        T x[kBlockItems / kTreeThreads]; /* every load in flight, then added in the tree's order */
#pragma unroll
        for (int j = 0; j < (int)(kBlockItems / kTreeThreads); j++) {
            const unsigned i = t + j * kTreeThreads;
            x[j] = i < m ? __ldg(in + first + i) : zero; /* a missing element adds the neutral zero */
        }
        T s = zero;
#pragma unroll
        for (int j = 0; j < (int)(kBlockItems / kTreeThreads); j++) s = op(s, x[j]);
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) s = op(s, __shfl_down_sync(kFull, s, d));
        if (lane == 0) warp_sum[warp] = s;
        __syncthreads();
        if (t == 0) {
            const T *w = warp_sum;
            sums[g] = op(op(op(w[0], w[4]), op(w[2], w[6])), op(op(w[1], w[5]), op(w[3], w[7])));
        }
        __syncthreads(); /* warp_sum is reused by the next block */
    }
}

template <typename T, typename Op>
gp_status segreduce_op(gp_context *ctx, const void *in_, uint64_t n, const uint64_t *off, uint64_t segments,
                       void *out_, T zero, T empty)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    using gpi::align256;
    const T *in = (const T *)in_;
    T *out = (T *)out_;
    uint64_t len[kMaxLevels + 1];
    int levels = 0; /* levels above 0 */
    len[0] = n;
    while (len[levels] > kBlockItems) { /* a level's values: at most 2 block sums per 4096 elements */
        len[levels + 1] = len[levels] / (kBlockItems / 2) + 1;
        levels++;
    }
    constexpr bool any_order = !(std::is_floating_point<T>::value && std::is_same<Op, OpSum<T>>::value);
    if constexpr (any_order) {
        if (gpi::segtiles::tiles_suit<T>(n, segments))
            return gpi::segtiles::segreduce_tiles<T, Op>(ctx, in, n, off, segments, out, zero);
    }
    const unsigned warp_grid = (unsigned)std::min<uint64_t>((segments + 7) / 8, 1u << 20);
    if (levels == 0) {
        segment_warps<T, Op, any_order><<<warp_grid, kTreeThreads, 0, st>>>(in, n, off, segments, true, out, nullptr, zero,
                                                                 empty);
        return gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce launch");
    }
    const size_t pref_bytes = align256((size_t)(segments + 1) * sizeof(uint64_t));
    const size_t scan_bytes = align256(gpi::onepass_workspace_bytes<uint64_t>((long long)(segments + 1)));
    const size_t sums_a = align256((size_t)len[1] * sizeof(T));
    const size_t sums_b = levels > 1 ? align256((size_t)len[2] * sizeof(T)) : 0;
    char *ws = nullptr;
    gp_status s = gpi_workspace_aligned(ctx, 2 * pref_bytes + scan_bytes + sums_a + sums_b, (void **)&ws);
    if (s) return s;
    uint64_t *pref[2] = {(uint64_t *)ws, (uint64_t *)(ws + pref_bytes)};
    void *scan_ws = ws + 2 * pref_bytes;
    T *sums[2] = {(T *)(ws + 2 * pref_bytes + scan_bytes), (T *)(ws + 2 * pref_bytes + scan_bytes + sums_a)};
    const long long scan_n = (long long)(segments + 1);
    for (int lvl = 0;; lvl++) {
        const T *vals = lvl == 0 ? in : sums[(lvl - 1) % 2];
        const uint64_t *offs = lvl == 0 ? off : pref[(lvl - 1) % 2];
        uint64_t *counts = lvl < levels ? pref[lvl % 2] : nullptr;
        segment_warps<T, Op, any_order><<<warp_grid, kTreeThreads, 0, st>>>(vals, len[lvl], offs, segments, lvl == 0, out,
                                                                 counts, zero, empty);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce launch"))) return s;
        if (lvl == levels) return GP_SUCCESS;
        cudaError_t e = scan_n <= gpi::small_scan_items<uint64_t>()
                            ? gpi::scan_few<uint64_t, OpSum<uint64_t>>(counts, counts, scan_n, false, 0, 0, st)
                            : gpi::scan_onepass<uint64_t, OpSum<uint64_t>>(counts, counts, scan_n, false, 0, 0,
                                                                          scan_ws, st);
        if ((s = gpi_cuda_status(ctx, e, "segmented reduce (block numbering) launch"))) return s;
        const unsigned grid = (unsigned)std::min<uint64_t>(len[lvl + 1], 1u << 20);
        segment_blocks<T, Op><<<grid, kTreeThreads, 0, st>>>(vals, len[lvl], offs, counts, segments,
                                                             len[lvl + 1], sums[lvl % 2], zero);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented reduce (blocks) launch"))) return s;
    }
}

/* T: the element type (min/max); S: the type its sum is computed in. */
template <typename T, typename S>
gp_status segreduce_typed(gp_context *ctx, gp_op op, const void *in, uint64_t n, const uint64_t *off,
                          uint64_t segments, void *out)
{
    switch (op) {
    case GP_OP_SUM: {
        const S zero = std::is_floating_point<S>::value ? S(-0.0) : S(0);
        return segreduce_op<S, OpSum<S>>(ctx, in, n, off, segments, out, zero, S(0));
    }
    case GP_OP_MIN:
        return segreduce_op<T, OpMin<T>>(ctx, in, n, off, segments, out, highest_value<T>(), highest_value<T>());
    case GP_OP_MAX:
        return segreduce_op<T, OpMax<T>>(ctx, in, n, off, segments, out, lowest_value<T>(), lowest_value<T>());
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_segmented_reduce: unchecked op");
}

} // namespace

extern "C" gp_status gpi_cuda_segmented_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                               const uint64_t *offsets, size_t n_segments, void *out)
{
    switch (dtype) {
    case GP_INT32: return segreduce_typed<int32_t, uint32_t>(ctx, op, in, n, offsets, n_segments, out);
    case GP_UINT32: return segreduce_typed<uint32_t, uint32_t>(ctx, op, in, n, offsets, n_segments, out);
    case GP_INT64: return segreduce_typed<int64_t, uint64_t>(ctx, op, in, n, offsets, n_segments, out);
    case GP_UINT64: return segreduce_typed<uint64_t, uint64_t>(ctx, op, in, n, offsets, n_segments, out);
    case GP_FLOAT32: return segreduce_typed<float, float>(ctx, op, in, n, offsets, n_segments, out);
    case GP_FLOAT64: return segreduce_typed<double, double>(ctx, op, in, n, offsets, n_segments, out);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_segmented_reduce: unchecked dtype");
}
