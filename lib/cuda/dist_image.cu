/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/dist_image.cu - the search images of sorted keys for the distributed
 * sort (lib/comm/sort.c): each key's order image restricted to the sort's
 * bit range, complemented for a descending sort, as uint64. Keys sorted by
 * gp_sort with that order and bit range have non-decreasing images, so
 * gp_lower_bound / gp_upper_bound on the images count the keys before a
 * splitter exactly as the sort orders them. */
#include "order_image.cuh"

template <typename W, int KIND>
__global__ void masked_image_kernel(const W *keys, size_t n, int begin_bit, uint64_t mask, uint64_t flip,
                                    uint64_t *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        const uint64_t img = (uint64_t)gpi_order::image<W, KIND>(keys[i], (W)0);
        out[i] = ((img >> begin_bit) & mask) ^ flip;
    }
}

extern "C" gp_status gpi_cuda_dist_images(gp_context *ctx, gp_dtype key_dtype, int descending, const void *keys,
                                          size_t n, int begin_bit, int end_bit, uint64_t *out)
{
    const int width = end_bit - begin_bit;
    const uint64_t mask = width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    const uint64_t flip = descending ? mask : 0;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n == 0) return GP_SUCCESS;
#define GPI_IMAGES(W, KIND)                                                                                       \
    (masked_image_kernel<W, KIND><<<gpi_stride_blocks(n, 256), 256, 0, st>>>((const W *)keys, n, begin_bit, mask, \
                                                                             flip, out),                          \
     gpi_cuda_status(ctx, cudaGetLastError(), "distributed sort images"))
    GPI_DISPATCH_KEY(key_dtype, GPI_IMAGES)
#undef GPI_IMAGES
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_dist_images: key dtype %d", (int)key_dtype);
}
