/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/stencil.c - the CPU reference stencils: ground truth for the CUDA
 * kernels, which must match them bit for bit.
 *
 * The arithmetic is the header's, in the element type and in its order:
 *   1-D: out = (left*w + center*c) + right*e
 *   2-D: out = (((center*c + north*n) + south*s) + west*w) + east*e
 * Every product is formed even when a neighbour reads 0 under
 * GP_BOUNDARY_ZERO (0*weight can be -0 or NaN, and -0 + +0 is +0), so the
 * result never depends on skipping a term. This file is built with
 * -ffp-contract=off: no fused multiply-add.
 *
 * Every output element is computed on its own, so threads take contiguous
 * pieces (1-D) or runs of rows (2-D); the result does not depend on them. */
#include "internal.h"
#include "pool.h"

/* Where the neighbour at offset d (-1, 0 or +1) of position i in [0, n)
 * lies. Returns 0 when it reads as zero (GP_BOUNDARY_ZERO past an edge),
 * else 1 with its index in *j. PERIODIC wraps (with n == 1 the neighbour is
 * the element itself), CLAMP repeats the edge. */
static int neighbour(size_t i, int d, size_t n, gp_boundary b, size_t *j)
{
    if (d < 0 && i == 0) {
        if (b == GP_BOUNDARY_ZERO) return 0;
        *j = b == GP_BOUNDARY_PERIODIC ? n - 1 : 0;
        return 1;
    }
    if (d > 0 && i == n - 1) {
        if (b == GP_BOUNDARY_ZERO) return 0;
        *j = b == GP_BOUNDARY_PERIODIC ? 0 : n - 1;
        return 1;
    }
    *j = d < 0 ? i - 1 : d > 0 ? i + 1 : i;
    return 1;
}

#define DEFINE_STENCILS(T, SUFFIX)                                                                    \
    static void stencil_1d_##SUFFIX(const gp_stencil3 *w, gp_boundary b, const T *in, T *out, size_t n, \
                                    size_t lo, size_t hi)                                             \
    {                                                                                                 \
        const T wl = (T)w->left, wc = (T)w->center, wr = (T)w->right;                                 \
        size_t i, j;                                                                                  \
        for (i = lo; i < hi; i++) {                                                                   \
            T l = neighbour(i, -1, n, b, &j) ? in[j] : (T)0;                                          \
            T r = neighbour(i, +1, n, b, &j) ? in[j] : (T)0;                                          \
            T acc = wl * l;                                                                           \
            acc = acc + wc * in[i];                                                                   \
            acc = acc + wr * r;                                                                       \
            out[i] = acc;                                                                             \
        }                                                                                             \
    }                                                                                                 \
                                                                                                      \
    static void stencil_2d_##SUFFIX(const gp_stencil5 *w, gp_boundary b, const T *in, T *out,         \
                                    size_t rows, size_t cols, size_t r_lo, size_t r_hi)               \
    {                                                                                                 \
        const T wc = (T)w->center, wn = (T)w->north, ws = (T)w->south;                                \
        const T ww = (T)w->west, we = (T)w->east;                                                     \
        size_t r, c, j;                                                                               \
        for (r = r_lo; r < r_hi; r++) {                                                               \
            const T *row = in + r * cols;                                                             \
            const T *north = neighbour(r, -1, rows, b, &j) ? in + j * cols : NULL;                    \
            const T *south = neighbour(r, +1, rows, b, &j) ? in + j * cols : NULL;                    \
            for (c = 0; c < cols; c++) {                                                              \
                T vn = north ? north[c] : (T)0;                                                       \
                T vs = south ? south[c] : (T)0;                                                       \
                T vw, ve, acc;                                                                        \
                if (c > 0 && c + 1 < cols) { /* inside: both neighbours are in the row */            \
                    vw = row[c - 1];                                                                  \
                    ve = row[c + 1];                                                                  \
                } else {                                                                              \
                    vw = neighbour(c, -1, cols, b, &j) ? row[j] : (T)0;                               \
                    ve = neighbour(c, +1, cols, b, &j) ? row[j] : (T)0;                               \
                }                                                                                     \
                acc = wc * row[c];                                                                    \
                acc = acc + wn * vn;                                                                  \
                acc = acc + ws * vs;                                                                  \
                acc = acc + ww * vw;                                                                  \
                acc = acc + we * ve;                                                                  \
                out[r * cols + c] = acc;                                                              \
            }                                                                                         \
        }                                                                                             \
    }

DEFINE_STENCILS(float, f32)
DEFINE_STENCILS(double, f64)

typedef struct stencil_job {
    gp_dtype dtype;
    const void *w; /* gp_stencil3 (1-D) or gp_stencil5 (2-D) */
    gp_boundary b;
    const void *in;
    void *out;
    size_t rows, cols; /* 1-D: rows == 0 and cols == n */
} stencil_job;

static void stencil_part(void *arg, int part, int parts)
{
    const stencil_job *j = (const stencil_job *)arg;
    const int f32 = j->dtype == GP_FLOAT32;
    size_t lo, hi;
    if (j->rows == 0) {
        gpi_pool_range(j->cols, part, parts, 64, &lo, &hi);
        if (f32) stencil_1d_f32((const gp_stencil3 *)j->w, j->b, (const float *)j->in, (float *)j->out, j->cols, lo, hi);
        else stencil_1d_f64((const gp_stencil3 *)j->w, j->b, (const double *)j->in, (double *)j->out, j->cols, lo, hi);
        return;
    }
    gpi_pool_range(j->rows, part, parts, 1, &lo, &hi);
    if (f32)
        stencil_2d_f32((const gp_stencil5 *)j->w, j->b, (const float *)j->in, (float *)j->out, j->rows, j->cols, lo, hi);
    else
        stencil_2d_f64((const gp_stencil5 *)j->w, j->b, (const double *)j->in, (double *)j->out, j->rows, j->cols, lo,
                       hi);
}

gp_status gpi_cpu_stencil_1d(gp_dtype dtype, const gp_stencil3 *w, gp_boundary b, const void *in, void *out,
                             size_t n, int threads)
{
    stencil_job j = {dtype, w, b, in, out, 0, n};
    if (dtype != GP_FLOAT32 && dtype != GP_FLOAT64) return GP_ERROR_INTERNAL;
    gpi_pool_run(gpi_pool_parts(n, threads), stencil_part, &j);
    return GP_SUCCESS;
}

gp_status gpi_cpu_stencil_2d(gp_dtype dtype, const gp_stencil5 *w, gp_boundary b, const void *in, void *out,
                             size_t rows, size_t cols, int threads)
{
    stencil_job j = {dtype, w, b, in, out, rows, cols};
    int parts = gpi_pool_parts(rows * cols, threads);
    if (dtype != GP_FLOAT32 && dtype != GP_FLOAT64) return GP_ERROR_INTERNAL;
    if ((size_t)parts > rows) parts = (int)rows; /* whole rows each */
    if (rows == 0) return GP_SUCCESS;
    gpi_pool_run(parts, stencil_part, &j);
    return GP_SUCCESS;
}
