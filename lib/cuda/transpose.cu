/* cuda/transpose.cu - tiled out-of-place transpose for 4-, 8- and 16-byte
 * elements.
 *
 * A block of 32 x 8 threads moves one 32 x 32 tile: each thread reads 4
 * elements down a column of the tile (row by row, so a warp reads 32
 * consecutive elements of one input row: coalesced), the block meets at a
 * barrier, then each thread writes 4 elements of the transposed tile (a warp
 * again writes 32 consecutive elements of one output row). The shared tile
 * is padded to 33 columns so that reading it down a column hits 32 distinct
 * banks; with 8- and 16-byte elements the row stride of 33 elements still
 * puts the 16 (8) lanes of each half (quarter) warp on distinct banks.
 *
 * 4 independent loads per thread and 256-thread blocks with a 4-17 KiB
 * tile keep 8 blocks resident per SM, enough bytes in flight to run at
 * copy speed. Edge tiles are guarded element by element, indices are 64-bit,
 * and blocks loop over tiles so that no grid dimension passes its limit
 * (65535 for y). A 1 x n or n x 1 matrix is its own transpose in memory:
 * that is a device copy.
 *
 * Elements are opaque bytes. They move as one 4/8/16-byte word when both
 * pointers are aligned to the element size (cudaMalloc'd buffers are), else
 * as several narrower words: an offset pointer is slower, never a fault. */
#include "internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int kTile = 32;      // tile edge, elements
constexpr int kBlockRows = 8;  // threads per block in y: each thread moves kTile / kBlockRows elements
constexpr unsigned kMaxGridY = 65535;
constexpr unsigned kMaxGridX = 0x7fffffffu;

// An element of N words of type W, copied word by word (W's alignment).
template <typename W, int N>
struct Words {
    W w[N];
};

template <typename T>
__global__ void __launch_bounds__(kTile * kBlockRows)
transpose_kernel(const T *__restrict__ in, T *__restrict__ out, size_t rows, size_t cols, size_t tiles_y,
                 size_t tiles_x)
{
    __shared__ T tile[kTile][kTile + 1];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;

    // The loop bounds depend only on blockIdx/gridDim: every thread of a
    // block runs the same iterations, so the barriers below are uniform.
    for (size_t by = blockIdx.y; by < tiles_y; by += gridDim.y) {
        for (size_t bx = blockIdx.x; bx < tiles_x; bx += gridDim.x) {
            const size_t r0 = by * kTile, c0 = bx * kTile;

            const size_t c = c0 + tx;
#pragma unroll
            for (int k = 0; k < kTile; k += kBlockRows) {
                const size_t r = r0 + ty + k;
                if (r < rows && c < cols) tile[ty + k][tx] = in[r * cols + c];
            }
            __syncthreads();

            // Output row = input column c0 + ty + k, output column = input row r0 + tx.
            const size_t oc = r0 + tx;
#pragma unroll
            for (int k = 0; k < kTile; k += kBlockRows) {
                const size_t orow = c0 + ty + k;
                if (orow < cols && oc < rows) out[orow * rows + oc] = tile[tx][ty + k];
            }
            __syncthreads();  // the tile is refilled by the next iteration
        }
    }
}

template <typename T>
cudaError_t launch(const void *in, void *out, size_t rows, size_t cols, cudaStream_t stream)
{
    const size_t tiles_y = (rows + kTile - 1) / kTile, tiles_x = (cols + kTile - 1) / kTile;
    const dim3 block(kTile, kBlockRows);
    const dim3 grid((unsigned)(tiles_x < kMaxGridX ? tiles_x : kMaxGridX),
                    (unsigned)(tiles_y < kMaxGridY ? tiles_y : kMaxGridY));
    transpose_kernel<T><<<grid, block, 0, stream>>>((const T *)in, (T *)out, rows, cols, tiles_y, tiles_x);
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
    switch (elem_size) {
    case 4:
        e = align >= 4 ? launch<uint32_t>(in, out, rows, cols, stream)
                       : launch<Words<unsigned char, 4>>(in, out, rows, cols, stream);
        break;
    case 8:
        e = align >= 8   ? launch<unsigned long long>(in, out, rows, cols, stream)
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
