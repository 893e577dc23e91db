/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/argminmax.cuh - the device arg-min/arg-max kernel's shape
 * (argminmax.cu). Free knobs: the result does not depend on them. */
#ifndef GPUPRIM_CUDA_POLICY_ARGMINMAX_CUH
#define GPUPRIM_CUDA_POLICY_ARGMINMAX_CUH

namespace gpi {

struct argminmax_policy {
    static constexpr int threads = 256;      /* a block */
    static constexpr int unroll = 4;         /* 16-byte vectors in flight per thread */
    static constexpr int blocks_per_sm = 4;  /* grid cap: SMs x this (every block resident at once) */

    static_assert(threads % 32 == 0 && threads <= 1024, "whole warps, one block");
};

} // namespace gpi

#endif
