/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/topk.cu - the first k keys in an order, by a sampled radix select.
 *
 * Keys are compared as order images (complemented for descending), so the
 * task is always "the k smallest images, ties by lowest index". Everything
 * runs on the stream; nothing comes back to the host (which path runs is
 * decided on the device: the kernels of the other path return at once).
 * The sampled path, one read of the keys:
 *   1. one block takes a sample of the keys at evenly spaced positions and
 *      selects its r-th smallest image as the threshold, r chosen so that
 *      the keys up to it number comfortably more than k but fit the
 *      candidate capacity (all keys when n fits it);
 *   2. one read of the keys appends each key at or below the threshold,
 *      as (image, index), to the candidates (warp-aggregated atomics);
 *   3. k <= candidates <= capacity is checked (else the exact path of
 *      topk_exact.cuh runs instead), then a radix select over the
 *      candidates, a pass a digit each over all SMs, finds the k-th image T
 *      and, when more keys equal T than the result takes, the largest index
 *      I taken among them (the lowest indices win);
 *   4. the candidates below T, or equal to T with index <= I, are exactly
 *      the k pairs of the result; a compaction writes them out.
 * Then the k pairs are sorted by (image, index) - one radix sort of a
 * 64-bit composite for 32-bit keys and n <= 2^32, else two stable sorts -
 * and keys_out / values_out are gathered by index (keys keep their bits). */
#include "order_image.cuh"
#include "policy/topk.cuh"
#include "search_internal.h"
#include "topk_exact.cuh"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace {

using gpi_topk::Ctl;
using P = gpi::topk_policy;
constexpr int kSelThreads = P::select_threads;
constexpr int kCandThreads = 256; /* a thread a digit in the candidate passes */

/* The state of the select over the candidates (zeroed before each call). */
struct CandSelect {
    unsigned long long prefix; /* the digits chosen so far */
    unsigned long long rank;   /* 1-based rank still sought among the values matching prefix */
    unsigned int done;         /* blocks finished in the current pass */
    int tie;                   /* more candidates equal T than the result takes: the index passes run */
};

struct SelectSmem {
    unsigned int hist[256];
    unsigned long long prefix, rank, eq;
    typename cub::BlockScan<unsigned int, kSelThreads>::TempStorage scan;
};

/* One block: the rank-th smallest (1-based) of the values v with get(i, v)
 * true, i < cnt (fewer than 2^32 of them), over the low `bits` bits of T
 * (a multiple of 8). value: that value; rem: how many values equal to it
 * are within the first rank; eq: how many values equal it. */
template <typename T, typename Get>
__device__ void block_select(SelectSmem &sm, Get get, size_t cnt, unsigned long long rank, int bits, T &value,
                             unsigned long long &rem, unsigned long long &eq)
{
    typedef cub::BlockScan<unsigned int, kSelThreads> Scan;
    const int tid = threadIdx.x;
    if (tid == 0) sm.prefix = 0, sm.rank = rank, sm.eq = 0;
    for (int shift = bits - 8; shift >= 0; shift -= 8) {
        for (int b = tid; b < 256; b += kSelThreads) sm.hist[b] = 0;
        __syncthreads();
        const int top = shift + 8;
        const T hi_mask = top >= (int)(8 * sizeof(T)) ? (T)0 : (T)(~(T)0 << top);
        const T prefix = (T)sm.prefix;
        for (size_t i = tid; i < cnt; i += kSelThreads) {
            T v;
            if (get(i, v) && (v & hi_mask) == prefix) atomicAdd(&sm.hist[(v >> shift) & 255], 1u);
        }
        __syncthreads();
        const unsigned int c = tid < 256 ? sm.hist[tid] : 0u;
        unsigned int before;
        Scan(sm.scan).ExclusiveSum(c, before);
        const unsigned long long r = sm.rank;
        __syncthreads(); /* every thread has read the rank and the prefix */
        if (tid < 256 && before < r && r <= (unsigned long long)before + c)
            sm.prefix = (unsigned long long)(prefix | ((T)tid << shift)), sm.rank = r - before, sm.eq = c;
        __syncthreads();
    }
    value = (T)sm.prefix, rem = sm.rank, eq = sm.eq;
}

/* Step 1 and the control block's set-up. mode 0: the exact path runs;
 * 1: all keys are candidates; 2: the threshold is the r-th smallest of
 * `sample` keys at positions floor(j n / sample). */
