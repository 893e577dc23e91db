/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/blend.c - the row blends of the CPU tile renderer (scalar, SSE, AVX2)
 * and the run-time choice among them and the AVX2 and AVX-512 register
 * tiles. */
#include "tile.h"

#include <stdlib.h>
#include <string.h>

/* One row of an ordinary circle over tile columns [xa, xb): exactly
 * gpr_shade's operations (d2 = dx*dx + dy*dy, inside iff !(d2 > r*r);
 * c = alpha*C + (1-alpha)*c; a = alpha + a), with the per-circle products
 * alpha*C (ar, ag, ab) formed once. R, G, B, A and cx point at column 0 of
 * the tile row; cx is readable up to TILE_W. The vector versions visit
 * whole vectors and keep lanes outside [xa, xb) unchanged, so the set of
 * pixels touched is exactly the scalar one. */
static void blend_row_scalar(float *restrict R, float *restrict G, float *restrict B, float *restrict A,
                             const float *restrict cx, int xa, int xb, const row_args *a)
{
    int i;
    for (i = xa; i < xb; i++) {
        float dx = a->px - cx[i];
        float d2 = dx * dx + a->dy2;
        if (d2 > a->maxd2) continue;
        R[i] = a->ar + a->oma * R[i];
        G[i] = a->ag + a->oma * G[i];
        B[i] = a->ab + a->oma * B[i];
        A[i] = a->alpha + A[i];
    }
}

#ifdef GPR_HAVE_X86
#include <immintrin.h>

static void blend_row_sse(float *R, float *G, float *B, float *A, const float *cx, int xa, int xb,
                          const row_args *a)
{
    const __m128 px = _mm_set1_ps(a->px), dy2 = _mm_set1_ps(a->dy2), maxd2 = _mm_set1_ps(a->maxd2);
    const __m128 ar = _mm_set1_ps(a->ar), ag = _mm_set1_ps(a->ag), ab = _mm_set1_ps(a->ab);
    const __m128 oma = _mm_set1_ps(a->oma), alpha = _mm_set1_ps(a->alpha);
    const __m128i lo = _mm_set1_epi32(xa), hi = _mm_set1_epi32(xb - 1), lane = _mm_setr_epi32(0, 1, 2, 3);
    int i;
    for (i = xa & ~3; i < xb; i += 4) {
        __m128i idx = _mm_add_epi32(_mm_set1_epi32(i), lane);
        __m128 off = _mm_castsi128_ps(_mm_or_si128(_mm_cmplt_epi32(idx, lo), _mm_cmpgt_epi32(idx, hi)));
        __m128 dx = _mm_sub_ps(px, _mm_loadu_ps(cx + i));
        __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), dy2);
        __m128 keep = _mm_or_ps(_mm_cmpgt_ps(d2, maxd2), off);
        __m128 r = _mm_loadu_ps(R + i), g = _mm_loadu_ps(G + i), b = _mm_loadu_ps(B + i), al = _mm_loadu_ps(A + i);
        __m128 nr = _mm_add_ps(ar, _mm_mul_ps(oma, r)), ng = _mm_add_ps(ag, _mm_mul_ps(oma, g));
        __m128 nb = _mm_add_ps(ab, _mm_mul_ps(oma, b)), na = _mm_add_ps(alpha, al);
        _mm_storeu_ps(R + i, _mm_or_ps(_mm_and_ps(keep, r), _mm_andnot_ps(keep, nr)));
        _mm_storeu_ps(G + i, _mm_or_ps(_mm_and_ps(keep, g), _mm_andnot_ps(keep, ng)));
        _mm_storeu_ps(B + i, _mm_or_ps(_mm_and_ps(keep, b), _mm_andnot_ps(keep, nb)));
        _mm_storeu_ps(A + i, _mm_or_ps(_mm_and_ps(keep, al), _mm_andnot_ps(keep, na)));
    }
}

/* The same with 8 lanes, chosen at run time where the CPU has AVX2. Plain
 * multiplies and adds (no FMA): the same roundings as the reference. */
__attribute__((target("avx2"))) static void blend_row_avx2(float *R, float *G, float *B, float *A,
                                                            const float *cx, int xa, int xb,
                                                            const row_args *a)
{
    const __m256 px = _mm256_set1_ps(a->px), dy2 = _mm256_set1_ps(a->dy2), maxd2 = _mm256_set1_ps(a->maxd2);
    const __m256 ar = _mm256_set1_ps(a->ar), ag = _mm256_set1_ps(a->ag), ab = _mm256_set1_ps(a->ab);
    const __m256 oma = _mm256_set1_ps(a->oma), alpha = _mm256_set1_ps(a->alpha);
    const __m256i lo = _mm256_set1_epi32(xa - 1), hi = _mm256_set1_epi32(xb);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int i;
    for (i = xa & ~7; i < xb; i += 8) {
        __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(i), lane);
        /* inside the span iff xa - 1 < idx < xb */
        __m256i in_span = _mm256_and_si256(_mm256_cmpgt_epi32(idx, lo), _mm256_cmpgt_epi32(hi, idx));
        __m256 dx = _mm256_sub_ps(px, _mm256_loadu_ps(cx + i));
        __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), dy2);
        __m256 take = _mm256_and_ps(_mm256_cmp_ps(d2, maxd2, _CMP_NGT_UQ), _mm256_castsi256_ps(in_span));
        __m256 r = _mm256_loadu_ps(R + i), g = _mm256_loadu_ps(G + i);
        __m256 b = _mm256_loadu_ps(B + i), al = _mm256_loadu_ps(A + i);
        _mm256_storeu_ps(R + i, _mm256_blendv_ps(r, _mm256_add_ps(ar, _mm256_mul_ps(oma, r)), take));
        _mm256_storeu_ps(G + i, _mm256_blendv_ps(g, _mm256_add_ps(ag, _mm256_mul_ps(oma, g)), take));
        _mm256_storeu_ps(B + i, _mm256_blendv_ps(b, _mm256_add_ps(ab, _mm256_mul_ps(oma, b)), take));
        _mm256_storeu_ps(A + i, _mm256_blendv_ps(al, _mm256_add_ps(alpha, al), take));
    }
}
#endif

/* The widest shading the CPU runs: the AVX-512 register tile where the CPU
 * has AVX-512F, else the AVX2 register tile where it has AVX2 (the row
 * blend then serves snow scenes only), else the widest row blend.
 * GP_CPU_BLEND=scalar|sse|avx2-rows|avx2|avx512 forces one (a testing
 * knob: the tests hold each against the reference; avx2 is what a CPU with
 * AVX2 and no AVX-512 runs; one the CPU lacks falls back to the widest it
 * has). */
blend_fn gpr_cpu_pick_blend(gpr_tile_path *tile)
{
    const char *force = getenv("GP_CPU_BLEND");
    *tile = GPR_TILE_ROWS;
    if (force && !strcmp(force, "scalar")) return blend_row_scalar;
#ifdef GPR_HAVE_X86
    if (force && !strcmp(force, "sse")) return blend_row_sse;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return blend_row_sse;
#ifdef GPR_HAVE_REGISTER_TILES
    if (!force || strcmp(force, "avx2-rows")) {
        const int avx512 = __builtin_cpu_supports("avx512f") && (!force || strcmp(force, "avx2"));
        *tile = avx512 ? GPR_TILE_AVX512 : GPR_TILE_AVX2;
    }
#endif
    return blend_row_avx2;
#else
    return blend_row_scalar;
#endif
}
