/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/compact.cuh - every knob of the device compaction (compact.cu).
 * The GPI_COMPACT_* macros exist for tuning runs on the GPU machine (-D at
 * build time); the defaults are the measured best. */
#ifndef GPUPRIM_CUDA_POLICY_COMPACT_CUH
#define GPUPRIM_CUDA_POLICY_COMPACT_CUH

#include "../lookback.cuh"

namespace gpi {

#ifndef GPI_COMPACT_VECTORS
#define GPI_COMPACT_VECTORS 8
#endif
#ifndef GPI_COMPACT_MIN_BLOCKS
#define GPI_COMPACT_MIN_BLOCKS 4
#endif
#ifndef GPI_COMPACT_DELAY_FIRST
#define GPI_COMPACT_DELAY_FIRST 2000
#endif
#ifndef GPI_COMPACT_DELAY_POLL
#define GPI_COMPACT_DELAY_POLL 700
#endif

struct compact_policy {
    static constexpr int threads = 256;
    static constexpr int vectors = GPI_COMPACT_VECTORS; /* vectors per thread per tile */
    /* resident tiles per SM with 32-bit counts (the launch bound): caps registers at 64 */
    static constexpr int min_blocks = GPI_COMPACT_MIN_BLOCKS;
    static constexpr lookback_delay delay = {GPI_COMPACT_DELAY_FIRST, GPI_COMPACT_DELAY_POLL};

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert((threads / 32 * vectors) % 32 == 0, "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert((long long)threads * vectors * 4 <= 65536, "gp_compact_indices stages 16-bit tile positions");
    static_assert(min_blocks >= 1, "launch bounds want at least one block");
};

} // namespace gpi

#endif
