/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_sort.cuh - what the CUDA segmented sort's files share:
 * the keys' order images (gp_sort's, complemented for descending) and the
 * fallback's entry point. */
#pragma once

#include "segmented_internal.h"

#include <cuda_runtime.h>

#include <cstdint>

/* The fallback: every segment at once by two radix sorts of all n items
 * (segmented_sort_global.cu). */
gp_status gpi_cuda_segmented_sort_global(gp_context *ctx, const gpi_segsort_args *sa);

namespace gpi_segsort {

/* The order image of key bits u (gpuprim.h), XOR flip (all ones for
 * descending): keys in the order are images in ascending unsigned order. */
template <typename K>
__device__ __forceinline__ K to_image(gp_dtype dt, K u, K flip)
{
    if (dt == GP_INT32 || dt == GP_INT64) u ^= (K)1 << (8 * sizeof(K) - 1);
    else if (dt == GP_FLOAT32) u = (K)gpi_f32_image((uint32_t)u);
    else if (dt == GP_FLOAT64) u = (K)gpi_f64_image((uint64_t)u);
    return u ^ flip;
}

template <typename K>
__device__ __forceinline__ K from_image(gp_dtype dt, K u, K flip)
{
    u ^= flip;
    if (dt == GP_INT32 || dt == GP_INT64) u ^= (K)1 << (8 * sizeof(K) - 1);
    else if (dt == GP_FLOAT32) u = (K)gpi_f32_from_image((uint32_t)u);
    else if (dt == GP_FLOAT64) u = (K)gpi_f64_from_image((uint64_t)u);
    return u;
}

}  // namespace gpi_segsort
