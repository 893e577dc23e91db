/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/transpose.cu - tiled out-of-place transpose for 4-, 8- and 16-byte
 * elements. Three kernels; each takes a 1-D grid that covers every tile in
 * one launch (a block loops over tiles only past 2^31 - 1 of them).
 * Indices are 64-bit; every loop bound depends on blockIdx/gridDim only, so
 * each barrier is reached by all threads of the block.
 *
 * Tile order: the tile index runs DOWN a column of tiles (tile row
 * fastest), so the blocks resident at once write a band of whole output
 * rows, one contiguous stream, while their reads are scattered 256-byte row
 * pieces: writes are the side that gains from streaming.
 *
 * Vector kernel (4- and 8-byte elements, both bases 16-byte aligned, input
 * rows whole 16-byte words, output rows sector-aligned): 16-byte words both
 * ways. A thread loads N x N register blocks (N = 16 / elem_size) as N
 * 16-byte row words, transposes each block in registers (renaming, no
 * instructions) and stores its columns as 16-byte words into a shared tile
 * laid out as output rows; slot (row, v) sits at (row, v ^ ((row / N) % 8))
 * so each quarter warp hits 8 distinct 16-byte bank groups. After one
 * barrier threads read output-row words and store them, a warp writing 512
 * contiguous bytes. Edge tiles guard each 16-byte word (all in or all out).
 *
 * Word kernel (output rows sector-aligned but the vector kernel does not
 * apply, e.g. 16-byte elements, or pointers not aligned to the element,
 * moved as several narrower words): the classic tile, padded one element so
 * a warp reading down a column hits distinct banks; all loads are issued
 * before the first shared store; only edge tiles test bounds.
 *
 * Aligned-write kernel (output rows that do not start on a 32-byte sector,
 * pointers aligned to the element): a warp store covering part of a sector
 * leaves L2 to merge it with a part written later by another tile, which
 * costs far more than a misaligned read. So output rows are split among
 * tile rows at sector boundaries: in output row c, tile row by owns columns
 * [E by - d_c, E by + E - d_c), d_c = the row start's offset in its sector
 * (elements, < S = 32 / elem_size). A tile loads S input rows above its own
 * (L2 hits: the tile above ran just before), one extra tile row covers the
 * end, and every warp stores whole sectors except where an output row
 * begins or ends inside one.
 *
 * A 1 x n or n x 1 matrix is its own transpose in memory: a device copy.
 * Elements are opaque bytes, moved as one 4/8/16-byte word when both
 * pointers are aligned to the element size, else as several narrower words:
 * an offset pointer is slower, never a fault.
 *
 * Shapes: policy/transpose.cuh. Measurements behind these choices (and the
 * alternatives tried): bench/RESULTS.md, "Transpose design notes moved from
 * the source". */
#include "internal.h"
#include "policy/transpose.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kThreads = gpi::transpose_policy::threads;  // threads per block, all kernels
constexpr unsigned kMaxGrid = 0x7fffffffu;

// An element of N words of type W, copied word by word (W's alignment).
template <typename W, int N>
struct Words {
    W w[N];
};

// Tile t of a grid of tiles_y x tiles_x tiles, in column order: the tile
// row runs fastest (see the header, tile order).
struct Tiles {
    size_t tiles_y, tiles;
};

__device__ __forceinline__ void tile_at(size_t t, const Tiles &g, size_t *by, size_t *bx)
{
    *bx = t / g.tiles_y;
    *by = t - *bx * g.tiles_y;
}

inline Tiles make_tiles(size_t tiles_y, size_t tiles_x, unsigned *grid)
{
    Tiles g;
    g.tiles_y = tiles_y;
    g.tiles = tiles_y * tiles_x;
    *grid = (unsigned)(g.tiles < kMaxGrid ? g.tiles : kMaxGrid);
    return g;
}

