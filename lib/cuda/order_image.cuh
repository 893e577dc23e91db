/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/order_image.cuh - keys as their order images (gpuprim.h's sort
 * section) in device code, for the kernels that compare keys: search, merge
 * and top-k. A key travels as its raw bits W (uint32_t or uint64_t); its
 * kind says how the bits map to the order. */
#pragma once

#include "internal.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi_order {

enum Kind { kUnsigned = 0, kSigned = 1, kFloat = 2 };

/* The image of raw key bits, XOR flip (all ones for descending, else 0):
 * keys in the order are exactly the images in ascending unsigned order. */
template <typename W, int KIND>
__device__ __forceinline__ W image(W bits, W flip)
{
    if constexpr (KIND == kSigned) {
        bits ^= (W)1 << (8 * sizeof(W) - 1);
    } else if constexpr (KIND == kFloat) {
        if constexpr (sizeof(W) == 4) bits = gpi_f32_image(bits);
        else bits = gpi_f64_image(bits);
    }
    return bits ^ flip;
}

template <typename W>
W flip_for(int descending)
{
    return descending ? (W)~(W)0 : (W)0;
}

}  // namespace gpi_order

/* Calls body<W, KIND>() for a key dtype: the raw-bits type and the kind. */
#define GPI_DISPATCH_KEY(dtype, CALL)                                                                             \
    switch (dtype) {                                                                                              \
    case GP_UINT32: return CALL(uint32_t, gpi_order::kUnsigned);                                                  \
    case GP_INT32: return CALL(uint32_t, gpi_order::kSigned);                                                     \
    case GP_UINT64: return CALL(uint64_t, gpi_order::kUnsigned);                                                  \
    case GP_INT64: return CALL(uint64_t, gpi_order::kSigned);                                                     \
    case GP_FLOAT32: return CALL(uint32_t, gpi_order::kFloat);                                                    \
    case GP_FLOAT64: return CALL(uint64_t, gpi_order::kFloat);                                                    \
    }
