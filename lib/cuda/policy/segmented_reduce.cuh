/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/segmented_reduce.cuh - the shape of the device segmented reduce's
 * item-balanced path (segmented_reduce_tiles.cuh). Free knobs: that path
 * runs only for the exact operators, whose results do not depend on the
 * order of the operations. */
#ifndef GPUPRIM_CUDA_POLICY_SEGMENTED_REDUCE_CUH
#define GPUPRIM_CUDA_POLICY_SEGMENTED_REDUCE_CUH

namespace gpi {

/* Resident tiles an SM, the tile kernel's launch bound: 5 holds it to 51
 * registers, and five tiles' warps hide the latency of the segment search
 * and the loads better than the spills (the Min/Max and 8-byte forms
 * spill) cost; unbounded it takes 80 registers, three tiles; 6 or more
 * spill too much. 0: no bound (1 is a bound, and a worse one). The
 * GPI_SEGREDUCE_MIN_BLOCKS macro exists for tuning runs on the GPU machine
 * (-D at build time). */
#ifndef GPI_SEGREDUCE_MIN_BLOCKS
#define GPI_SEGREDUCE_MIN_BLOCKS 5
#endif
#if GPI_SEGREDUCE_MIN_BLOCKS > 0
#define GPI_SEGREDUCE_BOUNDS(threads) __launch_bounds__(threads, GPI_SEGREDUCE_MIN_BLOCKS)
#else
#define GPI_SEGREDUCE_BOUNDS(threads) __launch_bounds__(threads)
#endif

struct segreduce_policy {
    static constexpr int threads = 256;          /* a tile's block */
    static constexpr int vectors_per_thread = 4; /* 16-byte vectors: a tile is threads x 64 bytes */
    static constexpr int fixup_threads = 256;    /* the tile-crossing pass: a warp per tile */
    static constexpr int partition_threads = 256;
    /* The item-balanced path runs while the mean segment is at most this many
     * tiles long (and n is more than one tile); longer segments go to the
     * tree path, which spreads each one over the whole GPU. */
    static constexpr unsigned max_mean_tiles = 16;

    static_assert(threads % 32 == 0 && threads / 32 <= 32, "whole warps, warp totals scanned by one warp");
};

} // namespace gpi

#endif