template <typename W, int KIND>
__global__ void __launch_bounds__(kSelThreads)
    topk_threshold(Ctl *ctl, CandSelect *sel, const W *__restrict__ keys, size_t n, W flip, int mode,
                   size_t sample, unsigned long long r, unsigned long long k)
{
    __shared__ SelectSmem sm;
    W thr = (W)~(W)0;
    if (mode == 2) {
        const size_t q = n / sample, rm = n % sample;
        auto get = [&](size_t j, W &v) {
            v = gpi_order::image<W, KIND>(keys[q * j + rm * j / sample], flip);
            return true;
        };
        unsigned long long rem, eq;
        block_select<W>(sm, get, sample, r, 8 * (int)sizeof(W), thr, rem, eq);
    }
    if (threadIdx.x == 0) {
        ctl->threshold = thr;
        ctl->count = 0, ctl->taken = 0;
        ctl->exact = mode == 0;
        sel->prefix = 0, sel->rank = k, sel->done = 0, sel->tie = 0;
    }
}

/* Warp-aggregated append: each lane has c items; returns the position of
 * its first in the candidates (all lanes of the warp must call it). */
__device__ __forceinline__ unsigned long long warp_reserve(unsigned long long *counter, unsigned int c)
{
    const int lane = threadIdx.x & 31;
    unsigned int incl = c;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const unsigned int y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    const unsigned int total = __shfl_sync(0xffffffffu, incl, 31);
    unsigned long long base = 0;
    if (lane == 31) base = atomicAdd(counter, (unsigned long long)total);
    base = __shfl_sync(0xffffffffu, base, 31);
    return base + incl - c;
}

/* Step 2: the keys at or below the threshold, appended as (image, index).
 * Whole warps loop together (the append is warp-wide). VEC: keys is
 * 16-byte aligned; each lane reads P::vectors 16-byte vectors a round, and
 * the first warp takes the keys past the last whole vector. */
template <typename W, int KIND>
__device__ __forceinline__ void append(Ctl *ctl, size_t cap, W *cand_img, unsigned long long *cand_idx, W v,
                                       size_t i, bool take)
{
    if (!__any_sync(0xffffffffu, take)) return;
    const unsigned long long at = warp_reserve(&ctl->count, take ? 1u : 0u);
    if (take && at < cap) cand_img[at] = v, cand_idx[at] = i;
}

