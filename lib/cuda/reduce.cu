/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/reduce.cu - device reduction.
 *
 * Float sums: gpuprim's own fixed tree (tree_sum_level below), which
 * depends on n only: not on the buffer's address (CUB reads aligned input
 * in 16-byte vectors, so its order changes with the alignment), not on the
 * device (CUB sizes its grid by the SM count). Everything else goes through
 * cub::DeviceReduce::Reduce: integer sums, min and max give the same value
 * in any order. num_items is passed as size_t, which CUB maps to 64-bit
 * offsets, so n past 2^31 needs no chunking. Operator semantics match
 * cpu/reduce.c: integer sums on unsigned types (wrap without UB), min/max
 * that skip NaN. The float-sum tree's shape: policy/reduce.cuh. */
#include "internal.h"
#include "ops.cuh"
#include "policy/reduce.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <cstring>
#include <limits>
#include <type_traits>

namespace {

using gpi::highest_value;
using gpi::lowest_value;
using gpi::OpMax;
using gpi::OpMin;
using gpi::OpSum;

/* CUB's reduction into d_result, with Offset as its item count type: 32-bit
 * when n fits (CUB's index arithmetic is then cheaper), else 64-bit. The
 * workspace is aligned up to 256 in case a caller-provided one is not. */
template <typename T, typename Op, typename Offset>
gp_status reduce_launch(gp_context *ctx, const T *in, Offset n, T identity, T *d_result)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    size_t temp_bytes = 0;
    void *ws = nullptr;
    gp_status s;
    cudaError_t e = cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, d_result, n, Op(), identity, stream);
    if ((s = gpi_cuda_status(ctx, e, "cub::DeviceReduce::Reduce (size query)"))) return s;
    if ((s = gpi_workspace_aligned(ctx, temp_bytes, &ws))) return s;
    e = cub::DeviceReduce::Reduce(ws, temp_bytes, in, d_result, n, Op(), identity, stream);
    return gpi_cuda_status(ctx, e, "cub::DeviceReduce::Reduce");
}

/* ---- float sums: the fixed tree ------------------------------------------------
 * One level turns m values into ceil(m / 4096) block sums. In block c,
 * thread t (warp t / 32, lane t % 32) adds x[c*4096 + t + 256*j] for
 * j = 0..15 in order, starting from -0.0 (exactly neutral: -0.0 + x == x
 * for every x, +0.0 and -0.0 included; missing elements of the last block
 * count as -0.0); each warp then adds lane l + d into lane l for d = 16, 8,
 * 4, 2, 1, and the 8 warp sums w combine as ((w0+w4) + (w2+w6)) + ((w1+w5) +
 * (w3+w7)). Levels repeat until one value is left. Loads are scalar and
 * coalesced (256 consecutive elements per j), so no step depends on the
 * address. tests/test_reduce.c replays the same tree on the host. */
constexpr int kTreeThreads = gpi::reduce_policy::tree_threads, kTreePerThread = gpi::reduce_policy::tree_per_thread;
constexpr unsigned long long kTreeItems = (unsigned long long)kTreeThreads * kTreePerThread;

template <typename T>
__global__ void __launch_bounds__(kTreeThreads) tree_sum_level(const T *in, unsigned long long m, T *out)
{
    const unsigned long long base = (unsigned long long)blockIdx.x * kTreeItems;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    __shared__ T warp_sum[kTreeThreads / 32];
    T v[kTreePerThread];
#pragma unroll
    for (int j = 0; j < kTreePerThread; j++) {
        const unsigned long long i = base + (unsigned long long)j * kTreeThreads + t;
        v[j] = i < m ? in[i] : T(-0.0);
    }
    T s = T(-0.0);
#pragma unroll
    for (int j = 0; j < kTreePerThread; j++) s = s + v[j];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) s = s + __shfl_down_sync(0xffffffffu, s, d);
    if (lane == 0) warp_sum[warp] = s;
    __syncthreads();
    if (t == 0) {
        const T *w = warp_sum;
        out[blockIdx.x] = ((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7]));
    }
}

