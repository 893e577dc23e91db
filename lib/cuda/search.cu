/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/search.cu - lower / upper bound of m needles in n sorted keys.
 *
 * A binary search per needle, on order images (the CPU reference's rule,
 * so both backends agree bit for bit). The keys are cut into G <= P gaps of
 * `step` keys (a power of two, at least a 32-byte sector), P = the policy's
 * pivots. The search is latency-bound, so:
 *   - the top of the search comes from shared memory: a first small kernel
 *     gathers the last key of each gap (the pivots, padded with the largest
 *     image to P); every block copies them to shared memory, and a needle's
 *     branch-free search there (log2 P + 1 steps) names the gap holding its
 *     bound;
 *   - with many needles in keys well past the L2 cache, the gaps cut an
 *     index instead, the last key of each 128-byte line of keys (a compact
 *     copy, built by one strided read, that stays in the L2 cache): the
 *     search goes on in the index down to one line, and only the last
 *     steps, inside that line, read the keys themselves (the few loads a
 *     needle makes that miss the L2 cache, where random needles spend most
 *     of their time);
 *   - inside the gap (or the line), branch-free halving steps down to one sector, then
 *     one 32-byte load of that sector and a count of its keys before the
 *     needle (the last log2(sector) levels in one load);
 *   - each thread searches per_thread needles in lockstep: every step takes
 *     the same number of iterations for all of them, so their loads are in
 *     flight together.
 * Positions past n read as "not before the needle" (loads are clamped), so
 * whatever the keys hold each result lies in [0, n] and nothing outside
 * the buffers is read. */
#include "order_image.cuh"
#include "policy/search.cuh"
#include "search_internal.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace {

/* lower: is key before the needle (key < x)? upper: key <= x. */
template <bool UPPER, typename W>
__device__ __forceinline__ bool before(W key, W x)
{
    return UPPER ? key <= x : key < x;
}

/* pivots[g] = image of the last key of gap g, g < gaps; the largest image after. */
template <typename W, int KIND>
__global__ void gather_pivots(const W *__restrict__ keys, size_t n, size_t step, size_t gaps, W *__restrict__ pivots,
                              W flip)
{
    using P = gpi::search_policy<sizeof(W)>;
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < P::pivots)
        pivots[g] = (size_t)g < gaps ? gpi_order::image<W, KIND>(keys[std::min((g + 1) * step, n) - 1], flip)
                                     : (W)~(W)0;
}

/* index[j] = image of the last key of line j (lines of 2^log2_line keys). */
template <typename W, int KIND>
__global__ void build_index(const W *__restrict__ keys, size_t n, int log2_line, size_t lines, W *__restrict__ index,
                            W flip)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < lines; j += (size_t)gridDim.x * blockDim.x)
        index[j] = gpi_order::image<W, KIND>(keys[std::min((j + 1) << log2_line, n) - 1], flip);
}

/* For each of the thread's needles: base[p] (a multiple of h0 * 2) grows by
 * the count of entries before x[p] among arr[base[p], base[p] + 2 h0),
 * entries at or past len counting as not before. Branch-free halving down
 * to a sector, then one load of the sector (vector loads when VEC_OK and
 * arr is 32-byte aligned). IMAGED: arr holds order images already. */
template <typename W, int KIND, bool UPPER, bool IMAGED, int kPer, int kSector>
__device__ __forceinline__ void descend(const W *__restrict__ arr, size_t len, size_t h0, bool vec, W flip,
                                        const W (&x)[kPer], size_t (&base)[kPer])
{
    const size_t last = len - 1;
    for (size_t h = h0; h >= (size_t)kSector; h >>= 1) {
        W k[kPer];
#pragma unroll
        for (int p = 0; p < kPer; p++) k[p] = __ldg(arr + std::min(base[p] + h - 1, last));
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            const W img = IMAGED ? k[p] : gpi_order::image<W, KIND>(k[p], flip);
            base[p] += base[p] + h - 1 < len && before<UPPER>(img, x[p]) ? h : 0;
        }
    }
    /* the sector: count its entries before the needle */
