/* scan_onepass.cuh - gpuprim's own device-wide scan.
 *
 * Layering (as CUB does it): thread  -> a thread scans its own 16-byte
 * vectors; warp -> shuffle scans; block -> warp 0 scans the warp totals;
 * device -> tiles chained by decoupled look-back.
 *
 * Kernels; scan.cu chooses between them and its reduce-then-scan:
 *   small, few  n fits one tile of a 1024-thread block: one launch, no
 *           state (small: a fixed combination order, so also fine for
 *           float sums).
 *   onepass one pass over the data (n reads, n writes), each tile's prefix
 *           found by decoupled look-back. Look-back combines predecessors
 *           in an order that depends on timing, so it is only for exact
 *           operators: integer (wrap-around) sums, min and max. Float sums
 *           go through scan.cu's fixed-tree reduce-then-scan instead.
 *   pipelined  the same single pass on sm_90 for large aligned inputs,
 *           with warp-specialised resident blocks and bulk copies
 *           (scan_pipelined_kernel).
 * Operators are functors op(a, b); the identity travels as a value.
 */
#ifndef GPUPRIM_SCAN_ONEPASS_CUH
#define GPUPRIM_SCAN_ONEPASS_CUH

#include "bulk_pipe.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>


namespace gpi {

/* ---- tuning: one place ------------------------------------------------------ */
/* GPI_SCAN_THREADS / GPI_SCAN_VECTORS / GPI_SCAN_DELAY_FIRST / _POLL exist
 * for tuning runs on the GPU machine (-D at build time); the defaults are
 * the measured best. */
#ifndef GPI_SCAN_THREADS
#define GPI_SCAN_THREADS 256
#endif
#ifndef GPI_SCAN_VECTORS
#define GPI_SCAN_VECTORS 8
#endif
/* Look-back delays (ns). Warp 0 of a tile sleeps `first` after publishing
 * its aggregate, before its first look at the predecessors, and `poll`
 * between looks at a predecessor that has published nothing yet (CUB's sm_90
 * tuning does the same). Polling at once only adds L2 traffic and issue
 * slots while the predecessors are still loading; the best values grow with
 * the time a tile takes. The sweep behind the defaults: bench/RESULTS.md,
 * "Tuning sweeps". */
/* Resident tiles per SM (4-byte types). Uncapped, ptxas gave the int32 sum
 * kernel 75 registers: 3 tiles per SM, and ncu put 55% of all stall cycles
 * at the barrier where 7 warps wait for warp 0's look-back. Capped at 4 (64
 * registers, no spills) it is faster; 5 spills; 8-byte types spill at 4
 * and stay uncapped (figures: bench/RESULTS.md, "Tuning sweeps"). */
#ifndef GPI_SCAN_MIN_BLOCKS
#define GPI_SCAN_MIN_BLOCKS 4
#endif
#ifndef GPI_SCAN_DELAY_FIRST
#define GPI_SCAN_DELAY_FIRST 2500
#endif
#ifndef GPI_SCAN_DELAY_POLL
#define GPI_SCAN_DELAY_POLL 500
#endif
/* The pipelined kernel (sm_90): tiles of GPI_PSCAN_THREADS x
 * GPI_PSCAN_VECTORS 16-byte vectors (32 KB), GPI_PSCAN_STAGES of them in
 * flight per block (192 KB: one block an SM, GPI_PSCAN_BLOCKS in the launch
 * bound), GPI_PSCAN_AGG_WARPS warps computing aggregates, the look-back
 * warp polling every GPI_PSCAN_DELAY_POLL ns; used from GPI_PSCAN_MIN_ITEMS
 * elements. The sweep behind the defaults: bench/RESULTS.md, "Eighth
 * 2026-11-24 session". */
#ifndef GPI_PSCAN_THREADS
#define GPI_PSCAN_THREADS 256
#endif
#ifndef GPI_PSCAN_VECTORS
#define GPI_PSCAN_VECTORS 8
#endif
#ifndef GPI_PSCAN_STAGES
#define GPI_PSCAN_STAGES 6
#endif
#ifndef GPI_PSCAN_BLOCKS
#define GPI_PSCAN_BLOCKS 1
#endif
#ifndef GPI_PSCAN_AGG_WARPS
#define GPI_PSCAN_AGG_WARPS 8
#endif
#ifndef GPI_PSCAN_DELAY_POLL
#define GPI_PSCAN_DELAY_POLL 100
#endif
#ifndef GPI_PSCAN_MIN_ITEMS
#define GPI_PSCAN_MIN_ITEMS (1 << 26)
#endif
struct lookback_delay {
    unsigned first, poll;
};
constexpr unsigned kDelayMinTiles = 512; /* grids smaller than this: no delays */

struct scan_policy {
    static constexpr int threads = GPI_SCAN_THREADS; /* single-pass kernel */
    static constexpr int vectors = GPI_SCAN_VECTORS; /* 16-byte vectors per thread per tile */
    static constexpr int small_threads = 1024;       /* the one-block path */
    static constexpr int small_vectors = 4;          /* (1024 threads cap registers at 64) */
    static constexpr int few_threads = 256;          /* the few-tile path (exact operators) */
    static constexpr int few_vectors = 4;            /* 8 warps x 4: whole lanes for warp 0 */
    static constexpr lookback_delay delay = {GPI_SCAN_DELAY_FIRST, GPI_SCAN_DELAY_POLL};
    static constexpr int pipe_threads = GPI_PSCAN_THREADS; /* pipelined kernel: storing threads */
    static constexpr int pipe_vectors = GPI_PSCAN_VECTORS;
    static constexpr int pipe_stages = GPI_PSCAN_STAGES;
    static constexpr int pipe_blocks = GPI_PSCAN_BLOCKS;   /* per SM (launch bound) */
    static constexpr int pipe_agg_warps = GPI_PSCAN_AGG_WARPS;
    static constexpr long long pipe_min_items = GPI_PSCAN_MIN_ITEMS;
};

/* ---- warp level --------------------------------------------------------------- */
template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op, int lane)
{
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        T y = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v = op(y, v);
    }
    return v;
}