template <typename W, int KIND, bool VEC>
__global__ void __launch_bounds__(P::threads)
    topk_filter(Ctl *ctl, const W *__restrict__ keys, size_t n, W flip, size_t cap, W *__restrict__ cand_img,
                unsigned long long *__restrict__ cand_idx)
{
    if (ctl->exact) return;
    constexpr int kVI = VEC ? 16 / (int)sizeof(W) : 1, kU = P::vectors, kPer = kU * kVI;
    const W thr = (W)ctl->threshold;
    const size_t warps = (size_t)gridDim.x * (P::threads / 32);
    const size_t warp = blockIdx.x * (size_t)(P::threads / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x & 31;
    const size_t nv = n / kVI; /* whole vectors */
    for (size_t w0 = warp * 32 * kU; w0 < nv; w0 += warps * 32 * kU) {
        W v[kPer];
#pragma unroll
        for (int u = 0; u < kU; u++) {
            const size_t vi = w0 + (size_t)u * 32 + lane;
            if (vi < nv) {
                if constexpr (VEC) {
                    const uint4 raw = __ldg(reinterpret_cast<const uint4 *>(keys) + vi);
                    const W *p = reinterpret_cast<const W *>(&raw);
#pragma unroll
                    for (int j = 0; j < kVI; j++) v[u * kVI + j] = p[j];
                } else {
                    v[u] = keys[vi];
                }
            }
        }
        unsigned int c = 0;
        bool take[kPer];
#pragma unroll
        for (int u = 0; u < kU; u++)
#pragma unroll
            for (int j = 0; j < kVI; j++) {
                const int t = u * kVI + j;
                v[t] = gpi_order::image<W, KIND>(v[t], flip);
                take[t] = w0 + (size_t)u * 32 + lane < nv && v[t] <= thr;
                c += take[t];
            }
        if (!__any_sync(0xffffffffu, c != 0)) continue;
        unsigned long long at = warp_reserve(&ctl->count, c);
#pragma unroll
        for (int u = 0; u < kU; u++)
#pragma unroll
            for (int j = 0; j < kVI; j++)
                if (take[u * kVI + j]) {
                    if (at < cap) cand_img[at] = v[u * kVI + j], cand_idx[at] = (w0 + (size_t)u * 32 + lane) * kVI + j;
                    at++;
                }
    }
    if (VEC && warp == 0) {
        const size_t i = nv * kVI + (size_t)lane;
        const W x = i < n ? gpi_order::image<W, KIND>(keys[i], flip) : (W)0;
        append<W, KIND>(ctl, cap, cand_img, cand_idx, x, i, i < n && x <= thr);
    }
}

/* Step 3: check k <= candidates <= capacity (else the exact path runs),
 * then radix-select over the candidates, 8 bits a pass from the top, the
 * k-th image T and, when more candidates equal T than the result takes,
 * the largest index taken among them. Each pass is one kernel over all
 * SMs: blocks count digits in shared memory and add them to a global
 * histogram; the last block to finish picks the digit holding the rank and
 * clears the histogram for the next pass. BY_INDEX: the passes over the
 * indices of the candidates equal to T (they return at once without a tie). */
template <typename W, bool BY_INDEX>
__global__ void __launch_bounds__(kCandThreads)
    topk_cand_pass(Ctl *ctl, CandSelect *sel, unsigned int *hist, unsigned long long k, size_t cap,
                   const W *__restrict__ cand_img, const unsigned long long *__restrict__ cand_idx, int shift,
                   int bits)
{
    typedef typename std::conditional<BY_INDEX, unsigned long long, W>::type T;
    typedef cub::BlockScan<unsigned int, kCandThreads> Scan;
    __shared__ unsigned int h[256];
    __shared__ typename Scan::TempStorage scan;
    __shared__ bool last;
    if (ctl->exact) return;
    const unsigned long long cnt = ctl->count;
    if (!BY_INDEX && shift == bits - 8 && (cnt < k || cnt > cap)) {
        if (threadIdx.x == 0) ctl->exact = 1;
        return;
    }
    if (BY_INDEX && !sel->tie) return;
    const int tid = threadIdx.x;
    h[tid] = 0;
    __syncthreads();
    const int top = shift + 8;
    const T hi_mask = top >= (int)(8 * sizeof(T)) ? (T)0 : (T)(~(T)0 << top);
    const T prefix = (T)sel->prefix;
    const W kth = (W)ctl->kth;
    for (size_t i = blockIdx.x * (size_t)kCandThreads + tid; i < cnt; i += (size_t)gridDim.x * kCandThreads) {
        T v;
        bool in = true;
        if constexpr (BY_INDEX) {
            in = cand_img[i] == kth;
            v = in ? (T)cand_idx[i] : (T)0;
        } else {
            v = cand_img[i];
        }
        if (in && (v & hi_mask) == prefix) atomicAdd(&h[(v >> shift) & 255], 1u);
    }
    __syncthreads();
    if (h[tid]) atomicAdd(&hist[tid], h[tid]);
    __threadfence();
    __syncthreads();
    if (tid == 0) last = atomicAdd(&sel->done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    /* the last block: counts of all blocks are in hist (read and cleared at once) */
    const unsigned int c = atomicExch(&hist[tid], 0u);
    unsigned int before;
    Scan(scan).ExclusiveSum(c, before);
    const unsigned long long r = sel->rank;
    __syncthreads(); /* every thread has read the rank */
    if (before < r && r <= (unsigned long long)before + c) {
        const unsigned long long p = (unsigned long long)prefix | ((unsigned long long)tid << shift);
        const unsigned long long rem = r - before;
        sel->done = 0;
        if (shift > 0) {
            sel->prefix = p, sel->rank = rem;
        } else if (!BY_INDEX) {
            /* T found: rem of the c candidates equal to it are taken */
            ctl->kth = p;
            ctl->kth_index = ~0ull;
            sel->tie = c > rem;
            sel->prefix = 0, sel->rank = rem;
        } else {
            ctl->kth_index = p;
        }
    }
}

/* Step 4: exactly the k pairs of the result, in any order. */
template <typename W>
__global__ void __launch_bounds__(P::threads)
    topk_take(Ctl *ctl, const W *__restrict__ cand_img, const unsigned long long *__restrict__ cand_idx,
              W *__restrict__ out_img, unsigned long long *__restrict__ out_idx)
{
    if (ctl->exact) return;
    const unsigned long long cnt = ctl->count, cut = ctl->kth_index;
    const W t = (W)ctl->kth;
    const size_t stride = (size_t)gridDim.x * P::threads;
    /* whole warps loop together */
    for (size_t i0 = blockIdx.x * (size_t)P::threads + (threadIdx.x & ~31u); i0 < cnt; i0 += stride) {
        const size_t i = i0 + (threadIdx.x & 31);
        W v = 0;
        unsigned long long x = 0;
        bool take = false;
        if (i < cnt) {
            v = cand_img[i], x = cand_idx[i];
            take = v < t || (v == t && x <= cut);
        }
        if (!__any_sync(0xffffffffu, take)) continue;
        const unsigned long long at = warp_reserve(&ctl->taken, take ? 1u : 0u);
        if (take) out_img[at] = v, out_idx[at] = x;
    }
}

/* The composite (image << index_bits | index) of each pair, in place of the index. */
template <typename W>
__global__ void topk_pack(const W *__restrict__ img, unsigned long long *idx, size_t k, int index_bits)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < k; i += (size_t)gridDim.x * blockDim.x)
        idx[i] = ((unsigned long long)img[i] << index_bits) | idx[i];
}

