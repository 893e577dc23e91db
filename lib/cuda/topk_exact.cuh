/* SPDX-License-Identifier: BSD-3-Clause */
/* topk_exact.cuh - top-k's exact multi-pass select, for inputs the sampled
 * one-pass select cannot take (ties around the k-th key that overflow its
 * candidate capacity, or k too large for it). The kernels are always
 * launched and do nothing unless the control block says this path runs,
 * so the choice never comes back to the host.
 *   1. radix select, 8 bits a pass from the top: a histogram of the current
 *      digit over the keys that match the digits chosen so far, then one
 *      block picks the digit whose bucket holds the k-th key. After the last
 *      digit the k-th image T is known, and `remaining` says how many keys
 *      equal to T belong to the result;
 *   2. compaction in index order: each block counts, in its contiguous
 *      chunk, the keys below T and those equal to T; one block scans the
 *      counts; each block then writes its keys below T, and its keys equal
 *      to T whose rank among all of them is below `remaining`, with their
 *      indices. Exactly k (image, index) pairs come out. */
#pragma once

#include "order_image.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace gpi_topk {

/* The device-side state of one top-k call. */
struct Ctl {
    unsigned long long threshold; /* sampled path: candidates are the images <= this */
    unsigned long long count;     /* candidates appended (may pass the capacity) */
    unsigned long long taken;     /* pairs written by the final compaction */
    unsigned long long kth;       /* the k-th image */
    unsigned long long kth_index; /* the largest index taken among the keys equal to kth */
    int exact;                    /* 1: the exact multi-pass path runs */
};

struct SelectState {
    unsigned long long prefix;    /* the digits chosen so far (image bits above the current digit) */
    unsigned long long remaining; /* keys still to find among those matching prefix */
};

constexpr int kThreads = 256;
constexpr int kBins = 256;
constexpr int kScanThreads = 1024; /* the counts scan: one block, kMaxChunks at most */
constexpr int kMaxChunks = kScanThreads;

/* Histogram of digit (image >> shift) & 255 over keys whose image matches
 * the state's prefix above the digit. Per-block counts fit 32 bits: the
 * grid is sized so no block sees 2^31 keys. */
template <typename W, int KIND>
__global__ void __launch_bounds__(kThreads)
    exact_histogram(const Ctl *ctl, const W *__restrict__ keys, size_t n, W flip, const SelectState *state,
                    int shift, unsigned long long *__restrict__ hist)
{
    if (!ctl->exact) return;
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
    exact_digit(const Ctl *ctl, SelectState *state, unsigned long long *hist, int shift, int first,
                unsigned long long k)
{
    if (!ctl->exact) return;
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
    exact_count(const Ctl *ctl, const W *__restrict__ keys, size_t n, size_t chunk, W flip, const SelectState *state,
                unsigned long long *below, unsigned long long *equal)
{
    if (!ctl->exact) return;
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
__global__ void __launch_bounds__(kScanThreads)
    exact_scan(const Ctl *ctl, unsigned long long *below, unsigned long long *equal, int chunks)
{
    if (!ctl->exact) return;
    typedef cub::BlockScan<unsigned long long, kScanThreads> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const int i = threadIdx.x;
    unsigned long long b = i < chunks ? below[i] : 0, e = i < chunks ? equal[i] : 0, bx, ex;
    Scan(tmp).ExclusiveSum(b, bx);
    __syncthreads();
    Scan(tmp).ExclusiveSum(e, ex);
    if (i < chunks) below[i] = bx, equal[i] = ex;
}

/* Write each chunk's pairs in index order: keys below T at their rank
 * among them, keys equal to T at (k - remaining) + their rank among the
 * equal ones, while that rank is below remaining. */
template <typename W, int KIND>
__global__ void __launch_bounds__(kThreads)
    exact_scatter(const Ctl *ctl, const W *__restrict__ keys, size_t n, size_t chunk, W flip,
                  const SelectState *state, unsigned long long k, const unsigned long long *below_off,
                  const unsigned long long *equal_off, W *out_img, unsigned long long *out_idx)
{
    if (!ctl->exact) return;
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
            out_img[at] = u, out_idx[at] = i;
        } else if (flags) {
            const unsigned long long r = oe + (rank >> 16);
            if (r < remaining) out_img[n_below + r] = u, out_idx[n_below + r] = i;
        }
        ob += total & 0xffffu;
        oe += total >> 16;
    }
}

} // namespace gpi_topk
