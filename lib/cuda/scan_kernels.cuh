/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_kernels.cuh - the scan's single-pass kernels and their launchers;
 * scan.cu chooses between them and its reduce-then-scan.
 *
 *   small, few  n fits one tile of a 1024-thread block: one launch, no
 *           state (small: a fixed combination order, so also fine for
 *           float sums).
 *   onepass one pass over the data (n reads, n writes), each tile's prefix
 *           found by decoupled look-back (lookback.cuh): exact operators
 *           only (integer wrap-around sums, min, max).
 *   pipelined  the same single pass on sm_90 for large aligned inputs,
 *           with warp-specialised resident blocks and bulk copies
 *           (bulk_pipe.cuh).
 * Operators are functors op(a, b); the identity travels as a value. The
 * tuning: policy/scan.cuh. */
#ifndef GP_CUDA_SCAN_KERNELS_CUH
#define GP_CUDA_SCAN_KERNELS_CUH

#include "block_scan.cuh"
#include "bulk_pipe.cuh"
#include "lookback.cuh"
#include "policy/scan.cuh"
#include "tile_io.cuh"
#include "warp_scan.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

namespace gpi {

/* Scan one tile in registers and write it: the building block of the
 * small, few and onepass kernels. LOOKBACK: chain tiles through `st`;
 * otherwise the tile's prefix is `seed`. */
template <typename T, typename Op, int THREADS, int VECTORS, bool LOOKBACK>
__device__ __forceinline__ void scan_tile(const T *in, T *out, long long n, long long tile, bool vec,
                                          bool inclusive, T identity, T seed, tile_state<T> st)
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    Op op;
    const long long base = tile * BT::ITEMS;
    const bool full = base + BT::ITEMS <= n;
    T x[VECTORS][BT::VI], agg[VECTORS], prefix[VECTORS];

    load_tile<T, THREADS, VECTORS>(in, base, n, full, vec, x, identity);
    /* thread: inclusive scan inside each vector */
#pragma unroll
    for (int k = 0; k < VECTORS; k++) {
#pragma unroll
        for (int j = 1; j < BT::VI; j++) x[k][j] = op(x[k][j - 1], x[k][j]);
        agg[k] = x[k][BT::VI - 1];
    }
    block_vector_prefixes<T, Op, THREADS, VECTORS, LOOKBACK>(agg, prefix, tile, identity, st, scan_policy::delay, seed);
    /* every thread: rewrite its vectors from their prefixes */
#pragma unroll
    for (int k = 0; k < VECTORS; k++) {
        const T p = prefix[k];
        if (!inclusive) {
#pragma unroll
            for (int j = BT::VI - 1; j > 0; j--) x[k][j] = op(p, x[k][j - 1]);
            x[k][0] = p;
        } else {
#pragma unroll
            for (int j = 0; j < BT::VI; j++) x[k][j] = op(p, x[k][j]);
        }
    }
    store_tile<T, THREADS, VECTORS>(out, base, n, full, vec, x);
}

/* ---- kernels ------------------------------------------------------------------ */
template <typename T, typename Op>
__global__ void __launch_bounds__(scan_policy::small_threads)
scan_small_kernel(const T *in, T *out, long long n, bool vec, bool inclusive, T identity, T seed)
{
    scan_tile<T, Op, scan_policy::small_threads, scan_policy::small_vectors, false>(in, out, n, 0, vec, inclusive, identity, seed, tile_state<T>{});
}

/* Few tiles, exact operators, no state: block b first reduces everything
 * before its tile (at most small_scan_items elements, read from L2 by
 * several blocks at once), then scans its tile from that prefix. One launch
 * and no look-back state to clear, on several SMs instead of one. */