#pragma unroll
    for (int p = 0; p < kPer; p++) {
        W s[kSector];
        if (vec && base[p] + kSector <= len) {
            const uint4 *v = reinterpret_cast<const uint4 *>(arr + base[p]);
            const uint4 v0 = __ldg(v), v1 = __ldg(v + 1);
            const W *w0 = reinterpret_cast<const W *>(&v0), *w1 = reinterpret_cast<const W *>(&v1);
#pragma unroll
            for (int j = 0; j < kSector / 2; j++) s[j] = w0[j], s[kSector / 2 + j] = w1[j];
        } else {
#pragma unroll
            for (int j = 0; j < kSector; j++) s[j] = __ldg(arr + std::min(base[p] + j, last));
        }
        int c = 0;
#pragma unroll
        for (int j = 0; j < kSector; j++) {
            const W img = IMAGED ? s[j] : gpi_order::image<W, KIND>(s[j], flip);
            c += base[p] + j < len && before<UPPER>(img, x[p]);
        }
        base[p] += c;
    }
}

/* INDEXED: the pivots' gaps are of 2^log2_step index entries; the search
 * goes on in the index down to one line, then in that line of keys.
 * Otherwise the gaps are of 2^log2_step keys. */
template <typename W, int KIND, bool UPPER, bool INDEXED>
__global__ void __launch_bounds__(gpi::search_policy<sizeof(W)>::threads)
    search_kernel(const W *__restrict__ keys, size_t n, const W *__restrict__ needles, size_t m,
                  uint64_t *__restrict__ out, const W *__restrict__ pivots, int log2_step, bool vec, W flip,
                  const W *__restrict__ index, size_t lines, int log2_line)
{
    using P = gpi::search_policy<sizeof(W)>;
    constexpr int kThreads = P::threads, kPer = P::per_thread, kPivots = P::pivots, kSector = P::sector;
    __shared__ W piv[kPivots];
    for (int j = threadIdx.x; j < kPivots; j += kThreads) piv[j] = pivots[j];
    __syncthreads();

    const size_t tile = (size_t)kThreads * kPer;
    const size_t step = (size_t)1 << log2_step;
    const size_t gaps_end = INDEXED ? lines : n; /* what the gaps cut */
    for (size_t t0 = blockIdx.x * tile; t0 < m; t0 += (size_t)gridDim.x * tile) {
        W x[kPer];
        size_t base[kPer];
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            const size_t i = t0 + (size_t)p * kThreads + threadIdx.x;
            x[p] = gpi_order::image<W, KIND>(needles[std::min(i, m - 1)], flip);
        }
        /* the gap: pivots before the needle */
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            int g = 0;
#pragma unroll
            for (int h = kPivots / 2; h >= 1; h >>= 1) g += before<UPPER>(piv[g + h - 1], x[p]) ? h : 0;
            g += before<UPPER>(piv[g], x[p]) ? 1 : 0;
            base[p] = std::min((size_t)g << log2_step, gaps_end);
        }
        if (INDEXED) {
            /* lines before the needle, from the index (the index is 256-byte aligned) */
            descend<W, KIND, UPPER, true, kPer, kSector>(index, lines, step >> 1, true, flip, x, base);
#pragma unroll
            for (int p = 0; p < kPer; p++) base[p] = std::min(base[p] << log2_line, n);
            descend<W, KIND, UPPER, false, kPer, kSector>(keys, n, ((size_t)1 << log2_line) >> 1, vec, flip, x, base);
        } else {
            descend<W, KIND, UPPER, false, kPer, kSector>(keys, n, step >> 1, vec, flip, x, base);
        }
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            const size_t i = t0 + (size_t)p * kThreads + threadIdx.x;
            if (i < m) out[i] = base[p];
        }
    }
}

template <typename W, int KIND, bool UPPER, bool INDEXED>
gp_status search_launch(gp_context *ctx, const gpi_search_args *a, const W *pivots, int log2_step, W flip,
                        const W *index, size_t lines, int log2_line)
{
    using P = gpi::search_policy<sizeof(W)>;
    const size_t tile = (size_t)P::threads * P::per_thread, tiles = (a->m + tile - 1) / tile;
    /* persistent blocks: as many as fit at once (blocks loop over tiles) */
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, search_kernel<W, KIND, UPPER, INDEXED>, P::threads,
                                                      0) != cudaSuccess)
        (void)cudaGetLastError(), per_sm = 1;
    per_sm = std::max(1, std::min(per_sm, P::blocks_per_sm));
    const size_t cap = (size_t)std::max(ctx->sm_count, 1) * per_sm;
    const unsigned grid = (unsigned)std::min(tiles, cap);
    const bool vec = (uintptr_t)a->keys % 32 == 0;
    search_kernel<W, KIND, UPPER, INDEXED><<<grid, P::threads, 0, (cudaStream_t)ctx->stream>>>(
        (const W *)a->keys, a->n, (const W *)a->needles, a->m, a->positions, pivots, log2_step, vec, flip, index,
        lines, log2_line);
    return gpi_cuda_status(ctx, cudaGetLastError(), "search kernel");
}

