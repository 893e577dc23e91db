/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tiles.c - shading one tile of the CPU tile renderer: the background,
 * the tile's circles in order over its SoA buffer (the row blend or the
 * AVX2 or AVX-512 register tile for ordinary circles, gpr_shade for snow),
 * then the tile into the image. */
#include "shade.h"
#include "tile.h"

#include <math.h>

/* A tile's circles, in order, circle by circle and row by row over the
 * tile's SoA buffer: ordinary circles by the row blend `blend` over each
 * row's chord, snow circles by gpr_shade per pixel. */
static void shade_tile_rows(const gpr_cpu_renderer *r, int tx0, int ty0, int tx1, int ty1, const uint32_t *list,
                            uint32_t count, blend_fn blend, float (*R)[TILE_W], float (*G)[TILE_W],
                            float (*B)[TILE_W], float (*A)[TILE_W])
{
    const float fW = (float)r->width;
    const int snow = r->snow;
    uint32_t k;
    int i, j;
    for (k = 0; k < count; k++) {
        const uint32_t c = list[k];
        const box16 b = r->box[c];
        const float px = r->x[c], py = r->y[c], pz = r->z[c], rad = r->rad[c];
        const float maxd2 = rad * rad;
        /* Slack for the chord: far above the float error of d2 and of the
         * pixel centres; the exact test below still decides each pixel. */
        const float wide = maxd2 * 1.00001f;
        const int narrow = fabsf(px) <= 2.f && rad <= 2.f;
        /* Column bounds as (int)(v + bias) - bias: a floor without floorf
         * (slow without SSE4.1) for v > -bias; |v| < 4W+1 when narrow. The
         * rounding of v + bias (< 1/64 pixel) is inside the 2-pixel margins. */
        const float bias = 4.f * fW + 8.f;
        const float pxW = px * fW;
        const int bx0 = b.x0 > tx0 ? b.x0 : tx0, bx1 = b.x1 < tx1 ? b.x1 : tx1;
        const int by0 = b.y0 > ty0 ? b.y0 : ty0, by1 = b.y1 < ty1 ? b.y1 : ty1;
        row_args ra;
        ra.px = px;
        ra.maxd2 = maxd2;
        ra.alpha = .5f;
        ra.oma = 1.f - ra.alpha;
        ra.ar = ra.alpha * r->cr[c];
        ra.ag = ra.alpha * r->cg[c];
        ra.ab = ra.alpha * r->cb[c];
        for (j = by0; j < by1; j++) {
            const float cy = r->rowy[j];
            const float dy = py - cy, dy2 = dy * dy;
            int xa = bx0, xb = bx1, row = j - ty0;
            /* d2 = fl(dx*dx + dy2) >= dy2: no pixel of this row is inside. */
            if (dy2 > maxd2) continue;
            if (narrow) {
                float hwW = sqrtf(wide - dy2) * fW;
                int lo = (int)(pxW - hwW - .5f + bias) - (int)bias - 2;
                int hi = (int)(pxW + hwW - .5f + bias) - (int)bias + 3;
                if (lo > xa) xa = lo;
                if (hi < xb) xb = hi;
            }
            if (xa >= xb) continue;
            if (!snow) {
                ra.dy2 = dy2;
                blend(R[row], G[row], B[row], A[row], r->colx + tx0, xa - tx0, xb - tx0, &ra);
            } else {
                for (i = xa; i < xb; i++) {
                    int x = i - tx0;
                    gpr_rgba q = {R[row][x], G[row][x], B[row][x], A[row][x]};
                    gpr_shade(&q, r->colx[i], cy, px, py, pz, rad, 0.f, 0.f, 0.f, 1);
                    R[row][x] = q.r;
                    G[row][x] = q.g;
                    B[row][x] = q.b;
                    A[row][x] = q.a;
                }
            }
        }
    }
}

void gpr_cpu_shade_tile(gpr_cpu_renderer *r, size_t t, blend_fn blend, gpr_tile_path tile)
{
    _Alignas(64) float R[TILE_H][TILE_W];
    _Alignas(64) float G[TILE_H][TILE_W];
    _Alignas(64) float B[TILE_H][TILE_W];
    _Alignas(64) float A[TILE_H][TILE_W];
    const int W = r->width;
    const int tx0 = (int)(t % (size_t)r->tiles_x) * TILE_W, ty0 = (int)(t / (size_t)r->tiles_x) * TILE_H;
    const int tx1 = tx0 + TILE_W < W ? tx0 + TILE_W : W;
    const int ty1 = ty0 + TILE_H < r->height ? ty0 + TILE_H : r->height;
    /* bins is NULL until some circle lands in a tile (then count is 0). */
    const uint32_t *list = r->bins ? r->bins + r->tile_begin[t] : NULL;
    const uint32_t count = r->tile_total[t];
    const int snow = r->snow;
    int i, j;
    (void)tile; /* without GPR_HAVE_REGISTER_TILES, only the row path */

    for (j = ty0; j < ty1; j++) {
        gpr_rgba bg = gpr_background(snow, j, r->height);
        for (i = 0; i < TILE_W; i++) {
            R[j - ty0][i] = bg.r;
            G[j - ty0][i] = bg.g;
            B[j - ty0][i] = bg.b;
            A[j - ty0][i] = bg.a;
        }
    }

#ifdef GPR_HAVE_REGISTER_TILES
    if (tile == GPR_TILE_AVX512 && !snow)
        gpr_cpu_shade_tile_avx512(r, tx0, ty0, ty1, list, count, R, G, B, A);
    else if (tile == GPR_TILE_AVX2 && !snow)
        gpr_cpu_shade_tile_avx2(r, tx0, ty0, ty1, list, count, R, G, B, A);
    else
#endif
        shade_tile_rows(r, tx0, ty0, tx1, ty1, list, count, blend, R, G, B, A);

    for (j = ty0; j < ty1; j++) {
        float *out = r->image + ((size_t)(j - r->band_py0) * (size_t)W + (size_t)tx0) * 4;
        int row = j - ty0;
        for (i = 0; i < tx1 - tx0; i++) {
            out[4 * i] = R[row][i];
            out[4 * i + 1] = G[row][i];
            out[4 * i + 2] = B[row][i];
            out[4 * i + 3] = A[row][i];
        }
    }
}
