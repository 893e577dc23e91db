/* SPDX-License-Identifier: BSD-3-Clause */
/* transpose.c - gp_transpose: argument checks, then the backend. */
#include "internal.h"

gp_status gp_transpose(gp_context *ctx, size_t elem_size, const void *in, void *out, size_t rows, size_t cols)
{
    size_t count, bytes;
    gp_status s = gpi_enter(ctx, "gp_transpose");
    if (s) return s;

    if (elem_size != 4 && elem_size != 8 && elem_size != 16)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_transpose: elem_size %zu is not 4, 8 or 16", elem_size);
    if (gpi_mul_size(rows, cols, &count) || gpi_mul_size(count, elem_size, &bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "gp_transpose: %zu x %zu elements of %zu bytes overflow size_t",
                         rows, cols, elem_size);
    if (bytes == 0) return GP_SUCCESS; /* empty matrix: nothing to read or write */
    if (!in || !out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_transpose: %s is NULL", in ? "out" : "in");
    /* Buffers first: a range that wraps the address space is a size
     * overflow, and would make the overlap test meaningless. */
    if ((s = gpi_check_buffer(ctx, in, bytes, "gp_transpose: in"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "gp_transpose: out"))) return s;
    if (gpi_overlap(in, bytes, out, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "gp_transpose: in and out overlap (out of place only)");

    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_transpose(ctx, elem_size, in, out, rows, cols);
    return gpi_cpu_transpose(elem_size, in, out, rows, cols, gpi_cpu_threads(ctx));
}
