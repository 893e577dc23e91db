/* SPDX-License-Identifier: BSD-3-Clause */
/* tile_io.cuh - the tile layout the single-pass kernels share, and its
 * loads and stores.
 *
 * Each thread holds VECTORS vectors of VI elements (16 bytes each).
 * Vector k of thread t covers elements base + (k*THREADS + t)*VI + [0, VI):
 * loads and stores are 16 bytes wide and coalesced across the warp. The
 * global order of (k, warp, lane) is k-major, which block_vector_prefixes
 * (block_scan.cuh) follows. */
#ifndef GPUPRIM_CUDA_TILE_IO_CUH
#define GPUPRIM_CUDA_TILE_IO_CUH

#include <cuda_runtime.h>

namespace gpi {

template <typename T, int THREADS, int VECTORS>
struct block_scan_tile {
    static constexpr int VI = 16 / sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    static constexpr int VEC = VECTORS;
    static constexpr long long ITEMS = (long long)THREADS * VEC * VI;
};

/* Load one vector of VI elements starting at element e: one 16-byte load
 * when `wide` (a full tile, in 16-byte aligned), else element by element,
 * with `fill` past n. */
template <typename T, int VI>
__device__ __forceinline__ void load_vector(const T *in, long long e, long long n, bool wide, T (&x)[VI], T fill)
{
    if (wide) {
        const uint4 raw = *reinterpret_cast<const uint4 *>(in + e);
        const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
        for (int j = 0; j < VI; j++) x[j] = p[j];
    } else {
#pragma unroll
        for (int j = 0; j < VI; j++) x[j] = (e + j < n) ? in[e + j] : fill;
    }
}

/* Store one vector (as load_vector; nothing past n is written). */
template <typename T, int VI>
__device__ __forceinline__ void store_vector(T *out, long long e, long long n, bool wide, const T (&x)[VI])
{
    if (wide) {
        uint4 raw;
        T *p = reinterpret_cast<T *>(&raw);
#pragma unroll
        for (int j = 0; j < VI; j++) p[j] = x[j];
        *reinterpret_cast<uint4 *>(out + e) = raw;
    } else {
#pragma unroll
        for (int j = 0; j < VI; j++)
            if (e + j < n) out[e + j] = x[j];
    }
}

/* Load one tile of n elements from base: 16-byte loads when the tile is
 * full and `vec` (in is 16-byte aligned), else element by element, with
 * the identity past n. */
template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void load_tile(const T *in, long long base, long long n, bool full, bool vec,
                                          T (&x)[VECTORS][16 / sizeof(T)], T identity)
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++)
        load_vector<T, BT::VI>(in, base + ((long long)k * THREADS + threadIdx.x) * BT::VI, n, full && vec, x[k],
                               identity);
}

/* Store one tile (as load_tile; nothing past n is written). */
template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void store_tile(T *out, long long base, long long n, bool full, bool vec,
                                           const T (&x)[VECTORS][16 / sizeof(T)])
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++)
        store_vector<T, BT::VI>(out, base + ((long long)k * THREADS + threadIdx.x) * BT::VI, n, full && vec, x[k]);
}

} // namespace gpi

#endif
