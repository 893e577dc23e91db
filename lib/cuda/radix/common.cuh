/* SPDX-License-Identifier: BSD-3-Clause */
/* radix/common.cuh - what the kernels of gpuprim's own LSD radix sort
 * share: the device-side plan, digit extraction, the look-back status
 * words, a 256-thread block scan.
 *
 * The sort runs an upfront histogram kernel (histogram.cuh) and then one
 * kernel per digit pass (onesweep.cuh). Which passes run, and between which
 * buffers, is decided on the device from the histograms (a pass whose digit
 * is the same for every key moves nothing and is skipped), so the host never
 * waits: the histogram kernel's last block writes a radix_plan that the pass
 * kernels and the finishing copy (finish_kernel) read. */
#ifndef GPUPRIM_CUDA_RADIX_COMMON_CUH
#define GPUPRIM_CUDA_RADIX_COMMON_CUH

#include "../order_image.cuh"
#include "../policy/radix.cuh"

#include <cuda_runtime.h>

#include <stdint.h>

namespace gpi_radix {

/* Keys only: the value type of a sort without values. */
struct no_value {};

/* The buffers of one sort, as the host gives them. The sorted keys (and
 * values) must end in keys_out (vals_out); keys_alt (vals_alt) is a second
 * buffer of n the passes alternate with. keys_in is only read, unless it is
 * keys_alt itself (the double-buffer form, which then runs every pass).
 * vals_in NULL with vals_out set: the values are the keys' input indices. */
struct buffers {
    const void *keys_in;
    void *keys_out, *keys_alt;
    const void *vals_in;
    void *vals_out, *vals_alt; /* NULL: keys only */
    int allow_skip;            /* skip passes whose digit is constant over all keys */
};

/* Written by the histogram kernel's last block. Pass p (active or not)
 * reads src and writes dst; `ordinal` counts the active passes before it
 * (it picks the look-back status buffer). The finish step copies what did
 * not end in the outputs: finish_keys_from / finish_vals_from (NULL: none),
 * or writes the indices (no pass ran and the values are indices). */
struct plan {
    const void *src_keys[kMaxPasses];
    void *dst_keys[kMaxPasses];
    const void *src_vals[kMaxPasses];
    void *dst_vals[kMaxPasses];
    uint32_t active[kMaxPasses];
    uint32_t ordinal[kMaxPasses];
    const void *finish_keys_from;
    const void *finish_vals_from;
    uint32_t finish_iota;
    uint32_t finish;
};

/* Zeroed before the histogram kernel: the tile counters of the passes (a
 * block takes the next tile in launch order from its pass's counter, so a
 * tile's predecessors are always running or done and the look-back cannot
 * deadlock), the count of finished histogram blocks, the histograms. */
struct control {
    uint32_t tile_counter[kMaxPasses];
    uint32_t blocks_done;
    uint32_t pad[7];
    uint32_t hist[kMaxPasses * kBins];
};

/* Look-back status word: a 2-bit flag above a 30-bit count. */
constexpr uint32_t kFlagShift = 30;
constexpr uint32_t kCountMask = (1u << kFlagShift) - 1;
constexpr uint32_t kFlagAggregate = 1u << kFlagShift; /* this tile's own count */
constexpr uint32_t kFlagInclusive = 2u << kFlagShift; /* count through this tile */

/* Bits [shift, shift + width) of pass `pass` over [begin_bit, end_bit). */
__host__ __device__ __forceinline__ int pass_shift(int begin_bit, int pass) { return begin_bit + kDigitBits * pass; }
__host__ __device__ __forceinline__ uint32_t pass_mask(int begin_bit, int end_bit, int pass)
{
    const int left = end_bit - pass_shift(begin_bit, pass);
    return left >= kDigitBits ? (uint32_t)(kBins - 1) : (1u << left) - 1;
}
__host__ __device__ __forceinline__ int pass_count(int begin_bit, int end_bit)
{
    return (end_bit - begin_bit + kDigitBits - 1) / kDigitBits;
}

/* The digit of raw key bits: its order image (flip: descending), shifted. */
template <typename K, int KIND>
__device__ __forceinline__ uint32_t digit_of(K raw, K flip, int shift, uint32_t mask)
{
    return (uint32_t)(gpi_order::image<K, KIND>(raw, flip) >> shift) & mask;
}

__device__ __forceinline__ void store_status(uint32_t *p, uint32_t w) { *(volatile uint32_t *)p = w; }
__device__ __forceinline__ uint32_t load_status(const uint32_t *p) { return *(volatile const uint32_t *)p; }

/* Exclusive sum of one value per thread of a kThreads-thread block.
 * s_warp: kWarps words of shared memory. Every thread must call it; it
 * ends with a barrier, so it may be called again at once. */
__device__ __forceinline__ uint32_t block_exclusive_sum(uint32_t v, uint32_t *s_warp)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t x = v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off) x += y;
    }
    if (lane == 31) s_warp[warp] = x;
    __syncthreads();
    uint32_t before = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
        if (w < warp) before += s_warp[w];
    __syncthreads();
    return before + x - v;
}

}  // namespace gpi_radix

#endif
