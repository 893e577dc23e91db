/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/find_repeats.cuh - every knob of the device find-repeats
 * (find_repeats.cu). The GPI_REPEATS_* macros exist for tuning runs on the
 * GPU machine (-D at build time); the defaults are the measured best. */
#ifndef GPUPRIM_CUDA_POLICY_FIND_REPEATS_CUH
#define GPUPRIM_CUDA_POLICY_FIND_REPEATS_CUH

#include "../lookback.cuh"

namespace gpi {

#ifndef GPI_REPEATS_VECTORS
#define GPI_REPEATS_VECTORS 8
#endif
#ifndef GPI_REPEATS_DELAY_FIRST
#define GPI_REPEATS_DELAY_FIRST 2000
#endif
#ifndef GPI_REPEATS_DELAY_POLL
#define GPI_REPEATS_DELAY_POLL 700
#endif
#ifndef GPI_REPEATS_TWOPASS_MIN_ITEMS
#define GPI_REPEATS_TWOPASS_MIN_ITEMS (6 << 20)
#endif

/* One-pass kernel, measured alternatives (H200, 2^28 int32, 3% / 50%
 * repeats; this shape: 0.383-0.390 / 0.732-0.739 ms): 6 tiles per SM
 * (launch bound; 40 registers, small spills) with the largest
 * shared-memory carve-out 0.434 / 0.716; 256 x 12 vectors 0.436-0.448 /
 * 0.707-0.711. ncu of this shape: 5 tiles per SM (registers and shared
 * memory both limit), DRAM 65%, half of the stall cycles at the look-back
 * barrier. */
struct repeats_policy {
    /* one-pass kernel and the two-pass mark kernel: the same tiles */
    static constexpr int threads = 256;
    static constexpr int vectors = GPI_REPEATS_VECTORS; /* 16-byte vectors per thread per tile */
    static constexpr lookback_delay delay = {GPI_REPEATS_DELAY_FIRST, GPI_REPEATS_DELAY_POLL};
    /* Two passes from this many elements on (H200, int32 3% repeats, one-pass /
     * two-pass us per call: 4M 19.3 / 23.6, 6M 25.4 / 25.3, 16M 43.2 / 40.3). */
    static constexpr long long twopass_min_items = GPI_REPEATS_TWOPASS_MIN_ITEMS;
    static constexpr int offsets_threads = 1024; /* the one block scanning the tiles' counts */
    static constexpr int offsets_per_thread = 16; /* counts per thread per round */
    static constexpr int expand_threads = 256;   /* a warp a tile */
    static constexpr int expand_unroll = 4;      /* loads in flight per lane, sparse records */

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert((threads / 32 * vectors) % 32 == 0, "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(offsets_threads == 1024, "warp 0 scans the offsets block's 32 warp totals, a lane each");
    static_assert(expand_threads % 32 == 0 && expand_threads <= 1024, "whole warps, one block");
};

} // namespace gpi

#endif
