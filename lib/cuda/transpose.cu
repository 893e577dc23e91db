/* cuda/transpose.cu - tiled out-of-place transpose for 4-, 8- and 16-byte
 * elements. Two kernels; both take a 1-D grid that covers every tile in one
 * launch (a block loops over tiles only past 2^31 - 1 of them), the tile
 * index running along a row of tiles, so the blocks resident together
 * (about 1000 on an H200) hold whole bands of neighbouring tiles and the
 * sectors that two tiles share meet in L2. Indices are 64-bit; every loop
 * bound depends on blockIdx/gridDim only, so each barrier is reached by all
 * threads of the block.
 *
 * Vector kernel (4- and 8-byte elements, both pointers 16-byte aligned,
 * rows and cols multiples of N = 16 / elem_size, so every row of the input
 * and of the output starts 16-byte aligned): a block of 256 threads moves a
 * 64 x 64 tile in 16-byte words both ways. A thread owns Q register blocks
 * of N x N elements (Q = 1 for 4 bytes, 4 for 8 bytes): it loads the N
 * rows of each block as N 16-byte words (a warp reads 512 bytes
 * per load: two 256-byte row pieces for floats, one 512-byte piece for
 * doubles), transposes the block in registers (renaming, no instructions),
 * and stores its N columns as 16-byte words into a shared tile laid out as
 * output rows. Shared slot (row, v) sits at (row, v ^ ((row / N) % 8)):
 * with that XOR the 8 threads of each quarter warp hit 8 distinct 16-byte
 * bank groups on the store (8 consecutive block columns) and on the read
 * (8 consecutive words of one output row). After one barrier each thread
 * reads 16-byte words of output rows and stores them, a warp again writing
 * 512 contiguous bytes. So each element costs 1/N of an LDG, STS, LDS and
 * STG, and a thread has 64 (floats) or 128 (doubles) bytes of loads in
 * flight before its first use: at 48 (76) registers, 5 (3) blocks are
 * resident, about 80 (96) KB of loads in flight per SM, over the 32-64 KB
 * HBM3e needs (capping registers for more blocks spills). Edge tiles (rows or
 * cols not multiples of 64) guard each 16-byte word, which is all in or
 * all out since the extents are multiples of N; interior tiles run
 * unguarded. Predicted on an H200 (copy 4244 GB/s): 16384^2 floats
 * 0.681 -> ~0.53 ms (~4000 GB/s, at or just past Sgeam's 0.542), 16384^2
 * doubles 1.135 -> ~1.06 ms (Dgeam 1.088).
 *
 * Word kernel (every other case: 16-byte elements, extents that are not
 * multiples of N, pointers not 16-byte aligned, and the byte- and
 * word-wise element types for pointers not aligned to the element): the
 * classic tile, padded one element so a warp reading down a column hits
 * distinct banks (with 8- and 16-byte elements the row stride still puts
 * the lanes of each half (quarter) warp on distinct banks). 64 x 64 tiles
 * for elements up to 8 bytes (16 loads per thread, 64-128 bytes in flight),
 * 32 x 32 for 16-byte elements (4 loads of 16 bytes). Each thread issues
 * all its loads into registers before the first shared store, and only edge
 * tiles test bounds. Predicted: 12345 x 20011 floats 0.923 -> ~0.6 ms
 * (~3300-3500 GB/s; the old kernel had 16 bytes in flight per thread and
 * per-element guards everywhere).
 *
 * A 1 x n or n x 1 matrix is its own transpose in memory: that is a device
 * copy. Elements are opaque bytes. They move as one 4/8/16-byte word when
 * both pointers are aligned to the element size (cudaMalloc'd buffers
 * are), else as several narrower words: an offset pointer is slower, never
 * a fault. */
#include "internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kThreads = 256;  // threads per block, both kernels
constexpr unsigned kMaxGrid = 0x7fffffffu;

// An element of N words of type W, copied word by word (W's alignment).
template <typename W, int N>
struct Words {
    W w[N];
};

