/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/runs.cuh - the knobs of the runs kernel (runs_kernel.cuh:
 * reduce-by-key with exact operators, unique, unique-by-key, run-length
 * encoding). The GPI_RUNS_* macros exist for tuning runs on the GPU machine
 * (-D at build time). */
#ifndef GPUPRIM_CUDA_POLICY_RUNS_CUH
#define GPUPRIM_CUDA_POLICY_RUNS_CUH

#include "../lookback.cuh"

namespace gpi {

/* A tile: GPI_RUNS_THREADS threads x GPI_RUNS_KEY_BYTES bytes of
 * consecutive keys each (64: 16 4-byte keys, 4096 a tile; 8 8-byte keys,
 * 2048 a tile). */
#ifndef GPI_RUNS_THREADS
#define GPI_RUNS_THREADS 256
#endif
#ifndef GPI_RUNS_KEY_BYTES
#define GPI_RUNS_KEY_BYTES 64
#endif
/* Look-back delays, ns (lookback_delay). */
#ifndef GPI_RUNS_DELAY_FIRST
#define GPI_RUNS_DELAY_FIRST 1000
#endif
#ifndef GPI_RUNS_DELAY_POLL
#define GPI_RUNS_DELAY_POLL 300
#endif

/* Resident tiles per SM (the launch bound) of 4-byte keys and values whose
 * pair travels packed, with values (runs_min_blocks): uncapped,
 * reduce-by-key took 71-80 registers (3 tiles an SM, warps idle at the
 * barrier behind warp 0's look-back); 5 (51 registers) spills a little and
 * hides more of the look-back than 4; 6 is slower again. 1: no cap. Every
 * other instantiation with values stays uncapped. */
#ifndef GPI_RUNS_MIN_BLOCKS
#define GPI_RUNS_MIN_BLOCKS 5
#endif

/* The same for the calls without values (unique, run-length encoding) on
 * 4-byte keys, whose kernel takes 48 registers uncapped: 6 tiles (42
 * registers) helps the run-length encoding, 8 hurts both. 1: no cap. */
#ifndef GPI_RUNS_KEYS_MIN_BLOCKS
#define GPI_RUNS_KEYS_MIN_BLOCKS 6
#endif

struct runs_policy {
    static constexpr int threads = GPI_RUNS_THREADS;
    static constexpr int key_bytes = GPI_RUNS_KEY_BYTES;
    static constexpr int min_blocks = GPI_RUNS_MIN_BLOCKS; /* runs_kernel_capped */
    static constexpr int keys_min_blocks = GPI_RUNS_KEYS_MIN_BLOCKS;
    static constexpr lookback_delay delay = {GPI_RUNS_DELAY_FIRST, GPI_RUNS_DELAY_POLL};
    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert(threads / 32 <= 32, "warp 0 scans the warp totals, one a lane");
    static_assert(key_bytes % 16 == 0 && key_bytes / 4 <= 32, "16-byte loads; a thread's head bits fit 32 bits");
};

} // namespace gpi

#endif
