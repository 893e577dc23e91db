/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/merge.cu - stable merge of two sorted arrays by merge path.
 *
 * The output is cut into tiles of policy::tile elements. Output position d
 * of the merge takes some i elements from a and d - i from b; i is found by
 * a binary search along the diagonal d (the merge path): the largest i with
 * a[i - 1] not after b[d - i], with a first on ties. Three kernels:
 *   1. coarse partition: the split of every policy::coarse-th tile boundary
 *      (and of the last, d = na + nb) over the whole inputs. There are few
 *      of them, so the search is bound by its chain of dependent loads, not
 *      by how many are in flight: policy::coarse_lanes lanes search one
 *      diagonal together, testing that many points of the range a round,
 *      which cuts the chain from log2 to log_(lanes + 1) of the range;
 *   2. fine partition: a thread per other boundary, binary search only
 *      inside the window its two enclosing coarse splits leave (the split
 *      and d - split both grow with d), at most policy::coarse tiles wide
 *      instead of the whole inputs: a shorter chain and about half the
 *      distinct sectors read;
 *   3. merge: a block per tile loads the tile's a and b ranges (between its
 *      two boundaries' splits) into shared memory with coalesced loads; each
 *      thread finds its own split of `items` outputs there (an odd count,
 *      so that a warp's shared-memory accesses spread over the banks),
 *      merges them sequentially with one shared read an output into a
 *      second shared buffer, and the block writes the tile out coalesced.
 *      Nothing is held in registers across the merge, so the keys-only
 *      kernel fits 32 registers and the tiles an SM of its policy (at four
 *      tiles and 64 registers half the SM's warps sat idle and the loads
 *      kept DRAM 78% busy).
 *      Values are gathered from where
 *      each key came from: within a warp those sources are two increasing
 *      runs, so the reads stay coalesced.
 * policy::coarse = 1 with coarse_lanes = 1 is the one-level partition: a
 * thread per boundary, each searching the whole inputs.
 * Comparisons are on order images, with the CPU reference's tie rule: b's
 * key goes first only when strictly before a's. With unsorted inputs the
 * splits and the fine windows are clamped so that every access stays inside
 * the buffers. */
#include "order_image.cuh"
#include "policy/merge.cuh"
#include "search_internal.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace {

/* Elements of a among the first d of the merge, known to lie in [lo, hi]:
 * searched over a and b in any memory (global or shared). [lo, hi] inside
 * [max(0, d - nb), min(d, na)] keeps every read inside the buffers and the
 * result in [lo, hi] whatever the keys hold. */
template <typename W, int KIND, typename I>
__device__ __forceinline__ I path_split_in(const W *a, const W *b, I d, I lo, I hi, W flip)
{
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

/* path_split_in over the whole diagonal: sizes and d in size_t or int. */
template <typename W, int KIND, typename I>
__device__ __forceinline__ I path_split(const W *a, I na, const W *b, I nb, I d, W flip)
{
    return path_split_in<W, KIND, I>(a, b, d, d > nb ? d - nb : 0, d < na ? d : na, flip);
}

/* path_split by G lanes together: G consecutive G-aligned lanes of a warp,
 * all with the same arguments (G a power of two up to 32). A round tests G
 * evenly spaced points of the range at once, and the first that fails (a's
 * key not first) bounds the next range, G + 1 times narrower; the last
 * round tests every point left. Taking the first failure rather than a
 * count keeps lo <= hi inside the diagonal whatever the keys hold. */
template <int G, typename W, int KIND>
__device__ __forceinline__ size_t path_split_group(const W *a, size_t na, const W *b, size_t nb, size_t d, W flip)
{
    size_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    if (G == 1) return path_split_in<W, KIND, size_t>(a, b, d, lo, hi, flip);
    const unsigned g = threadIdx.x % G, first = threadIdx.x % 32 - g;
    const unsigned mask = (G == 32 ? ~0u : (1u << (G % 32)) - 1) << first;
    while (lo < hi) {
        const size_t len = hi - lo;
        const bool last = len <= (size_t)G;
        /* point k: lo + k in the last round, else lo + len * (k + 1) / (G + 1) without overflow; increasing */
        const auto point = [&](unsigned k) {
            return last ? lo + k : lo + len / (G + 1) * (k + 1) + len % (G + 1) * (k + 1) / (G + 1);
        };
        const size_t i = point(g);
        const bool before = (!last || g < len) &&
                            !(gpi_order::image<W, KIND>(b[d - 1 - i], flip) < gpi_order::image<W, KIND>(a[i], flip));
        /* points passed before the group's first failure (G when none failed) */
        const unsigned passed = __clz(__brev(~((__ballot_sync(mask, before) & mask) >> first)));
        if (last) return lo + passed;
        const size_t nlo = passed ? point(passed - 1) + 1 : lo;
        hi = passed < (unsigned)G ? point(passed) : hi;
        lo = nlo;
    }
    return lo;
}

/* Two levels, first: splits[t] for the coarse boundaries t = min(k * coarse,
 * tiles), k in [0, ceil(tiles / coarse)], coarse_lanes lanes each. */
template <typename W, int KIND, typename P>
__global__ void merge_partition_coarse(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb,
                                       size_t tiles, size_t *__restrict__ splits, W flip)
{
    constexpr int G = P::coarse_lanes;
    const size_t n = na + nb, count = (tiles + P::coarse - 1) / P::coarse + 1;
    /* a group's lanes share k, so they leave the loop together */
    for (size_t k = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / G; k < count;
         k += (size_t)gridDim.x * blockDim.x / G) {
        const size_t t = std::min(k * P::coarse, tiles);
        const size_t s = path_split_group<G, W, KIND>(a, na, b, nb, std::min(t * (size_t)P::tile, n), flip);
        if (threadIdx.x % G == 0) splits[t] = s;
    }
}

/* Two levels, second: splits[t] for the other t in (0, tiles). With s0, s1
 * the splits of the enclosing coarse diagonals d0 <= d <= d1, the split s of
 * d has s0 <= s <= s1 and d0 - s0 <= d - s <= d1 - s1 (both only grow with
 * the diagonal), so s lies in [max(s0, d - (d1 - s1)), min(s1, s0 + d - d0)]
 * within [max(0, d - nb), min(d, na)]. The coarse splits are clamped first,
 * and the window after, so that unsorted keys still read inside the buffers. */
template <typename W, int KIND, typename P>
__global__ void merge_partition_fine(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb,
                                     size_t tiles, size_t *__restrict__ splits, W flip)
{
    constexpr size_t kCoarse = P::coarse, kTile = P::tile;
    const size_t n = na + nb;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < tiles; t += (size_t)gridDim.x * blockDim.x) {
        if (t % kCoarse == 0) continue; /* a coarse boundary */
        const size_t c0 = t - t % kCoarse, c1 = std::min(c0 + kCoarse, tiles);
        const size_t d = t * kTile, d0 = c0 * kTile, d1 = std::min(c1 * kTile, n); /* d < n: t < tiles */
        const size_t s0 = std::min(splits[c0], d0), s1 = std::min(splits[c1], d1);
        const size_t lo0 = d > nb ? d - nb : 0, hi0 = d < na ? d : na;
        const size_t hi = std::max(lo0, std::min(hi0, std::min(s1, s0 + (d - d0))));
        size_t lo = std::max(lo0, s0);
        if (d > d1 - s1) lo = std::max(lo, d - (d1 - s1));
        splits[t] = path_split_in<W, KIND, size_t>(a, b, d, std::min(lo, hi), hi, flip);
    }
}

template <typename W, int KIND, typename V, bool PAIRS, typename P>
__global__ void __launch_bounds__(P::threads, P::min_blocks)
    merge_tiles(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb, const V *__restrict__ va,
                const V *__restrict__ vb, W *__restrict__ out, V *__restrict__ vout, size_t tiles,
                const size_t *__restrict__ splits, W flip)
{
    constexpr int kThreads = P::threads, kItems = P::items, kTile = P::tile;
    /* one key past the tile: the merge loop reads ahead of its last output */
    __shared__ W keys_s[kTile + 1];
    __shared__ W out_s[kTile];                          /* the merged tile */
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
        const bool full = total == kTile;

        /* load (the compiler keeps as many loads in flight as the registers
         * allow; the policy's resident tiles an SM cover the latency) */
        {
            const W *ap = a + a0, *bp = b + b0; /* tile position i < nat: ap[i], else bp[i - nat] */
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                const int i = j * kThreads + (int)threadIdx.x;
                if (full || i < total) keys_s[i] = i < nat ? ap[i] : bp[i - nat];
            }
        }
        __syncthreads();

        /* this thread's outputs [dt, dt + kItems) of the tile, merged
         * straight into out_s (nothing held in registers across the loop, so
         * the kernel fits the registers of a full SM); kItems is odd, so the
         * threads of a warp reading or writing at dt + j, or near their
         * splits, fall in different banks */
        {
            const int dt = min((int)threadIdx.x * kItems, total);
            int ai = path_split<W, KIND, int>(keys_s, nat, keys_s + nat, nbt, dt, flip);
            int bi = dt - ai;
            W ka = keys_s[ai], kb = keys_s[nat + bi]; /* read only while in range */
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                const bool take_a =
                    ai < nat &&
                    (bi >= nbt || !(gpi_order::image<W, KIND>(kb, flip) < gpi_order::image<W, KIND>(ka, flip)));
                if (dt + j < total) {
                    out_s[dt + j] = take_a ? ka : kb;
                    if (PAIRS) src_s[dt + j] = (unsigned short)(take_a ? ai : nat + bi);
                }
                ai += take_a ? 1 : 0;
                bi += take_a ? 0 : 1;
                /* one shared read a step, the successor of the side taken */
                const W next = keys_s[min(take_a ? ai : nat + bi, kTile)];
                ka = take_a ? next : ka;
                kb = take_a ? kb : next;
            }
        }
        __syncthreads();

        /* block-wide coalesced stores */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const int i = j * kThreads + (int)threadIdx.x;
            if (full || i < total) out[d0 + i] = out_s[i];
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
        __syncthreads(); /* the shared buffers are reused by the next tile */
    }
}

