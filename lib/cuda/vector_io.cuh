/* SPDX-License-Identifier: BSD-3-Clause */
/* vector_io.cuh - loading N consecutive elements of any 4- or 8-byte type
 * with the widest loads their bytes allow (16, or 8 when N * size is 8).
 * The single-pass runs and segmented-scan kernels hold keys and values of
 * different sizes in one tile layout (tile_io.cuh's: vector k of thread t
 * covers elements (k * THREADS + t) * N + [0, N)), so a vector of keys and
 * a vector of values may differ in width. */
#ifndef GPUPRIM_CUDA_VECTOR_IO_CUH
#define GPUPRIM_CUDA_VECTOR_IO_CUH

#include <cuda_runtime.h>

namespace gpi {

/* x[0, N) = p[0, N). vec: p is aligned to the N elements' bytes (when they
 * are 8, 16 or a multiple of 16) and all N exist; else element by element,
 * x[j] = fill past `valid`. */
template <typename T, int N>
__device__ __forceinline__ void load_elems(const T *p, T (&x)[N], bool vec, int valid, T fill)
{
    constexpr int BYTES = N * (int)sizeof(T);
    if constexpr (BYTES % 16 == 0) {
        if (vec) {
#pragma unroll
            for (int c = 0; c < BYTES / 16; c++) {
                const uint4 raw = reinterpret_cast<const uint4 *>(p)[c];
                memcpy(&x[c * (16 / (int)sizeof(T))], &raw, 16);
            }
            return;
        }
    } else if constexpr (BYTES == 8) {
        if (vec) {
            const uint2 raw = *reinterpret_cast<const uint2 *>(p);
            memcpy(&x[0], &raw, 8);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; j++) x[j] = j < valid ? p[j] : fill;
}

/* out[0, N) = x[0, N), as load_elems; nothing at or past `valid` is written. */
template <typename T, int N>
__device__ __forceinline__ void store_elems(T *p, const T (&x)[N], bool vec, int valid)
{
    constexpr int BYTES = N * (int)sizeof(T);
    if constexpr (BYTES % 16 == 0) {
        if (vec) {
#pragma unroll
            for (int c = 0; c < BYTES / 16; c++) {
                uint4 raw;
                memcpy(&raw, &x[c * (16 / (int)sizeof(T))], 16);
                reinterpret_cast<uint4 *>(p)[c] = raw;
            }
            return;
        }
    } else if constexpr (BYTES == 8) {
        if (vec) {
            uint2 raw;
            memcpy(&raw, &x[0], 8);
            *reinterpret_cast<uint2 *>(p) = raw;
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; j++)
        if (j < valid) p[j] = x[j];
}

} // namespace gpi

#endif