template <typename T, typename Op>
__global__ void __launch_bounds__(scan_policy::few_threads)
scan_few_kernel(const T *in, T *out, long long n, bool vec, bool inclusive, T identity, T seed)
{
    constexpr int THREADS = scan_policy::few_threads, VI = 16 / sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    using BT = block_scan_tile<T, THREADS, scan_policy::few_vectors>;
    __shared__ T warp_total[THREADS / 32];
    __shared__ T tile_seed;
    Op op;
    const long long before = (long long)blockIdx.x * BT::ITEMS; /* a multiple of VI */
    T acc = identity;
#pragma unroll 4
    for (long long e = (long long)threadIdx.x * VI; e < before; e += (long long)THREADS * VI) {
        if (vec) {
            const uint4 raw = *reinterpret_cast<const uint4 *>(in + e);
            const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
            for (int j = 0; j < VI; j++) acc = op(acc, p[j]);
        } else {
#pragma unroll
            for (int j = 0; j < VI; j++) acc = op(acc, in[e + j]);
        }
    }
    acc = warp_reduce(acc, op);
    if ((threadIdx.x & 31) == 0) warp_total[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        T p = seed;
        for (int w = 0; w < THREADS / 32; w++) p = op(p, warp_total[w]);
        tile_seed = p;
    }
    __syncthreads();
    scan_tile<T, Op, THREADS, scan_policy::few_vectors, false>(in, out, n, blockIdx.x, vec, inclusive, identity,
                                                               tile_seed, tile_state<T>{});
}

template <typename T, typename Op>
__global__ void __launch_bounds__(scan_policy::threads, sizeof(T) == 4 ? scan_policy::min_blocks : 1)
scan_onepass_kernel(const T *in, T *out, long long n, bool vec, bool inclusive, T identity, T seed, tile_state<T> st)
{
    /* Tiles follow blockIdx.x: blocks start in index order, so a block only
     * ever waits on tiles that are running or done (no deadlock). */
    scan_tile<T, Op, scan_policy::threads, scan_policy::vectors, true>(in, out, n, blockIdx.x, vec, inclusive, identity, seed, st);
}

/* Threads of a pipelined block: storers, producer, look-back, aggregators. */
constexpr int pipelined_block_threads()
{
    return scan_policy::pipe_threads + 64 + 32 * scan_policy::pipe_agg_warps;
}

/* The pipelined single-pass scan (sm_90), warp-specialised. A block stays
 * resident and takes tile after tile from a counter; its warps have roles,
 * each working through the block's tiles in claim order, handing them on
 * through shared-memory barriers:
 *   producer (1 warp, one lane): claims the next tile and has the copy
 *       engine bring it into a ring of STAGES shared-memory buffers;
 *   aggregators (AGG warps): as soon as a tile lands, the totals of its
 *       512-byte groups, their exclusive scan (kept per stage) and the
 *       tile's aggregate, published at once;
 *   look-back (1 warp): looks back from each aggregated tile, publishes
 *       its inclusive prefix and hands the prefix on;
 *   storers (THREADS / 32 warps): each vector scanned from tile prefix +
 *       group prefix + the lanes before it, stored; the buffer goes back.
 * Aggregates appear as soon as a tile's bytes land, whatever its block is
 * doing, and loads stay in flight while tiles wait for their prefixes.
 * Tiles are claimed in increasing order by running blocks and each role
 * finishes its tiles in claim order: no deadlock. A partial last tile is
 * read from global memory (bulk copies move whole 16-byte units); in and
 * out are 16-byte aligned (pipelined_fits). */
