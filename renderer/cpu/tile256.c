/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tile256.c - the CPU tile renderer's AVX2 path for ordinary circles,
 * chosen at run time where the CPU has AVX2 but not AVX-512F. */
#include "tile.h"

#ifdef GPR_HAVE_REGISTER_TILES
#include <immintrin.h>

/* Ordinary circles over a whole tile with AVX2: the register-tile structure
 * of tile512.c cut to what 16 vector registers hold. A tile row is shaded a
 * segment of SEG256 pixels at a time (2 vectors each of R, G, B, A) and the
 * segment stays in registers while the circles that reach it pass over it
 * in order, so the blend loads and stores no pixel.
 *
 * Per chunk of circles, dx*dx (dx = px - cx) is formed once per column of
 * the tile, and is NaN in the columns outside the circle's box, and dy*dy
 * once per row; a segment row meets only the circles whose box reaches its
 * row and segment (a bit per circle of the chunk, taken in order). There
 * d2 = dx*dx + dy*dy and the pixel is inside iff d2 <= r*r (ordered: a NaN
 * d2 is outside). Within the box this is gpr_shade's !(d2 > r*r): a binned
 * circle's d2 is never NaN there (its centre and radius give a non-empty
 * box only when each square is a number or +inf) and r*r is a number or
 * +inf. So the pixels are the reference's, and per pixel the operations are
 * gpr_shade's, in circle order: c = alpha*C + (1-alpha)*c by plain
 * multiply and add (no FMA), and a = alpha + a as a + (alpha or 0) (exact:
 * a >= 1). c is computed in every lane as c*m - k: inside, m = 1 - alpha
 * and k = -(alpha*C), the reference's product and sum; outside, m = 1 and
 * k = +0, and c*1 - (+0) is c exactly (-0.0 included; a NaN colour's sign
 * is not kept, as no path promises it). Exact in the default floating-point
 * environment: with flush-to-zero or denormals-are-zero set by the host
 * program, c*1 turns a subnormal c outside the circle into 0. So no select
 * sits on c's chain of dependent operations, which bounds the loop. The
 * per-circle constants are kept as whole vectors so that the blend reads
 * them as memory operands and the registers hold the segment. */
#define CHUNK256 32 /* <= 32: a bit per circle */
#define SEG256 16
#define NSEG256 (TILE_W / SEG256)
#define PREFETCH256 12
_Static_assert(TILE_H % 8 == 0, "the tile's rows are set up 8 at a time");

/* take ? b : a, lane by lane, for a compare's all-ones/zero mask. As an
 * instruction of its own: GCC turns the intrinsic into a generic select and
 * then spends an extra compare rebuilding the mask from its sign bits. */
__attribute__((target("avx2"))) static inline __m256 blend8(__m256 a, __m256 b, __m256 take)
{
    __asm__("vblendvps %2, %1, %0, %0" : "+x"(a) : "x"(b), "x"(take));
    return a;
}

/* A circle's values over the tile: the constants as vectors, dx*dx per
 * column (NaN outside the box) and dy*dy per row. */
typedef struct circle8 {
    __m256 maxd2, nar, nag, nab; /* r*r and -alpha*C */
    float dxx[TILE_W], dyy[TILE_H];
} circle8;