template <typename W, int KIND, typename V, bool PAIRS>
gp_status merge_launch(gp_context *ctx, const gpi_merge_args *m)
{
    using P = gpi::merge_policy<sizeof(W), PAIRS ? sizeof(V) : 0>;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t n = m->na + m->nb, tiles = (n + P::tile - 1) / P::tile;
    const W flip = gpi_order::flip_for<W>(m->descending);
    size_t *splits = NULL;
    gp_status s = gpi_workspace_aligned(ctx, (tiles + 1) * sizeof(size_t), (void **)&splits);
    if (s) return s;
    const W *a = (const W *)m->a_keys, *b = (const W *)m->b_keys;
    constexpr unsigned kPart = P::partition_threads;
    const size_t coarse = (tiles + P::coarse - 1) / P::coarse + 1; /* boundaries 0, coarse, ..., and tiles */
    merge_partition_coarse<W, KIND, P><<<gpi_stride_blocks(coarse * P::coarse_lanes, kPart), kPart, 0, st>>>(
        a, m->na, b, m->nb, tiles, splits, flip);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "merge coarse partition kernel launch"))) return s;
    merge_partition_fine<W, KIND, P><<<gpi_stride_blocks(tiles, kPart), kPart, 0, st>>>(a, m->na, b, m->nb, tiles,
                                                                                     splits, flip);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "merge fine partition kernel launch"))) return s;
    const unsigned grid = (unsigned)std::min(tiles, (size_t)1 << 30);
    merge_tiles<W, KIND, V, PAIRS, P><<<grid, P::threads, 0, st>>>(a, m->na, b, m->nb, (const V *)m->a_values,
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
