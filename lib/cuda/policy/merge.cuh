/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/merge.cuh - the merge kernel's tile shape and the partition's
 * levels (merge.cu). The GPI_MERGE_* macros exist for tuning runs on the GPU
 * machine (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_MERGE_CUH
#define GPUPRIM_CUDA_POLICY_MERGE_CUH

#include <stddef.h>

/* Pairs: the tile shape (the value gather wants registers: three tiles an
 * SM with 4-byte values, two with 8-byte ones). */
#ifndef GPI_MERGE_THREADS
#define GPI_MERGE_THREADS 256
#endif
#ifndef GPI_MERGE_ITEMS_K4
#define GPI_MERGE_ITEMS_K4 15
#endif
#ifndef GPI_MERGE_ITEMS_K8
#define GPI_MERGE_ITEMS_K8 7
#endif
/* Keys only: the tile shape and the resident tiles an SM (the launch
 * bound, which caps the registers at 32). 256 x 11 four-byte keys, 8 tiles
 * of 2 x 11 KiB an SM, merged fastest of the shapes measured (larger tiles
 * and 512-thread tiles were slower, bench/RESULTS.md); the price, more tile
 * boundaries for the partition to search, is smaller than the gain. */
#ifndef GPI_MERGE_KEYS_THREADS
#define GPI_MERGE_KEYS_THREADS 256
#endif
#ifndef GPI_MERGE_KEYS_ITEMS_K4
#define GPI_MERGE_KEYS_ITEMS_K4 11
#endif
#ifndef GPI_MERGE_KEYS_ITEMS_K8
#define GPI_MERGE_KEYS_ITEMS_K8 7
#endif
#ifndef GPI_MERGE_MIN_BLOCKS_KEYS
#define GPI_MERGE_MIN_BLOCKS_KEYS 8
#endif
#ifndef GPI_MERGE_MIN_BLOCKS_KEYS_K8
#define GPI_MERGE_MIN_BLOCKS_KEYS_K8 7
#endif
#ifndef GPI_MERGE_COARSE
#define GPI_MERGE_COARSE 32
#endif
#ifndef GPI_MERGE_COARSE_LANES
#define GPI_MERGE_COARSE_LANES 8
#endif

namespace gpi {

/* A tile is threads x items outputs, its keys in shared memory twice, as
 * loaded and as merged, the source positions of pairs in 16 bits. items
 * is odd: a thread's outputs sit at stride `items` in shared memory, so a
 * warp's accesses to them fall in distinct banks. VALUE_BYTES 0: keys
 * only. */
template <size_t KEY_BYTES, size_t VALUE_BYTES>
struct merge_policy {
    static constexpr bool keys_only = VALUE_BYTES == 0;
    static constexpr int threads = keys_only ? GPI_MERGE_KEYS_THREADS : GPI_MERGE_THREADS;
    static constexpr int items = keys_only ? (KEY_BYTES == 4 ? GPI_MERGE_KEYS_ITEMS_K4 : GPI_MERGE_KEYS_ITEMS_K8)
                                           : (KEY_BYTES == 4 ? GPI_MERGE_ITEMS_K4 : GPI_MERGE_ITEMS_K8);
    static constexpr int tile = threads * items;
    /* resident blocks an SM (8-byte keys: 7 tiles of 2 x 14 KiB fill the
     * shared memory) */
    static constexpr int min_blocks = keys_only ? (KEY_BYTES == 4 ? GPI_MERGE_MIN_BLOCKS_KEYS : GPI_MERGE_MIN_BLOCKS_KEYS_K8)
                                                : VALUE_BYTES == 4 ? 3 : 2;
    static constexpr int partition_threads = 256;
    /* Partition in two levels: every coarse-th tile boundary over the whole
     * inputs, coarse_lanes lanes a search (1: a thread's binary search);
     * the others within the window of their two coarse neighbours.
     * coarse 1: every boundary over the whole inputs (one level). */
    static constexpr int coarse = GPI_MERGE_COARSE;
    static constexpr int coarse_lanes = GPI_MERGE_COARSE_LANES;

    static_assert(tile <= 65536, "source positions are 16 bits");
    static_assert(items % 2 == 1, "odd items: conflict-free strided shared accesses");
    static_assert(min_blocks >= 1, "launch bounds want at least one block");
    static_assert(coarse >= 1, "every coarse-th boundary: at least every one");
    static_assert(coarse_lanes >= 1 && coarse_lanes <= 32 && (coarse_lanes & (coarse_lanes - 1)) == 0,
                  "a coarse search's lanes: a power of two within a warp");
    static_assert(partition_threads % 32 == 0, "whole warps: a coarse search's lanes share one");
};

} // namespace gpi

#endif
