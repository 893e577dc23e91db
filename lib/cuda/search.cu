/* cuda/search.cu - lower / upper bound of m needles in n sorted keys.
 *
 * A binary search per needle, on order images (the CPU reference's rule,
 * so both backends agree bit for bit). Two things make it faster than a
 * plain one:
 *   - the top levels come from shared memory: each block first loads a
 *     sample of kSamples keys at evenly spaced positions p_j =
 *     floor((j + 1) n / (kSamples + 1)); a needle's search in the sample
 *     narrows its range in global memory to one gap between two samples
 *     (about n / kSamples keys), which saves about 10 dependent loads;
 *   - each thread searches kPerThread needles in lockstep, so their loads
 *     are in flight together (the search is latency-bound).
 * The sample is loaded once per block; blocks loop over tiles of needles.
 * Whatever the keys hold, each range stays within [0, n]: unsorted keys give
 * some position in [0, n], never an access outside the buffers. */
#include "order_image.cuh"
#include "search_internal.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;
constexpr int kSamples = 1024;

/* floor((j + 1) * n / (kSamples + 1)) without overflow; < n for n > 0. */
__device__ __forceinline__ size_t sample_pos(int j, size_t q, size_t r)
{
    const size_t t = (size_t)j + 1;
    return q * t + r * t / (kSamples + 1);
}

/* lower: is key before the needle (key < x)? upper: key <= x. */
template <bool UPPER, typename W>
__device__ __forceinline__ bool go_right(W key, W x)
{
    return UPPER ? key <= x : key < x;
}

template <typename W, int KIND, bool UPPER>
__global__ void __launch_bounds__(kThreads)
    search_kernel(const W *__restrict__ keys, size_t n, const W *__restrict__ needles, size_t m,
                  uint64_t *__restrict__ out, W flip)
{
    __shared__ W sample[kSamples];
    const size_t q = n / (kSamples + 1), r = n % (kSamples + 1);
    for (int j = threadIdx.x; j < kSamples; j += kThreads)
        sample[j] = gpi_order::image<W, KIND>(keys[sample_pos(j, q, r)], flip);
    __syncthreads();

    const size_t tile = (size_t)kThreads * kPerThread;
    for (size_t base = blockIdx.x * tile; base < m; base += (size_t)gridDim.x * tile) {
        W x[kPerThread];
        size_t lo[kPerThread], len[kPerThread];
#pragma unroll
        for (int p = 0; p < kPerThread; p++) {
            const size_t i = base + (size_t)p * kThreads + threadIdx.x;
            lo[p] = 0, len[p] = 0, x[p] = 0;
            if (i >= m) continue;
            x[p] = gpi_order::image<W, KIND>(needles[i], flip);
            int slo = 0, shi = kSamples; /* samples before the bound: [0, c) */
            while (slo < shi) {
                const int mid = (slo + shi) >> 1;
                if (go_right<UPPER>(sample[mid], x[p])) slo = mid + 1;
                else shi = mid;
            }
            size_t l = slo > 0 ? sample_pos(slo - 1, q, r) + 1 : 0;
            const size_t h = slo < kSamples ? sample_pos(slo, q, r) : n;
            if (l > h) l = h; /* only with unsorted keys */
            lo[p] = l, len[p] = h - l;
        }
        bool busy = true;
        while (busy) {
            busy = false;
#pragma unroll
            for (int p = 0; p < kPerThread; p++) {
                if (len[p] == 0) continue;
                const size_t half = len[p] >> 1;
                const W key = gpi_order::image<W, KIND>(__ldg(keys + lo[p] + half), flip);
                if (go_right<UPPER>(key, x[p])) lo[p] += half + 1, len[p] -= half + 1;
                else len[p] = half;
                busy |= len[p] != 0;
            }
        }
#pragma unroll
        for (int p = 0; p < kPerThread; p++) {
            const size_t i = base + (size_t)p * kThreads + threadIdx.x;
            if (i < m) out[i] = lo[p];
        }
    }
}

template <typename W, int KIND>
gp_status search_typed(gp_context *ctx, const gpi_search_args *a)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const W flip = gpi_order::flip_for<W>(a->descending);
    const size_t tile = (size_t)kThreads * kPerThread, tiles = (a->m + tile - 1) / tile;
    const size_t cap = (size_t)std::max(ctx->sm_count, 1) * 8;
    const unsigned grid = (unsigned)std::min(tiles, cap);
    if (a->n == 0)
        return gpi_cuda_status(ctx, cudaMemsetAsync(a->positions, 0, a->m * sizeof(uint64_t), st), "search");
    if (a->upper)
        search_kernel<W, KIND, true><<<grid, kThreads, 0, st>>>((const W *)a->keys, a->n, (const W *)a->needles,
                                                                a->m, a->positions, flip);
    else
        search_kernel<W, KIND, false><<<grid, kThreads, 0, st>>>((const W *)a->keys, a->n, (const W *)a->needles,
                                                                 a->m, a->positions, flip);
    return gpi_cuda_status(ctx, cudaGetLastError(), "search kernel");
}

}  // namespace

#define GPI_SEARCH_CALL(W, KIND) search_typed<W, KIND>(ctx, a)

extern "C" gp_status gpi_cuda_search(gp_context *ctx, const gpi_search_args *a)
{
    GPI_DISPATCH_KEY(a->key_dtype, GPI_SEARCH_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "search: unchecked key dtype %d", (int)a->key_dtype);
}
