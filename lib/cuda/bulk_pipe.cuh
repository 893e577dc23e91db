/* SPDX-License-Identifier: BSD-3-Clause */
/* bulk_pipe.cuh - the few sm_90 instructions a load pipeline needs: bulk
 * copies from global into shared memory done by the copy engine (TMA),
 * and the shared-memory barriers (mbarrier) that say when one has landed
 * and when its buffer may be refilled.
 *
 * One thread issues a whole tile's copy with one instruction; the copy
 * arrives on the stage's "full" barrier with its byte count, so a consumer
 * waiting on that barrier sees the bytes. Consumers arrive on the stage's
 * "empty" barrier once they have read it; the producer waits on that before
 * it reuses the buffer. Phases alternate 0, 1, 0, ... per barrier: use
 * number k of a stage waits for parity k & 1.
 *
 * Everything here is compiled for sm_90 and later only; callers check
 * the device and the build (scan.cu's pipelined_available) before they
 * launch a kernel using it. */
#ifndef GPUPRIM_BULK_PIPE_CUH
#define GPUPRIM_BULK_PIPE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace gpi {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GPI_HAS_BULK_COPY 1
#else
#define GPI_HAS_BULK_COPY 0
#endif

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

#if GPI_HAS_BULK_COPY
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

/* After the barriers are initialised, before the block's __syncthreads:
 * makes the initialisation visible to the copy engine too. */
__device__ __forceinline__ void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/* Arrive, and tell the barrier `bytes` more will land before it completes. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    uint32_t done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

/* Copy `bytes` (a multiple of 16; both addresses 16-byte aligned) from
 * global to shared memory; completion is counted on `bar`. */
__device__ __forceinline__ void bulk_load(void *dst_smem, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(dst_smem)),
                 "l"(src), "r"(bytes), "r"(smem_addr(bar))
                 : "memory");
}
#endif

} // namespace gpi

#endif
