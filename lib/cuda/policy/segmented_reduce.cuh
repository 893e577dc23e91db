/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/segmented_reduce.cuh - the shape of the device segmented reduce's
 * item-balanced path (segmented_reduce_tiles.cuh). Free knobs: that path
 * runs only for the exact operators, whose results do not depend on the
 * order of the operations. */
#ifndef GPUPRIM_CUDA_POLICY_SEGMENTED_REDUCE_CUH
#define GPUPRIM_CUDA_POLICY_SEGMENTED_REDUCE_CUH

namespace gpi {

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
