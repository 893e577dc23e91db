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
 * pair travels packed, with values (runs_capped): uncapped,
 * reduce-by-key took 71-80 registers (3 tiles an SM, warps idle at the
 * barrier behind warp 0's look-back); 64 gives 4 (ptxas spills 8-24 bytes).
 * 1: no cap. Every other instantiation stays uncapped. */
#ifndef GPI_RUNS_MIN_BLOCKS
#define GPI_RUNS_MIN_BLOCKS 4
#endif

/* The pipelined kernel (runs_pipe_kernel.cuh, sm_90): tiles of
 * GPI_RUNS_PIPE_THREADS threads x GPI_RUNS_PIPE_VECTORS vectors of 16
 * bytes of keys (4096 4-byte keys, 2048 8-byte ones: the tile sizes of
 * runs_kernel), the next tile's keys and values brought into shared memory
 * by the copy engine while the block works on the current one. Resident
 * blocks per SM (the launch bound): keys alone, and with values. Look-back
 * poll delay, ns. */
#ifndef GPI_RUNS_PIPE_THREADS
#define GPI_RUNS_PIPE_THREADS 256
#endif
#ifndef GPI_RUNS_PIPE_VECTORS
#define GPI_RUNS_PIPE_VECTORS 4
#endif
#ifndef GPI_RUNS_PIPE_BLOCKS_KEYS
#define GPI_RUNS_PIPE_BLOCKS_KEYS 6
#endif
#ifndef GPI_RUNS_PIPE_BLOCKS_VALUES
#define GPI_RUNS_PIPE_BLOCKS_VALUES 3
#endif
#ifndef GPI_RUNS_PIPE_DELAY_POLL
#define GPI_RUNS_PIPE_DELAY_POLL 100
#endif

struct runs_pipe_policy {
    static constexpr int threads = GPI_RUNS_PIPE_THREADS;
    static constexpr int vectors = GPI_RUNS_PIPE_VECTORS;
    static constexpr int blocks_keys = GPI_RUNS_PIPE_BLOCKS_KEYS;
    static constexpr int blocks_values = GPI_RUNS_PIPE_BLOCKS_VALUES;
    static constexpr unsigned delay_poll = GPI_RUNS_PIPE_DELAY_POLL;
    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert(threads / 32 * vectors <= 32, "every warp scans the tile's (vector, warp) groups, one a lane");
    static_assert(vectors * 4 <= 32, "a thread's head bits fit 32 bits");
    static_assert(blocks_keys >= 1 && blocks_values >= 1, "launch bounds want at least one block");
};

struct runs_policy {
    static constexpr int threads = GPI_RUNS_THREADS;
    static constexpr int key_bytes = GPI_RUNS_KEY_BYTES;
    static constexpr int min_blocks = GPI_RUNS_MIN_BLOCKS; /* runs_kernel_capped */
    static constexpr lookback_delay delay = {GPI_RUNS_DELAY_FIRST, GPI_RUNS_DELAY_POLL};
    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert(threads / 32 <= 32, "warp 0 scans the warp totals, one a lane");
    static_assert(key_bytes % 16 == 0 && key_bytes / 4 <= 32, "16-byte loads; a thread's head bits fit 32 bits");
};

} // namespace gpi

#endif