template <typename T, typename Op>
__global__ void __launch_bounds__(pipelined_block_threads(), scan_policy::pipe_blocks)
scan_pipelined_kernel(const T *in, T *out, long long n, bool inclusive, T identity, T seed, tile_state<T> st,
                      unsigned long long *next_tile)
{
#if GPI_HAS_BULK_COPY
    constexpr int THREADS = scan_policy::pipe_threads, VECTORS = scan_policy::pipe_vectors;
    constexpr int STAGES = scan_policy::pipe_stages, AGG = scan_policy::pipe_agg_warps;
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    constexpr int VI = BT::VI, WARPS = THREADS / 32;
    constexpr unsigned BYTES = (unsigned)(BT::ITEMS * sizeof(T));
    constexpr int GROUPS = VECTORS * WARPS; /* 32 vectors (512 bytes) each, in memory order */
    static_assert(GROUPS % 32 == 0, "the group scan takes whole lanes");
    constexpr int PRODUCER = WARPS, LOOKBACK = WARPS + 1, AGG0 = WARPS + 2; /* warp indices */
    extern __shared__ __align__(128) unsigned char stage_mem[];              /* STAGES x BYTES */
    /* per stage: landed (producer -> all), aggregated (aggregators -> look-back),
     * prefixed (look-back -> storers), empty (storers -> producer) */
    __shared__ uint64_t landed[STAGES], aggregated[STAGES], prefixed[STAGES], empty[STAGES];
    __shared__ long long stage_tile[STAGES];
    __shared__ T group_prefix[STAGES][GROUPS];
    __shared__ T stage_total[STAGES], stage_prefix[STAGES];
    Op op;
    const long long tiles = (n + BT::ITEMS - 1) / BT::ITEMS;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&landed[s], 1);
            mbar_init(&aggregated[s], 1);
            mbar_init(&prefixed[s], 1);
            mbar_init(&empty[s], WARPS);
        }
        mbar_init_fence();
    }
    __syncthreads();

    if (warp == PRODUCER) {
        if (lane != 0) return;
        for (unsigned it = 0;; it++) {
            const unsigned s = it % STAGES;
            if (it >= STAGES) mbar_wait(&empty[s], (it / STAGES - 1) & 1);
            const long long t = (long long)atomicAdd(next_tile, 1ull);
            stage_tile[s] = t; /* published by the arrival below */
            if (t < tiles && (t + 1) * BT::ITEMS <= n) {
                mbar_arrive_expect_tx(&landed[s], BYTES);
                bulk_load(stage_mem + (size_t)s * BYTES, in + t * BT::ITEMS, BYTES, &landed[s]);
            } else {
                mbar_arrive(&landed[s]);
            }
            if (t >= tiles) return; /* the end marker, passed to every role */
        }
    }

    if (warp >= AGG0) {
        const int a = warp - AGG0;
        for (unsigned it = 0;; it++) {
            const unsigned s = it % STAGES;
            mbar_wait(&landed[s], (it / STAGES) & 1);
            const long long t = stage_tile[s];
            if (t >= tiles) {
                if (a == 0 && lane == 0) mbar_arrive(&aggregated[s]); /* the end, for the look-back warp */
                return;
            }
            const long long base = t * BT::ITEMS;
            const bool full_tile = base + BT::ITEMS <= n;
            const T *stage = reinterpret_cast<const T *>(stage_mem + (size_t)s * BYTES);
            static_assert(GROUPS % AGG == 0, "the aggregator warps share the groups evenly");
#pragma unroll
            for (int i = 0; i < GROUPS / AGG; i++) { /* unrolled: the groups' reductions overlap */
                const int g = a + i * AGG;
                const int v = g * 32 + lane; /* vector index in the tile */
                T sum = identity;
                if (full_tile) {
                    const uint4 raw = *reinterpret_cast<const uint4 *>(stage + v * VI);
                    const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
                    for (int j = 0; j < VI; j++) sum = op(sum, p[j]);
                } else {
#pragma unroll
                    for (int j = 0; j < VI; j++) {
                        const long long e = base + (long long)v * VI + j;
                        if (e < n) sum = op(sum, in[e]);
                    }
                }
                sum = warp_reduce(sum, op);
                if (lane == 0) group_prefix[s][g] = sum; /* the group's total for now */
            }
            if constexpr (AGG > 1) asm volatile("bar.sync 1, %0;" ::"n"(AGG * 32) : "memory");
            if (a == 0) {
                const T total = warp_exclusive_scan_shared<T, Op, GROUPS / 32>(group_prefix[s], op, identity, lane);
                __syncwarp();
                if (lane == 0) {
                    if (t > 0) tile_publish(st, t, total, TILE_AGGREGATE);
                    stage_total[s] = total;
                    mbar_arrive(&aggregated[s]);
                }
            }
            /* warps a > 0 write the next stage's groups only: no barrier needed here */
        }
    }

    if (warp == LOOKBACK) {
        for (unsigned it = 0;; it++) {
            const unsigned s = it % STAGES;
            mbar_wait(&aggregated[s], (it / STAGES) & 1);
            const long long t = stage_tile[s];
            if (t >= tiles) return;
            const T total = stage_total[s];
            T before = seed;
            /* no first delay: the predecessors' aggregates come early */
            if (t > 0) before = tile_look_back_nearest<T, Op>(st, t, op, identity, lane, scan_policy::pipe_delay_poll);
            if (lane == 0) {
                tile_publish(st, t, op(before, total), TILE_INCLUSIVE);
                stage_prefix[s] = before;
                mbar_arrive(&prefixed[s]);
            }
            __syncwarp();
        }
    }

    /* storers */
    for (unsigned it = 0;; it++) {
        const unsigned s = it % STAGES;
        mbar_wait(&landed[s], (it / STAGES) & 1);
        const long long t = stage_tile[s];
        if (t >= tiles) return;
        mbar_wait(&prefixed[s], (it / STAGES) & 1);
        const long long base = t * BT::ITEMS;
        const bool full_tile = base + BT::ITEMS <= n;
        const T tile_prefix = stage_prefix[s];
        const T *stage = reinterpret_cast<const T *>(stage_mem + (size_t)s * BYTES);
#pragma unroll 2
        for (int k = 0; k < VECTORS; k++) {
            const int v = k * THREADS + threadIdx.x;
            const long long e = base + (long long)v * VI;
            T x[VI];
            if (full_tile) {
                const uint4 raw = *reinterpret_cast<const uint4 *>(stage + v * VI);
                const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
                for (int j = 0; j < VI; j++) x[j] = p[j];
            } else {
#pragma unroll
                for (int j = 0; j < VI; j++) x[j] = e + j < n ? in[e + j] : identity;
            }
#pragma unroll
            for (int j = 1; j < VI; j++) x[j] = op(x[j - 1], x[j]);
            const T lanes_incl = warp_inclusive_scan(x[VI - 1], op, lane);
            T lanes_excl = __shfl_up_sync(0xffffffffu, lanes_incl, 1);
            if (lane == 0) lanes_excl = identity;
            const T p = op(op(tile_prefix, group_prefix[s][k * WARPS + warp]), lanes_excl);
            T y[VI];
            if (!inclusive) {
                y[0] = p;
#pragma unroll
                for (int j = 1; j < VI; j++) y[j] = op(p, x[j - 1]);
            } else {
#pragma unroll
                for (int j = 0; j < VI; j++) y[j] = op(p, x[j]);
            }
            if (full_tile) {
                uint4 raw;
                T *q = reinterpret_cast<T *>(&raw);
#pragma unroll
                for (int j = 0; j < VI; j++) q[j] = y[j];
                *reinterpret_cast<uint4 *>(out + e) = raw;
            } else {
#pragma unroll
                for (int j = 0; j < VI; j++)
                    if (e + j < n) out[e + j] = y[j];
            }
        }
        __syncwarp();
        if (lane == 0) mbar_arrive(&empty[s]); /* the buffer may be refilled */
    }
