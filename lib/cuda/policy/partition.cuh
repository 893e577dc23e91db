/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/partition.cuh - every knob of the device partition (partition.cu,
 * partition_kernels.cuh). The GPI_PARTITION_* macros exist for tuning runs
 * on the GPU machine (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_PARTITION_CUH
#define GPUPRIM_CUDA_POLICY_PARTITION_CUH

#include "../lookback.cuh"

namespace gpi {

#ifndef GPI_PARTITION_VECTORS
#define GPI_PARTITION_VECTORS 8
#endif
#ifndef GPI_PARTITION_MIN_BLOCKS
#define GPI_PARTITION_MIN_BLOCKS 4
#endif
#ifndef GPI_PARTITION_MASK_TILES
#define GPI_PARTITION_MASK_TILES 4
#endif
/* Counts are 32-bit up to this n, 64-bit past it. Building with 0 runs
 * every size on the 64-bit path (how the tests reach it without 2^32
 * elements). */
#ifndef GPI_PARTITION_COUNT32_MAX
#define GPI_PARTITION_COUNT32_MAX 0xffffffffull
#endif
#ifndef GPI_PARTITION_DELAY_FIRST
#define GPI_PARTITION_DELAY_FIRST 400
#endif
#ifndef GPI_PARTITION_DELAY_POLL
#define GPI_PARTITION_DELAY_POLL 200
#endif

struct partition_policy {
    static constexpr int threads = 256;                   /* both kernels */
    static constexpr int vectors = GPI_PARTITION_VECTORS; /* 16-byte vectors of elements per thread per tile */
    /* resident move tiles per SM (the launch bound): caps registers at 64 */
    static constexpr int min_blocks = GPI_PARTITION_MIN_BLOCKS;
    /* tiles whose flags one block of the mask kernel reads (one look-back step for all) */
    static constexpr int mask_tiles = GPI_PARTITION_MASK_TILES;
    static constexpr unsigned long long count32_max = GPI_PARTITION_COUNT32_MAX;
    static constexpr lookback_delay delay = {GPI_PARTITION_DELAY_FIRST, GPI_PARTITION_DELAY_POLL};

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert((threads / 32 * vectors) % 32 == 0, "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(vectors * 4 <= 32, "a thread's flags of a tile fit one 32-bit mask word");
    /* per-tile counts travel packed, two 16-bit fields in one word */
    static_assert((long long)threads * vectors * 4 * mask_tiles < 65536, "a mask block's counts fit 16 bits");
    static_assert(mask_tiles >= 1 && mask_tiles <= 32, "warp 0 scans the mask block's tiles in its lanes");
    static_assert(count32_max <= 0xffffffffull, "32-bit counts hold n");
    static_assert(min_blocks >= 1, "launch bounds want at least one block");
};

} // namespace gpi

#endif