template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T v, Op op)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* Warp level, over shared memory: one warp scans vals[0, 32 * PER_LANE)
 * in place (exclusive; lane l takes PER_LANE consecutive values) and
 * returns the total to every lane. */
template <typename T, typename Op, int PER_LANE>
__device__ __forceinline__ T warp_exclusive_scan_shared(T *vals, Op op, T identity, int lane)
{
    T g[PER_LANE];
    T run = identity;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        g[i] = vals[lane * PER_LANE + i];
        run = op(run, g[i]);
    }
    const T incl = warp_inclusive_scan(run, op, lane);
    T excl = __shfl_up_sync(0xffffffffu, incl, 1);
    if (lane == 0) excl = identity;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        vals[lane * PER_LANE + i] = excl;
        excl = op(excl, g[i]);
    }
    return __shfl_sync(0xffffffffu, incl, 31);
}

/* ---- tile status for decoupled look-back ---------------------------------------
 * flag 0: nothing yet; 1: the tile's own total (aggregate) is published;
 * 2: the inclusive prefix through this tile is published.
 * 4-byte types: flag and value share one 64-bit word, written and read with
 * single aligned accesses, so a reader always sees a value together with the
 * flag that describes it, and no fence is needed (CUB does the same).
 * 8-byte types: aggregate and inclusive prefix have separate slots, each
 * written once, and a fence orders value before flag (a reader that saw
 * flag 1 must still find the aggregate even if the inclusive prefix lands in
 * between). */
enum : uint32_t { TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_INCLUSIVE = 2 };

template <typename T>
struct tile_state {
    unsigned long long *packed; /* 4-byte T */
    uint32_t *flags;            /* 8-byte T */
    T *aggregates;
    T *inclusives;
};

