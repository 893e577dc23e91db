/* find_repeats.c - gp_find_repeats: argument checks, then the backend. */
#include "internal.h"

gp_status gp_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                          uint64_t *indices_out, size_t *count_host)
{
    size_t es, bytes, out_bytes;
    gp_status s = gpi_enter(ctx);
    if (s) return s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_find_repeats: unknown dtype %d", (int)dtype);
    if (!count_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_find_repeats: count_host is NULL");
    es = gp_dtype_size(dtype);
    /* indices_out needs room for the n - 1 possible pairs. */
    if (gpi_mul_size(n, es, &bytes) || gpi_mul_size(n ? n - 1 : 0, sizeof(uint64_t), &out_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "gp_find_repeats: %zu elements overflow a byte count", n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "gp_find_repeats: in"))) return s;
    if ((s = gpi_check_buffer(ctx, indices_out, out_bytes, "gp_find_repeats: indices_out"))) return s;
    if (gpi_overlap(indices_out, out_bytes, in, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "gp_find_repeats: indices_out overlaps in");
    if ((n && (uintptr_t)in % es) || (out_bytes && (uintptr_t)indices_out % sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT,
                         "gp_find_repeats: a buffer is not aligned to its element size");
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_find_repeats(ctx, dtype, in, n, indices_out, count_host);
    return gpi_cpu_find_repeats(dtype, in, n, indices_out, count_host);
}
