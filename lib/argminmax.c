/* argminmax.c - gp_argmin / gp_argmax: argument checks, then the backend. */
#include "segmented_internal.h"

static gp_status argminmax(gp_context *ctx, const char *fn, int is_max, gp_dtype dtype, const void *in, size_t n,
                           void *value_host, uint64_t *index_host)
{
    size_t es, bytes;
    gp_status s = gpi_enter(ctx);
    if (s) return s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!index_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: index_host is NULL", fn);
    es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, es, &bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if (n && (uintptr_t)in % es)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: in not aligned to the %zu-byte element", fn, es);
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_argminmax(ctx, dtype, is_max, in, n, value_host, index_host);
    return gpi_cpu_argminmax(dtype, is_max, in, n, value_host, index_host);
}

gp_status gp_argmin(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host, uint64_t *index_host)
{
    return argminmax(ctx, "gp_argmin", 0, dtype, in, n, value_host, index_host);
}

gp_status gp_argmax(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host, uint64_t *index_host)
{
    return argminmax(ctx, "gp_argmax", 1, dtype, in, n, value_host, index_host);
}