template <typename T>
__device__ __forceinline__ void tile_publish(tile_state<T> st, long long tile, T v, uint32_t flag)
{
    if constexpr (sizeof(T) == 4) {
        uint32_t bits;
        memcpy(&bits, &v, 4);
        *(volatile unsigned long long *)&st.packed[tile] = ((unsigned long long)flag << 32) | bits;
    } else {
        T *slot = flag == TILE_INCLUSIVE ? st.inclusives : st.aggregates;
        *(volatile T *)&slot[tile] = v;
        __threadfence();
        *(volatile uint32_t *)&st.flags[tile] = flag;
    }
}

template <typename T>
struct tile_status {
    uint32_t flag;
    T value;
};

/* One look at tile j's status, without waiting. */
template <typename T>
__device__ __forceinline__ tile_status<T> tile_peek(tile_state<T> st, long long j)
{
    tile_status<T> r;
    if constexpr (sizeof(T) == 4) {
        const unsigned long long w = *(volatile const unsigned long long *)&st.packed[j];
        const uint32_t bits = (uint32_t)w;
        memcpy(&r.value, &bits, 4);
        r.flag = (uint32_t)(w >> 32);
    } else {
        r.flag = *(volatile const uint32_t *)&st.flags[j];
        r.value = T(0);
        if (r.flag != TILE_EMPTY) {
            __threadfence();
            r.value = r.flag == TILE_INCLUSIVE ? *(volatile const T *)&st.inclusives[j]
                                               : *(volatile const T *)&st.aggregates[j];
        }
    }
    return r;
}

/* Wait for tile j's status. */
template <typename T>
__device__ __forceinline__ tile_status<T> tile_wait(tile_state<T> st, long long j, unsigned poll_ns)
{
    for (;;) {
        const tile_status<T> r = tile_peek(st, j);
        if (r.flag != TILE_EMPTY) return r;
        if (poll_ns) __nanosleep(poll_ns);
    }
}

/* Warp 0 of tile `tile` (> 0) finds the combined total of all earlier tiles. */
template <typename T, typename Op>
__device__ T tile_look_back(tile_state<T> st, long long tile, Op op, T identity, int lane, lookback_delay delay)
{
    T prefix = identity;
    long long pred = tile - 1;
    /* A grid that fits on the GPU at once (1e6 items: 123 tiles) has no
     * later tiles to give the time to: there the delays only add latency. */
    if (gridDim.x < kDelayMinTiles) delay = {0, 0};
    if (delay.first) __nanosleep(delay.first);
    for (;;) {
        long long j = pred - lane; /* lane 0 is the nearest predecessor */
        uint32_t f = TILE_INCLUSIVE;
        T v = identity;
        if (j >= 0) {
            tile_status<T> ts = tile_wait(st, j, delay.poll);
            f = ts.flag;
            v = ts.value;
        }
        unsigned inclusive = __ballot_sync(0xffffffffu, f == TILE_INCLUSIVE);
        /* Lanes past the nearest inclusive tile must not count twice. */
        if (inclusive) {
            int first = __ffs(inclusive) - 1;
            if (lane > first) v = identity;
        }
        prefix = op(warp_reduce(v, op), prefix);
        if (inclusive) return prefix;
        pred -= 32;
    }
}

/* Look-back for the pipelined kernel's look-back warp: like tile_look_back,
 * but a lane waits for its predecessor only if it is nearer than the nearest
 * inclusive one the warp has seen. (There, tiles claimed ahead by a busy
 * block may still be empty behind an inclusive predecessor: waiting for
 * them, as tile_look_back does, stretches every chain.) Exact operators
 * only. */
