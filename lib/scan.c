/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.c - gp_scan: argument checks, then the backend. */
#include "internal.h"

gp_status gpi_scan_check(gp_context *ctx, const char *fn, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                         const void *in, const void *out, size_t n)
{
    size_t es, bytes;
    gp_status s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!gpi_valid_op(op)) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown op %d", fn, (int)op);
    if (kind != GP_SCAN_EXCLUSIVE && kind != GP_SCAN_INCLUSIVE)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown scan kind %d", fn, (int)kind);
    es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, es, &bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "out"))) return s;
    if (in != out && gpi_overlap(in, bytes, out, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: in and out overlap (only in == out is allowed)", fn);
    /* Misaligned elements would fault on the device (a sticky CUDA error). */
    if (n && (((uintptr_t)in | (uintptr_t)out) % es))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: in/out not aligned to the %zu-byte element", fn, es);
    return GP_SUCCESS;
}

gp_status gp_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                  const void *in, void *out, size_t n)
{
    gp_status s = gpi_enter(ctx, "gp_scan");
    if (s) return s;
    if ((s = gpi_scan_check(ctx, "gp_scan", dtype, op, kind, in, out, n))) return s;
    if (n == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_scan(ctx, dtype, op, kind, in, out, n);
    return gpi_cpu_scan(dtype, op, kind, in, out, n, gpi_cpu_threads(ctx));
}
