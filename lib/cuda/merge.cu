/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/merge.cu - stable merge of two sorted arrays by merge path.
 *
 * The output is cut into tiles of policy::tile elements. Output position d
 * of the merge takes some i elements from a and d - i from b; i is found by
 * a binary search along the diagonal d (the merge path): the largest i with
 * a[i - 1] not after b[d - i], with a first on ties. Two kernels:
 *   1. partition: a thread per tile boundary finds its split in global
 *      memory (all boundaries at once, so the log2 dependent loads of each
 *      overlap those of the others);
 *   2. merge: a block per tile loads the tile's a and b ranges (between its
 *      two boundaries' splits) into shared memory with coalesced loads; each
 *      thread finds its own split of `items` outputs there (an odd count,
 *      so that a warp's shared-memory accesses spread over the banks),
 *      merges them sequentially with one shared read an output, puts them
 *      back in shared memory, and the block writes the tile out coalesced.
 *      Values are gathered from where
 *      each key came from: within a warp those sources are two increasing
 *      runs, so the reads stay coalesced.
 * Comparisons are on order images, with the CPU reference's tie rule: b's
 * key goes first only when strictly before a's. With unsorted inputs the
 * splits are clamped so that every access stays inside the buffers. */
#include "order_image.cuh"
#include "policy/merge.cuh"
#include "search_internal.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace {

/* Elements of a among the first d of the merge: searched over a and b in
 * any memory (global or shared); sizes and d in size_t. The result lies in
 * [max(0, d - nb), min(d, na)] whatever the keys hold. */
template <typename W, int KIND, typename I>
__device__ __forceinline__ I path_split(const W *a, I na, const W *b, I nb, I d, W flip)
{
    I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const I mid = lo + ((hi - lo) >> 1);
        /* a[mid] goes before b[d - 1 - mid] unless b's is strictly before */
        if (!(gpi_order::image<W, KIND>(b[d - 1 - mid], flip) < gpi_order::image<W, KIND>(a[mid], flip)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* splits[t] = the split of diagonal min(t * tile, na + nb), t in [0, tiles]. */
template <typename W, int KIND>
__global__ void merge_partition(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb,
                                size_t tiles, size_t *__restrict__ splits, W flip)
{
    using P = gpi::merge_policy<sizeof(W)>;
    const size_t n = na + nb;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t <= tiles; t += (size_t)gridDim.x * blockDim.x)
        splits[t] = path_split<W, KIND, size_t>(a, na, b, nb, std::min(t * (size_t)P::tile, n), flip);
}

template <typename W, int KIND, typename V, bool PAIRS>
__global__ void __launch_bounds__(gpi::merge_policy<sizeof(W)>::threads,
                      gpi::merge_policy<sizeof(W)>::min_blocks(PAIRS ? (int)sizeof(V) : 0))
    merge_tiles(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb, const V *__restrict__ va,
                const V *__restrict__ vb, W *__restrict__ out, V *__restrict__ vout, size_t tiles,
                const size_t *__restrict__ splits, W flip)
{
    using P = gpi::merge_policy<sizeof(W)>;
    constexpr int kThreads = P::threads, kItems = P::items, kTile = P::tile;
    /* one key past the tile: the merge loop reads ahead of its last output */
    __shared__ W keys_s[kTile + 1];
    __shared__ unsigned short src_s[PAIRS ? kTile : 1]; /* tile position of each output's source */
    const size_t total_n = na + nb;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t d0 = t * kTile, d1 = min(d0 + kTile, total_n);
        const size_t a0 = splits[t], b0 = d0 - a0;
        const int total = (int)(d1 - d0);
        /* Sorted inputs give a0 <= a1 <= a0 + total; the clamp keeps unsorted
         * ones inside the buffers. */
        size_t a1 = splits[t + 1];
        a1 = max(a1, max(a0, d1 > nb ? d1 - nb : (size_t)0));
        a1 = min(a1, min(a0 + (size_t)total, na));
        const int nat = (int)(a1 - a0), nbt = total - nat;
        const W *ap = a + a0, *bp = b + b0; /* tile position i < nat: ap[i], else bp[i - nat] */
        const bool full = total == kTile;

        /* load: every thread's loads issued before any store to shared memory */
        W x[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const int i = j * kThreads + (int)threadIdx.x;
            if (full || i < total) x[j] = i < nat ? ap[i] : bp[i - nat];
        }
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const int i = j * kThreads + (int)threadIdx.x;
            if (full || i < total) keys_s[i] = x[j];
        }
        __syncthreads();

        /* this thread's outputs [dt, dt + kItems) of the tile; kItems is odd,
         * so the threads of a warp reading or writing at dt + j, or near
         * their splits, fall in different banks */
        const int dt = min((int)threadIdx.x * kItems, total);
        int ai = path_split<W, KIND, int>(keys_s, nat, keys_s + nat, nbt, dt, flip);
        int bi = dt - ai;
        W ka = keys_s[ai], kb = keys_s[nat + bi]; /* read only while in range */
        int src[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const bool take_a =
                ai < nat && (bi >= nbt || !(gpi_order::image<W, KIND>(kb, flip) < gpi_order::image<W, KIND>(ka, flip)));
            x[j] = take_a ? ka : kb;
            src[j] = take_a ? ai : nat + bi;
            ai += take_a ? 1 : 0;
            bi += take_a ? 0 : 1;
            /* one shared read a step, the successor of the side taken */
            const W next = keys_s[min(take_a ? ai : nat + bi, kTile)];
            ka = take_a ? next : ka;
            kb = take_a ? kb : next;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (dt + j < total) {
                keys_s[dt + j] = x[j];
                if (PAIRS) src_s[dt + j] = (unsigned short)src[j];
            }
        }
        __syncthreads();

        /* block-wide coalesced stores */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const int i = j * kThreads + (int)threadIdx.x;
            if (full || i < total) out[d0 + i] = keys_s[i];
        }
        if (PAIRS) {
            const V *vap = va + a0, *vbp = vb + b0;
            V v[kItems];
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                const int i = j * kThreads + (int)threadIdx.x;
                if (full || i < total) {
                    const int from = src_s[i];
                    v[j] = from < nat ? vap[from] : vbp[from - nat];
                }
            }
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                const int i = j * kThreads + (int)threadIdx.x;
                if (full || i < total) vout[d0 + i] = v[j];
            }
        }
        __syncthreads(); /* keys_s is reused by the next tile */
    }
}