template <typename T, typename Op>
__device__ T tile_look_back_nearest(tile_state<T> st, long long tile, Op op, T identity, int lane, unsigned poll_ns)
{
    T prefix = identity;
    for (long long pred = tile - 1;; pred -= 32) {
        const long long j = pred - lane; /* lane 0 is the nearest predecessor */
        tile_status<T> ts = j >= 0 ? tile_peek(st, j) : tile_status<T>{TILE_INCLUSIVE, identity};
        unsigned inclusive;
        int nearest;
        for (;;) {
            inclusive = __ballot_sync(0xffffffffu, ts.flag == TILE_INCLUSIVE);
            nearest = inclusive ? __ffs(inclusive) - 1 : 32;
            const bool missing = lane < nearest && ts.flag == TILE_EMPTY;
            if (!__any_sync(0xffffffffu, missing)) break;
            if (poll_ns) __nanosleep(poll_ns);
            if (missing) ts = tile_peek(st, j);
        }
        prefix = op(warp_reduce(lane <= nearest ? ts.value : identity, op), prefix);
        if (inclusive) return prefix;
    }
}

/* ---- block level -------------------------------------------------------------- *
 * The tile: each thread holds VEC vectors of VI elements (16 bytes each).
 * Vector k of thread t covers elements base + (k*THREADS + t)*VI + [0, VI):
 * loads are 16 bytes wide and coalesced across the warp. The global order of
 * (k, warp, lane) is k-major, which the warp-0 scan of warp totals follows. */
template <typename T, int THREADS, int VECTORS>
struct block_scan_tile {
    static constexpr int VI = 16 / sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    static constexpr int VEC = VECTORS;
    static constexpr long long ITEMS = (long long)THREADS * VEC * VI;
};

/* Load one tile (vectorized when `vec`), apply op within each vector. */
template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void load_tile(const T *in, long long base, long long n, bool full, bool vec,
                                          T (&x)[VECTORS][16 / sizeof(T)], T identity)
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++) {
        long long e = base + ((long long)k * THREADS + t) * BT::VI;
        if (full && vec) {
            uint4 raw = *reinterpret_cast<const uint4 *>(in + e);
            const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
            for (int j = 0; j < BT::VI; j++) x[k][j] = p[j];
        } else {
#pragma unroll
            for (int j = 0; j < BT::VI; j++) x[k][j] = (e + j < n) ? in[e + j] : identity;
        }
    }
}

template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void store_tile(T *out, long long base, long long n, bool full, bool vec,
                                           const T (&x)[VECTORS][16 / sizeof(T)])
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++) {
        long long e = base + ((long long)k * THREADS + t) * BT::VI;
        if (full && vec) {
            uint4 raw;
            T *p = reinterpret_cast<T *>(&raw);
#pragma unroll
            for (int j = 0; j < BT::VI; j++) p[j] = x[k][j];
            *reinterpret_cast<uint4 *>(out + e) = raw;
        } else {
#pragma unroll
            for (int j = 0; j < BT::VI; j++)
                if (e + j < n) out[e + j] = x[k][j];
        }
    }
}

/* Scan one tile in registers and write it: the building block of both
 * kernels. LOOKBACK: chain tiles through flags/values; otherwise the tile
 * is the whole input. */
/* Block level: each thread holds the totals of its VECTORS vectors (vector k
 * of thread t is group (k, warp) in tile order, k-major). Writes into
 * prefix[k] the combined total of everything before that vector: earlier
 * tiles (found by look-back when LOOKBACK), earlier (k, warp) groups and
 * earlier lanes. Returns the inclusive total through the end of the tile.
 * Every thread of the block must call it (it has barriers). */
template <typename T, typename Op, int THREADS, int VECTORS, bool LOOKBACK>
__device__ __forceinline__ T block_vector_prefixes(T (&agg)[VECTORS], T (&prefix)[VECTORS], long long tile, T identity,
                                                   tile_state<T> st, lookback_delay delay, T seed)
{
    constexpr int WARPS = THREADS / 32, GROUPS = VECTORS * WARPS, PER_LANE = GROUPS / 32;
    static_assert(GROUPS % 32 == 0, "warp 0 scans the group totals in whole lanes");
    __shared__ T group_prefix[GROUPS];
    __shared__ T tile_prefix, tile_end;
    Op op;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    /* warp: inclusive scan of the vector totals, all k at once (independent chains) */
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
#pragma unroll
        for (int k = 0; k < VECTORS; k++) {
            T y = __shfl_up_sync(0xffffffffu, agg[k], off);
            if (lane >= off) agg[k] = op(y, agg[k]);
        }
    }
    T lane_prefix[VECTORS];
