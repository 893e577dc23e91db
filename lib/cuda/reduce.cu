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



template <typename T, typename Op>
gp_status reduce_op(gp_context *ctx, const void *in_, size_t n, T identity, void *result_host)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const T *in = (const T *)in_;
    size_t temp_bytes = 0;
    void *ws = nullptr;
    T value = identity;
    gp_status s;
    if (n > 0) {
        cudaError_t e = cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, (T *)nullptr, n, Op(), identity, stream);
        if ((s = gpi_cuda_status(ctx, e, "cub::DeviceReduce::Reduce (size query)"))) return s;
        /* Layout: [result: 256 bytes][CUB temp], aligned up to 256 in case a
         * caller-provided workspace is not. */
        if ((s = gpi_workspace(ctx, 512 + temp_bytes, &ws))) return s;
        char *base = (char *)(((uintptr_t)ws + 255) & ~(uintptr_t)255);
        T *d_result = (T *)base;
        e = cub::DeviceReduce::Reduce(base + 256, temp_bytes, in, d_result, n, Op(), identity, stream);
        if ((s = gpi_cuda_status(ctx, e, "cub::DeviceReduce::Reduce"))) return s;
        e = cudaMemcpyAsync(&value, d_result, sizeof(T), cudaMemcpyDeviceToHost, stream);
        if ((s = gpi_cuda_status(ctx, e, "reduce result cudaMemcpyAsync"))) return s;
    }
    /* Also for n == 0: the call is documented to synchronize the stream. */
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "reduce cudaStreamSynchronize"))) return s;
    std::memcpy(result_host, &value, sizeof(T)); /* written only on success */
    return GP_SUCCESS;
}

/* T: the element type (min/max); S: the type its sum is computed in. */
template <typename T, typename S>
gp_status reduce_typed(gp_context *ctx, gp_op op, const void *in, size_t n, void *result_host)
{
    switch (op) {
    case GP_OP_SUM: return reduce_op<S, OpSum<S>>(ctx, in, n, S(0), result_host);
    case GP_OP_MIN: return reduce_op<T, OpMin<T>>(ctx, in, n, highest_value<T>(), result_host);
    case GP_OP_MAX: return reduce_op<T, OpMax<T>>(ctx, in, n, lowest_value<T>(), result_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_reduce: unchecked op");
}

} // namespace

extern "C" gp_status gpi_cuda_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                     void *result_host)
{
    switch (dtype) {
    case GP_INT32: return reduce_typed<int32_t, uint32_t>(ctx, op, in, n, result_host);
    case GP_UINT32: return reduce_typed<uint32_t, uint32_t>(ctx, op, in, n, result_host);
    case GP_INT64: return reduce_typed<int64_t, uint64_t>(ctx, op, in, n, result_host);
    case GP_UINT64: return reduce_typed<uint64_t, uint64_t>(ctx, op, in, n, result_host);
    case GP_FLOAT32: return reduce_typed<float, float>(ctx, op, in, n, result_host);
    case GP_FLOAT64: return reduce_typed<double, double>(ctx, op, in, n, result_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_reduce: unchecked dtype");
}
