/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/scan.cu - device scan for every dtype x operator, both kinds.
 *
 * Three paths:
 *   - n fits one 1024-thread tile: one launch (scan_kernels.cuh): for exact
 *     operators a few 256-thread tiles, each reducing what comes before it
 *     (scan_few), for float sums one block (scan_small, a fixed order);
 *   - exact operators (integer sums, min, max): the single-pass decoupled
 *     look-back scan of scan_kernels.cuh: n reads and n writes (from
 *     scan_policy::pipe_min_items elements on sm_90 with 16-byte aligned
 *     buffers, its pipelined kernel);
 *   - float and double sums: the reduce-then-scan below.
 * The tuning of all of them: policy/scan.cuh.
 *
 * Why not cub::DeviceScan (nor look-back) for float sums: its decoupled
 * look-back adds a tile's predecessors in whatever state (aggregate or
 * inclusive prefix) it finds them, so float sums can differ run to run.
 * The header promises run-to-run identical results, so this is a
 * three-phase reduce-then-scan with a fixed combination order:
 *   1. reduce_tiles: each tile of kTile elements is reduced (fixed CUB block
 *      reduction tree) to one aggregate;
 *   2. the aggregates are exclusive-scanned in place by the same routine
 *      (recursively: each level is kTile times shorter);
 *   3. scan_tiles: each tile is scanned with its aggregate prefix as the
 *      initial value.
 * Inclusive results are formed as op(exclusive[i], in[i]) so one kernel per
 * (type, operator) serves both kinds. In place (in == out) is safe: every
 * tile is loaded into registers before it is stored, and a tile is only
 * touched by one block. Tiles are walked with a grid-stride loop and 64-bit
 * offsets, so any n works regardless of the grid-size limit. */
#include "internal.h"
#include "ops.cuh"
#include "policy/scan.cuh"
#include "scan_kernels.cuh"

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

namespace {

using gpi::highest_value;
using gpi::lowest_value;
using gpi::OpMax;
using gpi::OpMin;
using gpi::OpSum;

constexpr int kThreads = gpi::scan_policy::rts_threads;
constexpr int kItems = gpi::scan_policy::rts_items;
constexpr size_t kTile = (size_t)kThreads * kItems;
constexpr size_t kMaxGrid = 0x7fffffff; /* gridDim.x limit */

template <typename T>
struct TileKit {
    using Load = cub::BlockLoad<T, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Store = cub::BlockStore<T, kThreads, kItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using Scan = cub::BlockScan<T, kThreads>;
    using Reduce = cub::BlockReduce<T, kThreads>;
    union Storage {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
        typename Reduce::TempStorage reduce;
    };
};

/* Load tile t into items; elements past n read as the identity. */
template <typename T>
__device__ __forceinline__ void load_tile(typename TileKit<T>::Storage &tmp, const T *in, size_t n, size_t base,
                                          T (&items)[kItems], T identity)
{
    using Load = typename TileKit<T>::Load;
    size_t left = n - base;
    if (left >= kTile) Load(tmp.load).Load(in + base, items);
    else Load(tmp.load).Load(in + base, items, (int)left, identity);
}

template <typename T, typename Op>
__global__ void __launch_bounds__(kThreads) reduce_tiles(const T *in, size_t n, size_t tiles, T identity, T *agg)
{
    using Kit = TileKit<T>;
    __shared__ typename Kit::Storage tmp;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        T items[kItems];
        load_tile<T>(tmp, in, n, t * kTile, items, identity);
        __syncthreads();
        T total = typename Kit::Reduce(tmp.reduce).Reduce(items, Op());
        if (threadIdx.x == 0) agg[t] = total;
        __syncthreads(); /* tmp is reused by the next tile */
    }
}

