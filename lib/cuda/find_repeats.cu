/* cuda/find_repeats.cu - indices i with in[i] == in[i+1], in one pass.
 *
 * One kernel over tiles of the input, built from scan_onepass.cuh's pieces:
 * each thread loads its 16-byte vectors, takes the element after each
 * vector from shared memory (or, for the tile's last vector, from the next
 * tile), marks the repeats in a bit mask, and counts them; the counts are
 * scanned across the block and chained across tiles by decoupled look-back
 * (integer sums: exact in any grouping), which gives each repeat its output
 * position. The data is read once and each index written once: no flag
 * array, no separate scan or scatter pass. The last tile writes the total.
 *
 * Integers compare as raw words of their width (== is the same for signed
 * and unsigned); floats keep their own == (NaN never repeats, -0.0 == +0.0).
 * Counts are 32-bit (one packed look-back word) while n - 1 fits, else 64. */
#include "internal.h"
#include "scan_onepass.cuh"

#include <cuda_runtime.h>

#include <cstdint>

namespace {

/* Tuning knobs for runs on the GPU machine (-D at build time); the
 * defaults are the measured best. */
#ifndef GPI_REPEATS_VECTORS
#define GPI_REPEATS_VECTORS 8
#endif
#ifndef GPI_REPEATS_DELAY_FIRST
#define GPI_REPEATS_DELAY_FIRST 2000
#endif
#ifndef GPI_REPEATS_DELAY_POLL
#define GPI_REPEATS_DELAY_POLL 700
#endif
/* Measured alternatives (H200, 2^28 int32, 3% / 50% repeats; this shape:
 * 0.383-0.390 / 0.732-0.739 ms): 6 tiles per SM (launch bound; 40
 * registers, small spills) with the largest shared-memory carve-out
 * 0.434 / 0.716; 256 x 12 vectors 0.436-0.448 / 0.707-0.711. ncu of this
 * shape: 5 tiles per SM (registers and shared memory both limit), DRAM 65%,
 * half of the stall cycles at the look-back barrier. */
struct repeats_policy {
    static constexpr int threads = 256;
    static constexpr int vectors = GPI_REPEATS_VECTORS; /* 16-byte vectors per thread per tile */
    /* Look-back delays: see the sweep in scan_onepass.cuh. */
    static constexpr gpi::lookback_delay delay = {GPI_REPEATS_DELAY_FIRST, GPI_REPEATS_DELAY_POLL};
};

template <typename C>
struct CountSum {
    __device__ __forceinline__ C operator()(C a, C b) const { return a + b; }
};

template <typename T>
using repeats_tile = gpi::block_scan_tile<T, repeats_policy::threads, repeats_policy::vectors>;

template <typename T, typename C>
__global__ void __launch_bounds__(repeats_policy::threads)
find_repeats_kernel(const T *in, long long n, bool vec, gpi::tile_state<C> st, uint64_t *out, C *count_out)
{
    constexpr int THREADS = repeats_policy::threads, VEC = repeats_policy::vectors;
    using BT = repeats_tile<T>;
    constexpr int VI = BT::VI;
    __shared__ T first_of[THREADS * VEC]; /* first element of every vector of the tile */
    const int t = threadIdx.x;
    const long long tile = blockIdx.x, base = tile * BT::ITEMS;
    const bool full = base + BT::ITEMS <= n;
    T x[VEC][VI];
    gpi::load_tile<T, THREADS, VEC>(in, base, n, full, vec, x, T(0));
#pragma unroll
    for (int k = 0; k < VEC; k++) first_of[k * THREADS + t] = x[k][0];
    __syncthreads();

    unsigned mask[VEC];
    C count[VEC], before[VEC];
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const int v = k * THREADS + t;        /* vector index within the tile */
        const long long e = base + (long long)v * VI; /* its first element */
        T next = T(0);
        if (v + 1 < THREADS * VEC) next = first_of[v + 1];
        else if (e + VI < n) next = in[e + VI]; /* first element of the next tile */
        unsigned m = 0;
#pragma unroll
        for (int j = 0; j < VI; j++) {
            const T b = j + 1 < VI ? x[k][j + 1] : next;
            if (e + j + 1 < n && x[k][j] == b) m |= 1u << j;
        }
        mask[k] = m;
        count[k] = (C)__popc(m);
    }
    const C end = gpi::block_vector_prefixes<C, CountSum<C>, THREADS, VEC, true>(count, before, tile, C(0), st,
                                                                                  repeats_policy::delay, C(0));
    /* Stage the tile's repeats in shared memory in output order, then write
     * them with consecutive threads on consecutive slots: scattered 8-byte
     * stores from each thread kept L2 busy (ncu, half the elements
     * repeating: L2 77%, DRAM 39%). Staged as 16-bit positions within the
     * tile, not 64-bit indices: 64-bit staging cost residency and slowed
     * sparse inputs.
     * Thread 0's first vector starts the tile, so its prefix is the tile's
     * first output position. */
    static_assert(BT::ITEMS <= 65536, "tile positions must fit 16 bits");
    __shared__ uint16_t staged[BT::ITEMS];
    __shared__ C tile_base;
    if (t == 0) tile_base = before[0];
    __syncthreads();
    const C base_pos = tile_base;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const int v0 = (k * THREADS + t) * VI; /* the vector's first position in the tile */
        unsigned m = mask[k];
        uint32_t pos = (uint32_t)(before[k] - base_pos);
        while (m) {
            const int j = __ffs(m) - 1;
            staged[pos++] = (uint16_t)(v0 + j);
            m &= m - 1;
        }
    }
    __syncthreads();
    const uint32_t tile_count = (uint32_t)(end - base_pos);
    for (uint32_t i = t; i < tile_count; i += THREADS) out[base_pos + i] = (uint64_t)(base + staged[i]);
    if (tile == (long long)gridDim.x - 1 && t == 0) *count_out = end;
}

