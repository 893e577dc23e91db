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

/* Load one tile of n elements from base: 16-byte loads when the tile is
 * full and `vec` (in is 16-byte aligned), else element by element, with
 * the identity past n. */
template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void load_tile(const T *in, long long base, long long n, bool full, bool vec,
                                          T (&x)[VECTORS][16 / sizeof(T)], T identity)
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++) {
        long long e = base + ((long long)k * THREADS + t) * BT::VI;
        if (full && vec) {
            uint4 raw = *reinterpret_cast<const uint4 *>(in + e);
            const T *p = reinterpret_cast<const T *>(&raw);
#pragma unroll
            for (int j = 0; j < BT::VI; j++) x[k][j] = p[j];
        } else {
#pragma unroll
            for (int j = 0; j < BT::VI; j++) x[k][j] = (e + j < n) ? in[e + j] : identity;
        }
    }
}

/* Store one tile (as load_tile; nothing past n is written). */
template <typename T, int THREADS, int VECTORS>
__device__ __forceinline__ void store_tile(T *out, long long base, long long n, bool full, bool vec,
                                           const T (&x)[VECTORS][16 / sizeof(T)])
{
    using BT = block_scan_tile<T, THREADS, VECTORS>;
    const int t = threadIdx.x;
#pragma unroll
    for (int k = 0; k < BT::VEC; k++) {
        long long e = base + ((long long)k * THREADS + t) * BT::VI;
        if (full && vec) {
            uint4 raw;
            T *p = reinterpret_cast<T *>(&raw);
#pragma unroll
            for (int j = 0; j < BT::VI; j++) p[j] = x[k][j];
            *reinterpret_cast<uint4 *>(out + e) = raw;
        } else {
#pragma unroll
            for (int j = 0; j < BT::VI; j++)
                if (e + j < n) out[e + j] = x[k][j];
        }
    }
}

} // namespace gpi

#endif
