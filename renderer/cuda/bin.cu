/* SPDX-License-Identifier: BSD-3-Clause */
/* bin.cu - binning: count each circle's tiles, emit its (tile, circle)
 * keys in draw order, find batch ends, and each tile's range in the keys
 * once gpuprim's sort has ordered them by tile. */
#include "cuda/cull.cuh"
#include "cuda/kernels.cuh"

namespace gpr_rc {
namespace {


/* WARP: circle i is warp i's (n <= kWarpCircleN), a lane per tile row; the
 * same row_span values are summed, so the count is the thread path's. */
template <bool WARP>
__global__ void __launch_bounds__(P::kBinThreads)
    count_kernel(const float4 *geom, const uint2 *box, uint32_t n, int2 lg, float invW, float invH, uint64_t *counts)
{
    if (WARP) {
        const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; /* uniform per warp */
        const int lane = threadIdx.x & 31;
        if (i >= n) return; /* whole warp */
        const Box b = unpack_box(box[i]);
        const TileRange t = tile_range(b, lg);
        uint32_t c = 0; /* at most bins_x per row */
        if (t.tx0 <= t.tx1) {
            const float4 g = geom[i];
            for (int ty = t.ty0 + lane; ty <= t.ty1; ty += 32) {
                int l;
                c += (uint32_t)row_span(g, b, t.tx0, t.tx1, ty, lg, invW, invH, &l);
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) c += __shfl_xor_sync(kFull, c, off);
        if (lane == 0) counts[i] = c; /* <= num_bins < 2^32 */
        return;
    }
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Box b = unpack_box(box[i]);
    TileRange t = tile_range(b, lg);
    uint64_t c = 0;
    if (t.tx0 <= t.tx1) {
        float4 g = geom[i];
        for (int ty = t.ty0; ty <= t.ty1; ++ty) {
            int l;
            c += (uint64_t)row_span(g, b, t.tx0, t.tx1, ty, lg, invW, invH, &l);
        }
    }
    counts[i] = c;
}

/* One circle's pairs into pairs[s, e), by the whole warp (all lanes call it
 * with the same arguments): a lane per tile row for the spans, then pair q
 * of the rows' run is lane q % 32's, so every store of the warp is 32
 * consecutive keys (a lane finds its row by a binary search over the rows'
 * inclusive ends, by shuffles). crel = circle - batch first. */
template <typename K>
__device__ __forceinline__ void emit_circle_warp(float4 sg, uint2 sbx, uint32_t crel, uint64_t s, uint64_t e,
                                                 int bins_x, int2 lg, int cbits, float invW, float invH, K *pairs)
{
    const int lane = threadIdx.x & 31;
    const Box b = unpack_box(sbx);
    const TileRange t = tile_range(b, lg);
    for (int row0 = t.ty0; row0 <= t.ty1; row0 += 32) {
        const int ty = row0 + lane;
        int l = 0, w = 0;
        if (ty <= t.ty1) w = row_span(sg, b, t.tx0, t.tx1, ty, lg, invW, invH, &l);
        int incw = w;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            int v = __shfl_up_sync(kFull, incw, off);
            if (lane >= off) incw += v;
        }
        const int excl = incw - w;
        const int total = __shfl_sync(kFull, incw, 31);
        for (int q0 = 0; q0 < total; q0 += 32) {
            const int q = q0 + lane;
            /* q's row k: the number of rows whose inclusive end is <= q
             * (incw never decreases; lane 31's is total > q). */
            int k = 0;
#pragma unroll
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(kFull, incw, k + step - 1) <= q) k += step;
            const int lk = __shfl_sync(kFull, l, k), ok = __shfl_sync(kFull, excl, k);
            const uint64_t p = s + (uint64_t)q;
            if (q < total && p < e) /* guard: never write outside the slice */
                pairs[p] = ((K)((uint32_t)((row0 + k) * bins_x + lk + (q - ok))) << cbits) | (K)crel;
        }
        s += (uint64_t)total;
    }
}

/* Pairs of circles [c0, c1) into pairs[incl[i-1] - base, incl[i] - base), as
 * keys (tile << cbits) | (i - c0). No thread leaves early: the cooperative
 * part needs whole warps. WARP: circle c0 + w is warp w's (whole warps leave
 * together). Also clears ranges (the ranges kernel's memset, fused: saves a
 * launch, ~2-3 us per batch): the sort runs between, stream-ordered. */
template <typename K, bool WARP>
__global__ void __launch_bounds__(P::kBinThreads)
    emit_kernel(const float4 *geom, const uint2 *box, const uint64_t *incl, uint32_t c0, uint32_t c1,
                uint64_t base, int bins_x, int2 lg, int cbits, float invW, float invH, K *pairs, uint2 *ranges,
                uint32_t num_bins)
{
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < num_bins; k += gridDim.x * blockDim.x)
        ranges[k] = make_uint2(0u, 0u);
    if (WARP) {
        const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; /* uniform per warp */
        if (w >= c1 - c0) return;                                         /* whole warp */
        const uint32_t i = c0 + w;
        const uint64_t end = incl[i] - base;
        const uint64_t start = (i == 0 ? 0 : incl[i - 1]) - base;
        if (end > start) emit_circle_warp<K>(geom[i], box[i], w, start, end, bins_x, lg, cbits, invW, invH, pairs);
        return;
    }
    const uint32_t i = c0 + blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t start = 0, end = 0;
    float4 g = make_float4(0.f, 0.f, 0.f, 0.f);
    uint2 bx = make_uint2(0u, 0u);
    if (i < c1) {
        end = incl[i] - base;
        start = (i == 0 ? 0 : incl[i - 1]) - base;
        if (end > start) {
            g = geom[i];
            bx = box[i];
        }
    }
    const bool coop = end - start >= P::kEmitCoopMin;

