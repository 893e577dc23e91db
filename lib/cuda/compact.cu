/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/compact.cu - stream compaction in one pass.
 *
 * One kernel over tiles, built from the single-pass scan's pieces
 * (block_scan.cuh, lookback.cuh) as find_repeats.cu is: each thread loads its 16-byte vectors of elements and
 * the flags that go with them, turns the flags into a bit mask and counts
 * the survivors; the counts are scanned across the block and chained across
 * tiles by decoupled look-back, which gives every survivor its output slot.
 * The tile's survivors are staged in shared memory in output order and
 * written by consecutive threads to consecutive slots. Elements and flags
 * are read once, survivors written once: no scan pass, no scatter pass.
 * The last tile writes the count into the context's mapped page-locked
 * buffer; the call then synchronizes and returns it.
 *
 * Elements move as raw 4- or 8-byte words (only the dtype's size matters);
 * gp_compact_indices stages 16-bit positions within the tile and writes
 * 64-bit global indices. A flag is set when the whole flag (byte or int32)
 * is non-zero. Counts are 32-bit (one packed look-back word) while n fits,
 * else 64-bit. The tuning: policy/compact.cuh. */
#include "internal.h"
#include "block_scan.cuh"
#include "tile_io.cuh"
#include "flags.cuh"
#include "lookback.cuh"
#include "policy/compact.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace {

using gpi::compact_policy;
using gpi::flag_mask;

template <typename C>
struct CountSum {
    __device__ __forceinline__ C operator()(C a, C b) const { return a + b; }
};

/* W: the element word (uint32_t / uint64_t), or uint64_t with INDICES
 * (then `in` is unused and out receives global indices). VI elements a
 * vector: 16 bytes of words, or 4 flags for the indices. */
template <typename W, typename F, bool INDICES>
struct compact_shape {
    static constexpr int VI = INDICES ? 4 : 16 / (int)sizeof(W);
    static constexpr long long ITEMS = (long long)compact_policy::threads * compact_policy::vectors * VI;
};

template <typename W, typename F, bool INDICES, typename C>
__global__ void __launch_bounds__(compact_policy::threads, sizeof(C) == 4 ? compact_policy::min_blocks : 1)
compact_kernel(const W *in, const F *flags, long long n, bool vec, bool fvec, gpi::tile_state<C> st, W *out,
               C *count_out)
{
    constexpr int THREADS = compact_policy::threads, VEC = compact_policy::vectors;
    using S = compact_shape<W, F, INDICES>;
    constexpr int VI = S::VI;
    using Staged = typename std::conditional<INDICES, uint16_t, W>::type;
    static_assert(!INDICES || S::ITEMS <= 65536, "tile positions must fit 16 bits");
    __shared__ Staged staged[S::ITEMS];
    __shared__ C tile_base;
    const int t = threadIdx.x;
    const long long tile = blockIdx.x, base = tile * S::ITEMS;
    const bool full = base + S::ITEMS <= n;

    unsigned mask[VEC];
    C count[VEC], before[VEC];
    W x[VEC][INDICES ? 1 : VI];
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const long long e = base + ((long long)k * THREADS + t) * VI;
        mask[k] = flag_mask<F, VI>(flags, e, n, full, fvec);
        count[k] = (C)__popc(mask[k]);
        if constexpr (!INDICES) {
            gpi::load_vector<W, VI>(in, e, n, full && vec, x[k], W(0));
        }
    }
    const C end = gpi::block_vector_prefixes<C, CountSum<C>, THREADS, VEC, true>(count, before, tile, C(0), st,
                                                                                  compact_policy::delay, C(0));
    /* Thread 0's first vector starts the tile: its prefix is the tile's
     * first output slot. */
    if (t == 0) tile_base = before[0];
    __syncthreads();
    const C base_pos = tile_base;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        uint32_t pos = (uint32_t)(before[k] - base_pos);
#pragma unroll
        for (int j = 0; j < VI; j++) /* static j: x stays in registers */
            if (mask[k] >> j & 1u) {
                if constexpr (INDICES) staged[pos++] = (uint16_t)((k * THREADS + t) * VI + j);
                else staged[pos++] = x[k][j];
            }
    }
    __syncthreads();
    const uint32_t tile_count = (uint32_t)(end - base_pos);
    for (uint32_t i = t; i < tile_count; i += THREADS) {
        if constexpr (INDICES) out[base_pos + i] = (W)(base + staged[i]);
        else out[base_pos + i] = staged[i];
    }
    if (tile == (long long)gridDim.x - 1 && t == 0) *count_out = end;
}

