/* SPDX-License-Identifier: BSD-3-Clause */
/* cull.cuh - the conservative circle-vs-rectangle tests that binning and
 * shading share, so that counting, emitting and shading always agree. Why
 * they never drop a contribution: see frame.cu. */
#ifndef GPUPRIM_RENDER_CUDA_CULL_CUH
#define GPUPRIM_RENDER_CUDA_CULL_CUH

#include "cuda/policy.cuh"
#include "shade.h"

namespace gpr_rc {


/* A circle's clamped pixel box [x0, x1) x [y0, y1), packed as
 * (x0 | x1 << 16 | unsafe << 31, y0 | y1 << 16). */
struct Box {
    int x0, x1, y0, y1;
};

__device__ __forceinline__ Box unpack_box(uint2 b)
{
    Box r;
    r.x0 = (int)(b.x & 0xffffu);
    r.x1 = (int)((b.x >> 16) & 0x7fffu);
    r.y0 = (int)(b.y & 0xffffu);
    r.y1 = (int)((b.y >> 16) & 0x7fffu);
    return r;
}

/* Can a pixel centre of the non-empty rectangle [x0, x1) x [y0, y1) pass
 * gpr_shade's test d2 <= r*r? Never false when one does (see the top). */
__device__ __forceinline__ bool rect_hit(float px, float py, float rad, int x0, int x1, int y0, int y1,
                                         float invW, float invH)
{
    float lox = gpr_pixel_x(x0, invW), hix = gpr_pixel_x(x1 - 1, invW);
    float loy = gpr_pixel_y(y0, invH), hiy = gpr_pixel_y(y1 - 1, invH);
    float nx = px < lox ? lox : (px > hix ? hix : px);
    float ny = py < loy ? loy : (py > hiy ? hiy : py);
    float dx = __fsub_rn(px, nx), dy = __fsub_rn(py, ny);
    float d2 = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
    return !(d2 > __fmul_rn(rad, rad));
}

/* Does every pixel centre of the non-empty rectangle pass d2 <= r*r? The
 * farthest centre on each axis is an end (monotonic rounding), so this d2
 * is >= gpr_shade's for every pixel of the rectangle. */
__device__ __forceinline__ bool rect_covered(float px, float py, float rad, int x0, int x1, int y0, int y1,
                                             float invW, float invH)
{
    float ax = __fsub_rn(px, gpr_pixel_x(x0, invW)), bx = __fsub_rn(px, gpr_pixel_x(x1 - 1, invW));
    float ay = __fsub_rn(py, gpr_pixel_y(y0, invH)), by = __fsub_rn(py, gpr_pixel_y(y1 - 1, invH));
    float mx = fmaxf(__fmul_rn(ax, ax), __fmul_rn(bx, bx));
    float my = fmaxf(__fmul_rn(ay, ay), __fmul_rn(by, by));
    return __fadd_rn(mx, my) <= __fmul_rn(rad, rad);
}

/* Binning cells ("tiles" below) are 2^lg.x x 2^lg.y pixels: a shading
 * tile, or a block of them (frame.cu's BinGrid). */

/* Does the circle reach bin (tx, ty)? The bin must lie in the box's bin range. */
__device__ __forceinline__ bool tile_hit(float4 g, const Box &b, int tx, int ty, int2 lg, float invW, float invH)
{
    int x0 = max(tx << lg.x, b.x0), x1 = min((tx + 1) << lg.x, b.x1);
    int y0 = max(ty << lg.y, b.y0), y1 = min((ty + 1) << lg.y, b.y1);
    return rect_hit(g.x, g.y, g.w, x0, x1, y0, y1, invW, invH);
}

/* The circle's bins in bin row ty: columns [*l, *l + width), width returned.
 * First and last hit from each end, so the set is a run by definition; count
 * and emit both call this, so they always agree. */
__device__ __forceinline__ int row_span(float4 g, const Box &b, int tx0, int tx1, int ty, int2 lg, float invW,
                                        float invH, int *l)
{
    int a = tx0, e = tx1;
    while (a <= tx1 && !tile_hit(g, b, a, ty, lg, invW, invH)) ++a;
    *l = a;
    if (a > tx1) return 0;
    while (e > a && !tile_hit(g, b, e, ty, lg, invW, invH)) --e;
    return e - a + 1;
}

struct TileRange {
    int tx0, tx1, ty0, ty1; /* inclusive; empty when tx0 > tx1 */
};

/* The bins (of 2^lg.x x 2^lg.y pixels) that a pixel box touches; the host's
 * bin-shape estimate (frame.cu's choose_bins) counts with it too. */
__host__ __device__ __forceinline__ TileRange tile_range(const Box &b, int2 lg)
{
    TileRange t;
    if (b.x0 >= b.x1 || b.y0 >= b.y1) {
        t.tx0 = t.ty0 = 1;
        t.tx1 = t.ty1 = 0;
    } else {
        t.tx0 = b.x0 >> lg.x;
        t.tx1 = (b.x1 - 1) >> lg.x;
        t.ty0 = b.y0 >> lg.y;
        t.ty1 = (b.y1 - 1) >> lg.y;
    }
    return t;
}


} // namespace gpr_rc

#endif
