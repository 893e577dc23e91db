/* SPDX-License-Identifier: BSD-3-Clause */
/* find_repeats.c - gp_find_repeats: argument checks, then the backend. */
#include "internal.h"

gp_status gpi_find_repeats_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, size_t n,
                                 const uint64_t *indices_out, size_t out_room, const void *count_out)
{
    size_t es, bytes, out_bytes;
    gp_status s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!count_out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: count is NULL", fn);
    es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, es, &bytes) || gpi_mul_size(out_room, sizeof(uint64_t), &out_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, indices_out, out_bytes, "indices_out"))) return s;
    if (gpi_overlap(indices_out, out_bytes, in, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: indices_out overlaps in", fn);
    if ((n && (uintptr_t)in % es) || (out_bytes && (uintptr_t)indices_out % sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

gp_status gpi_find_repeats_run(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, uint64_t *indices_out,
                               size_t *count_host)
{
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_find_repeats(ctx, dtype, in, n, indices_out, count_host);
    return gpi_cpu_find_repeats(dtype, in, n, indices_out, count_host, gpi_cpu_threads(ctx));
}

gp_status gp_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                          uint64_t *indices_out, size_t *count_host)
{
    gp_status s = gpi_enter(ctx, "gp_find_repeats");
    if (s) return s;
    /* indices_out needs room for the n - 1 possible pairs. */
    if ((s = gpi_find_repeats_check(ctx, "gp_find_repeats", dtype, in, n, indices_out, n ? n - 1 : 0, count_host)))
        return s;
    return gpi_find_repeats_run(ctx, dtype, in, n, indices_out, count_host);
}