template <typename T, typename C>
gp_status run_repeats(gp_context *ctx, const T *in, size_t n, uint64_t *out, size_t *count_host)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long tiles = ((long long)n + repeats_tile<T>::ITEMS - 1) / repeats_tile<T>::ITEMS;
    void *ws = nullptr; /* the look-back state */
    /* The last tile writes the count straight into the context's mapped
     * page-locked buffer: no copy operation after the kernel. */
    C *count_host_buf = (C *)ctx->pinned, *d_count = (C *)ctx->pinned_dev;
    C count = 0;
    gp_status s;
    cudaError_t e;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "find_repeats: too many tiles");
    if ((s = gpi_workspace_aligned(ctx, gpi::tile_state_bytes<C>(tiles), &ws))) return s;
    gpi::tile_state<C> st;
    e = gpi::tile_state_clear<C>(ws, tiles, stream, &st);
    if ((s = gpi_cuda_status(ctx, e, "find_repeats cudaMemsetAsync"))) return s;
    *count_host_buf = (C)-1; /* impossible: caught below if the kernel never wrote it */
    const bool vec = (uintptr_t)in % 16 == 0;
    find_repeats_kernel<T, C><<<(unsigned)tiles, repeats_policy::threads, 0, stream>>>(in, (long long)n, vec, st, out,
                                                                                     d_count);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "find_repeats kernel launch"))) return s;
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "find_repeats cudaStreamSynchronize"))) return s;
    count = *count_host_buf;
    if ((uint64_t)count > (uint64_t)(n - 1))
        return gpi_error(ctx, GP_ERROR_INTERNAL, "find_repeats: impossible count %llu", (unsigned long long)count);
    *count_host = (size_t)count;
    return GP_SUCCESS;
}

template <typename T>
gp_status repeats_typed(gp_context *ctx, const void *in, size_t n, uint64_t *out, size_t *count_host)
{
    if (n < 2) {
        /* Nothing to compare; still synchronize, as documented. */
        gp_status s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                      "find_repeats cudaStreamSynchronize");
        if (s == GP_SUCCESS) *count_host = 0;
        return s;
    }
    if (n - 1 <= UINT32_MAX) return run_repeats<T, uint32_t>(ctx, (const T *)in, n, out, count_host);
    return run_repeats<T, unsigned long long>(ctx, (const T *)in, n, out, count_host);
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
