/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/offset.cu - add a base to an array of uint64 indices: turns a
 * shard's local indices into global ones (lib/comm/select.c). */
#include "internal.h"

#include <cuda_runtime.h>

namespace {

__global__ void add_u64_kernel(uint64_t *p, size_t count, uint64_t base)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        p[i] += base;
}

} // namespace

extern "C" gp_status gpi_cuda_add_u64(gp_context *ctx, uint64_t *p, size_t count, uint64_t base)
{
    if (count == 0) return GP_SUCCESS;
    add_u64_kernel<<<gpi_stride_blocks(count, 256), 256, 0, (cudaStream_t)ctx->stream>>>(p, count, base);
    return gpi_cuda_status(ctx, cudaGetLastError(), "add_u64 launch");
}
