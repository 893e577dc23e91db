/* cuda/topk.cu - the first k keys in an order, by radix select.
 *
 * Keys are compared as order images (complemented for descending), so the
 * task is always "the k smallest images, ties by lowest index". Steps, all
 * on the stream with nothing brought back to the host:
 *   1. radix select, 8 bits a pass from the top: a histogram of the current
 *      digit over the keys that match the digits chosen so far, then one
 *      block finds the digit whose bucket holds the k-th key and subtracts
 *      the keys of the lower buckets from the number still to find. After
 *      the last digit the k-th image T is known, and `remaining` says how
 *      many keys equal to T belong to the result (the others, k - remaining
 *      of them, are strictly below T);
 *   2. compaction in index order: each block counts, in its contiguous chunk,
 *      the keys below T and those equal to T; one block scans the counts;
 *      each block then writes its keys below T, and its keys equal to T
 *      whose rank among all of them is below `remaining`, with their
 *      indices, in index order (a block scan per 256 keys);
 *   3. a stable radix sort (CUB) of the k candidates by image, carrying
 *      the index: the keys below T come in index order and those equal to T
 *      share one image, so ties end by lowest index;
 *   4. keys_out and values_out (values or indices) gathered by index.
 * Scratch: the select state, per-block counts, 2 x k candidates (image and
 * index, double-buffered for the sort) and the sort's temporary storage. */
#include "order_image.cuh"
#include "search_internal.h"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>