#else
    __trap(); /* never launched: scan.cu's pipelined_available checks the code was built for sm_90 */
#endif
}

/* ---- host side ------------------------------------------------------------------ */
template <typename T>
constexpr long long small_scan_items()
{
    return block_scan_tile<T, scan_policy::small_threads, scan_policy::small_vectors>::ITEMS;
}

template <typename T>
constexpr long long onepass_tile_items()
{
    return block_scan_tile<T, scan_policy::threads, scan_policy::vectors>::ITEMS;
}

/* Scratch for the one-pass scan: its look-back state. */
template <typename T>
size_t onepass_workspace_bytes(long long n)
{
    return tile_state_bytes<T>((n + onepass_tile_items<T>() - 1) / onepass_tile_items<T>());
}

static inline bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

/* One launch, n <= small_scan_items<T>(), exact operators: few tiles. */
template <typename T, typename Op>
cudaError_t scan_few(const T *in, T *out, long long n, bool inclusive, T identity, T seed, cudaStream_t stream)
{
    constexpr long long items = block_scan_tile<T, scan_policy::few_threads, scan_policy::few_vectors>::ITEMS;
    const unsigned tiles = (unsigned)((n + items - 1) / items);
    scan_few_kernel<T, Op><<<tiles, scan_policy::few_threads, 0, stream>>>(in, out, n, aligned16(in) && aligned16(out),
                                                                          inclusive, identity, seed);
    return cudaGetLastError();
}