template <typename W, typename V>
__global__ void gather_out(const W *__restrict__ keys, const unsigned long long *__restrict__ idx,
                           unsigned long long index_mask, size_t k, W *__restrict__ keys_out,
                           const V *__restrict__ values_in, V *__restrict__ values_out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < k; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long from = idx[i] & index_mask;
        keys_out[i] = keys[from];
        if (values_out) values_out[i] = values_in ? values_in[from] : (V)from;
    }
}

template <typename N, typename K, typename V>
cudaError_t sort_pairs(void *tmp, size_t &bytes, cub::DoubleBuffer<K> &kd, cub::DoubleBuffer<V> &vd, size_t k,
                       int end_bit, cudaStream_t st)
{
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, kd, vd, (N)k, 0, end_bit, st);
}

template <typename N, typename K>
cudaError_t sort_keys(void *tmp, size_t &bytes, cub::DoubleBuffer<K> &kd, size_t k, int end_bit, cudaStream_t st)
{
    return cub::DeviceRadixSort::SortKeys(tmp, bytes, kd, (N)k, 0, end_bit, st);
}

constexpr size_t kAlign = 256;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

template <typename W, int KIND>
gp_status topk_typed(gp_context *ctx, const gpi_topk_args *a)
{
    using namespace gpi_topk;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const W flip = gpi_order::flip_for<W>(a->descending);
    const W *keys = (const W *)a->keys_in;
    const size_t n = a->n, k = a->k;
    const int sms = std::max(ctx->sm_count, 1);
    int index_bits = 1;
    while (index_bits < 64 && ((n - 1) >> index_bits) != 0) index_bits++;
    const bool composite = sizeof(W) == 4 && index_bits <= 32;
    const int index_sort_bits = (index_bits + 7) / 8 * 8;

    /* the path: all keys as candidates, a sampled threshold, or exact */
    int mode = 0;
    size_t cap = 0;
    unsigned long long r = 0;
    const size_t base_cap = 2 * k + P::min_capacity;
    if (n <= base_cap) {
        mode = 1, cap = n;
    } else if (n > P::sample) {
        const double qs = (double)k * (double)P::sample / (double)n;
        r = (unsigned long long)std::ceil(qs + 4.0 * std::sqrt(qs) + 8.0);
        if (r < P::sample) {
            const double expect = (double)r * (double)n / (double)P::sample;
            mode = 2, cap = std::max(base_cap, (size_t)(2.0 * expect));
        }
    }
    if (cap > P::max_capacity) mode = 0, cap = 0;

    /* workspace: control, exact-path state and counts, candidates, k pairs x 2, sort storage */
    cub::DoubleBuffer<W> imgs(NULL, NULL);
    cub::DoubleBuffer<unsigned long long> idxs(NULL, NULL);
    size_t sort_bytes = 0, b2 = 0;
    cudaError_t e;
    const bool big = k > UINT32_MAX;
    const int key_bits = 8 * (int)sizeof(W), composite_bits = key_bits + index_bits;
    if (composite) {
        e = big ? sort_keys<unsigned long long>(NULL, sort_bytes, idxs, k, composite_bits, st)
                : sort_keys<uint32_t>(NULL, sort_bytes, idxs, k, composite_bits, st);
    } else {
        e = big ? sort_pairs<unsigned long long>(NULL, sort_bytes, idxs, imgs, k, index_bits, st)
                : sort_pairs<uint32_t>(NULL, sort_bytes, idxs, imgs, k, index_bits, st);
        if (e == cudaSuccess)
            e = big ? sort_pairs<unsigned long long>(NULL, b2, imgs, idxs, k, key_bits, st)
                    : sort_pairs<uint32_t>(NULL, b2, imgs, idxs, k, key_bits, st);
        sort_bytes = std::max(sort_bytes, b2);
    }
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k sort size query");
    const size_t off_state = align_up(sizeof(Ctl)), off_csel = off_state + align_up(sizeof(SelectState));
    const size_t off_chist = off_csel + align_up(sizeof(CandSelect)), off_hist = off_chist + align_up(256 * 4);
    const size_t off_counts = off_hist + align_up(kBins * 8);
    const size_t off_cimg = off_counts + align_up(2 * (size_t)kMaxChunks * 8);
    const size_t off_cidx = off_cimg + align_up(cap * sizeof(W)), off_img = off_cidx + align_up(cap * 8);
    const size_t off_idx = off_img + align_up(k * sizeof(W)), off_img2 = off_idx + align_up(k * 8);
    const size_t off_idx2 = off_img2 + align_up(k * sizeof(W)), off_sort = off_idx2 + align_up(k * 8);
    char *ws = NULL;
    gp_status s = gpi_workspace_aligned(ctx, off_sort + sort_bytes, (void **)&ws);
    if (s) return s;
    Ctl *ctl = (Ctl *)ws;
    SelectState *state = (SelectState *)(ws + off_state);
    CandSelect *csel = (CandSelect *)(ws + off_csel);
    unsigned int *chist = (unsigned int *)(ws + off_chist);
    unsigned long long *hist = (unsigned long long *)(ws + off_hist);
    unsigned long long *below = (unsigned long long *)(ws + off_counts), *equal = below + kMaxChunks;
    W *cand_img = (W *)(ws + off_cimg), *img = (W *)(ws + off_img), *img2 = (W *)(ws + off_img2);
    unsigned long long *cand_idx = (unsigned long long *)(ws + off_cidx);
    unsigned long long *idx = (unsigned long long *)(ws + off_idx), *idx2 = (unsigned long long *)(ws + off_idx2);

    /* the sampled path (its kernels return at once when the exact one runs) */
    e = cudaMemsetAsync(ws, 0, off_counts, st); /* control, states, histograms */
    if (e == cudaSuccess) {
        topk_threshold<W, KIND><<<1, kSelThreads, 0, st>>>(ctl, csel, keys, n, flip, mode, P::sample, r, k);
        if (mode) {
            const bool vec = (uintptr_t)keys % 16 == 0;
            /* persistent blocks, as many as fit at once (each loops over rounds) */
            int per_sm = 0;
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &per_sm, vec ? topk_filter<W, KIND, true> : topk_filter<W, KIND, false>, P::threads, 0) !=
                cudaSuccess)
                (void)cudaGetLastError(), per_sm = 1;
            per_sm = std::max(1, std::min(per_sm, P::blocks_per_sm));
            const size_t rounds = (n / (16 / sizeof(W)) + 32 * P::vectors - 1) / (32 * P::vectors);
            const unsigned grid = (unsigned)std::min<size_t>(
                std::max<size_t>(rounds / (P::threads / 32), 1), (size_t)sms * per_sm);
            if (vec)
                topk_filter<W, KIND, true><<<grid, P::threads, 0, st>>>(ctl, keys, n, flip, cap, cand_img, cand_idx);
            else
                topk_filter<W, KIND, false><<<grid, P::threads, 0, st>>>(ctl, keys, n, flip, cap, cand_img,
                                                                         cand_idx);
            /* the candidate passes: enough blocks to fill the GPU once at most */
            const unsigned pgrid = (unsigned)std::min<size_t>(
                std::max<size_t>((cap + P::pass_items - 1) / P::pass_items, 1), (size_t)sms * P::pass_blocks_per_sm);
            for (int shift = key_bits - 8; shift >= 0; shift -= 8)
                topk_cand_pass<W, false><<<pgrid, kCandThreads, 0, st>>>(ctl, csel, chist, k, cap, cand_img, cand_idx,
                                                                         shift, key_bits);
            for (int shift = index_sort_bits - 8; shift >= 0; shift -= 8)
                topk_cand_pass<W, true><<<pgrid, kCandThreads, 0, st>>>(ctl, csel, chist, k, cap, cand_img, cand_idx,
                                                                        shift, index_sort_bits);
            topk_take<W><<<(unsigned)std::min<size_t>(gpi_stride_blocks(cap, P::threads), (size_t)sms * 8),
                           P::threads, 0, st>>>(ctl, cand_img, cand_idx, img, idx);
        }
        e = cudaGetLastError();
    }
    /* the exact path */
    const size_t hist_grid = std::max<size_t>(std::min<size_t>(gpi_stride_blocks(n, kThreads), (size_t)sms * 4),
                                              (n >> 31) + 1);
    size_t chunk = (n + kMaxChunks - 1) / kMaxChunks;
    chunk = std::max<size_t>((chunk + kThreads - 1) / kThreads * kThreads, (size_t)kThreads * 16);
    const int chunks = (int)((n + chunk - 1) / chunk);
    for (int shift = (int)(8 * sizeof(W)) - 8; e == cudaSuccess && shift >= 0; shift -= 8) {
        const bool first = shift == (int)(8 * sizeof(W)) - 8;
        exact_histogram<W, KIND><<<(unsigned)hist_grid, kThreads, 0, st>>>(ctl, keys, n, flip, state, shift, hist);
        exact_digit<<<1, kBins, 0, st>>>(ctl, state, hist, shift, first, k);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) {
        exact_count<W, KIND><<<chunks, kThreads, 0, st>>>(ctl, keys, n, chunk, flip, state, below, equal);
        exact_scan<<<1, kScanThreads, 0, st>>>(ctl, below, equal, chunks);
        exact_scatter<W, KIND><<<chunks, kThreads, 0, st>>>(ctl, keys, n, chunk, flip, state, k, below, equal, img,
                                                            idx);
        e = cudaGetLastError();
    }
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k select");

    /* the k pairs by (image, index) */
    const unsigned kgrid = gpi_stride_blocks(k, P::threads);
    unsigned long long index_mask = ~0ull;
    idxs = cub::DoubleBuffer<unsigned long long>(idx, idx2);
    imgs = cub::DoubleBuffer<W>(img, img2);
    if (composite) {
        topk_pack<W><<<kgrid, P::threads, 0, st>>>(img, idx, k, index_bits);
        e = big ? sort_keys<unsigned long long>(ws + off_sort, sort_bytes, idxs, k, composite_bits, st)
                : sort_keys<uint32_t>(ws + off_sort, sort_bytes, idxs, k, composite_bits, st);
        index_mask = index_bits >= 64 ? ~0ull : (1ull << index_bits) - 1;
    } else {
        e = big ? sort_pairs<unsigned long long>(ws + off_sort, sort_bytes, idxs, imgs, k, index_bits, st)
                : sort_pairs<uint32_t>(ws + off_sort, sort_bytes, idxs, imgs, k, index_bits, st);
        if (e == cudaSuccess)
            e = big ? sort_pairs<unsigned long long>(ws + off_sort, sort_bytes, imgs, idxs, k, key_bits, st)
                    : sort_pairs<uint32_t>(ws + off_sort, sort_bytes, imgs, idxs, k, key_bits, st);
    }
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "top-k sort");
    if (a->value_size == 4)
        gather_out<W, uint32_t><<<kgrid, P::threads, 0, st>>>(keys, idxs.Current(), index_mask, k, (W *)a->keys_out,
                                                              (const uint32_t *)a->values_in,
                                                              (uint32_t *)a->values_out);
    else
        gather_out<W, uint64_t><<<kgrid, P::threads, 0, st>>>(keys, idxs.Current(), index_mask, k, (W *)a->keys_out,
                                                              (const uint64_t *)a->values_in,
                                                              (uint64_t *)a->values_out);
    return gpi_cuda_status(ctx, cudaGetLastError(), "top-k output");
}

}  // namespace

#define GPI_TOPK_CALL(W, KIND) topk_typed<W, KIND>(ctx, a)

extern "C" gp_status gpi_cuda_topk(gp_context *ctx, const gpi_topk_args *a)
{
    GPI_DISPATCH_KEY(a->key_dtype, GPI_TOPK_CALL)
    return gpi_error(ctx, GP_ERROR_INTERNAL, "top-k: unchecked key dtype %d", (int)a->key_dtype);
}