template <typename W, typename F, bool INDICES, typename C>
gp_status run_compact(gp_context *ctx, const W *in, const F *flags, W *out, size_t n, size_t *count_host)
{
    using S = compact_shape<W, F, INDICES>;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long tiles = ((long long)n + S::ITEMS - 1) / S::ITEMS;
    C *count_host_buf = (C *)ctx->pinned, *d_count = (C *)ctx->pinned_dev;
    void *ws = nullptr; /* the look-back state */
    gpi::tile_state<C> st;
    gp_status s;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "compact: too many tiles");
    if ((s = gpi_workspace_aligned(ctx, gpi::tile_state_bytes<C>(tiles), &ws))) return s;
    if ((s = gpi_cuda_status(ctx, gpi::tile_state_clear<C>(ws, tiles, stream, &st), "compact cudaMemsetAsync")))
        return s;
    *count_host_buf = (C)-1; /* impossible: caught below if the kernel never wrote it */
    const bool vec = INDICES || (uintptr_t)in % 16 == 0;
    const bool fvec = (uintptr_t)flags % (S::VI * sizeof(F)) == 0;
    compact_kernel<W, F, INDICES, C>
        <<<(unsigned)tiles, compact_policy::threads, 0, stream>>>(in, flags, (long long)n, vec, fvec, st, out, d_count);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "compact kernel launch"))) return s;
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize(stream), "compact cudaStreamSynchronize"))) return s;
    const C count = *count_host_buf;
    if ((uint64_t)count > (uint64_t)n)
        return gpi_error(ctx, GP_ERROR_INTERNAL, "compact: impossible count %llu", (unsigned long long)count);
    *count_host = (size_t)count;
    return GP_SUCCESS;
}

template <typename W, typename F, bool INDICES>
gp_status compact_sized(gp_context *ctx, const void *in, const void *flags, void *out, size_t n, size_t *count_host)
{
    if (n == 0) {
        /* Nothing to select; still synchronize, as documented. */
        gp_status s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                      "compact cudaStreamSynchronize");
        if (s == GP_SUCCESS) *count_host = 0;
        return s;
    }
    if (n <= UINT32_MAX)
        return run_compact<W, F, INDICES, uint32_t>(ctx, (const W *)in, (const F *)flags, (W *)out, n, count_host);
    return run_compact<W, F, INDICES, unsigned long long>(ctx, (const W *)in, (const F *)flags, (W *)out, n,
                                                          count_host);
}

template <typename W, bool INDICES>
gp_status compact_flags(gp_context *ctx, const void *in, const void *flags, gp_flag_type flag_type, void *out,
                        size_t n, size_t *count_host)
{
    if (flag_type == GP_UINT8_FLAGS) return compact_sized<W, uint8_t, INDICES>(ctx, in, flags, out, n, count_host);
    return compact_sized<W, int32_t, INDICES>(ctx, in, flags, out, n, count_host);
}

} // namespace

extern "C" gp_status gpi_cuda_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                                      gp_flag_type flag_type, void *out, size_t n, size_t *count_host)
{
    if (gp_dtype_size(dtype) == 4) return compact_flags<uint32_t, false>(ctx, in, flags, flag_type, out, n, count_host);
    return compact_flags<uint64_t, false>(ctx, in, flags, flag_type, out, n, count_host);
}

extern "C" gp_status gpi_cuda_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                                              uint64_t *out, size_t n, size_t *count_host)
{
    return compact_flags<uint64_t, true>(ctx, nullptr, flags, flag_type, out, n, count_host);
}
