/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tile512.c - the CPU tile renderer's AVX-512 path for ordinary
 * circles, chosen at run time where the CPU has AVX-512F. */
#include "tile.h"

#ifdef GPR_HAVE_REGISTER_TILES
#include <immintrin.h>

/* Ordinary circles over a whole tile with AVX-512: the tile is shaded row
 * by row, and a row's 64 pixels (4 vectors each of R, G, B, A) stay in
 * registers while the tile's circles pass over it in order, so the blend
 * itself loads and stores nothing. The circles' per-tile values are set up
 * a chunk at a time; per pixel the operations are gpr_shade's (see
 * blend_row_scalar), masked to the circle's box columns and to
 * !(d2 > r*r). */
#define CHUNK512 256
__attribute__((target("avx512f"))) void gpr_cpu_shade_tile_avx512(const gpr_cpu_renderer *r, int tx0, int ty0,
                                                                   int ty1, const uint32_t *list, uint32_t count,
                                                                   float (*R)[TILE_W], float (*G)[TILE_W],
                                                                   float (*B)[TILE_W], float (*A)[TILE_W])
{
    float cpx[CHUNK512], cpy[CHUNK512], cmax[CHUNK512], car[CHUNK512], cag[CHUNK512], cab[CHUNK512];
    uint64_t ccols[CHUNK512];
    uint8_t cy0[CHUNK512], cy1[CHUNK512];
    const float *cx = r->colx + tx0;
    const __m512 cx0 = _mm512_loadu_ps(cx), cx1 = _mm512_loadu_ps(cx + 16);
    const __m512 cx2 = _mm512_loadu_ps(cx + 32), cx3 = _mm512_loadu_ps(cx + 48);
    const __m512 oma = _mm512_set1_ps(1.f - .5f), alpha = _mm512_set1_ps(.5f);
    uint32_t k0;
    int row;
    for (k0 = 0; k0 < count; k0 += CHUNK512) {
        const uint32_t m = count - k0 < CHUNK512 ? count - k0 : CHUNK512;
        uint32_t k;
        for (k = 0; k < m; k++) {
            const uint32_t c = list[k0 + k];
            const box16 b = r->box[c];
            const int a = (b.x0 > tx0 ? b.x0 : tx0) - tx0, e = (b.x1 < tx0 + TILE_W ? b.x1 : tx0 + TILE_W) - tx0;
            const int ya = (b.y0 > ty0 ? b.y0 : ty0) - ty0, ye = (b.y1 < ty1 ? b.y1 : ty1) - ty0;
            cpx[k] = r->x[c];
            cpy[k] = r->y[c];
            cmax[k] = r->rad[c] * r->rad[c];
            car[k] = .5f * r->cr[c];
            cag[k] = .5f * r->cg[c];
            cab[k] = .5f * r->cb[c];
            /* columns [a, e) of the tile; none when the box misses it */
            ccols[k] = a < e ? (e == TILE_W ? ~0ull : (1ull << e) - 1) & (~0ull << a) : 0;
            cy0[k] = (uint8_t)(ya < ye ? ya : 0);
            cy1[k] = (uint8_t)(ya < ye ? ye : 0);
        }
        for (row = 0; row < ty1 - ty0; row++) {
            const float cy = r->rowy[ty0 + row];
            __m512 r0 = _mm512_load_ps(R[row]), r1 = _mm512_load_ps(R[row] + 16);
            __m512 r2 = _mm512_load_ps(R[row] + 32), r3 = _mm512_load_ps(R[row] + 48);
            __m512 g0 = _mm512_load_ps(G[row]), g1 = _mm512_load_ps(G[row] + 16);
            __m512 g2 = _mm512_load_ps(G[row] + 32), g3 = _mm512_load_ps(G[row] + 48);
            __m512 b0 = _mm512_load_ps(B[row]), b1 = _mm512_load_ps(B[row] + 16);
            __m512 b2 = _mm512_load_ps(B[row] + 32), b3 = _mm512_load_ps(B[row] + 48);
            __m512 a0 = _mm512_load_ps(A[row]), a1 = _mm512_load_ps(A[row] + 16);
            __m512 a2 = _mm512_load_ps(A[row] + 32), a3 = _mm512_load_ps(A[row] + 48);
            for (k = 0; k < m; k++) {
                float dy, dy2;
                __m512 px, vdy2, vmax, ar, ag, ab;
                uint64_t cols;
                if ((unsigned)(row - cy0[k]) >= (unsigned)(cy1[k] - cy0[k])) continue;
                dy = cpy[k] - cy;
                dy2 = dy * dy;
                /* d2 = fl(dx*dx + dy2) >= dy2: no pixel of this row is inside. */
                if (dy2 > cmax[k]) continue;
                cols = ccols[k];
                px = _mm512_set1_ps(cpx[k]);
                vdy2 = _mm512_set1_ps(dy2);
                vmax = _mm512_set1_ps(cmax[k]);
                ar = _mm512_set1_ps(car[k]);
                ag = _mm512_set1_ps(cag[k]);
                ab = _mm512_set1_ps(cab[k]);
#define GPR_BLEND16(v, CX, RR, GG, BB, AA)                                                                        \
    do {                                                                                                          \
        __m512 dx = _mm512_sub_ps(px, CX);                                                                        \
        __m512 d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), vdy2);                                                   \
        __mmask16 take = _mm512_mask_cmp_ps_mask((__mmask16)(cols >> (16 * v)), d2, vmax, _CMP_NGT_UQ);          \
        RR = _mm512_mask_add_ps(RR, take, ar, _mm512_mul_ps(oma, RR));                                            \
        GG = _mm512_mask_add_ps(GG, take, ag, _mm512_mul_ps(oma, GG));                                            \
        BB = _mm512_mask_add_ps(BB, take, ab, _mm512_mul_ps(oma, BB));                                            \
        AA = _mm512_mask_add_ps(AA, take, alpha, AA);                                                             \
    } while (0)
                GPR_BLEND16(0, cx0, r0, g0, b0, a0);
                GPR_BLEND16(1, cx1, r1, g1, b1, a1);
                GPR_BLEND16(2, cx2, r2, g2, b2, a2);
                GPR_BLEND16(3, cx3, r3, g3, b3, a3);
#undef GPR_BLEND16
            }
            _mm512_store_ps(R[row], r0); _mm512_store_ps(R[row] + 16, r1);
            _mm512_store_ps(R[row] + 32, r2); _mm512_store_ps(R[row] + 48, r3);
            _mm512_store_ps(G[row], g0); _mm512_store_ps(G[row] + 16, g1);
            _mm512_store_ps(G[row] + 32, g2); _mm512_store_ps(G[row] + 48, g3);
            _mm512_store_ps(B[row], b0); _mm512_store_ps(B[row] + 16, b1);
            _mm512_store_ps(B[row] + 32, b2); _mm512_store_ps(B[row] + 48, b3);
            _mm512_store_ps(A[row], a0); _mm512_store_ps(A[row] + 16, a1);
            _mm512_store_ps(A[row] + 32, a2); _mm512_store_ps(A[row] + 48, a3);
        }
    }
}
#endif
