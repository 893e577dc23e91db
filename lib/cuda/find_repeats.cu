/* cuda/find_repeats.cu - indices i with in[i] == in[i+1].
 *
 * One pass: cub::DeviceSelect::Flagged selects from the index range
 * [0, n-1) (a counting iterator) with flags computed on the fly as
 * in[i] == in[i+1] (a transform iterator over the same indices). That is a
 * single decoupled-look-back kernel: the data is read once (the in[i+1] read
 * hits the same or the next cache line) and the indices are written once;
 * there is no flag array, separate scan or scatter pass. (DeviceSelect::If
 * with the same predicate spills registers for double on sm_90; Flagged
 * does not.)
 * Integers compare as raw words of their width (== is the same for signed
 * and unsigned); floats keep their own == (NaN never repeats, -0.0 == +0.0).
 * num_items is int64 in CUB, so n past 2^31 needs no chunking. */
#include "internal.h"

#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>

namespace {

template <typename T>
struct EqualsNext {
    const T *in;
    __device__ __forceinline__ bool operator()(const uint64_t &i) const { return in[i] == in[i + 1]; }
};

template <typename T>
gp_status repeats_typed(gp_context *ctx, const void *in, size_t n, uint64_t *out, size_t *count_host)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    thrust::counting_iterator<uint64_t> index(0);
    auto flags = thrust::make_transform_iterator(index, EqualsNext<T>{(const T *)in});
    int64_t count = 0;
    gp_status s;
    if (n >= 2) {
        const int64_t pairs = (int64_t)(n - 1);
        size_t temp_bytes = 0;
        void *ws = nullptr;
        cudaError_t e = cub::DeviceSelect::Flagged(nullptr, temp_bytes, index, flags, out, (int64_t *)nullptr, pairs,
                                                   stream);
        if ((s = gpi_cuda_status(ctx, e, "cub::DeviceSelect::Flagged (size query)"))) return s;
        /* Layout: [count: 256 bytes][CUB temp], aligned up to 256 in case a
         * caller-provided workspace is not. */
        if ((s = gpi_workspace(ctx, 512 + temp_bytes, &ws))) return s;
        char *base = (char *)(((uintptr_t)ws + 255) & ~(uintptr_t)255);
        int64_t *d_count = (int64_t *)base;
        e = cub::DeviceSelect::Flagged(base + 256, temp_bytes, index, flags, out, d_count, pairs, stream);
        if ((s = gpi_cuda_status(ctx, e, "cub::DeviceSelect::Flagged"))) return s;
        e = cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream);
        if ((s = gpi_cuda_status(ctx, e, "find_repeats count cudaMemcpyAsync"))) return s;
    }
    /* Also for n < 2: the call is documented to synchronize the stream. */
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "find_repeats cudaStreamSynchronize"))) return s;
    if (count < 0 || (n > 0 && (uint64_t)count > (uint64_t)(n - 1)))
        return gpi_error(ctx, GP_ERROR_INTERNAL, "find_repeats: impossible count %lld", (long long)count);
    *count_host = (size_t)count;
    return GP_SUCCESS;
}

} // namespace

extern "C" gp_status gpi_cuda_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                                           uint64_t *out, size_t *count_host)
{
    switch (dtype) {
    case GP_INT32:
    case GP_UINT32: return repeats_typed<uint32_t>(ctx, in, n, out, count_host);
    case GP_INT64:
    case GP_UINT64: return repeats_typed<uint64_t>(ctx, in, n, out, count_host);
    case GP_FLOAT32: return repeats_typed<float>(ctx, in, n, out, count_host);
    case GP_FLOAT64: return repeats_typed<double>(ctx, in, n, out, count_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_find_repeats: unchecked dtype");
}