/* prefix == nullptr: a single-level scan whose only tile starts from seed. */
template <typename T, typename Op>
__global__ void __launch_bounds__(kThreads) scan_tiles(const T *in, T *out, size_t n, size_t tiles, T identity,
                                                       T seed, const T *prefix, int inclusive)
{
    using Kit = TileKit<T>;
    __shared__ typename Kit::Storage tmp;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        size_t base = t * kTile;
        T items[kItems], result[kItems];
        load_tile<T>(tmp, in, n, base, items, identity);
        __syncthreads();
        T init = prefix ? prefix[t] : seed;
        typename Kit::Scan(tmp.scan).ExclusiveScan(items, result, init, Op());
        if (inclusive) {
#pragma unroll
            for (int i = 0; i < kItems; i++) result[i] = Op()(result[i], items[i]);
        }
        __syncthreads();
        size_t left = n - base;
        if (left >= kTile) typename Kit::Store(tmp.store).Store(out + base, result);
        else typename Kit::Store(tmp.store).Store(out + base, result, (int)left);
        __syncthreads();
    }
}

size_t tiles_of(size_t n) { return n / kTile + (n % kTile != 0); }

/* Aggregate arrays are padded to 64 elements so each level stays 256-byte aligned. */
size_t padded(size_t elems) { return (elems + 63) & ~(size_t)63; }

/* Elements of scratch all recursion levels need together. */
size_t scratch_elems(size_t n)
{
    size_t total = 0;
    for (size_t tiles = tiles_of(n); tiles > 1; tiles = tiles_of(tiles)) total += padded(tiles);
    return total;
}

/* The seed enters once, at the deepest level (the single-tile scan of the
 * last aggregates); every prefix above is built on it. */
template <typename T, typename Op>
gp_status run_scan(gp_context *ctx, cudaStream_t stream, const T *in, T *out, size_t n, T identity, T seed,
                   int inclusive, T *scratch)
{
    size_t tiles = tiles_of(n);
    unsigned grid = (unsigned)std::min(tiles, kMaxGrid);
    T *agg = nullptr;
    gp_status s;
    if (tiles > 1) {
        agg = scratch;
        reduce_tiles<T, Op><<<grid, kThreads, 0, stream>>>(in, n, tiles, identity, agg);
        if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "scan reduce_tiles launch"))) return s;
        s = run_scan<T, Op>(ctx, stream, agg, agg, tiles, identity, seed, 0, scratch + padded(tiles));
        if (s) return s;
    }
    scan_tiles<T, Op><<<grid, kThreads, 0, stream>>>(in, out, n, tiles, identity, seed, agg, inclusive);
    return gpi_cuda_status(ctx, cudaGetLastError(), "scan scan_tiles launch");
}

template <typename T, typename Op>
gp_status scan_reduce_then_scan(gp_context *ctx, const void *in, void *out, size_t n, T identity, T seed,
                                int inclusive)
{
    size_t elems = scratch_elems(n);
    void *ws = nullptr;
    T *scratch = nullptr;
    if (elems) {
        gp_status s = gpi_workspace_aligned(ctx, elems * sizeof(T), &ws);
        if (s) return s;
        scratch = (T *)ws;
    }
    return run_scan<T, Op>(ctx, (cudaStream_t)ctx->stream, (const T *)in, (T *)out, n, identity, seed, inclusive,
                           scratch);
}

/* Whether the pipelined scan can run on the context's device: sm_90 or
 * later, and this build's code for it is sm_90's (a build for older
 * architectures only, JIT-compiled on Hopper, has an empty kernel). The
 * same for every instantiation of one build, so one is asked, once per
 * context. */
bool pipelined_available(gp_context *ctx)
{
    if (ctx->pipelined_scan_ok < 0) {
        int major = 0;
        cudaFuncAttributes a;
        const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ctx->device) == cudaSuccess &&
                        major >= 9 &&
                        cudaFuncGetAttributes(&a, gpi::scan_pipelined_kernel<uint32_t, OpSum<uint32_t>>) == cudaSuccess &&
                        a.ptxVersion >= 90;
        (void)cudaGetLastError(); /* a failed query is not sticky: a later launch check must not see it */
        ctx->pipelined_scan_ok = ok;
    }
    return ctx->pipelined_scan_ok != 0;
}