// A 16-byte word of 16 / sizeof(T) elements: moves as one LDG/STG/LDS/STS.128.
template <typename T>
struct alignas(16) Vec16 {
    T e[16 / sizeof(T)];
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
transpose_vec_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, size_t tiles_x,
                     size_t tiles)
{
    constexpr int N = 16 / (int)sizeof(T);  // elements per 16-byte word
    constexpr int E = 64;                   // tile edge, elements
    constexpr int NB = E / N;               // 16-byte words per tile row
    constexpr int Q = NB * NB / kThreads;   // N x N register blocks per thread
    static_assert(NB % 8 == 0 && Q * kThreads == NB * NB, "tile shape");
    using V = Vec16<T>;
    // s[orow][v ^ swz(orow)] holds output row orow (input column c0 + orow),
    // output columns r0 + N v .. r0 + N v + N - 1.
    __shared__ V s[E][NB];
    const int t = threadIdx.x;

    for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const size_t by = tile / tiles_x, bx = tile - by * tiles_x;
        const size_t r0 = by * E, c0 = bx * E;
        const bool full = r0 + E <= rows && c0 + E <= cols;

        V v[Q][N];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int b = t + q * kThreads, bj = b % NB, bi = b / NB;
            const size_t c = c0 + (size_t)bj * N;
#pragma unroll
            for (int m = 0; m < N; ++m) {
                const size_t r = r0 + (size_t)bi * N + m;
                if (full || (r < rows && c < cols)) v[q][m] = *(const V *)(in + r * cols + c);
                else v[q][m] = V();
            }
        }
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int b = t + q * kThreads, bj = b % NB, bi = b / NB;
#pragma unroll
            for (int j = 0; j < N; ++j) {
                V o;
#pragma unroll
                for (int m = 0; m < N; ++m) o.e[m] = v[q][m].e[j];
                const int orow = bj * N + j;
                s[orow][bi ^ (bj & 7)] = o;  // (orow / N) % 8 == bj % 8
            }
        }
        __syncthreads();

        // E x NB words = Q N per thread.
#pragma unroll
        for (int q = 0; q < Q * N; ++q) {
            const int b = t + q * kThreads, ov = b % NB, orow = b / NB;
            const size_t oc = r0 + (size_t)ov * N, orr = c0 + orow;
            if (full || (orr < cols && oc < rows)) *(V *)(out + orr * rows + oc) = s[orow][ov ^ ((orow / N) & 7)];
        }
        __syncthreads();  // s is refilled by the next tile
    }
}

template <typename T, int E>
__global__ void __launch_bounds__(kThreads)
transpose_word_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, size_t tiles_x,
                      size_t tiles)
{
    constexpr int RY = kThreads / 32;  // rows of threads
    constexpr int NR = E / RY, NC = E / 32;
    __shared__ T tile[E][E + 1];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;

    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const size_t by = t / tiles_x, bx = t - by * tiles_x;
        const size_t r0 = by * E, c0 = bx * E;
        const bool full = r0 + E <= rows && c0 + E <= cols;

        // All loads first, into registers: NR * NC independent loads in flight.
        T v[NR][NC];
        const T *src = in + (r0 + ty) * cols + c0 + tx;
#pragma unroll
        for (int i = 0; i < NR; ++i) {
#pragma unroll
            for (int j = 0; j < NC; ++j) {
                const size_t r = r0 + ty + (size_t)i * RY, c = c0 + tx + (size_t)j * 32;
                if (full || (r < rows && c < cols)) v[i][j] = src[(size_t)i * RY * cols + j * 32];
                else v[i][j] = T();
            }
        }
#pragma unroll
        for (int i = 0; i < NR; ++i)
#pragma unroll
            for (int j = 0; j < NC; ++j) tile[ty + i * RY][tx + j * 32] = v[i][j];
        __syncthreads();

        // Output row = input column c0 + ty + i RY, output column = input row r0 + tx + 32 j.
        T *dst = out + (c0 + ty) * rows + r0 + tx;
#pragma unroll
        for (int i = 0; i < NR; ++i) {
#pragma unroll
            for (int j = 0; j < NC; ++j) {
                const size_t orow = c0 + ty + (size_t)i * RY, oc = r0 + tx + (size_t)j * 32;
                if (full || (orow < cols && oc < rows)) dst[(size_t)i * RY * rows + j * 32] = tile[tx + j * 32][ty + i * RY];
            }
        }
        __syncthreads();  // the tile is refilled by the next iteration
    }
}