template <typename W, int KIND, typename V, bool PAIRS>
gp_status merge_launch(gp_context *ctx, const gpi_merge_args *m)
{
    using P = gpi::merge_policy<sizeof(W)>;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t n = m->na + m->nb, tiles = (n + P::tile - 1) / P::tile;
    const W flip = gpi_order::flip_for<W>(m->descending);
    size_t *splits = NULL;
    gp_status s = gpi_workspace_aligned(ctx, (tiles + 1) * sizeof(size_t), (void **)&splits);
    if (s) return s;
    const W *a = (const W *)m->a_keys, *b = (const W *)m->b_keys;
    merge_partition<W, KIND><<<gpi_stride_blocks(tiles + 1, P::partition_threads), P::partition_threads, 0, st>>>(
        a, m->na, b, m->nb, tiles, splits, flip);
    const unsigned grid = (unsigned)std::min(tiles, (size_t)1 << 30);
    merge_tiles<W, KIND, V, PAIRS><<<grid, P::threads, 0, st>>>(a, m->na, b, m->nb, (const V *)m->a_values,
                                                               (const V *)m->b_values, (W *)m->keys_out,
                                                               (V *)m->values_out, tiles, splits, flip);
    return gpi_cuda_status(ctx, cudaGetLastError(), "merge kernel");
}

template <typename W, int KIND>
gp_status merge_typed(gp_context *ctx, const gpi_merge_args *m)
{
    if (m->value_size == 4) return merge_launch<W, KIND, uint32_t, true>(ctx, m);
    if (m->value_size == 8) return merge_launch<W, KIND, uint64_t, true>(ctx, m);
    return merge_launch<W, KIND, uint32_t, false>(ctx, m);
}

}  // namespace

#define GPI_MERGE_CALL(W, KIND) merge_typed<W, KIND>(ctx, m)

extern "C" gp_status gpi_cuda_merge(gp_context *ctx, const gpi_merge_args *m)
{
    GPI_DISPATCH_KEY(m->key_dtype, GPI_MERGE_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "merge: unchecked key dtype %d", (int)m->key_dtype);
}
