/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/segmented_scan.cuh - the knobs of the single-pass segmented scan
 * (segmented_scan.cu, exact operators). The GPI_SEGSCAN_* macros exist for
 * tuning runs on the GPU machine (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_SEGMENTED_SCAN_CUH
#define GPUPRIM_CUDA_POLICY_SEGMENTED_SCAN_CUH

#include "../lookback.cuh"

namespace gpi {

/* A tile: GPI_SEGSCAN_THREADS threads x GPI_SEGSCAN_VECTORS vectors of 16
 * bytes of values (4-byte values: 4096 elements a tile; 8-byte: 2048). */
#ifndef GPI_SEGSCAN_THREADS
#define GPI_SEGSCAN_THREADS 256
#endif
#ifndef GPI_SEGSCAN_VECTORS
#define GPI_SEGSCAN_VECTORS 4
#endif
/* Look-back delays, ns (lookback_delay). */
#ifndef GPI_SEGSCAN_DELAY_FIRST
#define GPI_SEGSCAN_DELAY_FIRST 1000
#endif
#ifndef GPI_SEGSCAN_DELAY_POLL
#define GPI_SEGSCAN_DELAY_POLL 300
#endif

struct segscan_policy {
    static constexpr int threads = GPI_SEGSCAN_THREADS;
    static constexpr int vectors = GPI_SEGSCAN_VECTORS;
    static constexpr lookback_delay delay = {GPI_SEGSCAN_DELAY_FIRST, GPI_SEGSCAN_DELAY_POLL};
    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert((threads / 32 * vectors) % 32 == 0, "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(vectors * 4 <= 32, "a thread's head bits fit one 32-bit word");
};

} // namespace gpi

#endif
