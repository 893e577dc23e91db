/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/merge.cuh - the merge kernel's tile shape and the partition's
 * levels (merge.cu). The GPI_MERGE_* macros exist for tuning runs on the GPU
 * machine (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_MERGE_CUH
#define GPUPRIM_CUDA_POLICY_MERGE_CUH

#include <stddef.h>

#ifndef GPI_MERGE_THREADS
#define GPI_MERGE_THREADS 256
#endif
#ifndef GPI_MERGE_ITEMS_K4
#define GPI_MERGE_ITEMS_K4 15
#endif
#ifndef GPI_MERGE_ITEMS_K8
#define GPI_MERGE_ITEMS_K8 7
#endif
#ifndef GPI_MERGE_MIN_BLOCKS_KEYS
#define GPI_MERGE_MIN_BLOCKS_KEYS 7
#endif
#ifndef GPI_MERGE_COARSE
#define GPI_MERGE_COARSE 32
#endif
#ifndef GPI_MERGE_COARSE_LANES
#define GPI_MERGE_COARSE_LANES 8
#endif

namespace gpi {

/* A tile is threads x items outputs; its keys sit in shared memory twice,
 * as loaded and as merged (about 30 KiB for either key width), the source
 * positions of pairs in 16 bits. items is odd: a thread's outputs sit at
 * stride `items` in shared memory, so a warp's accesses to them fall in
 * distinct banks. */
template <size_t KEY_BYTES>
struct merge_policy {
    static constexpr int threads = GPI_MERGE_THREADS;
    static constexpr int items = KEY_BYTES == 4 ? GPI_MERGE_ITEMS_K4 : GPI_MERGE_ITEMS_K8;
    static constexpr int tile = threads * items;
    /* resident blocks an SM (caps the registers: keys only, 7 tiles of 30
     * KiB fill the shared memory and leave 32 registers, all the kernel
     * needs; the gather of values wants more) */
    static constexpr int min_blocks(int value_bytes) { return value_bytes == 0 ? GPI_MERGE_MIN_BLOCKS_KEYS : value_bytes == 4 ? 3 : 2; }
    static constexpr int partition_threads = 256;
    /* Partition in two levels: every coarse-th tile boundary over the whole
     * inputs, coarse_lanes lanes a search (1: a thread's binary search);
     * the others within the window of their two coarse neighbours.
     * coarse 1: every boundary over the whole inputs (one level). */
    static constexpr int coarse = GPI_MERGE_COARSE;
    static constexpr int coarse_lanes = GPI_MERGE_COARSE_LANES;

    static_assert(tile <= 65536, "source positions are 16 bits");
    static_assert(items % 2 == 1, "odd items: conflict-free strided shared accesses");
    static_assert(coarse >= 1, "every coarse-th boundary: at least every one");
    static_assert(coarse_lanes >= 1 && coarse_lanes <= 32 && (coarse_lanes & (coarse_lanes - 1)) == 0,
                  "a coarse search's lanes: a power of two within a warp");
    static_assert(partition_threads % 32 == 0, "whole warps: a coarse search's lanes share one");
};

} // namespace gpi

#endif
