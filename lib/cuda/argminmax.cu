/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/argminmax.cu - gp_argmin / gp_argmax on the device, in one launch.
 *
 * Candidates are (value, index) pairs, NaNs excluded; the better of two is
 * the smaller (larger) value, and of equal values (-0.0 == +0.0 included)
 * the lower index. That is a total order on the candidates, so the winner
 * does not depend on the order they meet in.
 *
 * The input is read as 16-byte vectors (after at most 15 bytes of
 * unaligned head) by a grid of a few blocks per SM striding over it. A
 * thread meets its vector elements in increasing index order, so within the
 * thread a strict comparison alone keeps the first occurrence. Head and
 * tail elements, warps and blocks fold with the full order. Each block
 * writes its best to the workspace and takes a ticket; the block with the
 * last ticket folds the block results into the context's mapped
 * page-locked buffer, which the host reads after synchronizing. No
 * candidate: index n. Kernel shape: policy/argminmax.cuh. */
#include "ops.cuh"
#include "policy/argminmax.cuh"
#include "segmented_internal.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

namespace {

using gpi::highest_value;
using gpi::lowest_value;

constexpr int kThreads = gpi::argminmax_policy::threads;
constexpr int kUnroll = gpi::argminmax_policy::unroll;
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

/* The block's best of its candidates, in thread 0. Ends with a barrier,
 * so it may be called again. */
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
    __syncthreads();
    return c;
}

/* A thread's running best over elements met in increasing index order:
 * a strict comparison keeps the first occurrence. The first candidate
 * equal to the identity (all +inf, say) is taken too; NaN never is. */
template <typename T, bool MAX>
__device__ __forceinline__ void take_if_better(T x, uint64_t i, T &best, uint64_t &at)
{
    const bool take = (MAX ? x > best : x < best) || (at == kNone && x == best);
    best = take ? x : best;
    at = take ? i : at;
}

/* in: n elements; the first `head` (< one vector) precede the first
 * 16-byte boundary, `vecs` whole vectors follow, then the tail to n. */
template <typename T, bool MAX>
__global__ void __launch_bounds__(kThreads)
arg_onepass(const T *in, uint64_t n, uint64_t head, uint64_t vecs, T none_value, Cand<T> *partial,
            unsigned *ticket, Cand<T> *result)
{
    constexpr int VI = 16 / (int)sizeof(T);
    const uint64_t tid = (uint64_t)blockIdx.x * kThreads + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * kThreads;
    const uint4 *v4 = reinterpret_cast<const uint4 *>(in + head);
    T best = none_value;
    uint64_t at = kNone;
    uint64_t v = tid;
    for (; v + (kUnroll - 1) * stride < vecs; v += kUnroll * stride) {
        uint4 raw[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) raw[u] = __ldg(v4 + v + u * stride);
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            const T *x = reinterpret_cast<const T *>(&raw[u]);
            const uint64_t e = head + (v + u * stride) * VI;
#pragma unroll
            for (int j = 0; j < VI; j++) take_if_better<T, MAX>(x[j], e + j, best, at);
        }
    }
    for (; v < vecs; v += stride) {
        const uint4 raw = __ldg(v4 + v);
        const T *x = reinterpret_cast<const T *>(&raw);
#pragma unroll
        for (int j = 0; j < VI; j++) take_if_better<T, MAX>(x[j], head + v * VI + j, best, at);
    }
    Cand<T> c{best, at};
    /* head elements [0, head) and tail elements [head + vecs*VI, n): a few threads one each */
    const uint64_t tail = head + vecs * VI;
    if (tid < head) {
        const T x = in[tid];
        if (!gpi::is_nan(x)) c = better<T, MAX>(c, Cand<T>{x, tid});
    }
    if (tid < n - tail) {
        const T x = in[tail + tid];
        if (!gpi::is_nan(x)) c = better<T, MAX>(c, Cand<T>{x, tail + tid});
    }
    c = block_best<T, MAX>(c);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = c;
        __threadfence(); /* the partial is visible before the ticket is taken */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    c = Cand<T>{T(0), kNone};
    for (unsigned k = threadIdx.x; k < gridDim.x; k += kThreads) {
        Cand<T> p;
        p.v = __ldcg(&partial[k].v); /* from L2: other blocks wrote them */
        p.i = __ldcg(&partial[k].i);
        c = better<T, MAX>(c, p);
    }
    c = block_best<T, MAX>(c);
    if (threadIdx.x == 0) *result = c.i == kNone ? Cand<T>{none_value, n} : c;
}

template <typename T, bool MAX>
gp_status arg_typed(gp_context *ctx, const void *in_, uint64_t n, void *value_host, uint64_t *index_host)
{
    constexpr int VI = 16 / (int)sizeof(T);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const T *in = (const T *)in_;
    const T none_value = MAX ? lowest_value<T>() : highest_value<T>();
    Cand<T> *host = (Cand<T> *)ctx->pinned; /* 16 bytes of its 256 */
    gp_status s;
    host->v = none_value; /* what n == 0 returns */
    host->i = n;
    if (n > 0) {
        /* elements before the first 16-byte boundary (in is element-aligned) */
        const uint64_t head = std::min<uint64_t>(n, ((16 - (uintptr_t)in % 16) % 16) / sizeof(T));
        const uint64_t vecs = (n - head) / VI;
        const uint64_t per_block = (uint64_t)kThreads * kUnroll;
        const uint64_t cap = (uint64_t)std::max(ctx->sm_count, 1) * gpi::argminmax_policy::blocks_per_sm;
        const unsigned blocks = (unsigned)std::max<uint64_t>(1, std::min<uint64_t>((vecs + per_block - 1) / per_block, cap));
        const size_t partial_bytes = (blocks * sizeof(Cand<T>) + 255) / 256 * 256;
        void *ws = nullptr;
        if ((s = gpi_workspace_aligned(ctx, partial_bytes + sizeof(unsigned), &ws))) return s;
        unsigned *ticket = (unsigned *)((char *)ws + partial_bytes);
        if ((s = gpi_cuda_status(ctx, cudaMemsetAsync(ticket, 0, sizeof(unsigned), st), "arg-min/max ticket memset")))
            return s;
        arg_onepass<T, MAX><<<blocks, kThreads, 0, st>>>(in, n, head, vecs, none_value, (Cand<T> *)ws, ticket,
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
