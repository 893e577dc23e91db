/* SPDX-License-Identifier: BSD-3-Clause */
/* pipe_available.cuh - whether a kernel built on bulk_pipe.cuh (sm_90 bulk
 * copies) can run on a context's device: sm_90 or later, and this build's
 * code for the kernel sm_90's (a build for older architectures only,
 * JIT-compiled on Hopper, has an empty kernel). Asked once per device and
 * caller, through the caller's `known` table; `off_var`: an environment
 * variable that, set to "tiles", turns the pipelined kernel off (a testing
 * knob). */
#ifndef GPUPRIM_CUDA_PIPE_AVAILABLE_CUH
#define GPUPRIM_CUDA_PIPE_AVAILABLE_CUH

#include "internal.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace gpi {

struct pipe_known {
    std::atomic<signed char> device[64]; /* 0: not asked; 1: yes; -1: no */
};

template <typename Kernel>
bool pipe_kernel_available(gp_context *ctx, Kernel kernel, pipe_known &known, const char *off_var)
{
    const char *v = getenv(off_var);
    if (v && strcmp(v, "tiles") == 0) return false;
    const int d = ctx->device;
    if (d < 0 || d >= 64) return false;
    signed char k = known.device[d].load(std::memory_order_relaxed);
    if (k == 0) {
        int major = 0;
        cudaFuncAttributes fa;
        const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
                        major >= 9 && cudaFuncGetAttributes(&fa, kernel) == cudaSuccess && fa.ptxVersion >= 90;
        (void)cudaGetLastError(); /* a failed query is not sticky: a later launch check must not see it */
        k = ok ? 1 : -1;
        known.device[d].store(k, std::memory_order_relaxed);
    }
    return k > 0;
}

} // namespace gpi

#endif