// Vector kernel (64 x 64 tile, 16-byte words both ways, XOR-swizzled
// shared tile; see the header). Written as load / put / drain steps, each
// finding the tile's place itself: ptxas then gives doubles 63 registers
// (4 blocks an SM) instead of 80 (3).
template <typename T>
__global__ void __launch_bounds__(kThreads)
transpose_vec_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, Tiles g)
{
    constexpr int N = 16 / (int)sizeof(T);  // elements per 16-byte word
    constexpr int W = (int)sizeof(T) / 4;   // 32-bit words per element
    constexpr int E = gpi::transpose_policy::vec_tile;  // tile edge, elements
    constexpr int NB = E / N;               // 16-byte words per tile row
    constexpr int Q = NB * NB / kThreads;   // N x N register blocks per thread
    static_assert(NB % 8 == 0 && Q * kThreads == NB * NB, "tile shape");
    // s[orow][v ^ ((orow / N) % 8)] holds output row orow (input column
    // c0 + orow), output columns r0 + N v .. r0 + N v + N - 1.
    __shared__ uint4 s[E][NB];
    const int t = threadIdx.x;

    auto load = [&](uint4 (&v)[Q][N], size_t tile) {
        size_t by, bx;
        tile_at(tile, g, &by, &bx);
        const size_t r0 = by * E, c0 = bx * E;
        const bool full = r0 + E <= rows && c0 + E <= cols;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int b = t + q * kThreads, bj = b % NB, bi = b / NB;
            const size_t c = c0 + (size_t)bj * N;
#pragma unroll
            for (int m = 0; m < N; ++m) {
                const size_t r = r0 + (size_t)bi * N + m;
                if (full || (r < rows && c < cols)) v[q][m] = __ldg((const uint4 *)(in + r * cols + c));
                else v[q][m] = make_uint4(0, 0, 0, 0);
            }
        }
    };
    auto put = [&](const uint4 (&v)[Q][N]) {
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int b = t + q * kThreads, bj = b % NB, bi = b / NB;
#pragma unroll
            for (int j = 0; j < N; ++j) {
                // Output word j of the block: its element m is element j of input word m.
                uint32_t o[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    const int m = k / W, sub = j * W + k % W;
                    const uint4 &x = v[q][m];
                    o[k] = sub == 0 ? x.x : sub == 1 ? x.y : sub == 2 ? x.z : x.w;
                }
                s[bj * N + j][bi ^ (bj & 7)] = make_uint4(o[0], o[1], o[2], o[3]);  // (orow / N) % 8 == bj % 8
            }
        }
    };
    auto drain = [&](size_t tile) {
        size_t by, bx;
        tile_at(tile, g, &by, &bx);
        const size_t r0 = by * E, c0 = bx * E;
        const bool full = r0 + E <= rows && c0 + E <= cols;
#pragma unroll
        for (int q = 0; q < Q * N; ++q) {
            const int b = t + q * kThreads, ov = b % NB, orow = b / NB;
            const size_t oc = r0 + (size_t)ov * N, orr = c0 + orow;
            if (full || (orr < cols && oc < rows)) *(uint4 *)(out + orr * rows + oc) = s[orow][ov ^ ((orow / N) & 7)];
        }
    };

    for (size_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
        uint4 v[Q][N];
        load(v, tile);
        put(v);
        __syncthreads();
        drain(tile);
        __syncthreads();  // s is refilled by the next tile
    }
}

