/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/stencil.cuh - every knob of the device stencils (stencil.cu).
 * The GPI_STENCIL_* macros exist for tuning runs on the GPU machine (-D at
 * build time); the defaults are the measured best (sweep: bench/RESULTS.md,
 * "Laplacian: the halo rows from L2"). */
#ifndef GPUPRIM_CUDA_POLICY_STENCIL_CUH
#define GPUPRIM_CUDA_POLICY_STENCIL_CUH

namespace gpi {

/* The 2-D vector kernel's shape: rows held per thread (ring), rows per
 * block (strip), blocks per SM for floats in the launch bound (doubles one
 * fewer), and whether odd strips sweep upwards (alternate). */
#ifndef GPI_STENCIL_RING
#define GPI_STENCIL_RING 6
#endif
#ifndef GPI_STENCIL_STRIP
#define GPI_STENCIL_STRIP 6
#endif
#ifndef GPI_STENCIL_MIN_BLOCKS
#define GPI_STENCIL_MIN_BLOCKS 10
#endif
#ifndef GPI_STENCIL_ALTERNATE
#define GPI_STENCIL_ALTERNATE 1
#endif

struct stencil_policy {
    /* 1-D kernel: a tile of threads_1d x items_1d consecutive outputs */
    static constexpr int threads_1d = 256;
    static constexpr int items_1d = 4; /* outputs per thread */
    /* 2-D fallback kernel (scalar) */
    static constexpr int threads_2d = 256; /* columns per block */
    static constexpr int strip_2d = 64;    /* rows per block */
    /* 2-D vector kernel (16-byte words) */
    static constexpr int vec_threads = 128; /* 16-byte words per block row: 512 floats, 256 doubles */
    static constexpr int vec_strip = GPI_STENCIL_STRIP;
    static constexpr int vec_ring = GPI_STENCIL_RING; /* R - 2 rows of loads in flight per thread */
    static constexpr int vec_min_blocks = GPI_STENCIL_MIN_BLOCKS;
    static constexpr bool vec_alternate = GPI_STENCIL_ALTERNATE != 0;

    static_assert(threads_1d % 32 == 0 && threads_2d % 32 == 0 && vec_threads % 32 == 0, "whole warps");
    static_assert(vec_ring >= 3, "a thread holds rows p - 1, p and p + 1");
    static_assert(vec_strip >= 1 && strip_2d >= 1, "a strip has rows");
    static_assert(vec_min_blocks >= 2, "doubles ask for one block fewer than floats");
};

} // namespace gpi

#endif
