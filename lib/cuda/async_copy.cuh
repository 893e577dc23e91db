/* SPDX-License-Identifier: BSD-3-Clause */
/* async_copy.cuh - per-thread asynchronous copies of one element from
 * global into shared memory (cp.async, sm_80 and later): the load does not
 * pass through registers, so a thread can issue the next tile's loads and
 * go on working on the current one. Copies are grouped: commit() closes
 * this thread's group, wait<N>() returns once at most N of its groups are
 * still in flight; a __syncthreads() after the wait makes every thread's
 * landed copies visible to the whole block. On older devices the copy is
 * an ordinary load and store, and commit / wait do nothing. */
#ifndef GPUPRIM_CUDA_ASYNC_COPY_CUH
#define GPUPRIM_CUDA_ASYNC_COPY_CUH

#include <cuda_runtime.h>

namespace gpi {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPI_HAS_CP_ASYNC 1
#else
#define GPI_HAS_CP_ASYNC 0
#endif

/* *dst = *src for a 4- or 8-byte element, dst in shared memory. */
template <typename T>
__device__ __forceinline__ void async_copy(T *dst, const T *src)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
#if GPI_HAS_CP_ASYNC
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
                 "l"(__cvta_generic_to_global(src)), "n"((int)sizeof(T))
                 : "memory");
#else
    *dst = *src;
#endif
}

__device__ __forceinline__ void async_commit()
{
#if GPI_HAS_CP_ASYNC
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

template <int N>
__device__ __forceinline__ void async_wait()
{
#if GPI_HAS_CP_ASYNC
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

} // namespace gpi

#endif
