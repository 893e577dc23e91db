/* SPDX-License-Identifier: BSD-3-Clause */
/* radix/histogram.cuh - the sort's upfront pass: the histograms of every
 * digit position at once, then (last block) their exclusive scans and the
 * plan of the digit passes (common.cuh).
 *
 * Each block counts its tiles' digits in shared memory and adds its
 * histograms to the global ones in control (zeroed before the launch). It
 * also zeroes its share of the first pass's look-back status. The block
 * that finishes last (a counter after a fence) scans the histograms into
 * each pass's digit offsets and writes the plan. */
#ifndef GPUPRIM_CUDA_RADIX_HISTOGRAM_CUH
#define GPUPRIM_CUDA_RADIX_HISTOGRAM_CUH

#include "common.cuh"

namespace gpi_radix {

/* Thread 0 of the last block: the buffers each active pass reads and
 * writes, and what the finish step copies. With k active passes the
 * destinations alternate between out and alt so that the last one is out;
 * when the input is the output (in place) and k is odd, the first pass
 * cannot write out (it reads it), so they alternate the other way round and
 * the finish step copies alt back. */
__device__ __noinline__ void write_plan(plan *pl, const buffers &b, const uint32_t *active, int passes)
{
    int k = 0;
    for (int p = 0; p < passes; p++) k += active[p] ? 1 : 0;
    const bool keys_flip = b.keys_in == b.keys_out && (k & 1);
    const bool pairs = b.vals_out != NULL;
    const bool vals_flip = pairs && b.vals_in == b.vals_out && (k & 1);
    const void *ks = b.keys_in, *vs = b.vals_in;
    int j = 0;
    for (int p = 0; p < kMaxPasses; p++) {
        const bool on = p < passes && active[p];
        pl->active[p] = on ? 1u : 0u;
        pl->ordinal[p] = (uint32_t)j;
        pl->src_keys[p] = pl->src_vals[p] = NULL;
        pl->dst_keys[p] = pl->dst_vals[p] = NULL;
        if (!on) continue;
        const bool to_alt_k = keys_flip ? (j % 2 == 0) : ((k - 1 - j) % 2 == 1);
        const bool to_alt_v = vals_flip ? (j % 2 == 0) : ((k - 1 - j) % 2 == 1);
        void *kd = to_alt_k ? b.keys_alt : b.keys_out;
        void *vd = pairs ? (to_alt_v ? b.vals_alt : b.vals_out) : NULL;
        pl->src_keys[p] = ks, pl->dst_keys[p] = kd;
        pl->src_vals[p] = vs, pl->dst_vals[p] = vd;
        ks = kd, vs = vd;
        j++;
    }
    if (k == 0) { /* every digit constant: the keys keep their order */
        pl->finish_keys_from = b.keys_in != b.keys_out ? b.keys_in : NULL;
        pl->finish_vals_from = pairs && b.vals_in && b.vals_in != b.vals_out ? b.vals_in : NULL;
        pl->finish_iota = pairs && !b.vals_in ? 1u : 0u;
    } else {
        pl->finish_keys_from = ks != b.keys_out ? ks : NULL;
        pl->finish_vals_from = pairs && vs != b.vals_out ? vs : NULL;
        pl->finish_iota = 0;
    }
    pl->finish = pl->finish_keys_from || pl->finish_vals_from || pl->finish_iota;
}

template <typename K, int KIND>
__global__ __launch_bounds__(kThreads) void histogram_kernel(const K *keys, uint32_t n, K flip, int begin_bit,
                                                             int end_bit, control *ctl, uint32_t *offsets, plan *pl,
                                                             buffers bufs, uint32_t *status0, uint32_t status_words)
{
    constexpr int ITEMS = hist_items<sizeof(K)>::value;
    constexpr uint32_t TILE = kThreads * ITEMS;
    __shared__ uint32_t s_hist[kMaxPasses * kBins];
    __shared__ uint32_t s_warp[kWarps];
    __shared__ uint32_t s_active[kMaxPasses];
    __shared__ bool s_last;
    const int tid = threadIdx.x, lane = tid & 31;
    const int passes = pass_count(begin_bit, end_bit);

    for (int i = tid; i < passes * kBins; i += kThreads) s_hist[i] = 0;
    __syncthreads();

    for (uint32_t tile = blockIdx.x; (size_t)tile * TILE < n; tile += gridDim.x) {
        const uint32_t base = tile * TILE;
        const bool full = n - base >= TILE; /* uniform over the block */
        K k[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t idx = base + i * kThreads + tid;
            k[i] = full || idx < n ? keys[idx] : K(0);
        }
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const bool valid = full || base + i * kThreads + tid < n;
            const K img = gpi_order::image<K, KIND>(k[i], flip);
            const K img0 = full ? __shfl_sync(0xffffffffu, img, 0) : img; /* lane 0's key, once for all passes */
            for (int p = 0; p < passes; p++) {
                const int sh = pass_shift(begin_bit, p);
                const uint32_t m = pass_mask(begin_bit, end_bit, p);
                const uint32_t d = (uint32_t)(img >> sh) & m;
                if (full) { /* a warp whose digits agree adds once (skewed data, constant digits) */
                    const uint32_t d0 = (uint32_t)(img0 >> sh) & m;
                    if (__all_sync(0xffffffffu, d == d0)) {
                        if (lane == 0) atomicAdd(&s_hist[p * kBins + d], 32u);
                        continue;
                    }
                }
                if (valid) atomicAdd(&s_hist[p * kBins + d], 1u);
            }
        }
    }
    __syncthreads();
    for (int i = tid; i < passes * kBins; i += kThreads) {
        const uint32_t c = s_hist[i];
        if (c) atomicAdd(&ctl->hist[i], c);
    }
    for (uint32_t i = blockIdx.x * kThreads + tid; i < status_words; i += gridDim.x * kThreads) status0[i] = 0;

    /* The last block to finish plans the passes. */
    __threadfence();
    __syncthreads();
    if (tid == 0) s_last = atomicAdd(&ctl->blocks_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    for (int p = 0; p < passes; p++) {
        const uint32_t c = __ldcg(&ctl->hist[p * kBins + tid]);
        offsets[p * kBins + tid] = block_exclusive_sum(c, s_warp);
        const int constant = __syncthreads_or(c == n);
        if (tid == 0) s_active[p] = bufs.allow_skip && constant ? 0u : 1u;
    }
    __syncthreads();
    if (tid == 0) write_plan(pl, bufs, s_active, passes);
}

}  // namespace gpi_radix

#endif
