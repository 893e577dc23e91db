/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/copy.cu - gp_copy between two buffers on the device.
 *
 * demos/vcopy measured on an H200 (bench/RESULTS.md): up to 16 MB, a
 * grid-stride kernel moving 16-byte words beats cudaMemcpyAsync (16 MB:
 * 3130 against 2781 GB/s; 1 MB at a 4-byte offset: 651 against 321), from
 * 64 MB on cudaMemcpyAsync is faster (1 GB: 4212 against 3903). So copies
 * of at most copy_policy::kernel_max_bytes whose source and destination
 * share their alignment modulo 16 take the kernel, the rest
 * cudaMemcpyAsync. The tuning: policy/copy.cuh. */
#include "internal.h"
#include "policy/copy.cuh"

#include <cuda_runtime.h>

namespace {

using gpi::copy_policy;

/* Bytes [0, head) one a thread until dst is 16-byte aligned (src is then
 * too), 16-byte words, then the ragged tail. */
__global__ void copy16_kernel(unsigned char *__restrict__ dst, const unsigned char *__restrict__ src, size_t bytes)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > bytes) head = bytes;
    const size_t words = (bytes - head) / 16;
    for (size_t i = tid; i < head; i += stride) dst[i] = src[i];
    const uint4 *s = (const uint4 *)(src + head);
    uint4 *d = (uint4 *)(dst + head);
    for (size_t i = tid; i < words; i += stride) d[i] = s[i];
    for (size_t i = head + words * 16 + tid; i < bytes; i += stride) dst[i] = src[i];
}

}  // namespace

extern "C" gp_status gpi_cuda_copy(gp_context *ctx, void *dst, const void *src, size_t bytes)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (bytes <= copy_policy::kernel_max_bytes && (((uintptr_t)dst - (uintptr_t)src) & 15) == 0) {
        const size_t want = (bytes / 16 + copy_policy::threads - 1) / copy_policy::threads,
                     cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * copy_policy::blocks_per_sm;
        copy16_kernel<<<(unsigned)(want == 0 ? 1 : want < cap ? want : cap), copy_policy::threads, 0, st>>>(
            (unsigned char *)dst, (const unsigned char *)src, bytes);
        return gpi_cuda_status(ctx, cudaGetLastError(), "gp_copy kernel launch");
    }
    return gpi_cuda_status(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), "gp_copy");
}
