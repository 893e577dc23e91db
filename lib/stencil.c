/* SPDX-License-Identifier: BSD-3-Clause */
/* stencil.c - gp_stencil_1d, gp_stencil_2d, gp_laplacian_2d: argument
 * checks, then the backend. */
#include "internal.h"

/* The checks every stencil shares: dtype, boundary, weights (always, even
 * for an empty grid: they are not data), then the byte size of the grid. */
static gp_status check_common(gp_context *ctx, const char *fn, gp_dtype dtype, const void *weights,
                              gp_boundary boundary, size_t rows, size_t cols, size_t *bytes)
{
    size_t count;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (dtype != GP_FLOAT32 && dtype != GP_FLOAT64)
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED, "%s: only float32 and float64 are offered", fn);
    if (boundary != GP_BOUNDARY_PERIODIC && boundary != GP_BOUNDARY_CLAMP && boundary != GP_BOUNDARY_ZERO)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown boundary %d", fn, (int)boundary);
    if (!weights) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: weights is NULL", fn);
    if (gpi_mul_size(rows, cols, &count) || gpi_mul_size(count, gp_dtype_size(dtype), bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu x %zu elements overflow size_t", fn, rows, cols);
    return GP_SUCCESS;
}

/* The checks on the data buffers of a non-empty grid. They hold elements
 * of the dtype, so they must be aligned to its size (the CUDA kernels load
 * whole floats and doubles). */
static gp_status check_buffers(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, void *out,
                               size_t bytes)
{
    gp_status s;
    if (!in || !out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, in ? "out" : "in");
    if (((uintptr_t)in | (uintptr_t)out) % gp_dtype_size(dtype) != 0)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: in or out is not aligned to the element size", fn);
    /* A range that wraps the address space is a size overflow (and would
     * make the overlap test meaningless): buffers before overlap. */
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "out"))) return s;
    if (gpi_overlap(in, bytes, out, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: in and out overlap (out of place only)", fn);
    return GP_SUCCESS;
}

gp_status gp_stencil_1d(gp_context *ctx, gp_dtype dtype, const gp_stencil3 *weights, gp_boundary boundary,
                        const void *in, void *out, size_t n)
{
    size_t bytes;
    gp_status s = gpi_enter(ctx, "gp_stencil_1d");
    if (s) return s;
    if ((s = check_common(ctx, "gp_stencil_1d", dtype, weights, boundary, 1, n, &bytes))) return s;
    if (bytes == 0) return GP_SUCCESS;
    if ((s = check_buffers(ctx, "gp_stencil_1d", dtype, in, out, bytes))) return s;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_stencil_1d(ctx, dtype, weights, boundary, in, out, n);
    return gpi_cpu_stencil_1d(dtype, weights, boundary, in, out, n, gpi_cpu_threads(ctx));
}

gp_status gpi_stencil_2d_check(gp_context *ctx, const char *fn, gp_dtype dtype, const gp_stencil5 *weights,
                               gp_boundary boundary, const void *in, const void *out, size_t rows, size_t cols)
{
    size_t bytes;
    gp_status s;
    if ((s = check_common(ctx, fn, dtype, weights, boundary, rows, cols, &bytes))) return s;
    if (bytes == 0) return GP_SUCCESS;
    return check_buffers(ctx, fn, dtype, in, (void *)out, bytes);
}

gp_status gpi_stencil_2d_run(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                             const void *in, void *out, size_t rows, size_t cols)
{
    if (rows == 0 || cols == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_stencil_2d(ctx, dtype, weights, boundary, in, out, rows, cols);
    return gpi_cpu_stencil_2d(dtype, weights, boundary, in, out, rows, cols, gpi_cpu_threads(ctx));
}

static gp_status stencil_2d(gp_context *ctx, const char *fn, gp_dtype dtype, const gp_stencil5 *weights,
                            gp_boundary boundary, const void *in, void *out, size_t rows, size_t cols)
{
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = gpi_stencil_2d_check(ctx, fn, dtype, weights, boundary, in, out, rows, cols))) return s;
    return gpi_stencil_2d_run(ctx, dtype, weights, boundary, in, out, rows, cols);
}

gp_status gp_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                        const void *in, void *out, size_t rows, size_t cols)
{
    return stencil_2d(ctx, "gp_stencil_2d", dtype, weights, boundary, in, out, rows, cols);
}

gp_status gp_laplacian_2d(gp_context *ctx, gp_dtype dtype, gp_boundary boundary, const void *in, void *out,
                          size_t rows, size_t cols)
{
    static const gp_stencil5 laplacian = {-4.0, 1.0, 1.0, 1.0, 1.0};
    return stencil_2d(ctx, "gp_laplacian_2d", dtype, &laplacian, boundary, in, out, rows, cols);
}