namespace {

constexpr int kThreads = 256;
constexpr int kBins = 256;
constexpr int kScanThreads = 1024; /* the counts scan: one block, kMaxChunks at most */
constexpr int kMaxChunks = kScanThreads;

struct SelectState {
    unsigned long long prefix;    /* the digits chosen so far (image bits above the current digit) */
    unsigned long long remaining; /* keys still to find among those matching prefix */
};

constexpr size_t kAlign = 256;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

/* Histogram of digit (image >> shift) & 255 over keys whose image matches
 * the state's prefix above the digit. Per-block counts fit 32 bits: the
 * grid is sized so no block sees 2^31 keys. */
template <typename W, int KIND>
__global__ void __launch_bounds__(kThreads)
    digit_histogram(const W *__restrict__ keys, size_t n, W flip, const SelectState *state, int shift,
                    unsigned long long *__restrict__ hist)
{
    __shared__ unsigned int h[kBins];
    for (int b = threadIdx.x; b < kBins; b += kThreads) h[b] = 0;
    __syncthreads();
    const int top = shift + 8;
    const W hi_mask = top >= (int)(8 * sizeof(W)) ? (W)0 : (W)(~(W)0 << top);
    const W prefix = (W)state->prefix & hi_mask;
    for (size_t i = blockIdx.x * (size_t)kThreads + threadIdx.x; i < n; i += (size_t)gridDim.x * kThreads) {
        const W u = gpi_order::image<W, KIND>(keys[i], flip);
        if ((u & hi_mask) == prefix) atomicAdd(&h[(u >> shift) & (kBins - 1)], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += kThreads)
        if (h[b]) atomicAdd(&hist[b], (unsigned long long)h[b]);
}

/* One block of kBins threads: pick the bucket holding the remaining-th key,
 * record its digit, and clear the histogram for the next pass. first: the
 * state is not yet initialized (remaining = k, prefix = 0). */
__global__ void __launch_bounds__(kBins)
    select_digit(SelectState *state, unsigned long long *hist, int shift, int first, unsigned long long k)
{
    typedef cub::BlockScan<unsigned long long, kBins> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const unsigned long long c = hist[threadIdx.x];
    const unsigned long long rem = first ? k : state->remaining;
    const unsigned long long prefix = first ? 0ull : state->prefix;
    unsigned long long before;
    Scan(tmp).ExclusiveSum(c, before);
    __syncthreads(); /* every thread has read the state */
    hist[threadIdx.x] = 0;
    if (before < rem && rem <= before + c) {
        state->prefix = prefix | ((unsigned long long)threadIdx.x << shift);
        state->remaining = rem - before;
    }
}

/* Keys of each chunk below T and equal to T. */
template <typename W, int KIND>
__global__ void __launch_bounds__(kThreads)
    count_candidates(const W *__restrict__ keys, size_t n, size_t chunk, W flip, const SelectState *state,
                     unsigned long long *below, unsigned long long *equal)
{
    typedef cub::BlockReduce<unsigned long long, kThreads> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const W t = (W)state->prefix;
    const size_t lo = blockIdx.x * chunk, hi = min(lo + chunk, n);
    unsigned long long lt = 0, eq = 0;
    for (size_t i = lo + threadIdx.x; i < hi; i += kThreads) {
        const W u = gpi_order::image<W, KIND>(keys[i], flip);
        lt += u < t;
        eq += u == t;
    }
    const unsigned long long lt_sum = Reduce(tmp).Sum(lt);
    __syncthreads();
    const unsigned long long eq_sum = Reduce(tmp).Sum(eq);
    if (threadIdx.x == 0) below[blockIdx.x] = lt_sum, equal[blockIdx.x] = eq_sum;
}

/* Exclusive scans of the chunks' counts, in place (one block). */
__global__ void __launch_bounds__(kScanThreads) scan_counts(unsigned long long *below, unsigned long long *equal,
                                                            int chunks)
{
    typedef cub::BlockScan<unsigned long long, kScanThreads> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const int i = threadIdx.x;
    unsigned long long b = i < chunks ? below[i] : 0, e = i < chunks ? equal[i] : 0, bx, ex;
    Scan(tmp).ExclusiveSum(b, bx);
    __syncthreads();
    Scan(tmp).ExclusiveSum(e, ex);
    if (i < chunks) below[i] = bx, equal[i] = ex;
}

/* Write each chunk's candidates in index order: keys below T at their rank
 * among them, keys equal to T at (k - remaining) + their rank among the
 * equal ones, while that rank is below remaining. */
template <typename W, int KIND>
__global__ void __launch_bounds__(kThreads)
    scatter_candidates(const W *__restrict__ keys, size_t n, size_t chunk, W flip, const SelectState *state,
                       unsigned long long k, const unsigned long long *below_off,
                       const unsigned long long *equal_off, W *cand_img, unsigned long long *cand_idx)
{
    typedef cub::BlockScan<unsigned int, kThreads> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const W t = (W)state->prefix;
    const unsigned long long remaining = state->remaining, n_below = k - remaining;
    unsigned long long ob = below_off[blockIdx.x], oe = equal_off[blockIdx.x];
    const unsigned long long ob_end = blockIdx.x + 1 < gridDim.x ? below_off[blockIdx.x + 1] : n_below;
    const size_t lo = blockIdx.x * chunk, hi = min(lo + chunk, n);
    for (size_t base = lo; base < hi; base += kThreads) {
        if (ob >= ob_end && oe >= remaining) break; /* nothing more of this chunk is taken */
        const size_t i = base + threadIdx.x;
        W u = 0;
        unsigned int flags = 0;
        if (i < hi) {
            u = gpi_order::image<W, KIND>(keys[i], flip);
            flags = (u < t ? 1u : 0u) | (u == t ? 1u << 16 : 0u);
        }
        unsigned int rank, total;
        Scan(tmp).ExclusiveSum(flags, rank, total);
        __syncthreads(); /* tmp is reused by the next tile */
        if (flags & 1u) {
            const unsigned long long at = ob + (rank & 0xffffu);
            cand_img[at] = u, cand_idx[at] = i;
        } else if (flags) {
            const unsigned long long r = oe + (rank >> 16);
            if (r < remaining) cand_img[n_below + r] = u, cand_idx[n_below + r] = i;
        }
        ob += total & 0xffffu;
        oe += total >> 16;
    }
}

template <typename W, typename V>
__global__ void gather_out(const W *__restrict__ keys, const unsigned long long *__restrict__ idx, size_t k,
                           W *__restrict__ keys_out, const V *__restrict__ values_in, V *__restrict__ values_out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < k; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long from = idx[i];
        keys_out[i] = keys[from];
        if (values_out) values_out[i] = values_in ? values_in[from] : (V)from;
    }
}

template <typename N, typename W>
cudaError_t sort_candidates(void *tmp, size_t &bytes, cub::DoubleBuffer<W> &kd,
                            cub::DoubleBuffer<unsigned long long> &vd, size_t k, cudaStream_t st)
{
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, kd, vd, (N)k, 0, (int)(8 * sizeof(W)), st);
}

