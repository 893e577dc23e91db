/* cpu/stencil.c - the CPU reference stencils: ground truth for the CUDA
 * kernels, which must match them bit for bit.
 *
 * The arithmetic is the header's, in the element type and in its order:
 *   1-D: out = (left*w + center*c) + right*e
 *   2-D: out = (((center*c + north*n) + south*s) + west*w) + east*e
 * Every product is formed even when a neighbour reads 0 under
 * GP_BOUNDARY_ZERO (0*weight can be -0 or NaN, and -0 + +0 is +0), so the
 * result never depends on skipping a term. This file is built with
 * -ffp-contract=off: no fused multiply-add. */
#include "internal.h"

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
    static void stencil_1d_##SUFFIX(const gp_stencil3 *w, gp_boundary b, const T *in, T *out, size_t n) \
    {                                                                                                 \
        const T wl = (T)w->left, wc = (T)w->center, wr = (T)w->right;                                 \
        size_t i, j;                                                                                  \
        for (i = 0; i < n; i++) {                                                                     \
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
                                    size_t rows, size_t cols)                                         \
    {                                                                                                 \
        const T wc = (T)w->center, wn = (T)w->north, ws = (T)w->south;                                \
        const T ww = (T)w->west, we = (T)w->east;                                                     \
        size_t r, c, j;                                                                               \
        for (r = 0; r < rows; r++) {                                                                  \
            const T *row = in + r * cols;                                                             \
            const T *north = neighbour(r, -1, rows, b, &j) ? in + j * cols : NULL;                    \
            const T *south = neighbour(r, +1, rows, b, &j) ? in + j * cols : NULL;                    \
            for (c = 0; c < cols; c++) {                                                              \
                T vn = north ? north[c] : (T)0;                                                       \
                T vs = south ? south[c] : (T)0;                                                       \
                T vw = neighbour(c, -1, cols, b, &j) ? row[j] : (T)0;                                 \
                T ve = neighbour(c, +1, cols, b, &j) ? row[j] : (T)0;                                 \
                T acc = wc * row[c];                                                                  \
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

gp_status gpi_cpu_stencil_1d(gp_dtype dtype, const gp_stencil3 *w, gp_boundary b, const void *in, void *out,
                             size_t n)
{
    if (dtype == GP_FLOAT32) stencil_1d_f32(w, b, (const float *)in, (float *)out, n);
    else if (dtype == GP_FLOAT64) stencil_1d_f64(w, b, (const double *)in, (double *)out, n);
    else return GP_ERROR_INTERNAL;
    return GP_SUCCESS;
}

gp_status gpi_cpu_stencil_2d(gp_dtype dtype, const gp_stencil5 *w, gp_boundary b, const void *in, void *out,
                             size_t rows, size_t cols)
{
    if (dtype == GP_FLOAT32) stencil_2d_f32(w, b, (const float *)in, (float *)out, rows, cols);
    else if (dtype == GP_FLOAT64) stencil_2d_f64(w, b, (const double *)in, (double *)out, rows, cols);
    else return GP_ERROR_INTERNAL;
    return GP_SUCCESS;
}
