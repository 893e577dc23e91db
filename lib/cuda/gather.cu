/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/gather.cu - gather and scatter by 64-bit indices, and the index
 * check that GP_INDEX_CHECK runs first.
 *
 * Move kernels: a block takes tiles of THREADS x ITEMS positions; thread t
 * handles positions tile + k*THREADS + t, so the index loads, and the
 * contiguous side of the move (gather's stores, scatter's loads), are
 * coalesced. A thread first loads all ITEMS indices, then all its elements,
 * then stores them: ITEMS independent memory operations in flight. Indices
 * that are ascending make gather's loads (scatter's stores) contiguous too,
 * so the whole move streams at about copy speed. Elements move as one 4-,
 * 8- or 16-byte word; a position whose index is out of range is skipped.
 *
 * Check kernel: reads the indices as 16-byte vectors and keeps the first
 * out-of-range position with atomicMin (only bad positions do atomics); the
 * result comes back through the context's page-locked buffer. */
#include "permute_internal.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace {

/* Tuning knobs for runs on the GPU machine (-D at build time). */
#ifndef GPI_GATHER_THREADS
#define GPI_GATHER_THREADS 256
#endif
#ifndef GPI_GATHER_ITEMS
#define GPI_GATHER_ITEMS 8
#endif
struct gather_policy {
    static constexpr int threads = GPI_GATHER_THREADS;
    static constexpr int items = GPI_GATHER_ITEMS; /* positions per thread per tile */
    static constexpr long long tile = (long long)threads * items;
    static constexpr unsigned max_blocks = 65536; /* past that, blocks loop over tiles */
};

unsigned move_blocks(long long n)
{
    const long long tiles = (n + gather_policy::tile - 1) / gather_policy::tile;
    return (unsigned)std::min<long long>(tiles, gather_policy::max_blocks);
}

/* GATHER: out[i] = in[idx[i]] if idx[i] < limit; else out[idx[i]] = in[i]. */
template <typename W, bool GATHER>
__global__ void __launch_bounds__(gather_policy::threads)
move_kernel(const W *__restrict__ in, const uint64_t *__restrict__ idx, W *__restrict__ out, long long n,
            unsigned long long limit)
{
    constexpr int THREADS = gather_policy::threads, ITEMS = gather_policy::items;
    for (long long base = (long long)blockIdx.x * gather_policy::tile; base < n;
         base += (long long)gridDim.x * gather_policy::tile) {
        unsigned long long j[ITEMS];
        W v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const long long i = base + k * THREADS + threadIdx.x;
            j[k] = i < n ? __ldg(idx + i) : ~0ull;
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const long long i = base + k * THREADS + threadIdx.x;
            if (j[k] < limit) v[k] = GATHER ? __ldg(in + j[k]) : __ldg(in + i);
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const long long i = base + k * THREADS + threadIdx.x;
            if (j[k] < limit) {
                if (GATHER) out[i] = v[k];
                else out[j[k]] = v[k];
            }
        }
    }
}

__global__ void __launch_bounds__(256)
check_kernel(const uint64_t *idx, long long n, unsigned long long limit, unsigned long long *first_bad)
{
    const long long thread = (long long)blockIdx.x * 256 + threadIdx.x, stride = (long long)gridDim.x * 256;
    const bool vec = (uintptr_t)idx % 16 == 0;
    const long long pairs = vec ? n / 2 : 0;
    for (long long p = thread; p < pairs; p += stride) {
        const ulonglong2 w = __ldg(reinterpret_cast<const ulonglong2 *>(idx) + p);
        if (w.x >= limit) atomicMin(first_bad, (unsigned long long)(2 * p));
        else if (w.y >= limit) atomicMin(first_bad, (unsigned long long)(2 * p + 1));
    }
    for (long long i = 2 * pairs + thread; i < n; i += stride)
        if (__ldg(idx + i) >= limit) atomicMin(first_bad, (unsigned long long)i);
}

template <typename W, bool GATHER>
gp_status launch_move(gp_context *ctx, const void *in, const uint64_t *idx, void *out, size_t n, size_t limit)
{
    move_kernel<W, GATHER><<<move_blocks((long long)n), gather_policy::threads, 0, (cudaStream_t)ctx->stream>>>(
        (const W *)in, idx, (W *)out, (long long)n, (unsigned long long)limit);
    return gpi_cuda_status(ctx, cudaGetLastError(), GATHER ? "gather kernel launch" : "scatter kernel launch");
}

template <bool GATHER>
gp_status move(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *idx, void *out, size_t n,
               size_t limit)
{
    if (elem_size == 4) return launch_move<uint32_t, GATHER>(ctx, in, idx, out, n, limit);
    if (elem_size == 8) return launch_move<unsigned long long, GATHER>(ctx, in, idx, out, n, limit);
    return launch_move<uint4, GATHER>(ctx, in, idx, out, n, limit);
}

} // namespace

extern "C" gp_status gpi_cuda_check_indices(gp_context *ctx, const uint64_t *indices, size_t n, uint64_t limit,
                                            size_t *first_bad)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    void *ws = nullptr;
    gp_status s;
    if ((s = gpi_workspace_aligned(ctx, sizeof(unsigned long long), &ws))) return s;
    unsigned long long *d_bad = static_cast<unsigned long long *>(ws);
    unsigned long long *host = static_cast<unsigned long long *>(ctx->pinned);
    if ((s = gpi_cuda_status(ctx, cudaMemsetAsync(d_bad, 0xff, sizeof *d_bad, stream), "index check cudaMemsetAsync")))
        return s;
    const unsigned blocks = (unsigned)std::max<long long>(
        1, std::min<long long>(((long long)n + 4095) / 4096, 8LL * std::max(ctx->sm_count, 1)));
    check_kernel<<<blocks, 256, 0, stream>>>(indices, (long long)n, (unsigned long long)limit, d_bad);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "index check kernel launch"))) return s;
    *host = 0; /* overwritten by the copy: all ones when no index is bad */
    if ((s = gpi_cuda_status(ctx, cudaMemcpyAsync(host, d_bad, sizeof *d_bad, cudaMemcpyDeviceToHost, stream),
                             "index check cudaMemcpyAsync")))
        return s;
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "index check cudaStreamSynchronize"))) return s;
    const unsigned long long bad = *host;
    if (bad != ~0ull && bad >= n)
        return gpi_error(ctx, GP_ERROR_INTERNAL, "index check: impossible position %llu", bad);
    *first_bad = bad == ~0ull ? SIZE_MAX : (size_t)bad;
    return GP_SUCCESS;
}

extern "C" gp_status gpi_cuda_gather(gp_context *ctx, size_t elem_size, const void *in, size_t in_n,
                                     const uint64_t *indices, void *out, size_t n)
{
    return move<true>(ctx, elem_size, in, indices, out, n, in_n);
}

extern "C" gp_status gpi_cuda_scatter(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *indices,
                                      size_t n, void *out, size_t out_n)
{
    return move<false>(ctx, elem_size, in, indices, out, n, out_n);
}
