/* SPDX-License-Identifier: BSD-3-Clause */
/* argminmax.c - gp_argmin / gp_argmax: argument checks, then the backend. */
#include "segmented_internal.h"

static gp_status argminmax(gp_context *ctx, const char *fn, int is_max, gp_dtype dtype, const void *in, size_t n,
                           void *value_host, uint64_t *index_host)
{
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!index_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: index_host is NULL", fn);
    if ((s = gpi_elements_check(ctx, fn, dtype, in, n))) return s;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_argminmax(ctx, dtype, is_max, in, n, value_host, index_host);
    return gpi_cpu_argminmax_threads(dtype, is_max, in, n, value_host, index_host, gpi_cpu_threads(ctx));
}

gp_status gp_argmin(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host, uint64_t *index_host)
{
    return argminmax(ctx, "gp_argmin", 0, dtype, in, n, value_host, index_host);
}

gp_status gp_argmax(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host, uint64_t *index_host)
{
    return argminmax(ctx, "gp_argmax", 1, dtype, in, n, value_host, index_host);
}
