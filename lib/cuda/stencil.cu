/* cuda/stencil.cu - 1-D three-point and 2-D five-point stencils.
 *
 * Exactness: the CPU reference (lib/cpu/stencil.c) is ground truth. Each
 * product and sum here is written with __fmul_rn/__fadd_rn (__dmul_rn/
 * __dadd_rn), which nvcc never contracts into an FMA, in the header's order;
 * weights are converted to the element type on the host exactly as the CPU
 * does; a neighbour past the edge under GP_BOUNDARY_ZERO is a +0 that is
 * still multiplied and added. So both backends give the same bits.
 *
 * 1-D: a block of 256 threads owns a tile of 1024 consecutive outputs. It
 * stages positions base-1 .. base+1024 (the tile and a one-element halo on
 * each side, edges resolved by the boundary rule) in shared memory with
 * coalesced loads, then each thread computes 4 outputs, a warp storing 32
 * consecutive elements at a time.
 *
 * 2-D: register sliding down columns, with a shared row buffer for the
 * west/east neighbours. A block of 256 threads owns 256 consecutive columns
 * of a strip of 64 rows; each thread walks down its column keeping the rows
 * r-1, r, r+1 in registers, so north and south cost nothing beyond the one
 * coalesced load of each row. Only west/east cross threads: the centre rows
 * go through a small double-buffered shared array (plus one halo column per
 * side, fetched by two threads), one barrier per group of K rows.
 * Why not a 2-D shared tile with a halo ring: every tile would re-read its
 * top and bottom halo rows and fetch its side halos as one 32-byte sector
 * per element; here a strip re-reads 2 of 66 rows and the side halos cost 2
 * sectors per 256 columns, so DRAM traffic stays close to one read and one
 * write, i.e. copy speed. K rows per group (8 floats, 4 doubles: 32 bytes
 * per thread) are loaded together so that enough bytes are in flight.
 *
 * All indices are 64-bit (signed: position -1 is the west/north halo), and
 * blocks loop over tiles and strips so no grid dimension passes its limit. */
#include "internal.h"

#include <cuda_runtime.h>

namespace {

constexpr unsigned kMaxGridY = 65535;
constexpr unsigned kMaxGridX = 0x7fffffffu;

constexpr int k1dThreads = 256;
constexpr int k1dItems = 4;  // outputs per thread
constexpr int k1dTile = k1dThreads * k1dItems;

constexpr int k2dThreads = 256;  // columns per block
constexpr int k2dStrip = 64;     // rows per block

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }

/* Index in [0, n) that position p in [-1, n] reads under boundary rule BC,
 * or -1 where it reads zero (GP_BOUNDARY_ZERO past an edge). Positions past
 * n are never used by a valid output and read zero. */
template <int BC>
__device__ __forceinline__ long long resolve(long long p, long long n)
{
    if (p < 0) return BC == GP_BOUNDARY_PERIODIC ? n - 1 : BC == GP_BOUNDARY_CLAMP ? 0 : -1;
    if (p < n) return p;
    if (p > n) return -1;
    return BC == GP_BOUNDARY_PERIODIC ? 0 : BC == GP_BOUNDARY_CLAMP ? n - 1 : -1;
}

template <typename T>
__device__ __forceinline__ T fetch(const T *__restrict__ in, long long r, long long c, long long cols)
{
    return r >= 0 && c >= 0 ? in[r * cols + c] : T(0);
}

