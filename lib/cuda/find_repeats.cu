/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/find_repeats.cu - indices i with in[i] == in[i+1].
 *
 * Two forms, both reading the input once and writing each index once.
 *
 * One pass (small inputs, and the fallback when the two-pass workspace
 * cannot be had): one kernel over tiles of the input, built from the
 * single-pass scan's pieces (tile_io.cuh, block_scan.cuh, lookback.cuh):
 * each thread loads its 16-byte vectors, takes the element after each
 * vector from shared memory (or, for the tile's last vector, from the next
 * tile), marks the repeats in a bit mask, and counts them; the counts are scanned across the block and chained across tiles by
 * decoupled look-back (integer sums: exact in any grouping), which gives
 * each repeat its output position. The last tile writes the total.
 *
 * Two passes (large inputs): the one-pass kernel spends half its stall
 * cycles at the look-back barrier, a tile's registers idle until its
 * predecessors' counts arrive. Splitting the work removes every wait
 * between blocks: a mark kernel reads the input and writes each tile's
 * count and a record of ITEMS / 8 bytes (its repeats' positions, or its
 * bitmap when they are many); one block scans the counts into the tiles'
 * output positions; an expand kernel turns the records into indices. The
 * workspace is n / 8 bytes; the extra traffic is 4 bytes per repeat at
 * low density, n / 4 bytes at most. H200, 2^28 int32: 3% repeats 0.381 ->
 * 0.310 ms (mark 263 us at 88% of DRAM bandwidth, offsets 10, expand 26),
 * 50% repeats 0.727 -> 0.630 ms. Below about 6M elements the one launch
 * of the one-pass form costs less than three.
 *
 * Integers compare as raw words of their width (== is the same for signed
 * and unsigned); floats keep their own == (NaN never repeats, -0.0 == +0.0).
 * Counts are 32-bit (one packed look-back word) while n - 1 fits, else 64.
 * The tuning: policy/find_repeats.cuh. */
#include "internal.h"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "policy/find_repeats.cuh"
#include "tile_io.cuh"
#include "warp_scan.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace {

using gpi::repeats_policy;

template <typename C>
struct CountSum {
    __device__ __forceinline__ C operator()(C a, C b) const { return a + b; }
};

template <typename T>
using repeats_tile = gpi::block_scan_tile<T, repeats_policy::threads, repeats_policy::vectors>;

/* Load tile `tile` and mark its repeats: bit j of mask[k] is set when
 * element j of this thread's vector k equals the element after it (both
 * below n). Every thread of the block must call it (it has a barrier);
 * first_of is the block's shared array of THREADS * VEC elements. */
template <typename T>
__device__ __forceinline__ void tile_repeat_masks(const T *in, long long n, long long tile, bool vec, T *first_of,
                                                  unsigned (&mask)[repeats_policy::vectors])
{
    constexpr int THREADS = repeats_policy::threads, VEC = repeats_policy::vectors;
    using BT = repeats_tile<T>;
    constexpr int VI = BT::VI;
    const int t = threadIdx.x;
    const long long base = tile * BT::ITEMS;
    const bool full = base + BT::ITEMS <= n;
    T x[VEC][VI];
    gpi::load_tile<T, THREADS, VEC>(in, base, n, full, vec, x, T(0));
#pragma unroll
    for (int k = 0; k < VEC; k++) first_of[k * THREADS + t] = x[k][0]; /* first element of every vector */
    __syncthreads();
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
    }
}

