/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/partition.cu - stable two- and three-way partition.
 *
 * The rejected part must start right after the selected one, in input
 * order, so its offset (the number selected) is needed before anything is
 * written. A count kernel first reads the flags alone (n bytes or n int32:
 * a fraction of the elements' traffic) and leaves the parts' totals in
 * device memory. Then one kernel over tiles, built on lookback.cuh and block_scan.cuh's
 * pieces as compact.cu is: each thread loads its 16-byte vectors of
 * elements and the flags that go with them, turns the flags into bit masks
 * (first part; second part = second flag and not first), and the
 * per-vector counts are scanned across the block and chained across tiles
 * by decoupled look-back (one chain per counted part; the last part's
 * prefix is the element index minus the others'). The tile's elements are
 * staged in shared memory in output order, part after part, and written by
 * consecutive threads to consecutive slots of each part's run. Elements and
 * flags are read once, elements written once.
 *
 * Elements move as raw 4- or 8-byte words. Counts are 32-bit (one packed
 * look-back word) while n fits, else 64-bit. The totals come back through
 * the context's page-locked buffer after a synchronization. */
#include "permute_internal.h"
#include "block_scan.cuh"
#include "tile_io.cuh"
#include "flags.cuh"
#include "lookback.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace {

/* Tuning knobs for runs on the GPU machine (-D at build time). */
#ifndef GPI_PARTITION_VECTORS
#define GPI_PARTITION_VECTORS 8
#endif
#ifndef GPI_PARTITION_MIN_BLOCKS
#define GPI_PARTITION_MIN_BLOCKS 4 /* resident tiles per SM, 32-bit counts, two parts (three spill) */
#endif
#ifndef GPI_PARTITION_DELAY_FIRST
#define GPI_PARTITION_DELAY_FIRST 2000
#endif
#ifndef GPI_PARTITION_DELAY_POLL
#define GPI_PARTITION_DELAY_POLL 700
#endif
struct partition_policy {
    static constexpr int threads = 256;
    static constexpr int vectors = GPI_PARTITION_VECTORS; /* vectors per thread per tile */
    static constexpr gpi::lookback_delay delay = {GPI_PARTITION_DELAY_FIRST, GPI_PARTITION_DELAY_POLL};
    static constexpr int count_threads = 256;
};

template <typename C>
struct CountSum {
    __device__ __forceinline__ C operator()(C a, C b) const { return a + b; }
};

/* ---- the count kernel ---------------------------------------------------------------- */
/* Bit 7 of each byte of the result: that byte of w is non-zero. */
__device__ __forceinline__ uint32_t nonzero_bytes(uint32_t w)
{
    return (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
}

/* totals[0] += elements with f1 set; THREE: totals[1] += f2 set and f1 not.
 * vec: both flag arrays 16-byte aligned. */
template <typename F, bool THREE>
__global__ void __launch_bounds__(partition_policy::count_threads)
partition_count_kernel(const F *f1, const F *f2, long long n, bool vec, unsigned long long *totals)
{
    constexpr int PER = 16 / (int)sizeof(F); /* flags per 16-byte vector */
    const long long thread = (long long)blockIdx.x * partition_policy::count_threads + threadIdx.x;
    const long long stride = (long long)gridDim.x * partition_policy::count_threads;
    unsigned long long c0 = 0, c1 = 0;
    const long long nv = vec ? n / PER : 0;
    for (long long v = thread; v < nv; v += stride) {
        const uint4 a = __ldg(reinterpret_cast<const uint4 *>(f1) + v);
        const uint4 b = THREE ? __ldg(reinterpret_cast<const uint4 *>(f2) + v) : make_uint4(0, 0, 0, 0);
        const uint32_t aw[4] = {a.x, a.y, a.z, a.w}, bw[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (sizeof(F) == 1) {
                const uint32_t t0 = nonzero_bytes(aw[i]);
                c0 += __popc(t0);
                if (THREE) c1 += __popc(nonzero_bytes(bw[i]) & ~t0);
            } else {
                c0 += aw[i] != 0;
                if (THREE) c1 += aw[i] == 0 && bw[i] != 0;
            }
        }
    }
    for (long long e = nv * PER + thread; e < n; e += stride) {
        const bool s0 = f1[e] != 0;
        c0 += s0;
        if (THREE) c1 += !s0 && f2[e] != 0;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        c0 += __shfl_xor_sync(0xffffffffu, c0, off);
        if (THREE) c1 += __shfl_xor_sync(0xffffffffu, c1, off);
    }
    if ((threadIdx.x & 31) == 0) {
        if (c0) atomicAdd(totals, c0);
        if (THREE && c1) atomicAdd(totals + 1, c1);
    }
}

/* ---- the partition kernel ---------------------------------------------------------------- */
using gpi::flag_mask;

template <typename W>
struct partition_shape {
    static constexpr int VI = 16 / (int)sizeof(W);
    static constexpr long long ITEMS = (long long)partition_policy::threads * partition_policy::vectors * VI;
};

/* PARTS - 1 look-back chains: st[0] counts the first part, st[1] (THREE)
 * the second. totals: the parts' totals from the count kernel. */
template <typename W, typename F, bool THREE, typename C>
__global__ void __launch_bounds__(partition_policy::threads, sizeof(C) == 4 && !THREE ? GPI_PARTITION_MIN_BLOCKS : 1)
partition_kernel(const W *in, const F *f1, const F *f2, long long n, bool vec, bool fvec, gpi::tile_state<C> st0,
                 gpi::tile_state<C> st1, const unsigned long long *totals, W *out)
{
    constexpr int THREADS = partition_policy::threads, VEC = partition_policy::vectors;
    using S = partition_shape<W>;
    constexpr int VI = S::VI;
    __shared__ W staged[S::ITEMS];
    __shared__ C tile_base[2];
    const int t = threadIdx.x;
    const long long tile = blockIdx.x, base = tile * S::ITEMS;
    const bool full = base + S::ITEMS <= n;

    unsigned m0[VEC], m1[VEC];
    C c0[VEC], c1[VEC], before0[VEC], before1[VEC];
    W x[VEC][VI];
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const long long e = base + ((long long)k * THREADS + t) * VI;
        m0[k] = flag_mask<F, VI>(f1, e, n, full, fvec);
        m1[k] = THREE ? flag_mask<F, VI>(f2, e, n, full, fvec) & ~m0[k] : 0u;
        c0[k] = (C)__popc(m0[k]);
        c1[k] = (C)__popc(m1[k]);
        before1[k] = 0;
        gpi::load_vector<W, VI>(in, e, n, full && vec, x[k], W(0));
    }
    const C end0 = gpi::block_vector_prefixes<C, CountSum<C>, THREADS, VEC, true>(c0, before0, tile, C(0), st0,
                                                                                   partition_policy::delay, C(0));
    C end1 = 0;
    if constexpr (THREE) {
        /* the second chain reuses the first one's shared scratch: wait until
         * every thread has read its prefixes */
        __syncthreads();
        end1 = gpi::block_vector_prefixes<C, CountSum<C>, THREADS, VEC, true>(c1, before1, tile, C(0), st1,
                                                                              partition_policy::delay, C(0));
    }
    /* Thread 0's first vector starts the tile: its prefixes are the tile's. */
    if (t == 0) {
        tile_base[0] = before0[0];
        if (THREE) tile_base[1] = before1[0];
    }
    __syncthreads();
    const C b0 = tile_base[0], b1 = THREE ? tile_base[1] : C(0);
    const uint32_t n0 = (uint32_t)(end0 - b0), n1 = THREE ? (uint32_t)(end1 - b1) : 0u;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const uint32_t first = (uint32_t)((k * THREADS + t) * VI); /* tile elements before this vector */
        uint32_t p0 = (uint32_t)(before0[k] - b0);
        uint32_t p1 = THREE ? (uint32_t)(before1[k] - b1) : 0u;
        uint32_t p2 = n0 + n1 + (first - p0 - p1);
        p1 += n0;
#pragma unroll
        for (int j = 0; j < VI; j++) { /* static j: x stays in registers */
            if (base + first + j >= n) break;
            if (m0[k] >> j & 1u) staged[p0++] = x[k][j];
            else if (m1[k] >> j & 1u) staged[p1++] = x[k][j];
            else staged[p2++] = x[k][j];
        }
    }
    __syncthreads();
    const unsigned long long total0 = totals[0], total1 = THREE ? totals[1] : 0ull;
    const uint32_t tile_items = (uint32_t)(full ? S::ITEMS : n - base);
    /* where each part's run of this tile starts in out */
    const long long at0 = (long long)b0, at1 = (long long)(total0 + b1);
    const long long at2 = (long long)(total0 + total1) + (base - (long long)b0 - (long long)b1);
    for (uint32_t i = t; i < tile_items; i += THREADS) {
        long long dst;
        if (i < n0) dst = at0 + i;
        else if (i < n0 + n1) dst = at1 + (i - n0);
        else dst = at2 + (i - n0 - n1);
        out[dst] = staged[i];
    }
}

template <typename W, typename F, bool THREE, typename C>
gp_status run_partition(gp_context *ctx, const W *in, const F *f1, const F *f2, W *out, size_t n, size_t counts[3])
{
    using S = partition_shape<W>;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long tiles = ((long long)n + S::ITEMS - 1) / S::ITEMS;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "partition: too many tiles");
    const size_t state_bytes = gpi::tile_state_bytes<C>(tiles);
    void *ws = nullptr; /* the totals (256 bytes), then one or two look-back states */
    gp_status s;
    if ((s = gpi_workspace_aligned(ctx, 256 + (THREE ? 2 : 1) * state_bytes, &ws))) return s;
    unsigned long long *totals = static_cast<unsigned long long *>(ws);
    gpi::tile_state<C> st0, st1{};
    cudaError_t e = cudaMemsetAsync(totals, 0, 2 * sizeof *totals, stream);
    if (e == cudaSuccess) e = gpi::tile_state_clear<C>(static_cast<char *>(ws) + 256, tiles, stream, &st0);
    if (e == cudaSuccess && THREE)
        e = gpi::tile_state_clear<C>(static_cast<char *>(ws) + 256 + state_bytes, tiles, stream, &st1);
    if ((s = gpi_cuda_status(ctx, e, "partition cudaMemsetAsync"))) return s;

    constexpr long long per_count_block = 16LL * partition_policy::count_threads * 4;
    const bool cvec = (uintptr_t)f1 % 16 == 0 && (!THREE || (uintptr_t)f2 % 16 == 0);
    const long long count_blocks =
        std::max<long long>(1, std::min<long long>(((long long)n * (long long)sizeof(F) + per_count_block - 1) / per_count_block,
                                                   8LL * ctx->sm_count));
    partition_count_kernel<F, THREE>
        <<<(unsigned)count_blocks, partition_policy::count_threads, 0, stream>>>(f1, f2, (long long)n, cvec, totals);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "partition count kernel launch"))) return s;

    const bool vec = (uintptr_t)in % 16 == 0;
    const bool fvec = (uintptr_t)f1 % (S::VI * sizeof(F)) == 0 && (!THREE || (uintptr_t)f2 % (S::VI * sizeof(F)) == 0);
    partition_kernel<W, F, THREE, C><<<(unsigned)tiles, partition_policy::threads, 0, stream>>>(
        in, f1, f2, (long long)n, vec, fvec, st0, st1, totals, out);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "partition kernel launch"))) return s;

    unsigned long long *host = static_cast<unsigned long long *>(ctx->pinned);
    host[0] = host[1] = ~0ull; /* impossible: caught below if the copy never landed */
    e = cudaMemcpyAsync(host, totals, 2 * sizeof *totals, cudaMemcpyDeviceToHost, stream);
    if ((s = gpi_cuda_status(ctx, e, "partition cudaMemcpyAsync"))) return s;
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
    if (n <= UINT32_MAX)
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