template <typename T, int BC>
__global__ void __launch_bounds__(k1dThreads)
stencil_1d_kernel(const T *__restrict__ in, T *__restrict__ out, long long n, T wl, T wc, T wr, long long tiles)
{
    __shared__ T s[k1dTile + 2];  // s[q] holds position base - 1 + q
    const int tx = threadIdx.x;

    // Loop bounds depend on blockIdx/gridDim only: the barriers are uniform.
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long base = t * k1dTile;
#pragma unroll
        for (int k = 0; k <= k1dItems; ++k) {
            const int q = k * k1dThreads + tx;
            if (q < k1dTile + 2) {
                const long long j = resolve<BC>(base - 1 + q, n);
                s[q] = j >= 0 ? in[j] : T(0);
            }
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < k1dItems; ++k) {
            const int q = k * k1dThreads + tx;
            const long long i = base + q;
            if (i < n) out[i] = add(add(mul(wl, s[q]), mul(wc, s[q + 1])), mul(wr, s[q + 2]));
        }
        __syncthreads();  // s is refilled by the next tile
    }
}

template <typename T, int BC, int K>
__global__ void __launch_bounds__(k2dThreads)
stencil_2d_kernel(const T *__restrict__ in, T *__restrict__ out, long long rows, long long cols, T wc, T wn,
                  T ws, T ww, T we, long long col_tiles, long long strips)
{
    // line[b][k][1 + t] holds centre row k of the group for column c0 + t;
    // slots 0 and k2dThreads + 1 are the west and east halo columns.
    __shared__ T line[2][K][k2dThreads + 2];
    const int tx = threadIdx.x;
    // Alternates on every group, across tiles too, so consecutive groups
    // never write the buffer that a slower thread may still be reading:
    // one barrier per group suffices.
    int buf = 0;

    for (long long sy = blockIdx.y; sy < strips; sy += gridDim.y) {
        for (long long bx = blockIdx.x; bx < col_tiles; bx += gridDim.x) {
            const long long r0 = sy * k2dStrip;
            const long long r_end = r0 + k2dStrip < rows ? r0 + k2dStrip : rows;
            const long long c0 = bx * k2dThreads;
            const long long col = c0 + tx;
            // The column this thread loads: its own, or for the thread just
            // past the last column the east boundary column (so that its
            // west neighbour reads the boundary value from shared memory).
            const long long lc = resolve<BC>(col, cols);
            // Threads 0 and 1 also fetch the west and east halo columns.
            const long long hc = tx == 0 ? resolve<BC>(c0 - 1, cols) : resolve<BC>(c0 + k2dThreads, cols);
            const int hslot = tx == 0 ? 0 : k2dThreads + 1;

            T win[K + 2];  // rows r-1 .. r+K of column lc
            win[0] = fetch(in, resolve<BC>(r0 - 1, rows), lc, cols);
            win[1] = fetch(in, r0, lc, cols);

            for (long long r = r0; r < r_end; r += K) {
#pragma unroll
                for (int k = 0; k < K; ++k) win[2 + k] = fetch(in, resolve<BC>(r + 1 + k, rows), lc, cols);
#pragma unroll
                for (int k = 0; k < K; ++k) line[buf][k][tx + 1] = win[1 + k];
                if (tx < 2) {
#pragma unroll
                    for (int k = 0; k < K; ++k) line[buf][k][hslot] = fetch(in, resolve<BC>(r + k, rows), hc, cols);
                }
                __syncthreads();
                if (col < cols) {
#pragma unroll
                    for (int k = 0; k < K; ++k) {
                        if (r + k < r_end) {
                            T acc = mul(wc, win[1 + k]);
                            acc = add(acc, mul(wn, win[k]));
                            acc = add(acc, mul(ws, win[2 + k]));
                            acc = add(acc, mul(ww, line[buf][k][tx]));
                            acc = add(acc, mul(we, line[buf][k][tx + 2]));
                            out[(r + k) * cols + col] = acc;
                        }
                    }
                }
                win[0] = win[K];
                win[1] = win[K + 1];
                buf ^= 1;
            }
        }
    }
}

template <typename T>
unsigned grid_dim(T count, unsigned limit)
{
    return (unsigned)(count < (T)limit ? count : (T)limit);
}

