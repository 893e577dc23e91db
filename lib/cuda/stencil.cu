/* SPDX-License-Identifier: BSD-3-Clause */
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
 * 2-D, main kernel (cols a multiple of N = 16 / sizeof(T) and both
 * pointers 16-byte aligned, so every row starts 16-byte aligned): register
 * sliding down columns in 16-byte words, with no shared memory and no
 * barrier. Each thread owns N consecutive columns (one float4 / double2) of
 * a strip of 6 rows; a block of 128 threads covers 128 N columns. Down its
 * columns a thread keeps a ring of R = 6 rows in registers and, after
 * computing row p from rows p-1, p, p+1, reloads the dead slot with row
 * p + R - 1: each LDG.128 is issued R - 2 rows (64 bytes per thread) before
 * it is needed, so a thread always has loads in flight while it computes
 * and stores (the old kernel waited at a barrier for each group of rows). West and east
 * neighbours inside the word are registers; across words they come from the
 * neighbouring lanes by shuffle; lanes 0 and 31 also load the halo column
 * on their side, one scalar load per row that hits the line a neighbouring
 * warp reads anyway. The lane just past the last column loads that row's
 * east boundary column as its element 0, for its neighbour's shuffle. A
 * strip reads 8 rows for its 6; the 2 halo rows are its neighbours' and
 * should come from L2. For that, odd strips sweep upwards: the two strips
 * at a boundary run at the same time (blocks go along a strip row first)
 * and now both read its rows at the same end of their sweeps. Swept the
 * same way (and in the 24-row strips of before), one read them first and
 * the other a sweep later, after tens of MB of other traffic through the
 * 50 MB L2, and both went to DRAM (+8% reads). With the halo rows cheap,
 * short strips win: more blocks start early and the tail is short. The
 * launch bound asks for 10 (doubles 9) blocks of 128 threads per SM, which
 * caps registers at 48 (56), no spills.
 * Shape sweeps, ncu before and after: bench/RESULTS.md, "Tuning sweeps" and
 * "Laplacian: the halo rows from L2". The tuning: policy/stencil.cuh.
 * Stores: each output word is one STG.E.128, written in PTX (store16).
 * From a Vec16 (or float4 / double2) assignment nvcc emits four STG.E.32
 * (two STG.E.64 for doubles), each next to its element's arithmetic. A
 * warp's STG.E.32 at a 16-byte stride writes 4 of the 32 bytes of each of
 * the 16 sectors of its 512-byte row, so L2 took 64 partial-sector writes
 * (16 requests) per warp row where 16 full ones (4 requests) do: ~83 sector
 * accesses where a copy has 32, and the kernel was L2-bound (L2 96%, DRAM
 * 70%).
 *
 * 2-D, fallback kernel (cols not a multiple of N, or a buffer not 16-byte
 * aligned): the scalar form of the same sliding, with a shared row buffer
 * for the west/east neighbours. A block of 256 threads owns 256 consecutive
 * columns of a strip of 64 rows; each thread walks down its column keeping
 * the rows r-1, r, r+1 in registers. The centre rows go through a small
 * double-buffered shared array (plus one halo column per side, fetched by
 * two threads), one barrier per group of K rows (8 floats, 4 doubles: 32
 * bytes of loads per thread).
 * Why not a 2-D shared tile with a halo ring (either kernel): every tile
 * would re-read its top and bottom halo rows and fetch its side halos as one
 * 32-byte sector per element; here a strip re-reads 2 of 66 rows and the
 * side halos cost 2 sectors per warp row, so DRAM traffic stays close to
 * one read and one write, i.e. copy speed.
 *
 * All indices are 64-bit (signed: position -1 is the west/north halo), and
 * blocks loop over tiles and strips so no grid dimension passes its limit. */
#include "internal.h"
#include "policy/stencil.cuh"

#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

namespace {

constexpr unsigned kMaxGridY = 65535;
constexpr unsigned kMaxGridX = 0x7fffffffu;

// Short names for the kernels' shapes (values and meaning: policy/stencil.cuh).
using gpi::stencil_policy;
constexpr int k1dThreads = stencil_policy::threads_1d;
constexpr int k1dItems = stencil_policy::items_1d;
constexpr int k1dTile = k1dThreads * k1dItems;
constexpr int k2dThreads = stencil_policy::threads_2d;
constexpr int k2dStrip = stencil_policy::strip_2d;
constexpr bool kStencilAlternate = stencil_policy::vec_alternate;
constexpr int k2vThreads = stencil_policy::vec_threads;
constexpr int k2vStrip = stencil_policy::vec_strip;
constexpr int k2vRing = stencil_policy::vec_ring;
constexpr int k2vMinBlocks = stencil_policy::vec_min_blocks;

// A 16-byte word of 16 / sizeof(T) elements: one LDG/STG.128.
template <typename T>
struct alignas(16) Vec16 {
    T e[16 / sizeof(T)];
};

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }

/* One STG.E.128 per 16-byte word of output, written in PTX: from a Vec16
 * or a float4/double2 assignment nvcc emits N separate 4- or 8-byte stores,
 * each next to the arithmetic of its element (four STG.E.32 per float4:
 * each warp instruction writes a quarter of every sector of 512 bytes, so
 * L2 sees 64 partial-sector writes where 16 full ones would do; see the
 * header). Nothing in this file reads the output, so the asm needs no
 * memory clobber. */
__device__ __forceinline__ void store16(float *a, const Vec16<float> &v)
{
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(a), "f"(v.e[0]), "f"(v.e[1]), "f"(v.e[2]),
                 "f"(v.e[3]));
}
__device__ __forceinline__ void store16(double *a, const Vec16<double> &v)
{
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(a), "d"(v.e[0]), "d"(v.e[1]));
}

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

/* The 2-D kernel on 16-byte words (cols a multiple of N = 16 / sizeof(T),
 * both pointers 16-byte aligned); see the header comment. The minimum of
 * resident blocks caps registers (64 for floats, 72 for doubles: the most
 * that spills nothing); uncapped, ptxas spends 80-118 on hoisted row
 * addresses and fewer blocks fit. */
template <typename T, int BC>
__global__ void __launch_bounds__(k2vThreads, sizeof(T) == 4 ? k2vMinBlocks : k2vMinBlocks - 1)
stencil_2d_vec_kernel(const T *__restrict__ in, T *__restrict__ out, long long rows, long long cols, T wc, T wn,
                      T ws, T ww, T we, long long col_tiles, long long strips)
{
    constexpr int N = 16 / (int)sizeof(T);  // elements per thread and row
    constexpr int R = k2vRing;
    static_assert(k2vStrip % R == 0, "a strip holds whole turns of the ring");
    using V = Vec16<T>;
    const unsigned lane = threadIdx.x % 32;

    for (long long sy = blockIdx.y; sy < strips; sy += gridDim.y) {
        for (long long bx = blockIdx.x; bx < col_tiles; bx += gridDim.x) {
            const long long r0 = sy * k2vStrip;
            const long long r_end = r0 + k2vStrip < rows ? r0 + k2vStrip : rows;
            const long long c = (bx * k2vThreads + threadIdx.x) * N;  // this thread's first column
            const bool inside = c < cols;                              // then all N columns are inside
            // A thread past the last column loads, as element 0, the column
            // it stands on under the boundary rule: for the one just past the
            // end that is the east boundary column, which its west neighbour
            // takes by shuffle; further ones read zero and store nothing.
            const long long xc = resolve<BC>(c, cols);
            // Lane 0 fetches the west halo column, lane 31 the east one.
            const long long hc = lane == 0 ? resolve<BC>(c - 1, cols) : lane == 31 ? resolve<BC>(c + N, cols) : -1;
            const bool vload = inside, sload = !inside && xc >= 0, hload = hc >= 0;
            const T *const pv = in + (inside ? c : sload ? xc : 0);
            const T *const ph = in + (hload ? hc : 0);

            // Row p under the boundary rule: v gets its N elements (or zeros),
            // h its halo element (lanes 0 and 31; zero elsewhere).
            auto load = [&](long long p, V &v, T &h) {
                const long long rr = resolve<BC>(p, rows);
                const long long off = rr * cols;
                v = V();
                h = T(0);
                if (rr >= 0) {
                    if (vload) v = *(const V *)(pv + off);
                    else if (sload) v.e[0] = pv[off];
                    if (hload) h = ph[off];
                }
            };

            // The strip is swept in steps q = 0 .. len-1; step q is row
            // row_of(q): downwards on even strips, upwards on odd ones (see
            // the header). The direction is a compile-time constant of each
            // sweep, so the ring below keeps static slot indices (a run-time
            // choice between slots put the ring in local memory).
            const long long len = r_end - r0;
            auto sweep = [&](auto dir) {
                constexpr bool down = decltype(dir)::value;
                auto row_of = [&](long long q) { return down ? r0 + q : r_end - 1 - q; };

                // A ring of R rows. Entering step i of an iteration at step s,
                // slot j holds step s - 1 + j's row for j >= i and step
                // s - 1 + j + R's for j < i (win: the thread's N elements, hal:
                // its halo element). Step i computes step q = s + i from slots i,
                // i+1, i+2 (steps q-1, q, q+1: north, centre, south going down,
                // south and north going up), after which slot i is dead and takes
                // step q - 1 + R: each load is issued R - 2 rows before its use.
                V win[R];
                T hal[R];
#pragma unroll
                for (int j = 0; j < R; ++j) {
                    if (j - 1 <= len) load(row_of(j - 1), win[j], hal[j]);  // steps -1 .. len are read
                    else {
                        win[j] = V();
                        hal[j] = T(0);
                    }
                }

                for (long long s = 0; s < len; s += R) {
#pragma unroll
                    for (int i = 0; i < R; ++i) {
                        const long long q = s + i;
                        if (q < len) {  // uniform across the block, like every bound here
                            const long long p = row_of(q);
                            const V &cv = win[(i + 1) % R];
                            const V &nv = down ? win[i] : win[(i + 2) % R], &sv = down ? win[(i + 2) % R] : win[i];
                            // Every lane shuffles, then lanes 0 and 31 take their halo.
                            T west = __shfl_up_sync(0xffffffffu, cv.e[N - 1], 1);
                            T east = __shfl_down_sync(0xffffffffu, cv.e[0], 1);
                            if (lane == 0) west = hal[(i + 1) % R];
                            if (lane == 31) east = hal[(i + 1) % R];
                            V o;
#pragma unroll
                            for (int e = 0; e < N; ++e) {
                                const T w = e == 0 ? west : cv.e[e - 1];
                                const T x = e == N - 1 ? east : cv.e[e + 1];
                                T acc = mul(wc, cv.e[e]);
                                acc = add(acc, mul(wn, nv.e[e]));
                                acc = add(acc, mul(ws, sv.e[e]));
                                acc = add(acc, mul(ww, w));
                                acc = add(acc, mul(we, x));
                                o.e[e] = acc;
                            }
                            if (inside) store16(out + p * cols + c, o);
                        }
                        if (q - 1 + R <= len) load(row_of(q - 1 + R), win[i], hal[i]);
                    }
                }
            };
            // The direction (true: downwards) as a type: std::bool_constant.
            if (!kStencilAlternate || (sy & 1) == 0) sweep(std::true_type());
            else sweep(std::false_type());
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
    constexpr size_t N = 16 / sizeof(T);
    const bool vec = ((((uintptr_t)in | (uintptr_t)out) & 15) == 0) && cols % N == 0;
    if (vec) {
        const long long strips = (long long)((rows + k2vStrip - 1) / k2vStrip);
        const long long col_tiles = (long long)((cols / N + k2vThreads - 1) / k2vThreads);
        const dim3 grid(grid_dim(col_tiles, kMaxGridX), grid_dim(strips, kMaxGridY));
        stencil_2d_vec_kernel<T, BC><<<grid, k2vThreads, 0, stream>>>(
            (const T *)in, (T *)out, (long long)rows, (long long)cols, (T)w->center, (T)w->north, (T)w->south,
            (T)w->west, (T)w->east, col_tiles, strips);
        return cudaGetLastError();
    }
    constexpr int K = 32 / (int)sizeof(T);  // rows per group: 32 bytes of loads in flight per thread
    static_assert(k2dStrip % K == 0, "a strip holds whole groups");
    const long long strips = (long long)((rows + k2dStrip - 1) / k2dStrip);
    const long long col_tiles = (long long)((cols + k2dThreads - 1) / k2dThreads);
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
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "dtype %d reached the CUDA backend", (int)dtype);
    return gpi_cuda_status(ctx, e, "stencil_1d kernel launch");
}

extern "C" gp_status gpi_cuda_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *w, gp_boundary b,
                                         const void *in, void *out, size_t rows, size_t cols)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    cudaError_t e;
    if (dtype == GP_FLOAT32) e = dispatch_2d<float>(b, w, in, out, rows, cols, stream);
    else if (dtype == GP_FLOAT64) e = dispatch_2d<double>(b, w, in, out, rows, cols, stream);
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "dtype %d reached the CUDA backend", (int)dtype);
    return gpi_cuda_status(ctx, e, "stencil_2d kernel launch");
}
