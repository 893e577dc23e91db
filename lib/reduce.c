/* SPDX-License-Identifier: BSD-3-Clause */
/* reduce.c - gp_reduce: argument checks, then the backend. */
#include "internal.h"

gp_status gpi_reduce_check(gp_context *ctx, const char *fn, gp_dtype dtype, gp_op op, const void *in, size_t n,
                           const void *result_host)
{
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!gpi_valid_op(op)) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown op %d", fn, (int)op);
    if (!result_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: result_host is NULL", fn);
    return gpi_elements_check(ctx, fn, dtype, in, n);
}

gp_status gpi_elements_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, size_t n)
{
    const size_t es = gp_dtype_size(dtype);
    size_t bytes;
    gp_status s;
    if (gpi_mul_size(n, es, &bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if (n && (uintptr_t)in % es)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: in not aligned to the %zu-byte element", fn, es);
    return GP_SUCCESS;
}

gp_status gpi_reduce_run(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host)
{
    /* n == 0 goes to the backend too: it writes the identity (CUDA also
     * synchronizes, as documented). */
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_reduce(ctx, dtype, op, in, n, result_host);
    return gpi_cpu_reduce(dtype, op, in, n, result_host, gpi_cpu_threads(ctx));
}

gp_status gp_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host)
{
    gp_status s = gpi_enter(ctx, "gp_reduce");
    if (s) return s;
    if ((s = gpi_reduce_check(ctx, "gp_reduce", dtype, op, in, n, result_host))) return s;
    return gpi_reduce_run(ctx, dtype, op, in, n, result_host);
}
