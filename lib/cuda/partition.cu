/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/partition.cu - stable two- and three-way partition, host side.
 *
 * Two kernels (partition_kernels.cuh says how and why): a pass over the
 * flags that leaves them as a bit mask in the element order the move
 * kernel's threads hold, each tile's first slot in each part, and the
 * parts' totals; then a pass that reads each element and its mask bit once
 * and writes each element once, tiles independent of each other. Traffic
 * for 4-byte elements and byte flags: 9.25 bytes an element (flags 1, mask
 * 2 x 1/8, elements 4 in and 4 out).
 *
 * Scratch (the context's workspace): the masks (n/8 bytes a mask for
 * 4-byte elements, n/4 for 8-byte), the tile offsets and the look-back
 * state. The totals reach the host through the context's mapped
 * page-locked buffer, written by the mask kernel; the call synchronizes
 * after the move kernel. Counts are 32-bit (one packed look-back word)
 * while n fits, else 64-bit. Tuning: policy/partition.cuh. */
#include "permute_internal.h"
#include "partition_kernels.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace {

using gpi::partition_policy;
using gpi::partition_shape;

template <typename W, typename F, bool THREE, typename C>
gp_status run_partition(gp_context *ctx, const W *in, const F *f1, const F *f2, W *out, size_t n, size_t counts[3])
{
    using S = partition_shape<W>;
    constexpr int G = partition_policy::mask_tiles, PARTS = THREE ? 2 : 1; /* parts with a mask and a chain */
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long tiles = ((long long)n + S::ITEMS - 1) / S::ITEMS;
    const long long mask_blocks = (tiles + G - 1) / G;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "partition: too many tiles");
    /* workspace: the totals (256 bytes), then per counted part its mask,
     * its tile offsets and its look-back state, each 256-byte aligned */
    const size_t mask_bytes = gpi::align256((size_t)tiles * S::THREADS * sizeof(uint32_t));
    const size_t prefix_bytes = gpi::align256((size_t)tiles * sizeof(C));
    const size_t state_bytes = gpi::tile_state_bytes<C>(mask_blocks);
    const size_t part_bytes = mask_bytes + prefix_bytes + state_bytes;
    void *ws = nullptr;
    gp_status s;
    if ((s = gpi_workspace_aligned(ctx, 256 + PARTS * part_bytes, &ws))) return s;
    char *p = static_cast<char *>(ws);
    unsigned long long *totals = reinterpret_cast<unsigned long long *>(p);
    uint32_t *mask[2] = {nullptr, nullptr};
    C *prefix[2] = {nullptr, nullptr};
    gpi::tile_state<C> st[2] = {};
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < PARTS && e == cudaSuccess; k++) {
        char *q = p + 256 + (size_t)k * part_bytes;
        mask[k] = reinterpret_cast<uint32_t *>(q);
        prefix[k] = reinterpret_cast<C *>(q + mask_bytes);
        e = gpi::tile_state_clear<C>(q + mask_bytes + prefix_bytes, mask_blocks, stream, &st[k]);
    }
    if ((s = gpi_cuda_status(ctx, e, "partition cudaMemsetAsync"))) return s;

    unsigned long long *host = static_cast<unsigned long long *>(ctx->pinned);
    host[0] = host[1] = ~0ull; /* impossible: caught below if the kernel never wrote them */
    const bool fvec = (uintptr_t)f1 % (S::VI * sizeof(F)) == 0 && (!THREE || (uintptr_t)f2 % (S::VI * sizeof(F)) == 0);
    gpi::partition_mask_kernel<W, F, THREE, C><<<(unsigned)mask_blocks, partition_policy::threads, 0, stream>>>(
        f1, f2, (long long)n, tiles, fvec, mask[0], mask[1], prefix[0], prefix[1], st[0], st[1], totals,
        static_cast<unsigned long long *>(ctx->pinned_dev));
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "partition mask kernel launch"))) return s;

    const bool vec = (uintptr_t)in % 16 == 0;
    gpi::partition_move_kernel<W, THREE, C><<<(unsigned)tiles, partition_policy::threads, 0, stream>>>(
        in, (long long)n, vec, mask[0], mask[1], prefix[0], prefix[1], totals, out);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "partition move kernel launch"))) return s;

    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "partition cudaStreamSynchronize"))) return s;
    const unsigned long long t0 = host[0], t1 = host[1];
    if (t0 > n || t1 > n - t0)
        return gpi_error(ctx, GP_ERROR_INTERNAL, "partition: impossible counts %llu, %llu", t0, t1);
    counts[0] = (size_t)t0;
    counts[1] = (size_t)t1;
    counts[2] = n - (size_t)t0 - (size_t)t1;
    return GP_SUCCESS;
}

template <typename W, typename F, bool THREE>
gp_status partition_sized(gp_context *ctx, const void *in, const void *f1, const void *f2, void *out, size_t n,
                          size_t counts[3])
{
    if (n == 0) {
        /* nothing to move; still synchronize, as documented */
        gp_status s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                      "partition cudaStreamSynchronize");
        if (s == GP_SUCCESS) counts[0] = counts[1] = counts[2] = 0;
        return s;
    }
    if (n <= partition_policy::count32_max)
        return run_partition<W, F, THREE, uint32_t>(ctx, (const W *)in, (const F *)f1, (const F *)f2, (W *)out, n,
                                                    counts);
    return run_partition<W, F, THREE, unsigned long long>(ctx, (const W *)in, (const F *)f1, (const F *)f2, (W *)out,
                                                          n, counts);
}

template <typename W>
gp_status partition_words(gp_context *ctx, const void *in, const void *f1, const void *f2, gp_flag_type flag_type,
                          void *out, size_t n, size_t counts[3])
{
    if (flag_type == GP_UINT8_FLAGS) {
        if (f2) return partition_sized<W, uint8_t, true>(ctx, in, f1, f2, out, n, counts);
        return partition_sized<W, uint8_t, false>(ctx, in, f1, f2, out, n, counts);
    }
    if (f2) return partition_sized<W, int32_t, true>(ctx, in, f1, f2, out, n, counts);
    return partition_sized<W, int32_t, false>(ctx, in, f1, f2, out, n, counts);
}

} // namespace

extern "C" gp_status gpi_cuda_partition(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                                        const void *second_flags, gp_flag_type flag_type, void *out, size_t n,
                                        size_t counts[3])
{
    if (gp_dtype_size(dtype) == 4)
        return partition_words<uint32_t>(ctx, in, first_flags, second_flags, flag_type, out, n, counts);
    return partition_words<uint64_t>(ctx, in, first_flags, second_flags, flag_type, out, n, counts);
}
