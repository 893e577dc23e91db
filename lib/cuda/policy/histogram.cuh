/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/histogram.cuh - the device histograms' kernel shape
 * (histogram.cu). Free knobs: counts are exact whatever they are. Each can
 * be overridden with -D at build time for tuning runs. */
#ifndef GPUPRIM_CUDA_POLICY_HISTOGRAM_CUH
#define GPUPRIM_CUDA_POLICY_HISTOGRAM_CUH

#include <stddef.h>

#ifndef GPI_HIST_THREADS
#define GPI_HIST_THREADS 512
#endif
#ifndef GPI_HIST_UNROLL
#define GPI_HIST_UNROLL 4 /* 16-byte vectors in flight per thread */
#endif
#ifndef GPI_HIST_MAX_CHUNKS
#define GPI_HIST_MAX_CHUNKS 8 /* past this many chunks of bins: the global kernel */
#endif
#ifndef GPI_HIST_COPIES_BYTES
#define GPI_HIST_COPIES_BYTES 32768 /* per-lane copies (32) of a chunk up to this */
#endif
#ifndef GPI_HIST_TABLE_BYTES
#define GPI_HIST_TABLE_BYTES 16384 /* boundaries kept in shared memory up to this */
#endif

namespace gpi {

struct hist_policy {
    static constexpr int threads = GPI_HIST_THREADS;
    static constexpr int warps = threads / 32;
    static constexpr int unroll = GPI_HIST_UNROLL;
    static constexpr unsigned max_chunks = GPI_HIST_MAX_CHUNKS;
    static constexpr size_t copies_bytes = GPI_HIST_COPIES_BYTES;
    static constexpr size_t table_bytes = GPI_HIST_TABLE_BYTES;
    static constexpr long long max_segment = 1ll << 30; /* samples a block counts in 32-bit counters */

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
};

} // namespace gpi

#endif