template <typename T, typename C>
__global__ void __launch_bounds__(repeats_policy::threads)
find_repeats_kernel(const T *in, long long n, bool vec, gpi::tile_state<C> st, uint64_t *out, C *count_out)
{
    constexpr int THREADS = repeats_policy::threads, VEC = repeats_policy::vectors;
    using BT = repeats_tile<T>;
    constexpr int VI = BT::VI;
    __shared__ T first_of[THREADS * VEC];
    const int t = threadIdx.x;
    const long long tile = blockIdx.x, base = tile * BT::ITEMS;
    unsigned mask[VEC];
    C count[VEC], before[VEC];
    tile_repeat_masks<T>(in, n, tile, vec, first_of, mask);
#pragma unroll
    for (int k = 0; k < VEC; k++) count[k] = (C)__popc(mask[k]);
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

/* ---- two passes ------------------------------------------------------------------
 * Each tile owns ITEMS / 8 bytes of workspace, its record: a sparse tile
 * (at most ITEMS / 16 repeats) writes there its repeats' positions within
 * the tile as uint16, in order; a dense one its bitmap (bit b of word w:
 * element 32 w + b of the tile). Its count tells the expand kernel which. */
template <typename T>
struct repeats_record {
    static constexpr int ITEMS = (int)repeats_tile<T>::ITEMS;
    static constexpr int WORDS = ITEMS / 32;       /* bitmap words */
    static constexpr int SPARSE_MAX = ITEMS / 16;  /* uint16 positions that fit */
    static constexpr size_t BYTES = ITEMS / 8;
};

/* Mark: the tile's repeats as a record, and its count. No block waits for
 * another. The positions come from a scan over the bitmap words within
 * the block (a word a thread); the same two barriers order the word
 * exchange and the scan. */
template <typename T>
__global__ void __launch_bounds__(repeats_policy::threads)
repeats_mark_kernel(const T *in, long long n, bool vec, uint32_t *records, uint32_t *tile_count)
{
    constexpr int THREADS = repeats_policy::threads, VEC = repeats_policy::vectors, WARPS = THREADS / 32;
    using BT = repeats_tile<T>;
    using RC = repeats_record<T>;
    constexpr int VI = BT::VI, L = 32 / VI; /* L vectors (lanes) fill a word */
    constexpr int W = RC::WORDS;
    static_assert(W % 32 == 0 && W <= THREADS, "whole warps hold the tile's words");
    __shared__ T first_of[THREADS * VEC];
    __shared__ uint32_t s_bits[W];
    __shared__ uint32_t s_warp[WARPS];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long tile = blockIdx.x;
    unsigned mask[VEC];
    tile_repeat_masks<T>(in, n, tile, vec, first_of, mask);
    /* Vector v = k * THREADS + t holds bits [v * VI, v * VI + VI) of the
     * tile: L consecutive lanes share a word. */
#pragma unroll
    for (int k = 0; k < VEC; k++) {
        uint32_t w = (uint32_t)mask[k] << (VI * (lane % L));
#pragma unroll
        for (int s = 1; s < L; s <<= 1) w |= __shfl_xor_sync(0xffffffffu, w, s);
        if (lane % L == 0) s_bits[(k * THREADS + t) / L] = w;
    }
    __syncthreads();
    uint32_t w = t < W ? s_bits[t] : 0u;
    const uint32_t c = (uint32_t)__popc(w);
    const uint32_t incl = gpi::warp_inclusive_scan(c, CountSum<uint32_t>(), lane);
    if (lane == 31) s_warp[warp] = incl;
    __syncthreads();
    uint32_t pos = incl - c, total = 0;
#pragma unroll
    for (int k = 0; k < WARPS; k++) {
        const uint32_t v = s_warp[k];
        if (k < warp) pos += v;
        total += v;
    }
    uint32_t *const rec = records + tile * W; /* ITEMS / 8 bytes = W words */
    if (total <= (uint32_t)RC::SPARSE_MAX) {
        uint16_t *const at = reinterpret_cast<uint16_t *>(rec);
        while (w) {
            at[pos++] = (uint16_t)(32 * t + __ffs(w) - 1);
            w &= w - 1;
        }
    } else if (t < W) {
        rec[t] = w;
    }
    if (t == 0) tile_count[tile] = total;
}

/* Offsets: one block scans the tiles' counts (exclusive) into their first
 * output positions and writes the total: 32768 counts for 2^28 4-byte
 * elements, two rounds of the loop. Warp w of a round owns 32 * PER
 * consecutive counts, lane l those at l + 32 j, so every load and store is
 * one coalesced line per warp (a single SM moves about one 32-byte sector a
 * clock: with each thread reading 16 consecutive counts this kernel took
 * 30 us); the scan runs row by row, carrying each row's total. */
template <typename C>
__global__ void __launch_bounds__(repeats_policy::offsets_threads)
repeats_offsets_kernel(const uint32_t *tile_count, long long tiles, C *offset, C *count_out)
{
    constexpr int THREADS = repeats_policy::offsets_threads, PER = repeats_policy::offsets_per_thread;
    constexpr int WARPS = THREADS / 32;
    __shared__ C s_warp[WARPS];
    __shared__ C s_total;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    C carry = 0;
    for (long long i0 = 0; i0 < tiles; i0 += (long long)THREADS * PER) {
        const long long chunk = i0 + (long long)warp * 32 * PER + lane;
        uint32_t v[PER];
#pragma unroll
        for (int j = 0; j < PER; j++) v[j] = chunk + 32 * j < tiles ? tile_count[chunk + 32 * j] : 0u;
        C ex[PER], run = 0;
#pragma unroll
        for (int j = 0; j < PER; j++) {
            const C incl = gpi::warp_inclusive_scan((C)v[j], CountSum<C>(), lane);
            ex[j] = run + incl - (C)v[j];
            run += __shfl_sync(0xffffffffu, incl, 31);
        }
        if (lane == 0) s_warp[warp] = run;
        __syncthreads();
        if (warp == 0) {
            const C total = gpi::warp_exclusive_scan_shared<C, CountSum<C>, WARPS / 32>(s_warp, CountSum<C>(), C(0), lane);
            if (lane == 0) s_total = total;
        }
        __syncthreads();
        const C base = carry + s_warp[warp];
#pragma unroll
        for (int j = 0; j < PER; j++)
            if (chunk + 32 * j < tiles) offset[chunk + 32 * j] = base + ex[j];
        carry += s_total;
        __syncthreads(); /* s_warp and s_total are read before the next round writes them */
    }
    if (t == 0) *count_out = carry;
}

/* Expand: tile records -> indices, a warp a tile, the next tile's count
 * and offset loading while this one is written.
 * A sparse record is copied out, 32 * U positions at a time (U loads in
 * flight a lane), lane l writing output slots l, l + 32, ...: coalesced.
 * A dense one goes in rounds of 32 words (a word a lane): the round's
 * counts are scanned across the warp, each lane stages its bits' positions
 * in the warp's own slice of shared memory, and the warp writes them out
 * with consecutive lanes on consecutive indices (scattered 8-byte stores
 * keep L2 busy when repeats are dense).
 * An expand over bitmaps only, one word a lane for every tile, was
 * instruction-bound at 3% repeats: 47 us for 2^28 elements (a block a
 * tile with block barriers: 62 us). */
constexpr int kExpandThreads = repeats_policy::expand_threads;

template <typename T, typename C>
__global__ void __launch_bounds__(kExpandThreads)
repeats_expand_kernel(const uint32_t *records, const uint32_t *tile_count, long long tiles, const C *offset,
                      uint64_t *out)
{
    using RC = repeats_record<T>;
    constexpr int WARPS = kExpandThreads / 32, ROUNDS = RC::WORDS / 32, U = repeats_policy::expand_unroll;
    __shared__ uint16_t staged[WARPS][32 * 32]; /* a round's positions within the tile */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint16_t *const st = staged[warp];
    const long long step = (long long)gridDim.x * WARPS;
    long long tile = (long long)blockIdx.x * WARPS + warp;
    uint32_t cnt = 0;
    C pos0 = 0;
    if (tile < tiles) {
        cnt = tile_count[tile];
        pos0 = offset[tile];
    }
    for (; tile < tiles; tile += step) {
        const long long next = tile + step;
        uint32_t cnt_n = 0;
        C pos_n = 0;
        if (next < tiles) {
            cnt_n = tile_count[next];
            pos_n = offset[next];
        }
        const uint32_t *const rec = records + tile * RC::WORDS;
        const long long first = tile * RC::ITEMS;
        if (cnt <= (uint32_t)RC::SPARSE_MAX) {
            const uint16_t *const at = reinterpret_cast<const uint16_t *>(rec);
            for (uint32_t i0 = 0; i0 < cnt; i0 += 32 * U) {
                uint16_t v[U];
#pragma unroll
                for (int q = 0; q < U; q++) {
                    const uint32_t i = i0 + 32 * q + lane;
                    v[q] = i < cnt ? at[i] : (uint16_t)0;
                }
#pragma unroll
                for (int q = 0; q < U; q++) {
                    const uint32_t i = i0 + 32 * q + lane;
                    if (i < cnt) out[pos0 + i] = (uint64_t)(first + v[q]);
                }
            }
        } else {
            uint32_t w[ROUNDS], before[ROUNDS], total[ROUNDS];
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) w[r] = rec[32 * r + lane];
            /* Every round's scan first: independent chains, interleaved. */
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                const uint32_t c = (uint32_t)__popc(w[r]);
                const uint32_t incl = gpi::warp_inclusive_scan(c, CountSum<uint32_t>(), lane);
                before[r] = incl - c;
                total[r] = __shfl_sync(0xffffffffu, incl, 31);
            }
            C base = pos0;
#pragma unroll
            for (int r = 0; r < ROUNDS; r++) {
                uint32_t m = w[r], pos = before[r];
                const uint32_t bit0 = 32u * (uint32_t)(32 * r + lane);
                while (m) {
                    st[pos++] = (uint16_t)(bit0 + (uint32_t)__ffs(m) - 1u);
                    m &= m - 1;
                }
                __syncwarp();
                for (uint32_t i = lane; i < total[r]; i += 32) out[base + i] = (uint64_t)(first + st[i]);
                __syncwarp(); /* the slice is read before the next round writes it */
                base += total[r];
            }
        }
        cnt = cnt_n;
        pos0 = pos_n;
    }
}

