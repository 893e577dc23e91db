/* cuda/merge.cu - stable merge of two sorted arrays by merge path.
 *
 * The output is cut into tiles of kTile elements. Output position d of the
 * merge takes some i elements from a and d - i from b; i is found by a
 * binary search along the diagonal d (the merge path): the largest i with
 * a[i - 1] not after b[d - i], with a first on ties. Each block finds the
 * splits of its tile's two ends that way (two threads, log2 of the tile's
 * diagonal length steps each), loads the tile's a and b parts into shared
 * memory, then each thread finds its own split of kItems outputs in shared
 * memory, merges them sequentially, and the block writes the tile out
 * coalesced (values gathered from where each key came from). Comparisons
 * are on order images, with the CPU reference's tie rule: b's key goes first
 * only when strictly before a's. With unsorted inputs the splits are
 * clamped so that every access stays inside the buffers. */
#include "order_image.cuh"
#include "search_internal.h"

#include <cuda_runtime.h>

#include <algorithm>

namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;

/* Elements of a among the first d of the merge: searched over a and b in
 * any memory (global or shared); sizes and d in size_t. */
template <typename W, int KIND>
__device__ __forceinline__ size_t path_split(const W *a, size_t na, const W *b, size_t nb, size_t d, W flip)
{
    size_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const size_t mid = lo + ((hi - lo) >> 1);
        /* a[mid] goes before b[d - 1 - mid] unless b's is strictly before */
        if (!(gpi_order::image<W, KIND>(b[d - 1 - mid], flip) < gpi_order::image<W, KIND>(a[mid], flip)))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

template <typename W, int KIND, typename V, bool PAIRS>
__global__ void __launch_bounds__(kThreads)
    merge_kernel(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb, const V *__restrict__ va,
                 const V *__restrict__ vb, W *__restrict__ out, V *__restrict__ vout, size_t tiles, W flip)
{
    __shared__ W keys_s[kTile];
    __shared__ unsigned short src_s[PAIRS ? kTile : 1]; /* tile position of each output's source */
    __shared__ size_t split[2];
    const size_t total_n = na + nb;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t d0 = t * kTile, d1 = min(d0 + kTile, total_n);
        if (threadIdx.x < 2) split[threadIdx.x] = path_split<W, KIND>(a, na, b, nb, threadIdx.x ? d1 : d0, flip);
        __syncthreads();
        const size_t a0 = split[0], b0 = d0 - a0;
        const int total = (int)(d1 - d0);
        /* Sorted inputs give a0 <= a1 <= a0 + total; the clamp keeps unsorted
         * ones inside the buffers. */
        size_t a1 = split[1];
        a1 = max(a1, max(a0, d1 > nb ? d1 - nb : (size_t)0));
        a1 = min(a1, min(a0 + (size_t)total, na));
        const int nat = (int)(a1 - a0), nbt = total - nat;
        for (int i = threadIdx.x; i < total; i += kThreads) keys_s[i] = i < nat ? a[a0 + i] : b[b0 + (i - nat)];
        __syncthreads();

        const int dt = min((int)threadIdx.x * kItems, total);
        int ai = (int)path_split<W, KIND>(keys_s, (size_t)nat, keys_s + nat, (size_t)nbt, (size_t)dt, flip);
        int bi = dt - ai;
        W k[kItems];
        int src[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (dt + j >= total) break;
            bool take_a = ai < nat;
            if (take_a && bi < nbt)
                take_a = !(gpi_order::image<W, KIND>(keys_s[nat + bi], flip) <
                           gpi_order::image<W, KIND>(keys_s[ai], flip));
            if (take_a) k[j] = keys_s[ai], src[j] = ai++;
            else k[j] = keys_s[nat + bi], src[j] = nat + bi++;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (dt + j >= total) break;
            keys_s[dt + j] = k[j];
            if (PAIRS) src_s[dt + j] = (unsigned short)src[j];
        }
        __syncthreads();
        for (int i = threadIdx.x; i < total; i += kThreads) {
            out[d0 + i] = keys_s[i];
            if (PAIRS) {
                const int s = src_s[i];
                vout[d0 + i] = s < nat ? va[a0 + s] : vb[b0 + (s - nat)];
            }
        }
        __syncthreads(); /* keys_s and split are reused by the next tile */
    }
}

template <typename W, int KIND, typename V, bool PAIRS>
gp_status merge_launch(gp_context *ctx, const gpi_merge_args *m)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const size_t n = m->na + m->nb, tiles = (n + kTile - 1) / kTile;
    const unsigned grid = (unsigned)std::min(tiles, (size_t)1 << 30);
    merge_kernel<W, KIND, V, PAIRS><<<grid, kThreads, 0, st>>>(
        (const W *)m->a_keys, m->na, (const W *)m->b_keys, m->nb, (const V *)m->a_values, (const V *)m->b_values,
        (W *)m->keys_out, (V *)m->values_out, tiles, gpi_order::flip_for<W>(m->descending));
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
