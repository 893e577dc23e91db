/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/radix.cuh - every knob of gpuprim's own LSD radix sort
 * (radix_sort.cu, radix/). The GPI_RADIX_* macros exist for tuning runs on
 * the GPU machine (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_RADIX_CUH
#define GPUPRIM_CUDA_POLICY_RADIX_CUH

#include <stddef.h>

namespace gpi_radix {

/* Digits of 8 bits: 256 bins, one per thread of a 256-thread block. */
constexpr int kDigitBits = 8;
constexpr int kBins = 1 << kDigitBits;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
/* At most 64 key bits: 8 digit passes. */
constexpr int kMaxPasses = 8;

/* Keys per thread of the upfront histogram kernel (64 bytes of keys), and
 * its grid cap in blocks per SM (each block then loops over tiles and adds
 * its shared histograms to the global ones once). */
#ifndef GPI_RADIX_HIST_ITEMS_K4
#define GPI_RADIX_HIST_ITEMS_K4 16
#endif
#ifndef GPI_RADIX_HIST_ITEMS_K8
#define GPI_RADIX_HIST_ITEMS_K8 8
#endif
#ifndef GPI_RADIX_HIST_BLOCKS_PER_SM
#define GPI_RADIX_HIST_BLOCKS_PER_SM 8
#endif
template <size_t KEY>
struct hist_items {
    static constexpr int value = KEY == 4 ? GPI_RADIX_HIST_ITEMS_K4 : GPI_RADIX_HIST_ITEMS_K8;
};

/* Keys per thread of a digit pass's tile, by key and value size: a tile
 * stages its keys and values in shared memory, which must stay within the
 * 48 KB of static shared memory (tile * (key + value) bytes + ~1.2 KB). */
#ifndef GPI_RADIX_ITEMS_K4
#define GPI_RADIX_ITEMS_K4 16 /* 4-byte keys alone: 4096-key tiles, 16 KB */
#endif
#ifndef GPI_RADIX_ITEMS_K4_V4
#define GPI_RADIX_ITEMS_K4_V4 16 /* 32 KB */
#endif
#ifndef GPI_RADIX_ITEMS_K4_V8
#define GPI_RADIX_ITEMS_K4_V8 12 /* 36 KB */
#endif
#ifndef GPI_RADIX_ITEMS_K8
#define GPI_RADIX_ITEMS_K8 16 /* 32 KB */
#endif
#ifndef GPI_RADIX_ITEMS_K8_V4
#define GPI_RADIX_ITEMS_K8_V4 12 /* 36 KB */
#endif
#ifndef GPI_RADIX_ITEMS_K8_V8
#define GPI_RADIX_ITEMS_K8_V8 11 /* 44 KB */
#endif

template <size_t KEY, size_t VALUE>
struct pass_items {
    static constexpr int value = KEY == 4 ? (VALUE == 0 ? GPI_RADIX_ITEMS_K4
                                             : VALUE == 4 ? GPI_RADIX_ITEMS_K4_V4
                                                          : GPI_RADIX_ITEMS_K4_V8)
                                          : (VALUE == 0 ? GPI_RADIX_ITEMS_K8
                                             : VALUE == 4 ? GPI_RADIX_ITEMS_K8_V4
                                                          : GPI_RADIX_ITEMS_K8_V8);
};

/* Resident blocks per SM asked of the compiler for a digit pass (the
 * launch bound: caps registers at 65536 / (256 * this)). More resident
 * blocks hide the latency of the shared-memory ranking; 4-byte keys alone
 * fit in 64 registers (4 blocks), 8-byte keys and pairs need more. */
#ifndef GPI_RADIX_MIN_BLOCKS_K4
#define GPI_RADIX_MIN_BLOCKS_K4 4
#endif
#ifndef GPI_RADIX_MIN_BLOCKS_K8
#define GPI_RADIX_MIN_BLOCKS_K8 3
#endif
#ifndef GPI_RADIX_MIN_BLOCKS_PAIRS
#define GPI_RADIX_MIN_BLOCKS_PAIRS 3
#endif
template <size_t KEY, size_t VALUE>
struct pass_min_blocks {
    static constexpr int value = VALUE != 0 ? GPI_RADIX_MIN_BLOCKS_PAIRS
                                            : KEY == 4 ? GPI_RADIX_MIN_BLOCKS_K4 : GPI_RADIX_MIN_BLOCKS_K8;
};

/* Nanoseconds a thread waits between looks at a predecessor tile that has
 * published nothing yet (0: spin). */
#ifndef GPI_RADIX_POLL_NS
#define GPI_RADIX_POLL_NS 0
#endif

/* Status words pack a 2-bit flag above a 30-bit count, so the sort takes
 * fewer than 2^30 keys; larger inputs go to CUB. */
constexpr size_t kMaxKeys = ((size_t)1 << 30) - 1;

}  // namespace gpi_radix

#endif