template <typename T>
gp_status tree_sum(gp_context *ctx, const T *in, size_t n, T *d_result)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const unsigned long long b1 = (n + kTreeItems - 1) / kTreeItems, b2 = (b1 + kTreeItems - 1) / kTreeItems;
    T *ping = nullptr, *pong = nullptr; /* level outputs alternate; a level never reads what it writes */
    gp_status s;
    if (b1 > 1) {
        void *ws = nullptr;
        const size_t a = (size_t)(b1 * sizeof(T) + 255) / 256 * 256;
        if ((s = gpi_workspace_aligned(ctx, a + (size_t)b2 * sizeof(T), &ws))) return s;
        ping = (T *)ws;
        pong = (T *)((char *)ws + a);
    }
    const T *src = in;
    unsigned long long m = n;
    for (int level = 0;; level++) {
        const unsigned long long blocks = (m + kTreeItems - 1) / kTreeItems;
        T *dst = blocks == 1 ? d_result : level % 2 == 0 ? ping : pong;
        if (blocks > 0x7fffffffULL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "reduce: too many blocks");
        tree_sum_level<T><<<(unsigned)blocks, kTreeThreads, 0, stream>>>(src, m, dst);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "reduce (float sum) launch"))) return s;
        if (blocks == 1) return GP_SUCCESS;
        src = dst;
        m = blocks;
    }
}

/* n > 0; CUB with 32-bit offsets when n fits. */
template <typename T, typename Op>
gp_status reduce_into(gp_context *ctx, const T *in, size_t n, T identity, T *d_result)
{
    if constexpr (std::is_floating_point<T>::value && std::is_same<Op, OpSum<T>>::value)
        return tree_sum<T>(ctx, in, n, d_result);
    return n <= (size_t)INT32_MAX ? reduce_launch<T, Op, int>(ctx, in, (int)n, identity, d_result)
                                  : reduce_launch<T, Op, size_t>(ctx, in, n, identity, d_result);
}

/* result_dev != NULL: the result stays on the device there, nothing waits. */
template <typename T, typename Op>
gp_status reduce_op(gp_context *ctx, const void *in_, size_t n, T identity, void *result_host, void *result_dev)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const T *in = (const T *)in_;
    T *host = (T *)ctx->pinned;
    gp_status s;
    if (result_dev) {
        if (n > 0) return reduce_into<T, Op>(ctx, in, n, identity, (T *)result_dev);
        return gpi_cuda_status(ctx, cudaMemcpyAsync(result_dev, &identity, sizeof(T), cudaMemcpyHostToDevice, stream),
                               "reduce identity copy");
    }
    /* CUB writes the result straight into the context's mapped page-locked
     * buffer: no copy operation after the kernels. */
    *host = identity; /* what n == 0 returns */
    if (n > 0 && (s = reduce_into<T, Op>(ctx, in, n, identity, (T *)ctx->pinned_dev))) return s;
    /* Also for n == 0: the call is documented to synchronize the stream. */
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "reduce cudaStreamSynchronize"))) return s;
    std::memcpy(result_host, host, sizeof(T)); /* written only on success */
    return GP_SUCCESS;
}

/* T: the element type (min/max); S: the type its sum is computed in. */
template <typename T, typename S>
gp_status reduce_typed(gp_context *ctx, gp_op op, const void *in, size_t n, void *result_host, void *result_dev)
{
    switch (op) {
    case GP_OP_SUM: return reduce_op<S, OpSum<S>>(ctx, in, n, S(0), result_host, result_dev);
    case GP_OP_MIN: return reduce_op<T, OpMin<T>>(ctx, in, n, highest_value<T>(), result_host, result_dev);
    case GP_OP_MAX: return reduce_op<T, OpMax<T>>(ctx, in, n, lowest_value<T>(), result_host, result_dev);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_reduce: unchecked op");
}

} // namespace

static gp_status reduce_any(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host,
                            void *result_dev)
{
    switch (dtype) {
    case GP_INT32: return reduce_typed<int32_t, uint32_t>(ctx, op, in, n, result_host, result_dev);
    case GP_UINT32: return reduce_typed<uint32_t, uint32_t>(ctx, op, in, n, result_host, result_dev);
    case GP_INT64: return reduce_typed<int64_t, uint64_t>(ctx, op, in, n, result_host, result_dev);
    case GP_UINT64: return reduce_typed<uint64_t, uint64_t>(ctx, op, in, n, result_host, result_dev);
    case GP_FLOAT32: return reduce_typed<float, float>(ctx, op, in, n, result_host, result_dev);
    case GP_FLOAT64: return reduce_typed<double, double>(ctx, op, in, n, result_host, result_dev);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_reduce: unchecked dtype");
}

extern "C" gp_status gpi_cuda_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                     void *result_host)
{
    return reduce_any(ctx, dtype, op, in, n, result_host, nullptr);
}

extern "C" gp_status gpi_cuda_reduce_device(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                            void *result_dev)
{
    return reduce_any(ctx, dtype, op, in, n, nullptr, result_dev);
}
