/* cuda/argminmax.cu - gp_argmin / gp_argmax on the device.
 *
 * Candidates are (value, index) pairs, NaNs excluded; the better of two is
 * the smaller (larger) value, and of equal values (-0.0 == +0.0 included)
 * the lower index. That is a total order on the candidates, so the winner
 * does not depend on the order they meet in: each thread keeps the best of
 * its grid-stride elements, warps and blocks fold theirs, and one more block
 * folds the block results into the context's mapped page-locked buffer,
 * which the host reads after synchronizing. No candidate: index n. */
#include "ops.cuh"
#include "segmented_internal.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

namespace {

using gpi::highest_value;
using gpi::lowest_value;

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 1024;
constexpr uint64_t kNone = ~(uint64_t)0; /* index of "no candidate yet" */

template <typename T>
struct Cand {
    T v;
    uint64_t i;
};

template <typename T, bool MAX>
__device__ __forceinline__ Cand<T> better(Cand<T> a, Cand<T> b)
{
    if (a.i == kNone) return b;
    if (b.i == kNone) return a;
    if (MAX ? b.v > a.v : b.v < a.v) return b;
    if (MAX ? a.v > b.v : a.v < b.v) return a;
    return b.i < a.i ? b : a;
}

/* The block's best of its candidates, in thread 0. */
template <typename T, bool MAX>
__device__ __forceinline__ Cand<T> block_best(Cand<T> c)
{
    __shared__ Cand<T> warp_best[kThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        Cand<T> o;
        o.v = __shfl_down_sync(0xffffffffu, c.v, d);
        o.i = __shfl_down_sync(0xffffffffu, c.i, d);
        c = better<T, MAX>(c, o); /* lanes past 31 read their own: harmless */
    }
    if (lane == 0) warp_best[warp] = c;
    __syncthreads();
    if (threadIdx.x == 0)
        for (int w = 1; w < kThreads / 32; w++) c = better<T, MAX>(c, warp_best[w]);
    return c;
}

template <typename T, bool MAX>
__global__ void __launch_bounds__(kThreads) arg_blocks(const T *in, uint64_t n, Cand<T> *partial)
{
    Cand<T> c{T(0), kNone};
    for (uint64_t i = blockIdx.x * (uint64_t)kThreads + threadIdx.x; i < n; i += (uint64_t)gridDim.x * kThreads) {
        const T x = in[i];
        if (!gpi::is_nan(x)) c = better<T, MAX>(c, Cand<T>{x, i});
    }
    c = block_best<T, MAX>(c);
    if (threadIdx.x == 0) partial[blockIdx.x] = c;
}

/* One block: the best of `count` partials into *result (index n if none). */
template <typename T, bool MAX>
__global__ void __launch_bounds__(kThreads) arg_final(const Cand<T> *partial, unsigned count, uint64_t n,
                                                     T none_value, Cand<T> *result)
{
    Cand<T> c{T(0), kNone};
    for (unsigned k = threadIdx.x; k < count; k += kThreads) c = better<T, MAX>(c, partial[k]);
    c = block_best<T, MAX>(c);
    if (threadIdx.x == 0) *result = c.i == kNone ? Cand<T>{none_value, n} : c;
}

template <typename T, bool MAX>
gp_status arg_typed(gp_context *ctx, const void *in, uint64_t n, void *value_host, uint64_t *index_host)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const T none_value = MAX ? lowest_value<T>() : highest_value<T>();
    Cand<T> *host = (Cand<T> *)ctx->pinned; /* 16 bytes of its 256 */
    gp_status s;
    host->v = none_value; /* what n == 0 returns */
    host->i = n;
    if (n > 0) {
        const unsigned blocks = (unsigned)std::min<uint64_t>((n + kThreads * 8 - 1) / (kThreads * 8), kMaxBlocks);
        void *ws = nullptr;
        if ((s = gpi_workspace_aligned(ctx, blocks * sizeof(Cand<T>), &ws))) return s;
        arg_blocks<T, MAX><<<blocks, kThreads, 0, st>>>((const T *)in, n, (Cand<T> *)ws);
        arg_final<T, MAX><<<1, kThreads, 0, st>>>((const Cand<T> *)ws, blocks, n, none_value,
                                                  (Cand<T> *)ctx->pinned_dev);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "arg-min/max launch"))) return s;
    }
    /* Also for n == 0: the call is documented to synchronize the stream. */
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(st), "arg-min/max cudaStreamSynchronize"))) return s;
    if (value_host) std::memcpy(value_host, &host->v, sizeof(T)); /* written only on success */
    *index_host = host->i;
    return GP_SUCCESS;
}

template <typename T>
gp_status arg_dir(gp_context *ctx, int is_max, const void *in, uint64_t n, void *value_host, uint64_t *index_host)
{
    return is_max ? arg_typed<T, true>(ctx, in, n, value_host, index_host)
                  : arg_typed<T, false>(ctx, in, n, value_host, index_host);
}

} // namespace

extern "C" gp_status gpi_cuda_argminmax(gp_context *ctx, gp_dtype dtype, int is_max, const void *in, size_t n,
                                        void *value_host, uint64_t *index_host)
{
    switch (dtype) {
    case GP_INT32: return arg_dir<int32_t>(ctx, is_max, in, n, value_host, index_host);
    case GP_UINT32: return arg_dir<uint32_t>(ctx, is_max, in, n, value_host, index_host);
    case GP_INT64: return arg_dir<int64_t>(ctx, is_max, in, n, value_host, index_host);
    case GP_UINT64: return arg_dir<uint64_t>(ctx, is_max, in, n, value_host, index_host);
    case GP_FLOAT32: return arg_dir<float>(ctx, is_max, in, n, value_host, index_host);
    case GP_FLOAT64: return arg_dir<double>(ctx, is_max, in, n, value_host, index_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_argminmax: unchecked dtype");
}
