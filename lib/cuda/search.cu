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
 *   - inside the gap, branch-free halving steps down to one sector, then
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

template <typename W, int KIND, bool UPPER>
__global__ void __launch_bounds__(gpi::search_policy<sizeof(W)>::threads)
    search_kernel(const W *__restrict__ keys, size_t n, const W *__restrict__ needles, size_t m,
                  uint64_t *__restrict__ out, const W *__restrict__ pivots, int log2_step, bool vec, W flip)
{
    using P = gpi::search_policy<sizeof(W)>;
    constexpr int kThreads = P::threads, kPer = P::per_thread, kPivots = P::pivots, kSector = P::sector;
    __shared__ W piv[kPivots];
    for (int j = threadIdx.x; j < kPivots; j += kThreads) piv[j] = pivots[j];
    __syncthreads();

    const size_t tile = (size_t)kThreads * kPer, last = n - 1;
    const size_t step = (size_t)1 << log2_step;
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
            base[p] = std::min((size_t)g << log2_step, n);
        }
        /* inside the gap, down to a sector */
        for (size_t h = step >> 1; h >= (size_t)kSector; h >>= 1) {
            W k[kPer];
#pragma unroll
            for (int p = 0; p < kPer; p++) k[p] = __ldg(keys + std::min(base[p] + h - 1, last));
#pragma unroll
            for (int p = 0; p < kPer; p++) {
                const bool go = base[p] + h - 1 < n && before<UPPER>(gpi_order::image<W, KIND>(k[p], flip), x[p]);
                base[p] += go ? h : 0;
            }
        }
        /* the sector: count its keys before the needle */
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            W s[kSector];
            if (vec && base[p] + kSector <= n) {
                const uint4 *v = reinterpret_cast<const uint4 *>(keys + base[p]);
                const uint4 v0 = __ldg(v), v1 = __ldg(v + 1);
                const W *w0 = reinterpret_cast<const W *>(&v0), *w1 = reinterpret_cast<const W *>(&v1);
#pragma unroll
                for (int j = 0; j < kSector / 2; j++) s[j] = w0[j], s[kSector / 2 + j] = w1[j];
            } else {
#pragma unroll
                for (int j = 0; j < kSector; j++) s[j] = __ldg(keys + std::min(base[p] + j, last));
            }
            int c = 0;
#pragma unroll
            for (int j = 0; j < kSector; j++)
                c += base[p] + j < n && before<UPPER>(gpi_order::image<W, KIND>(s[j], flip), x[p]);
            base[p] += c;
        }
#pragma unroll
        for (int p = 0; p < kPer; p++) {
            const size_t i = t0 + (size_t)p * kThreads + threadIdx.x;
            if (i < m) out[i] = base[p];
        }
    }
}

template <typename W, int KIND, bool UPPER>
gp_status search_launch(gp_context *ctx, const gpi_search_args *a, W *pivots, int log2_step, W flip)
{
    using P = gpi::search_policy<sizeof(W)>;
    const size_t tile = (size_t)P::threads * P::per_thread, tiles = (a->m + tile - 1) / tile;
    /* persistent blocks: as many as fit at once (blocks loop over tiles) */
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, search_kernel<W, KIND, UPPER>, P::threads, 0) !=
        cudaSuccess)
        (void)cudaGetLastError(), per_sm = 1;
    per_sm = std::max(1, std::min(per_sm, P::blocks_per_sm));
    const size_t cap = (size_t)std::max(ctx->sm_count, 1) * per_sm;
    const unsigned grid = (unsigned)std::min(tiles, cap);
    const bool vec = (uintptr_t)a->keys % 32 == 0;
    search_kernel<W, KIND, UPPER><<<grid, P::threads, 0, (cudaStream_t)ctx->stream>>>(
        (const W *)a->keys, a->n, (const W *)a->needles, a->m, a->positions, pivots, log2_step, vec, flip);
    return gpi_cuda_status(ctx, cudaGetLastError(), "search kernel");
}

template <typename W, int KIND>
gp_status search_typed(gp_context *ctx, const gpi_search_args *a)
{
    using P = gpi::search_policy<sizeof(W)>;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const W flip = gpi_order::flip_for<W>(a->descending);
    if (a->n == 0)
        return gpi_cuda_status(ctx, cudaMemsetAsync(a->positions, 0, a->m * sizeof(uint64_t), st), "search");
    /* step: the least power of two, at least a sector, with n / step <= pivots */
    int log2_step = 0;
    while (((size_t)1 << log2_step) < (size_t)P::sector ||
           (a->n + ((size_t)1 << log2_step) - 1) >> log2_step > (size_t)P::pivots)
        log2_step++;
    const size_t step = (size_t)1 << log2_step, gaps = (a->n + step - 1) / step;
    W *pivots = NULL;
    gp_status s = gpi_workspace_aligned(ctx, P::pivots * sizeof(W), (void **)&pivots);
    if (s) return s;
    gather_pivots<W, KIND><<<P::pivots / 256, 256, 0, st>>>((const W *)a->keys, a->n, step, gaps, pivots, flip);
    if (a->upper) return search_launch<W, KIND, true>(ctx, a, pivots, log2_step, flip);
    return search_launch<W, KIND, false>(ctx, a, pivots, log2_step, flip);
}

}  // namespace

#define GPI_SEARCH_CALL(W, KIND) search_typed<W, KIND>(ctx, a)

extern "C" gp_status gpi_cuda_search(gp_context *ctx, const gpi_search_args *a)
{
    GPI_DISPATCH_KEY(a->key_dtype, GPI_SEARCH_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "search: unchecked key dtype %d", (int)a->key_dtype);
}