/* Queue the two-pass form (tiles: of repeats_tile<T>::ITEMS elements; vec:
 * `in` is 16-byte aligned; the count goes to d_count). *fits = false (and
 * GP_SUCCESS) when its workspace cannot be had: the caller then takes the
 * one-pass kernel. */
template <typename T, typename C>
gp_status launch_twopass(gp_context *ctx, const T *in, size_t n, long long tiles, bool vec, uint64_t *out, C *d_count,
                         bool *fits)
{
    using RC = repeats_record<T>;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const size_t rec_bytes = gpi::align256((size_t)tiles * RC::BYTES), count_bytes = gpi::align256((size_t)tiles * 4);
    void *ws = nullptr;
    gp_status s;
    *fits = false;
    s = gpi_workspace_aligned(ctx, rec_bytes + count_bytes + (size_t)tiles * sizeof(C), &ws);
    if (s == GP_ERROR_OUT_OF_MEMORY) { /* gpi_cuda_status cleared the failed cudaMalloc's error */
        gpi_clear_error(ctx);
        return GP_SUCCESS;
    }
    if (s) return s;
    *fits = true;
    uint32_t *records = (uint32_t *)ws, *tile_count = (uint32_t *)((char *)ws + rec_bytes);
    C *offset = (C *)((char *)ws + rec_bytes + count_bytes);
    repeats_mark_kernel<T><<<(unsigned)tiles, repeats_policy::threads, 0, stream>>>(in, (long long)n, vec, records,
                                                                                   tile_count);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "find_repeats mark kernel launch"))) return s;
    repeats_offsets_kernel<C><<<1, repeats_policy::offsets_threads, 0, stream>>>(tile_count, tiles, offset, d_count);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "find_repeats offsets kernel launch"))) return s;
    const long long blocks = (tiles + kExpandThreads / 32 - 1) / (kExpandThreads / 32);
    /* No more blocks than fit at once: a block that has to wait for a slot
     * would add its whole share of tiles after the others finish. */
    static std::atomic<int> fit{0}; /* cached for the process (devices of another architecture only lose speed) */
    int per_sm = fit.load(std::memory_order_relaxed);
    if (per_sm == 0) {
        const cudaError_t e =
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, repeats_expand_kernel<T, C>, kExpandThreads, 0);
        if ((s = gpi_cuda_status(ctx, e, "find_repeats cudaOccupancyMaxActiveBlocksPerMultiprocessor"))) return s;
        per_sm = per_sm > 0 ? per_sm : 1;
        fit.store(per_sm, std::memory_order_relaxed);
    }
    const long long grid = std::min<long long>(blocks, (long long)ctx->sm_count * per_sm);
    repeats_expand_kernel<T, C><<<(unsigned)grid, kExpandThreads, 0, stream>>>(records, tile_count, tiles, offset,
                                                                              out);
    return gpi_cuda_status(ctx, cudaGetLastError(), "find_repeats expand kernel launch");
}