    if (end > start && !coop) {
        Box b = unpack_box(bx);
        TileRange t = tile_range(b, lg);
        uint64_t p = start;
        const K step = (K)1 << cbits;
        for (int ty = t.ty0; ty <= t.ty1; ++ty) {
            int l, w = row_span(g, b, t.tx0, t.tx1, ty, lg, invW, invH, &l);
            K key = ((K)(uint32_t)(ty * bins_x + l) << cbits) | (K)(i - c0);
            for (int k = 0; k < w; ++k, ++p, key += step)
                if (p < end) pairs[p] = key; /* guard: never write outside the slice */
        }
    }

    /* Big circles: the warp takes them one at a time. */
    unsigned todo = __ballot_sync(kFull, coop);
    while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        const float4 sg = make_float4(__shfl_sync(kFull, g.x, src), __shfl_sync(kFull, g.y, src), 0.f,
                                      __shfl_sync(kFull, g.w, src));
        const uint2 sbx = make_uint2(__shfl_sync(kFull, bx.x, src), __shfl_sync(kFull, bx.y, src));
        const uint32_t ci = __shfl_sync(kFull, i, src);
        const uint64_t s = __shfl_sync(kFull, start, src);
        const uint64_t e = __shfl_sync(kFull, end, src);
        emit_circle_warp<K>(sg, sbx, ci - c0, s, e, bins_x, lg, cbits, invW, invH, pairs);
    }
}

/* First circle index j in [c0, n) whose pairs end past limit (n if none):
 * circles [c0, j) fit in one batch. out = {j, pairs ending before j}. */
__global__ void batch_end_kernel(const uint64_t *incl, uint32_t c0, uint32_t n, uint64_t limit, uint64_t *out)
{
    uint32_t lo = c0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (incl[mid] > limit) hi = mid;
        else lo = mid + 1;
    }
    out[0] = lo;
    out[1] = lo > 0 ? incl[lo - 1] : 0;
}