/* One launch, n <= small_scan_items<T>(). */
template <typename T, typename Op>
cudaError_t scan_small(const T *in, T *out, long long n, bool inclusive, T identity, T seed, cudaStream_t stream)
{
    scan_small_kernel<T, Op><<<1, scan_policy::small_threads, 0, stream>>>(in, out, n, aligned16(in) && aligned16(out),
                                                                           inclusive, identity, seed);
    return cudaGetLastError();
}

/* Single pass; ws (256-byte aligned) has onepass_workspace_bytes<T>(n). */
template <typename T, typename Op>
cudaError_t scan_onepass(const T *in, T *out, long long n, bool inclusive, T identity, T seed, void *ws,
                         cudaStream_t stream)
{
    const long long tiles = (n + onepass_tile_items<T>() - 1) / onepass_tile_items<T>();
    tile_state<T> st;
    if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue; /* past 2^43 elements */
    const cudaError_t e = tile_state_clear<T>(ws, tiles, stream, &st);
    if (e != cudaSuccess) return e;
    scan_onepass_kernel<T, Op><<<(unsigned)tiles, scan_policy::threads, 0, stream>>>(
        in, out, n, aligned16(in) && aligned16(out), inclusive, identity, seed, st);
    return cudaGetLastError();
}

/* The pipelined scan: items per tile, shared memory per block, and the
 * workspace (the tile counter, then the look-back state). */
template <typename T>
constexpr long long pipelined_tile_items()
{
    return block_scan_tile<T, scan_policy::pipe_threads, scan_policy::pipe_vectors>::ITEMS;
}

template <typename T>
constexpr size_t pipelined_smem_bytes()
{
    return (size_t)scan_policy::pipe_stages * pipelined_tile_items<T>() * sizeof(T);
}

template <typename T>
size_t pipelined_workspace_bytes(long long n)
{
    return 256 + tile_state_bytes<T>((n + pipelined_tile_items<T>() - 1) / pipelined_tile_items<T>());
}

/* Whether scan_pipelined suits these arguments: in and out 16-byte
 * aligned, n large enough for it to pay (always: any n, for tests).
 * Whether it can run at all (sm_90 and a build with its sm_90 code) is
 * scan.cu's pipelined_available. */
static inline bool pipelined_fits(const void *in, const void *out, long long n, bool always)
{
    return aligned16(in) && aligned16(out) && (always || n >= scan_policy::pipe_min_items);
}

/* ws (256-byte aligned) has pipelined_workspace_bytes<T>(n); sm_count: the
 * device's SMs (the grid is what fits at once, capped at the tile count). */
template <typename T, typename Op>
cudaError_t scan_pipelined(const T *in, T *out, long long n, bool inclusive, T identity, T seed, void *ws,
                           int sm_count, cudaStream_t stream)
{
    const long long tiles = (n + pipelined_tile_items<T>() - 1) / pipelined_tile_items<T>();
    const size_t smem = pipelined_smem_bytes<T>();
    unsigned long long *next_tile = static_cast<unsigned long long *>(ws);
    tile_state<T> st;
    int per_sm = 0;
    cudaError_t e = cudaFuncSetAttribute(scan_pipelined_kernel<T, Op>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_pipelined_kernel<T, Op>,
                                                          pipelined_block_threads(), smem);
    if (e != cudaSuccess) return e;
    if (per_sm < 1) return cudaErrorInvalidConfiguration;
    e = cudaMemsetAsync(next_tile, 0, sizeof *next_tile, stream);
    if (e == cudaSuccess) e = tile_state_clear<T>(static_cast<char *>(ws) + 256, tiles, stream, &st);
    if (e != cudaSuccess) return e;
    const long long grid = std::min<long long>(tiles, (long long)per_sm * sm_count);
    scan_pipelined_kernel<T, Op><<<(unsigned)grid, pipelined_block_threads(), smem, stream>>>(
        in, out, n, inclusive, identity, seed, st, next_tile);
    return cudaGetLastError();
}

} // namespace gpi

#endif