template <typename T, typename Op>
gp_status scan_op(gp_context *ctx, const void *in, void *out, size_t n, T identity, const void *seed_host,
                  int inclusive)
{
    T seed = identity;
    if (seed_host) memcpy(&seed, seed_host, sizeof seed); /* same width as the dtype */
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    /* Look-back may combine predecessors in any grouping: exact operators only. */
    constexpr bool exact = !(std::is_floating_point<T>::value && std::is_same<Op, OpSum<T>>::value);
    if (n <= (size_t)gpi::small_scan_items<T>()) {
        if (exact)
            return gpi_cuda_status(ctx, gpi::scan_few<T, Op>((const T *)in, (T *)out, (long long)n, inclusive != 0,
                                                            identity, seed, stream),
                                   "scan (few tiles) launch");
        return gpi_cuda_status(ctx, gpi::scan_small<T, Op>((const T *)in, (T *)out, (long long)n, inclusive != 0,
                                                          identity, seed, stream),
                               "scan (one block) launch");
    }
    if (exact && ctx->scan_kernel && gpi::pipelined_fits(in, out, (long long)n, ctx->scan_kernel == 2) &&
        pipelined_available(ctx)) {
        void *ws = nullptr;
        gp_status s = gpi_workspace_aligned(ctx, gpi::pipelined_workspace_bytes<T>((long long)n), &ws);
        if (s) return s;
        return gpi_cuda_status(ctx, gpi::scan_pipelined<T, Op>((const T *)in, (T *)out, (long long)n, inclusive != 0,
                                                              identity, seed, ws, ctx->sm_count, stream),
                               "scan (pipelined) launch");
    }
    if (exact) {
        void *ws = nullptr;
        gp_status s = gpi_workspace_aligned(ctx, gpi::onepass_workspace_bytes<T>((long long)n), &ws);
        if (s) return s;
        return gpi_cuda_status(ctx, gpi::scan_onepass<T, Op>((const T *)in, (T *)out, (long long)n, inclusive != 0,
                                                            identity, seed, ws, stream),
                               "scan (single pass) launch");
    }
    return scan_reduce_then_scan<T, Op>(ctx, in, out, n, identity, seed, inclusive);
}


/* T: the element type (min/max); S: the type its sum is computed in. */
template <typename T, typename S>
gp_status scan_typed(gp_context *ctx, gp_op op, const void *in, void *out, size_t n, const void *seed, int inclusive)
{
    switch (op) {
    case GP_OP_SUM: return scan_op<S, OpSum<S>>(ctx, in, out, n, S(0), seed, inclusive);
    case GP_OP_MIN: return scan_op<T, OpMin<T>>(ctx, in, out, n, highest_value<T>(), seed, inclusive);
    case GP_OP_MAX: return scan_op<T, OpMax<T>>(ctx, in, out, n, lowest_value<T>(), seed, inclusive);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_scan: unchecked op");
}

} // namespace

extern "C" gp_status gpi_cuda_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in,
                                   void *out, size_t n)
{
    return gpi_cuda_scan_seeded(ctx, dtype, op, kind, in, out, n, nullptr);
}

extern "C" gp_status gpi_cuda_scan_seeded(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                                          const void *in, void *out, size_t n, const void *seed)
{
    int inclusive = kind == GP_SCAN_INCLUSIVE;
    if (n == 0) return GP_SUCCESS;
    switch (dtype) {
    case GP_INT32: return scan_typed<int32_t, uint32_t>(ctx, op, in, out, n, seed, inclusive);
    case GP_UINT32: return scan_typed<uint32_t, uint32_t>(ctx, op, in, out, n, seed, inclusive);
    case GP_INT64: return scan_typed<int64_t, uint64_t>(ctx, op, in, out, n, seed, inclusive);
    case GP_UINT64: return scan_typed<uint64_t, uint64_t>(ctx, op, in, out, n, seed, inclusive);
    case GP_FLOAT32: return scan_typed<float, float>(ctx, op, in, out, n, seed, inclusive);
    case GP_FLOAT64: return scan_typed<double, double>(ctx, op, in, out, n, seed, inclusive);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_scan: unchecked dtype");
}
