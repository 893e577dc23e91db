/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/copy.cuh - the device copy's kernel shape and its choice between
 * that kernel and cudaMemcpyAsync (copy.cu; why: its header comment). */
#ifndef GPUPRIM_CUDA_POLICY_COPY_CUH
#define GPUPRIM_CUDA_POLICY_COPY_CUH

#include <stddef.h>

namespace gpi {

struct copy_policy {
    static constexpr size_t kernel_max_bytes = (size_t)16 << 20; /* larger copies: cudaMemcpyAsync */
    static constexpr int threads = 256;
    static constexpr int blocks_per_sm = 8; /* grid cap: SMs x this */

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
};

} // namespace gpi

#endif