/* ranges[tile] = [first, last + 1) of the tile in the sorted keys; tiles
 * with no pair keep the {0, 0} emit_kernel left. */
template <typename K>
__global__ void __launch_bounds__(P::kBinThreads)
    ranges_kernel(const K *keys, uint32_t np, int cbits, uint2 *ranges)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    uint32_t t = (uint32_t)(keys[p] >> cbits);
    if (p == 0 || (uint32_t)(keys[p - 1] >> cbits) != t) ranges[t].x = p;
    if (p == np - 1 || (uint32_t)(keys[p + 1] >> cbits) != t) ranges[t].y = p + 1;
}


} // namespace

cudaError_t launch_count(const float4 *geom, const uint2 *box, uint32_t n, int2 lg, float invW, float invH,
                         uint64_t *counts, cudaStream_t st)
{
    const unsigned bt = P::kBinThreads;
    if (n <= P::kWarpCircleN) /* a warp per circle; n * 32 < 2^32 */
        count_kernel<true><<<(n * 32u + bt - 1) / bt, bt, 0, st>>>(geom, box, n, lg, invW, invH, counts);
    else
        count_kernel<false><<<(n + bt - 1) / bt, bt, 0, st>>>(geom, box, n, lg, invW, invH, counts);
    return cudaGetLastError();
}

template <typename K>
cudaError_t launch_emit(const float4 *geom, const uint2 *box, const uint64_t *incl, uint32_t c0, uint32_t c1,
                        uint64_t base, int bins_x, int2 lg, int cbits, float invW, float invH, K *pairs, uint2 *ranges,
                        uint32_t num_bins, cudaStream_t st)
{
    const unsigned bt = P::kBinThreads;
    const uint32_t nc = c1 - c0;
    if (nc <= P::kWarpCircleN) /* a warp per circle; nc * 32 < 2^32 */
        emit_kernel<K, true><<<(nc * 32u + bt - 1) / bt, bt, 0, st>>>(geom, box, incl, c0, c1, base, bins_x, lg, cbits,
                                                                     invW, invH, pairs, ranges, num_bins);
    else
        emit_kernel<K, false><<<(nc + bt - 1) / bt, bt, 0, st>>>(geom, box, incl, c0, c1, base, bins_x, lg, cbits,
                                                                invW, invH, pairs, ranges, num_bins);
    return cudaGetLastError();
}

cudaError_t launch_batch_end(const uint64_t *incl, uint32_t c0, uint32_t n, uint64_t limit, uint64_t *out,
                             cudaStream_t st)
{
    batch_end_kernel<<<1, 1, 0, st>>>(incl, c0, n, limit, out);
    return cudaGetLastError();
}

template <typename K>
cudaError_t launch_ranges(const K *keys, uint32_t np, int cbits, uint2 *ranges, cudaStream_t st)
{
    const unsigned bt = P::kBinThreads;
    ranges_kernel<K><<<(unsigned)((np + bt - 1) / bt), bt, 0, st>>>(keys, np, cbits, ranges);
    return cudaGetLastError();
}

template cudaError_t launch_emit<uint32_t>(const float4 *, const uint2 *, const uint64_t *, uint32_t, uint32_t,
                                           uint64_t, int, int2, int, float, float, uint32_t *, uint2 *, uint32_t,
                                           cudaStream_t);
template cudaError_t launch_emit<uint64_t>(const float4 *, const uint2 *, const uint64_t *, uint32_t, uint32_t,
                                           uint64_t, int, int2, int, float, float, uint64_t *, uint2 *, uint32_t,
                                           cudaStream_t);
template cudaError_t launch_ranges<uint32_t>(const uint32_t *, uint32_t, int, uint2 *, cudaStream_t);
template cudaError_t launch_ranges<uint64_t>(const uint64_t *, uint32_t, int, uint2 *, cudaStream_t);

} // namespace gpr_rc
