/* cuda/compact.cu - stream compaction through cub::DeviceSelect::Flagged.
 *
 * Elements move as raw 4- or 8-byte words (only the dtype's size matters),
 * and gp_compact_indices selects from a counting iterator, so the whole file
 * instantiates 2 flag types x (two word sizes + indices) = 6 selections.
 * DeviceSelect takes num_items as int64 and handles n past 2^31 itself.
 * The count goes into the context's mapped page-locked buffer, then after a
 * stream synchronize to the caller; *count_host is written only on success. */
#include "internal.h"

#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

namespace {

template <typename InIt, typename Flag, typename Out>
gp_status select_flagged(gp_context *ctx, InIt in, const void *flags_, Out *out, size_t n, size_t *count_host,
                         const char *what)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const Flag *flags = (const Flag *)flags_;
    /* CUB writes the count straight into the context's mapped page-locked
     * buffer: no copy operation after the kernels. */
    int64_t *count_host_buf = (int64_t *)ctx->pinned;
    int64_t count = 0;
    gp_status s;
    *count_host_buf = n > 0 ? -1 : 0; /* -1 is impossible: caught below if never written */
    if (n > 0) {
        size_t temp_bytes = 0;
        void *ws = nullptr;
        int64_t *d_count = (int64_t *)ctx->pinned_dev;
        cudaError_t e = cub::DeviceSelect::Flagged(nullptr, temp_bytes, in, flags, out, d_count, (int64_t)n, stream);
        if ((s = gpi_cuda_status(ctx, e, what))) return s;
        if ((s = gpi_workspace_aligned(ctx, temp_bytes, &ws))) return s;
        e = cub::DeviceSelect::Flagged(ws, temp_bytes, in, flags, out, d_count, (int64_t)n, stream);
        if ((s = gpi_cuda_status(ctx, e, what))) return s;
    }
    /* Also for n == 0: the call is documented to synchronize the stream. */
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "compact cudaStreamSynchronize"))) return s;
    count = *count_host_buf;
    if (count < 0 || (uint64_t)count > (uint64_t)n)
        return gpi_error(ctx, GP_ERROR_INTERNAL, "%s: impossible count %lld", what, (long long)count);
    *count_host = (size_t)count;
    return GP_SUCCESS;
}

template <typename Word>
gp_status compact_words(gp_context *ctx, const void *in, const void *flags, gp_flag_type flag_type, void *out,
                        size_t n, size_t *count_host)
{
    const Word *src = (const Word *)in;
    Word *dst = (Word *)out;
    if (flag_type == GP_UINT8_FLAGS)
        return select_flagged<const Word *, uint8_t>(ctx, src, flags, dst, n, count_host,
                                                     "cub::DeviceSelect::Flagged");
    return select_flagged<const Word *, int32_t>(ctx, src, flags, dst, n, count_host, "cub::DeviceSelect::Flagged");
}

} // namespace

extern "C" gp_status gpi_cuda_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                                      gp_flag_type flag_type, void *out, size_t n, size_t *count_host)
{
    if (gp_dtype_size(dtype) == 4) return compact_words<uint32_t>(ctx, in, flags, flag_type, out, n, count_host);
    return compact_words<uint64_t>(ctx, in, flags, flag_type, out, n, count_host);
}

extern "C" gp_status gpi_cuda_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                                              uint64_t *out, size_t n, size_t *count_host)
{
    thrust::counting_iterator<uint64_t> index(0);
    if (flag_type == GP_UINT8_FLAGS)
        return select_flagged<thrust::counting_iterator<uint64_t>, uint8_t>(ctx, index, flags, out, n, count_host,
                                                                           "cub::DeviceSelect::Flagged (indices)");
    return select_flagged<thrust::counting_iterator<uint64_t>, int32_t>(ctx, index, flags, out, n, count_host,
                                                                       "cub::DeviceSelect::Flagged (indices)");
}
