/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/segmented_sort.cuh - every knob of the CUDA segmented sort
 * (segmented_sort.cu, segmented_sort_small.cuh). */
#ifndef GPUPRIM_CUDA_POLICY_SEGMENTED_SORT_CUH
#define GPUPRIM_CUDA_POLICY_SEGMENTED_SORT_CUH

#include <stdint.h>

namespace gpi_segsort {

/* Block sizes: a segment of up to kTierThreads[t] * kTierItems[t] items is
 * sorted by one block of kTierThreads[t] threads, each holding kTierItems[t]
 * keys in registers (CUB's BlockRadixSort); a segment goes to the smallest
 * tier that holds it, so padding is at most half a tile (past the first).
 * The last tier's 64 KB of 8-byte keys need dynamic shared memory. */
constexpr int kTiers = 7;
constexpr int kTierThreads[kTiers] = {32, 64, 128, 256, 256, 512, 1024};
constexpr int kTierItems[kTiers] = {4, 4, 4, 4, 8, 8, 8};
constexpr uint64_t tier_tile(int t) { return (uint64_t)kTierThreads[t] * kTierItems[t]; }
/* Longer segments are "large": each is a device radix sort of its own. */
constexpr uint64_t kSmallMax = tier_tile(kTiers - 1); /* 8192 */
/* Classes: the tiers, then large; empty segments belong to none. */
constexpr int kClasses = kTiers + 1;
constexpr int kLarge = kTiers;

/* The classification kernels: segments per block (threads x items). */
constexpr int kClassifyThreads = 256;
constexpr int kClassifyItems = 4;
constexpr uint64_t kClassifyChunk = (uint64_t)kClassifyThreads * kClassifyItems;

/* Bounds of at most this many large segments come back to the host with
 * the class counts; more large segments take the fallback. */
constexpr int kMaxLarge = 1024;

/* The host's choice between the per-segment plan and the fallback (two
 * radix sorts of all n items, segmented_sort_global.cu), by a cost model in
 * nanoseconds fitted to an H100: a device radix sort of one large segment
 * costs its launches (kLargeSortFixedNs) plus kLargeNsPerItem an item; the
 * block sorts kSmallNsPerItem an item; the fallback kGlobalNsPerItem for
 * each of the n items. */
constexpr double kLargeSortFixedNs = 30000.0;
constexpr double kLargeNsPerItem = 0.025;
constexpr double kSmallNsPerItem = 0.05;
constexpr double kGlobalNsPerItem = 0.18;

}  // namespace gpi_segsort

#endif