#pragma unroll
    for (int k = 0; k < VECTORS; k++) {
        T y = __shfl_up_sync(0xffffffffu, agg[k], 1);
        lane_prefix[k] = lane == 0 ? identity : y;
        if (lane == 31) group_prefix[k * WARPS + warp] = agg[k]; /* warp total for now */
    }
    __syncthreads();

    /* block: warp 0 scans the (k, warp) group totals, then finds the tile prefix */
    if (warp == 0) {
        const T total = warp_exclusive_scan_shared<T, Op, PER_LANE>(group_prefix, op, identity, lane);
        /* seed: what comes before tile 0 (the identity, or a distributed
         * scan's prefix from the ranks before this one). */
        T before = seed;
        if (LOOKBACK) {
            if (tile == 0) {
                if (lane == 0) tile_publish(st, tile, op(seed, total), TILE_INCLUSIVE);
            } else {
                if (lane == 0) tile_publish(st, tile, total, TILE_AGGREGATE);
                before = tile_look_back<T, Op>(st, tile, op, identity, lane, delay);
                if (lane == 0) tile_publish(st, tile, op(before, total), TILE_INCLUSIVE);
            }
        }
        if (lane == 0) {
            tile_prefix = before;
            tile_end = op(before, total);
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < VECTORS; k++) prefix[k] = op(op(tile_prefix, group_prefix[k * WARPS + warp]), lane_prefix[k]);
    return tile_end;
}

/* Scan one tile in registers and write it: the building block of both scan
 * kernels. LOOKBACK: chain tiles through `st`; otherwise the tile is the
 * whole input. */
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
__global__ void __launch_bounds__(scan_policy::threads, sizeof(T) == 4 ? GPI_SCAN_MIN_BLOCKS : 1)
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
            if (t > 0) before = tile_look_back_nearest<T, Op>(st, t, op, identity, lane, GPI_PSCAN_DELAY_POLL);
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

static inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* Look-back state of `tiles` tiles (see tile_state): 4-byte T, the packed
 * words; 8-byte T, aggregates, inclusive prefixes and flags, each part
 * 256-byte aligned. Shared by every kernel that chains tiles (the scan here,
 * find-repeats). */
template <typename T>
size_t tile_state_bytes(long long tiles)
{
    const size_t t = (size_t)tiles;
    if (sizeof(T) == 4) return align256(t * sizeof(unsigned long long));
    return 2 * align256(t * sizeof(T)) + align256(t * sizeof(uint32_t));
}

/* Lay the state out in ws (256-byte aligned, tile_state_bytes<T>(tiles)
 * long) and clear its flags on `stream`, before the kernel that uses it. */
template <typename T>
cudaError_t tile_state_clear(void *ws, long long tiles, cudaStream_t stream, tile_state<T> *st)
{
    char *p = static_cast<char *>(ws);
    *st = tile_state<T>{};
    if (sizeof(T) == 4) {
        st->packed = reinterpret_cast<unsigned long long *>(p);
        return cudaMemsetAsync(st->packed, 0, (size_t)tiles * sizeof(unsigned long long), stream);
    }
    st->aggregates = reinterpret_cast<T *>(p);
    st->inclusives = reinterpret_cast<T *>(p + align256((size_t)tiles * sizeof(T)));
    st->flags = reinterpret_cast<uint32_t *>(p + 2 * align256((size_t)tiles * sizeof(T)));
    return cudaMemsetAsync(st->flags, 0, (size_t)tiles * sizeof(uint32_t), stream);
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