template <typename W, int KIND>
gp_status topk_typed(gp_context *ctx, const gpi_topk_args *a)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const W flip = gpi_order::flip_for<W>(a->descending);
    const W *keys = (const W *)a->keys_in;
    const size_t n = a->n, k = a->k;
    const int sms = std::max(ctx->sm_count, 1);
    /* histogram grid: a few blocks per SM, and no block sees 2^31 keys */
    const size_t hist_grid = std::max<size_t>(std::min<size_t>(gpi_stride_blocks(n, kThreads), (size_t)sms * 4),
                                              (n >> 31) + 1);
    /* chunks for the compaction: at most kMaxChunks, each a multiple of the block */
    size_t chunk = (n + kMaxChunks - 1) / kMaxChunks;
    chunk = std::max<size_t>((chunk + kThreads - 1) / kThreads * kThreads, (size_t)kThreads * 16);
    const int chunks = (int)((n + chunk - 1) / chunk);
    cudaError_t e;
    gp_status s;

    /* workspace: state + histogram, counts, candidates x 2, sort storage */
    cub::DoubleBuffer<W> kd(NULL, NULL);
    cub::DoubleBuffer<unsigned long long> vd(NULL, NULL);
    size_t sort_bytes = 0;
    e = k <= UINT32_MAX ? sort_candidates<uint32_t>(NULL, sort_bytes, kd, vd, k, st)
                        : sort_candidates<unsigned long long>(NULL, sort_bytes, kd, vd, k, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k sort size query");
    const size_t off_hist = align_up(sizeof(SelectState)), off_counts = off_hist + align_up(kBins * 8);
    const size_t off_img = off_counts + align_up(2 * (size_t)kMaxChunks * 8);
    const size_t off_idx = off_img + align_up(k * sizeof(W)), off_img2 = off_idx + align_up(k * 8);
    const size_t off_idx2 = off_img2 + align_up(k * sizeof(W)), off_sort = off_idx2 + align_up(k * 8);
    char *ws = NULL;
    if ((s = gpi_workspace_aligned(ctx, off_sort + sort_bytes, (void **)&ws))) return s;
    SelectState *state = (SelectState *)ws;
    unsigned long long *hist = (unsigned long long *)(ws + off_hist);
    unsigned long long *below = (unsigned long long *)(ws + off_counts), *equal = below + kMaxChunks;
    W *img = (W *)(ws + off_img), *img2 = (W *)(ws + off_img2);
    unsigned long long *idx = (unsigned long long *)(ws + off_idx), *idx2 = (unsigned long long *)(ws + off_idx2);

    e = cudaMemsetAsync(hist, 0, kBins * 8, st);
    for (int shift = (int)(8 * sizeof(W)) - 8; e == cudaSuccess && shift >= 0; shift -= 8) {
        const bool first = shift == (int)(8 * sizeof(W)) - 8;
        digit_histogram<W, KIND><<<(unsigned)hist_grid, kThreads, 0, st>>>(keys, n, flip, state, shift, hist);
        select_digit<<<1, kBins, 0, st>>>(state, hist, shift, first, k);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        count_candidates<W, KIND><<<chunks, kThreads, 0, st>>>(keys, n, chunk, flip, state, below, equal);
        scan_counts<<<1, kScanThreads, 0, st>>>(below, equal, chunks);
        scatter_candidates<W, KIND><<<chunks, kThreads, 0, st>>>(keys, n, chunk, flip, state, k, below, equal, img,
                                                                 idx);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k select");
    kd = cub::DoubleBuffer<W>(img, img2);
    vd = cub::DoubleBuffer<unsigned long long>(idx, idx2);
    e = k <= UINT32_MAX ? sort_candidates<uint32_t>(ws + off_sort, sort_bytes, kd, vd, k, st)
                        : sort_candidates<unsigned long long>(ws + off_sort, sort_bytes, kd, vd, k, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k sort");
    const unsigned grid = gpi_stride_blocks(k, kThreads);
    if (a->value_size == 4)
        gather_out<W, uint32_t><<<grid, kThreads, 0, st>>>(keys, vd.Current(), k, (W *)a->keys_out,
                                                           (const uint32_t *)a->values_in, (uint32_t *)a->values_out);
    else
        gather_out<W, uint64_t><<<grid, kThreads, 0, st>>>(keys, vd.Current(), k, (W *)a->keys_out,
                                                           (const uint64_t *)a->values_in, (uint64_t *)a->values_out);
    return gpi_cuda_status(ctx, cudaGetLastError(), "top-k output");
}

}  // namespace

#define GPI_TOPK_CALL(W, KIND) topk_typed<W, KIND>(ctx, a)

extern "C" gp_status gpi_cuda_topk(gp_context *ctx, const gpi_topk_args *a)
{
    GPI_DISPATCH_KEY(a->key_dtype, GPI_TOPK_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "top-k: unchecked key dtype %d", (int)a->key_dtype);
}