/* The least power of two, at least a sector, cutting `len` into at most
 * `pivots` gaps. */
template <typename W>
int gap_log2(size_t len)
{
    using P = gpi::search_policy<sizeof(W)>;
    int l = 0;
    while (((size_t)1 << l) < (size_t)P::sector || (len + ((size_t)1 << l) - 1) >> l > (size_t)P::pivots) l++;
    return l;
}

template <typename W, int KIND>
gp_status search_typed(gp_context *ctx, const gpi_search_args *a)
{
    using P = gpi::search_policy<sizeof(W)>;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const W flip = gpi_order::flip_for<W>(a->descending);
    if (a->n == 0)
        return gpi_cuda_status(ctx, cudaMemsetAsync(a->positions, 0, a->m * sizeof(uint64_t), st), "search");
    const size_t n = a->n, piv_bytes = ((size_t)P::pivots * sizeof(W) + 255) / 256 * 256;
    /* The index of lines: worth its one strided read when the keys are well
     * past the L2 cache and enough needles share it. */
    int log2_line = 0;
    while (((size_t)sizeof(W) << log2_line) < (size_t)P::index_line_bytes) log2_line++;
    const size_t lines = (n + ((size_t)1 << log2_line) - 1) >> log2_line;
    bool indexed = n * sizeof(W) >= P::index_min_bytes && a->m >= lines / P::index_lines_per_needle;
    W *ws = NULL;
    if (indexed) {
        const gp_status s = gpi_workspace_aligned(ctx, piv_bytes + lines * sizeof(W), (void **)&ws);
        if (s == GP_ERROR_OUT_OF_MEMORY)
            gpi_clear_error(ctx), indexed = false; /* no room for the index now: search without it */
        else if (s)
            return s;
    }
    if (!indexed) {
        gp_status s = gpi_workspace_aligned(ctx, piv_bytes, (void **)&ws);
        if (s) return s;
    }
    W *pivots = ws, *index = indexed ? (W *)((char *)ws + piv_bytes) : NULL;
    /* the gaps cut the keys, or the index (each gap of the index is a gap
     * of the keys 2^log2_line times longer) */
    const int log2_step = gap_log2<W>(indexed ? lines : n);
    const int key_log2_step = log2_step + (indexed ? log2_line : 0);
    const size_t key_step = (size_t)1 << key_log2_step, gaps = (n + key_step - 1) / key_step;
    if (indexed)
        build_index<W, KIND><<<gpi_stride_blocks(lines, 256), 256, 0, st>>>((const W *)a->keys, n, log2_line, lines,
                                                                            index, flip);
    gather_pivots<W, KIND><<<P::pivots / 256, 256, 0, st>>>((const W *)a->keys, n, key_step, gaps, pivots, flip);
    if (indexed) {
        if (a->upper) return search_launch<W, KIND, true, true>(ctx, a, pivots, log2_step, flip, index, lines, log2_line);
        return search_launch<W, KIND, false, true>(ctx, a, pivots, log2_step, flip, index, lines, log2_line);
    }
    if (a->upper) return search_launch<W, KIND, true, false>(ctx, a, pivots, log2_step, flip, NULL, 0, 0);
    return search_launch<W, KIND, false, false>(ctx, a, pivots, log2_step, flip, NULL, 0, 0);
}

}  // namespace

#define GPI_SEARCH_CALL(W, KIND) search_typed<W, KIND>(ctx, a)

extern "C" gp_status gpi_cuda_search(gp_context *ctx, const gpi_search_args *a)
{
    GPI_DISPATCH_KEY(a->key_dtype, GPI_SEARCH_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "search: unchecked key dtype %d", (int)a->key_dtype);
}
