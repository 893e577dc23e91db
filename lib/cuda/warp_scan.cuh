/* SPDX-License-Identifier: BSD-3-Clause */
/* warp_scan.cuh - warp-level pieces of the scans: shuffle scans and
 * reductions, and a warp's scan of a short array in shared memory.
 * Operators are functors op(a, b); the identity travels as a value. */
#ifndef GPUPRIM_CUDA_WARP_SCAN_CUH
#define GPUPRIM_CUDA_WARP_SCAN_CUH

#include <cuda_runtime.h>

namespace gpi {

template <typename T, typename Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op, int lane)
{
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        T y = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v = op(y, v);
    }
    return v;
}

template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T v, Op op)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

/* One warp scans vals[0, 32 * PER_LANE) in shared memory in place
 * (exclusive; lane l takes PER_LANE consecutive values) and returns the
 * total to every lane. */
template <typename T, typename Op, int PER_LANE>
__device__ __forceinline__ T warp_exclusive_scan_shared(T *vals, Op op, T identity, int lane)
{
    T g[PER_LANE];
    T run = identity;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        g[i] = vals[lane * PER_LANE + i];
        run = op(run, g[i]);
    }
    const T incl = warp_inclusive_scan(run, op, lane);
    T excl = __shfl_up_sync(0xffffffffu, incl, 1);
    if (lane == 0) excl = identity;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        vals[lane * PER_LANE + i] = excl;
        excl = op(excl, g[i]);
    }
    return __shfl_sync(0xffffffffu, incl, 31);
}

} // namespace gpi

#endif
