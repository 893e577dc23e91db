/* cuda/reduce.cu - device reduction through cub::DeviceReduce::Reduce.
 *
 * CUB's DeviceReduce uses a fixed reduction tree for a given device and
 * size (no atomics), which is what makes float sums identical run to run on
 * one device, as the header promises. num_items is passed as size_t, which
 * CUB maps to 64-bit offsets, so n past 2^31 needs no chunking.
 * Operator semantics match cpu/reduce.c: integer sums on unsigned types
 * (wrap without UB), min/max that skip NaN. */
#include "internal.h"
#include "ops.cuh"

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

/* One launch, n > 0, 32-bit offsets when n fits. */
template <typename T, typename Op>
gp_status reduce_into(gp_context *ctx, const T *in, size_t n, T identity, T *d_result)
{
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