template <typename T, int BC>
cudaError_t launch_1d(const gp_stencil3 *w, const void *in, void *out, size_t n, cudaStream_t stream)
{
    const long long tiles = (long long)((n + k1dTile - 1) / k1dTile);
    stencil_1d_kernel<T, BC><<<grid_dim(tiles, kMaxGridX), k1dThreads, 0, stream>>>(
        (const T *)in, (T *)out, (long long)n, (T)w->left, (T)w->center, (T)w->right, tiles);
    return cudaGetLastError();
}

template <typename T, int BC>
cudaError_t launch_2d(const gp_stencil5 *w, const void *in, void *out, size_t rows, size_t cols,
                      cudaStream_t stream)
{
    constexpr int K = 32 / (int)sizeof(T);  // rows per group: 32 bytes of loads in flight per thread
    static_assert(k2dStrip % K == 0, "a strip holds whole groups");
    const long long col_tiles = (long long)((cols + k2dThreads - 1) / k2dThreads);
    const long long strips = (long long)((rows + k2dStrip - 1) / k2dStrip);
    const dim3 grid(grid_dim(col_tiles, kMaxGridX), grid_dim(strips, kMaxGridY));
    stencil_2d_kernel<T, BC, K><<<grid, k2dThreads, 0, stream>>>(
        (const T *)in, (T *)out, (long long)rows, (long long)cols, (T)w->center, (T)w->north, (T)w->south,
        (T)w->west, (T)w->east, col_tiles, strips);
    return cudaGetLastError();
}

template <typename T>
cudaError_t dispatch_1d(gp_boundary b, const gp_stencil3 *w, const void *in, void *out, size_t n,
                        cudaStream_t stream)
{
    switch (b) {
    case GP_BOUNDARY_PERIODIC: return launch_1d<T, GP_BOUNDARY_PERIODIC>(w, in, out, n, stream);
    case GP_BOUNDARY_CLAMP: return launch_1d<T, GP_BOUNDARY_CLAMP>(w, in, out, n, stream);
    case GP_BOUNDARY_ZERO: return launch_1d<T, GP_BOUNDARY_ZERO>(w, in, out, n, stream);
    }
    return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t dispatch_2d(gp_boundary b, const gp_stencil5 *w, const void *in, void *out, size_t rows,
                        size_t cols, cudaStream_t stream)
{
    switch (b) {
    case GP_BOUNDARY_PERIODIC: return launch_2d<T, GP_BOUNDARY_PERIODIC>(w, in, out, rows, cols, stream);
    case GP_BOUNDARY_CLAMP: return launch_2d<T, GP_BOUNDARY_CLAMP>(w, in, out, rows, cols, stream);
    case GP_BOUNDARY_ZERO: return launch_2d<T, GP_BOUNDARY_ZERO>(w, in, out, rows, cols, stream);
    }
    return cudaErrorInvalidValue;
}

}  // namespace

extern "C" gp_status gpi_cuda_stencil_1d(gp_context *ctx, gp_dtype dtype, const gp_stencil3 *w, gp_boundary b,
                                         const void *in, void *out, size_t n)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    cudaError_t e;
    if (dtype == GP_FLOAT32) e = dispatch_1d<float>(b, w, in, out, n, stream);
    else if (dtype == GP_FLOAT64) e = dispatch_1d<double>(b, w, in, out, n, stream);
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_stencil_1d: dtype %d reached the CUDA backend", (int)dtype);
    return gpi_cuda_status(ctx, e, "gp_stencil_1d kernel launch");
}

extern "C" gp_status gpi_cuda_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *w, gp_boundary b,
                                         const void *in, void *out, size_t rows, size_t cols)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    cudaError_t e;
    if (dtype == GP_FLOAT32) e = dispatch_2d<float>(b, w, in, out, rows, cols, stream);
    else if (dtype == GP_FLOAT64) e = dispatch_2d<double>(b, w, in, out, rows, cols, stream);
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_stencil_2d: dtype %d reached the CUDA backend", (int)dtype);
    return gpi_cuda_status(ctx, e, "gp_stencil_2d kernel launch");
}