// Word kernel (E x E tile padded one element, all loads issued before the
// first shared store; see the header). For output rows that start on
// sectors, and for pointers not aligned to the element (T a Words<> of
// narrower words).
template <typename T, int E>
__global__ void __launch_bounds__(kThreads)
transpose_word_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, Tiles g)
{
    constexpr int RY = kThreads / 32;  // rows of threads
    constexpr int NR = E / RY, NC = E / 32;
    __shared__ T tile[E][E + 1];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;

    for (size_t t = blockIdx.x; t < g.tiles; t += gridDim.x) {
        size_t by, bx;
        tile_at(t, g, &by, &bx);
        const size_t r0 = by * E, c0 = bx * E;
        const bool full = r0 + E <= rows && c0 + E <= cols;

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

// Aligned-write kernel (see the header) for T = uint32_t,
// unsigned long long or uint4 at an address aligned to sizeof(T). obase is
// out's offset in its sector, in elements. Tile row by owns, in output row
// c, the input rows r in [E by - d_c, E by + E - d_c); it holds input rows
// E by - S .. E by + E - 1 in shared rows 0 .. E + S - 1.
template <typename T, int E>
__global__ void __launch_bounds__(kThreads)
transpose_walign_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, Tiles g,
                        unsigned obase)
{
    constexpr int S = 32 / (int)sizeof(T);  // elements per sector: 8, 4 or 2
    constexpr int RY = kThreads / 32;       // rows of threads
    constexpr int ER = E + S;               // shared rows
    constexpr int NR = (ER + RY - 1) / RY, NC = E / 32, NO = E / RY;
    __shared__ T tile[ER][E + 1];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;

    for (size_t t = blockIdx.x; t < g.tiles; t += gridDim.x) {
        size_t by, bx;
        tile_at(t, g, &by, &bx);
        const size_t r0 = by * E, c0 = bx * E;
        // Every input row read (r0 - S .. r0 + E - 1) and column in range;
        // then every output column r0 - d_c .. r0 + E - 1 - d_c is too.
        const bool full = r0 >= (size_t)S && r0 + E <= rows && c0 + E <= cols;

        T v[NR][NC];
#pragma unroll
        for (int i = 0; i < NR; ++i) {
#pragma unroll
            for (int j = 0; j < NC; ++j) {
                const int lr = ty + i * RY;  // shared row
                // Below row 0, r wraps to a huge value and fails r < rows.
                const size_t r = r0 + lr - S, c = c0 + tx + (size_t)j * 32;
                if ((ER % RY == 0 || lr < ER) && (full || (r < rows && c < cols))) v[i][j] = in[r * cols + c];
                else v[i][j] = T();
            }
        }
#pragma unroll
        for (int i = 0; i < NR; ++i)
#pragma unroll
            for (int j = 0; j < NC; ++j)
                if (ER % RY == 0 || ty + i * RY < ER) tile[ty + i * RY][tx + j * 32] = v[i][j];
        __syncthreads();

#pragma unroll
        for (int i = 0; i < NO; ++i) {
            const size_t c = c0 + ty + (size_t)i * RY;  // output row
            // d_c: only the low bits of out + c * rows matter, so 32-bit wraps are fine.
            const int d = (int)((obase + (unsigned)c * (unsigned)rows) & (S - 1));
#pragma unroll
            for (int j = 0; j < NC; ++j) {
                const int lr = S - d + tx + j * 32;  // 1 .. E + S - 1
                const size_t r = r0 + lr - S;        // wraps below 0, as above
                if (full || (c < cols && r < rows)) out[c * rows + r] = tile[lr][ty + i * RY];
            }
        }
        __syncthreads();  // the tile is refilled by the next iteration
    }
}

template <typename T>
cudaError_t launch_vec(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    constexpr size_t E = gpi::transpose_policy::vec_tile;
    unsigned grid;
    const Tiles g = make_tiles((rows + E - 1) / E, (cols + E - 1) / E, &grid);
    transpose_vec_kernel<T><<<grid, kThreads, 0, stream>>>((const T *)in, (T *)out, rows, cols, g);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    constexpr int E = gpi::transpose_policy::word_tile(sizeof(T));  // tile edge: 17, 33 or 17 KiB of shared memory
    unsigned grid;
    const Tiles g = make_tiles((rows + E - 1) / E, (cols + E - 1) / E, &grid);
    transpose_word_kernel<T, E><<<grid, kThreads, 0, stream>>>((const T *)in, (T *)out, rows, cols, g);
    return cudaGetLastError();
}

template <typename T>
cudaError_t launch_walign(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    constexpr int E = gpi::transpose_policy::word_tile(sizeof(T));  // 18, 35 or 18 KiB of shared memory
    constexpr int S = 32 / (int)sizeof(T);
    // Tile row by reaches output column E by + E - 1 - d_c: enough tile rows
    // that the last reaches rows - 1 for every d_c < S.
    unsigned grid;
    const Tiles g = make_tiles((rows + S - 2) / E + 1, (cols + E - 1) / E, &grid);
    const unsigned obase = (unsigned)((uintptr_t)out / sizeof(T)) & (S - 1);
    // 8-byte elements: unused dynamic shared memory (47.6 KiB a block in
    // all) so that 4 blocks share an SM instead of 6: 6 x 36 KiB of loads in
    // flight was slower (H200, 12345 x 20011: 1.080 -> 0.999 ms).
    const size_t pad = sizeof(T) == 8 ? gpi::transpose_policy::walign_pad_8byte : 0;
    transpose_walign_kernel<T, E><<<grid, kThreads, pad, stream>>>((const T *)in, (T *)out, rows, cols, g, obase);
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
    // Every output row (rows elements) starts on a 32-byte sector.
    const bool out32 = ((uintptr_t)out & 31) == 0 && rows * elem_size % 32 == 0;
    // The vector kernel also needs 16-byte-aligned input rows (and then,
    // with out32, every row of input and output is whole 16-byte words).
    const bool vec = out32 && ((uintptr_t)in & 15) == 0 && cols * elem_size % 16 == 0;
    switch (elem_size) {
    case 4:
        e = vec          ? launch_vec<uint32_t>(in, out, rows, cols, stream)
            : align < 4  ? launch<Words<unsigned char, 4>>(in, out, rows, cols, stream)
            : out32      ? launch<uint32_t>(in, out, rows, cols, stream)
                         : launch_walign<uint32_t>(in, out, rows, cols, stream);
        break;
    case 8:
        e = vec          ? launch_vec<unsigned long long>(in, out, rows, cols, stream)
            : align < 4  ? launch<Words<unsigned char, 8>>(in, out, rows, cols, stream)
            : align < 8  ? launch<Words<uint32_t, 2>>(in, out, rows, cols, stream)
            : out32      ? launch<unsigned long long>(in, out, rows, cols, stream)
                         : launch_walign<unsigned long long>(in, out, rows, cols, stream);
        break;
    case 16:
        e = align < 4    ? launch<Words<unsigned char, 16>>(in, out, rows, cols, stream)
            : align < 8  ? launch<Words<uint32_t, 4>>(in, out, rows, cols, stream)
            : align < 16 ? launch<Words<unsigned long long, 2>>(in, out, rows, cols, stream)
            : out32      ? launch<uint4>(in, out, rows, cols, stream)
                         : launch_walign<uint4>(in, out, rows, cols, stream);
        break;
    default: return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_transpose: elem_size %zu reached the CUDA backend", elem_size);
    }
    return gpi_cuda_status(ctx, e, "gp_transpose kernel launch");
}
