/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/scan.cuh - every knob of the device scan (scan.cu,
 * scan_kernels.cuh). The GPI_SCAN_* / GPI_PSCAN_* macros exist for tuning
 * runs on the GPU machine (-D at build time); the defaults are the
 * measured best (sweeps: bench/RESULTS.md, "Tuning sweeps" and "a
 * warp-specialised pipelined scan"). */
#ifndef GPUPRIM_CUDA_POLICY_SCAN_CUH
#define GPUPRIM_CUDA_POLICY_SCAN_CUH

#include "../lookback.cuh"

namespace gpi {

/* Single-pass (look-back) kernel: a tile of GPI_SCAN_THREADS threads x
 * GPI_SCAN_VECTORS 16-byte vectors. */
#ifndef GPI_SCAN_THREADS
#define GPI_SCAN_THREADS 256
#endif
#ifndef GPI_SCAN_VECTORS
#define GPI_SCAN_VECTORS 8
#endif
/* Resident tiles per SM (4-byte types; the launch bound). Uncapped, ptxas
 * gave the int32 sum kernel 75 registers: 3 tiles per SM, and ncu put 55%
 * of all stall cycles at the barrier where 7 warps wait for warp 0's
 * look-back. Capped at 4 (64 registers, no spills) it is faster; 5 spills;
 * 8-byte types spill at 4 and stay uncapped. */
#ifndef GPI_SCAN_MIN_BLOCKS
#define GPI_SCAN_MIN_BLOCKS 4
#endif
/* Look-back delays, ns (lookback_delay). */
#ifndef GPI_SCAN_DELAY_FIRST
#define GPI_SCAN_DELAY_FIRST 2500
#endif
#ifndef GPI_SCAN_DELAY_POLL
#define GPI_SCAN_DELAY_POLL 500
#endif
/* The pipelined kernel (sm_90): tiles of GPI_PSCAN_THREADS x
 * GPI_PSCAN_VECTORS 16-byte vectors (32 KB), GPI_PSCAN_STAGES of them in
 * flight per block (192 KB: one block an SM, GPI_PSCAN_BLOCKS in the launch
 * bound), GPI_PSCAN_AGG_WARPS warps computing aggregates, the look-back
 * warp polling every GPI_PSCAN_DELAY_POLL ns; used from GPI_PSCAN_MIN_ITEMS
 * elements. */
#ifndef GPI_PSCAN_THREADS
#define GPI_PSCAN_THREADS 256
#endif
#ifndef GPI_PSCAN_VECTORS
#define GPI_PSCAN_VECTORS 8
#endif
#ifndef GPI_PSCAN_STAGES
#define GPI_PSCAN_STAGES 6
#endif
#ifndef GPI_PSCAN_BLOCKS
#define GPI_PSCAN_BLOCKS 1
#endif
#ifndef GPI_PSCAN_AGG_WARPS
#define GPI_PSCAN_AGG_WARPS 8
#endif
#ifndef GPI_PSCAN_DELAY_POLL
#define GPI_PSCAN_DELAY_POLL 100
#endif
#ifndef GPI_PSCAN_MIN_ITEMS
#define GPI_PSCAN_MIN_ITEMS (1 << 26)
#endif

struct scan_policy {
    /* single-pass kernel */
    static constexpr int threads = GPI_SCAN_THREADS;
    static constexpr int vectors = GPI_SCAN_VECTORS; /* 16-byte vectors per thread per tile */
    static constexpr int min_blocks = GPI_SCAN_MIN_BLOCKS; /* per SM, 4-byte types */
    static constexpr lookback_delay delay = {GPI_SCAN_DELAY_FIRST, GPI_SCAN_DELAY_POLL};
    /* one-launch paths, n <= small_threads * small_vectors vectors */
    static constexpr int small_threads = 1024; /* the one-block path (float sums) */
    static constexpr int small_vectors = 4;    /* (1024 threads cap registers at 64) */
    static constexpr int few_threads = 256;    /* the few-tile path (exact operators) */
    static constexpr int few_vectors = 4;      /* 8 warps x 4: whole lanes for warp 0 */
    /* pipelined kernel */
    static constexpr int pipe_threads = GPI_PSCAN_THREADS; /* storing threads */
    static constexpr int pipe_vectors = GPI_PSCAN_VECTORS;
    static constexpr int pipe_stages = GPI_PSCAN_STAGES;
    static constexpr int pipe_blocks = GPI_PSCAN_BLOCKS; /* per SM (launch bound) */
    static constexpr int pipe_agg_warps = GPI_PSCAN_AGG_WARPS;
    static constexpr unsigned pipe_delay_poll = GPI_PSCAN_DELAY_POLL; /* ns between polls of the look-back warp */
    static constexpr long long pipe_min_items = GPI_PSCAN_MIN_ITEMS;
    /* reduce-then-scan (float sums): CUB block primitives, tiles of
     * rts_threads x rts_items elements */
    static constexpr int rts_threads = 256;
    static constexpr int rts_items = 8;

    static_assert(threads % 32 == 0 && (threads / 32 * vectors) % 32 == 0,
                  "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(few_threads % 32 == 0 && (few_threads / 32 * few_vectors) % 32 == 0,
                  "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(small_threads % 32 == 0 && (small_threads / 32 * small_vectors) % 32 == 0,
                  "warp 0 scans the tile's (vector, warp) groups in whole lanes");
    static_assert(small_threads <= 1024 && threads <= 1024 && few_threads <= 1024, "CUDA block size limit");
    static_assert(min_blocks >= 1 && pipe_blocks >= 1, "launch bounds want at least one block");
    static_assert(pipe_threads % 32 == 0 && (pipe_threads / 32 * pipe_vectors) % 32 == 0,
                  "the pipelined group scan takes whole lanes");
    static_assert((pipe_threads / 32 * pipe_vectors) % pipe_agg_warps == 0,
                  "the aggregator warps share the groups evenly");
    static_assert(pipe_threads + 64 + 32 * pipe_agg_warps <= 1024, "CUDA block size limit");
    static_assert(pipe_stages >= 1 && (long long)pipe_stages * pipe_threads * pipe_vectors * 16 <= 227 * 1024,
                  "the pipelined kernel's stages fit an sm_90 block's shared memory");
};

} // namespace gpi

#endif