template <int E>
void tile_grid(size_t rows, size_t cols, size_t *tiles_x, size_t *tiles, unsigned *grid)
{
    *tiles_x = (cols + E - 1) / E;
    *tiles = *tiles_x * ((rows + E - 1) / E);
    *grid = (unsigned)(*tiles < kMaxGrid ? *tiles : kMaxGrid);
}

template <typename T>
cudaError_t launch_vec(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    size_t tiles_x, tiles;
    unsigned grid;
    tile_grid<64>(rows, cols, &tiles_x, &tiles, &grid);
    transpose_vec_kernel<T><<<grid, kThreads, 0, stream>>>((const T *)in, (T *)out, rows, cols, tiles_x, tiles);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    constexpr int E = sizeof(T) <= 8 ? 64 : 32;  // tile edge: 17, 33 or 17 KiB of shared memory
    size_t tiles_x, tiles;
    unsigned grid;
    tile_grid<E>(rows, cols, &tiles_x, &tiles, &grid);
    transpose_word_kernel<T, E><<<grid, kThreads, 0, stream>>>((const T *)in, (T *)out, rows, cols, tiles_x, tiles);
    return cudaGetLastError();
}

}  // namespace

extern "C" gp_status gpi_cuda_transpose(gp_context *ctx, size_t elem_size, const void *in, void *out,
                                        size_t rows, size_t cols)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    cudaError_t e;
    if (rows == 1 || cols == 1) {
        e = cudaMemcpyAsync(out, in, rows * cols * elem_size, cudaMemcpyDefault, stream);
        return gpi_cuda_status(ctx, e, "gp_transpose: cudaMemcpyAsync");
    }
    // Every element address is base + i * elem_size: aligned to the largest
    // power of two dividing both base addresses and elem_size.
    const uintptr_t bits = (uintptr_t)in | (uintptr_t)out | (uintptr_t)elem_size;
    const size_t align = (size_t)(bits & (~bits + 1));
    // The 16-byte-word kernel needs both bases 16-byte aligned and every row
    // of input (cols elements) and output (rows elements) a whole number of
    // 16-byte words.
    const bool base16 = (((uintptr_t)in | (uintptr_t)out) & 15) == 0;
    switch (elem_size) {
    case 4:
        e = base16 && rows % 4 == 0 && cols % 4 == 0 ? launch_vec<uint32_t>(in, out, rows, cols, stream)
            : align >= 4 ? launch<uint32_t>(in, out, rows, cols, stream)
                         : launch<Words<unsigned char, 4>>(in, out, rows, cols, stream);
        break;
    case 8:
        e = base16 && rows % 2 == 0 && cols % 2 == 0 ? launch_vec<unsigned long long>(in, out, rows, cols, stream)
            : align >= 8 ? launch<unsigned long long>(in, out, rows, cols, stream)
            : align >= 4 ? launch<Words<uint32_t, 2>>(in, out, rows, cols, stream)
                         : launch<Words<unsigned char, 8>>(in, out, rows, cols, stream);
        break;
    case 16:
        e = align >= 16  ? launch<uint4>(in, out, rows, cols, stream)
            : align >= 8 ? launch<Words<unsigned long long, 2>>(in, out, rows, cols, stream)
            : align >= 4 ? launch<Words<uint32_t, 4>>(in, out, rows, cols, stream)
                         : launch<Words<unsigned char, 16>>(in, out, rows, cols, stream);
        break;
    default: return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_transpose: elem_size %zu reached the CUDA backend", elem_size);
    }
    return gpi_cuda_status(ctx, e, "gp_transpose kernel launch");
}