__attribute__((target("avx2"))) void gpr_cpu_shade_tile_avx2(const gpr_cpu_renderer *r, int tx0, int ty0,
                                                               int ty1, const uint32_t *list, uint32_t count,
                                                               float (*R)[TILE_W], float (*G)[TILE_W],
                                                               float (*B)[TILE_W], float (*A)[TILE_W])
{
    circle8 cc[CHUNK256];
    /* Bit k: circle k of the chunk has segment s / row j inside its box. */
    uint32_t seg_circles[NSEG256], row_circles[TILE_H];
    const float *cx = r->colx + tx0;
    const __m256 oma = _mm256_set1_ps(1.f - .5f), alpha = _mm256_set1_ps(.5f), one = _mm256_set1_ps(1.f);
    const __m256 nan = _mm256_set1_ps(__builtin_nanf(""));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const int rows = ty1 - ty0;
    __m256 cy[TILE_H / 8];
    uint32_t k0;
    int row, s, v;
    for (v = 0; v < TILE_H / 8; v++) {
        /* the tile's row centres (rows past the image: any number, unused) */
        float y[8];
        int i;
        for (i = 0; i < 8; i++) y[i] = r->rowy[ty0 + (8 * v + i < rows ? 8 * v + i : 0)];
        cy[v] = _mm256_loadu_ps(y);
    }
    for (k0 = 0; k0 < count; k0 += CHUNK256) {
        const uint32_t m = count - k0 < CHUNK256 ? count - k0 : CHUNK256;
        uint32_t k;
        for (s = 0; s < NSEG256; s++) seg_circles[s] = 0;
        for (row = 0; row < TILE_H; row++) row_circles[row] = 0;
        for (k = 0; k < m; k++) {
            const uint32_t c = list[k0 + k];
            const box16 b = r->box[c];
            const int a = (b.x0 > tx0 ? b.x0 : tx0) - tx0, e = (b.x1 < tx0 + TILE_W ? b.x1 : tx0 + TILE_W) - tx0;
            const int ya = (b.y0 > ty0 ? b.y0 : ty0) - ty0, ye = (b.y1 < ty1 ? b.y1 : ty1) - ty0;
            const float rad = r->rad[c];
            const __m256 px = _mm256_set1_ps(r->x[c]), py = _mm256_set1_ps(r->y[c]);
            const __m256i lo = _mm256_set1_epi32(a - 1), hi = _mm256_set1_epi32(e);
            if (k0 + k + PREFETCH256 < count) {
                /* circles are scattered over the scene arrays: fetch ahead */
                const uint32_t f = list[k0 + k + PREFETCH256];
                __builtin_prefetch(&r->box[f]);
                __builtin_prefetch(&r->x[f]);
                __builtin_prefetch(&r->y[f]);
                __builtin_prefetch(&r->rad[f]);
                __builtin_prefetch(&r->cr[f]);
                __builtin_prefetch(&r->cg[f]);
                __builtin_prefetch(&r->cb[f]);
            }
            cc[k].maxd2 = _mm256_set1_ps(rad * rad);
            cc[k].nar = _mm256_set1_ps(-(.5f * r->cr[c]));
            cc[k].nag = _mm256_set1_ps(-(.5f * r->cg[c]));
            cc[k].nab = _mm256_set1_ps(-(.5f * r->cb[c]));
            for (s = 0; s < NSEG256; s++) seg_circles[s] |= (uint32_t)(a < SEG256 * (s + 1) && e > SEG256 * s) << k;
            for (row = ya; row < ye; row++) row_circles[row] |= 1u << k;
            for (v = 0; v < TILE_W / 8; v++) {
                /* column 8v + lane is in the box iff a - 1 < column < e */
                const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(8 * v), lane);
                const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(col, lo), _mm256_cmpgt_epi32(hi, col));
                const __m256 dx = _mm256_sub_ps(px, _mm256_loadu_ps(cx + 8 * v));
                _mm256_store_ps(cc[k].dxx + 8 * v, blend8(nan, _mm256_mul_ps(dx, dx), _mm256_castsi256_ps(in)));
            }
            for (v = 0; v < TILE_H / 8; v++) {
                const __m256 dy = _mm256_sub_ps(py, cy[v]);
                _mm256_store_ps(cc[k].dyy + 8 * v, _mm256_mul_ps(dy, dy));
            }
        }
        for (row = 0; row < rows; row++) {
            for (s = 0; s < NSEG256; s++) {
                const int x = SEG256 * s;
                __m256 r0, r1, g0, g1, b0, b1, a0, a1;
                uint32_t todo = seg_circles[s] & row_circles[row];
                if (!todo) continue;
                r0 = _mm256_load_ps(R[row] + x), r1 = _mm256_load_ps(R[row] + x + 8);
                g0 = _mm256_load_ps(G[row] + x), g1 = _mm256_load_ps(G[row] + x + 8);
                b0 = _mm256_load_ps(B[row] + x), b1 = _mm256_load_ps(B[row] + x + 8);
                a0 = _mm256_load_ps(A[row] + x), a1 = _mm256_load_ps(A[row] + x + 8);
                for (; todo; todo &= todo - 1) { /* the circles in chunk order */
                    const circle8 *p = &cc[__builtin_ctz(todo)];
                    const __m256 vdy2 = _mm256_broadcast_ss(&p->dyy[row]);
                    const float *d = p->dxx + x;
                    const __m256 t0 = _mm256_cmp_ps(_mm256_add_ps(_mm256_load_ps(d), vdy2), p->maxd2, _CMP_LE_OQ);
                    const __m256 t1 = _mm256_cmp_ps(_mm256_add_ps(_mm256_load_ps(d + 8), vdy2), p->maxd2, _CMP_LE_OQ);
                    /* inside: c*(1 - alpha) - (-alpha*C); outside: c*1 - 0, which is c */
                    const __m256 o0 = blend8(one, oma, t0), o1 = blend8(one, oma, t1);
                    r0 = _mm256_sub_ps(_mm256_mul_ps(o0, r0), _mm256_and_ps(t0, p->nar));
                    r1 = _mm256_sub_ps(_mm256_mul_ps(o1, r1), _mm256_and_ps(t1, p->nar));
                    g0 = _mm256_sub_ps(_mm256_mul_ps(o0, g0), _mm256_and_ps(t0, p->nag));
                    g1 = _mm256_sub_ps(_mm256_mul_ps(o1, g1), _mm256_and_ps(t1, p->nag));
                    b0 = _mm256_sub_ps(_mm256_mul_ps(o0, b0), _mm256_and_ps(t0, p->nab));
                    b1 = _mm256_sub_ps(_mm256_mul_ps(o1, b1), _mm256_and_ps(t1, p->nab));
                    a0 = _mm256_add_ps(a0, _mm256_and_ps(t0, alpha));
                    a1 = _mm256_add_ps(a1, _mm256_and_ps(t1, alpha));
                }
                _mm256_store_ps(R[row] + x, r0), _mm256_store_ps(R[row] + x + 8, r1);
                _mm256_store_ps(G[row] + x, g0), _mm256_store_ps(G[row] + x + 8, g1);
                _mm256_store_ps(B[row] + x, b0), _mm256_store_ps(B[row] + x + 8, b1);
                _mm256_store_ps(A[row] + x, a0), _mm256_store_ps(A[row] + x + 8, a1);
            }
        }
    }
}
#endif
