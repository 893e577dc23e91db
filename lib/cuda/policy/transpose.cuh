/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/transpose.cuh - the block and tile shapes of the device transpose
 * (transpose.cu); measurements behind them: bench/RESULTS.md, "Transpose
 * design notes moved from the source". */
#ifndef GPUPRIM_CUDA_POLICY_TRANSPOSE_CUH
#define GPUPRIM_CUDA_POLICY_TRANSPOSE_CUH

#include <stddef.h>

namespace gpi {

struct transpose_policy {
    static constexpr int threads = 256;   /* threads per block, all kernels */
    static constexpr int vec_tile = 64;   /* vector kernel: tile edge, elements */
    /* word and aligned-write kernels: tile edge, elements (shared tile 17,
     * 33 or 17 KiB for 4-, 8-, 16-byte elements) */
    static constexpr int word_tile(size_t elem_size) { return elem_size <= 8 ? 64 : 32; }
    /* aligned-write kernel, 8-byte elements: unused dynamic shared memory
     * that holds an SM to 4 blocks (6 were slower) */
    static constexpr size_t walign_pad_8byte = 12 * 1024;

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
    static_assert(vec_tile % 32 == 0, "a warp covers 32 columns of a tile row");
};

} // namespace gpi

#endif