/* Queue the one-pass kernel (arguments as launch_twopass). */
template <typename T, typename C>
gp_status launch_onepass(gp_context *ctx, const T *in, size_t n, long long tiles, bool vec, uint64_t *out, C *d_count)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    void *ws = nullptr; /* the look-back state */
    gp_status s;
    if ((s = gpi_workspace_aligned(ctx, gpi::tile_state_bytes<C>(tiles), &ws))) return s;
    gpi::tile_state<C> st;
    const cudaError_t e = gpi::tile_state_clear<C>(ws, tiles, stream, &st);
    if ((s = gpi_cuda_status(ctx, e, "find_repeats cudaMemsetAsync"))) return s;
    find_repeats_kernel<T, C><<<(unsigned)tiles, repeats_policy::threads, 0, stream>>>(in, (long long)n, vec, st, out,
                                                                                     d_count);
    return gpi_cuda_status(ctx, cudaGetLastError(), "find_repeats kernel launch");
}

template <typename T, typename C>
gp_status run_repeats(gp_context *ctx, const T *in, size_t n, uint64_t *out, size_t *count_host)
{
    const long long tiles = ((long long)n + repeats_tile<T>::ITEMS - 1) / repeats_tile<T>::ITEMS;
    /* Either form writes the count straight into the context's mapped
     * page-locked buffer: no copy operation after the kernels. */
    C *count_host_buf = (C *)ctx->pinned, *d_count = (C *)ctx->pinned_dev;
    const bool vec = (uintptr_t)in % 16 == 0;
    bool done = false;
    gp_status s;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "find_repeats: too many tiles");
    *count_host_buf = (C)-1; /* impossible: caught below if no kernel wrote it */
    if (ctx->repeats_kernel == 2 || (ctx->repeats_kernel == 1 && (long long)n >= repeats_policy::twopass_min_items))
        if ((s = launch_twopass<T, C>(ctx, in, n, tiles, vec, out, d_count, &done))) return s;
    if (!done && (s = launch_onepass<T, C>(ctx, in, n, tiles, vec, out, d_count))) return s;
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream),
                             "find_repeats cudaStreamSynchronize")))
        return s;
    const C count = *count_host_buf;
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
