/* SPDX-License-Identifier: BSD-3-Clause */
/* flags.cuh - reading flag arrays (uint8 or int32, set when non-zero) a
 * vector at a time, as compaction and partition do. */
#ifndef GPUPRIM_CUDA_FLAGS_CUH
#define GPUPRIM_CUDA_FLAGS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace gpi {

/* The flags of the VI elements from e, as a bit mask. fvec: the flags of a
 * vector sit at an address aligned to their total size (one load). */
template <typename F, int VI>
__device__ __forceinline__ unsigned flag_mask(const F *flags, long long e, long long n, bool full, bool fvec)
{
    unsigned m = 0;
    if (full && fvec) {
        if constexpr (sizeof(F) == 1 && VI == 4) {
            const uint32_t w = *reinterpret_cast<const uint32_t *>(flags + e);
#pragma unroll
            for (int j = 0; j < 4; j++) m |= ((w >> (8 * j)) & 0xffu) ? 1u << j : 0u;
        } else if constexpr (sizeof(F) == 1 && VI == 2) {
            const uint16_t w = *reinterpret_cast<const uint16_t *>(flags + e);
            m = ((w & 0xffu) ? 1u : 0u) | ((w >> 8) ? 2u : 0u);
        } else if constexpr (sizeof(F) == 4 && VI == 4) {
            const int4 w = *reinterpret_cast<const int4 *>(flags + e);
            m = (w.x ? 1u : 0u) | (w.y ? 2u : 0u) | (w.z ? 4u : 0u) | (w.w ? 8u : 0u);
        } else {
            static_assert(sizeof(F) == 4 && VI == 2, "flag vector shapes");
            const int2 w = *reinterpret_cast<const int2 *>(flags + e);
            m = (w.x ? 1u : 0u) | (w.y ? 2u : 0u);
        }
    } else {
#pragma unroll
        for (int j = 0; j < VI; j++)
            if (e + j < n && flags[e + j]) m |= 1u << j;
    }
    return m;
}

} // namespace gpi

#endif
