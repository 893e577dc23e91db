/* compact.c - gp_compact and gp_compact_indices: argument checks, then the
 * backend. */
#include "internal.h"

static size_t flag_size(gp_flag_type t)
{
    return t == GP_UINT8_FLAGS ? 1 : t == GP_INT32_FLAGS ? 4 : 0;
}

gp_status gp_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                     gp_flag_type flag_type, void *out, size_t n, size_t *count_host)
{
    size_t es, fs, bytes, flag_bytes;
    gp_status s = gpi_enter(ctx);
    if (s) return s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact: unknown dtype %d", (int)dtype);
    fs = flag_size(flag_type);
    if (!fs) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact: unknown flag type %d", (int)flag_type);
    if (!count_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact: count_host is NULL");
    es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, es, &bytes) || gpi_mul_size(n, fs, &flag_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "gp_compact: %zu elements overflow a byte count", n);
    if ((s = gpi_check_buffer(ctx, in, bytes, "gp_compact: in"))) return s;
    if ((s = gpi_check_buffer(ctx, flags, flag_bytes, "gp_compact: flags"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "gp_compact: out"))) return s;
    /* in and flags are only read, so they may overlap each other. */
    if (gpi_overlap(out, bytes, in, bytes) || gpi_overlap(out, bytes, flags, flag_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "gp_compact: out overlaps in or flags");
    if (n && ((((uintptr_t)in | (uintptr_t)out) % es) || (uintptr_t)flags % fs))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact: a buffer is not aligned to its element size");
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_compact(ctx, dtype, in, flags, flag_type, out, n, count_host);
    return gpi_cpu_compact(dtype, in, flags, flag_type, out, n, count_host);
}

gp_status gp_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                             uint64_t *indices_out, size_t n, size_t *count_host)
{
    size_t fs, flag_bytes, out_bytes;
    gp_status s = gpi_enter(ctx);
    if (s) return s;
    fs = flag_size(flag_type);
    if (!fs)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact_indices: unknown flag type %d", (int)flag_type);
    if (!count_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact_indices: count_host is NULL");
    if (gpi_mul_size(n, fs, &flag_bytes) || gpi_mul_size(n, sizeof(uint64_t), &out_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "gp_compact_indices: %zu elements overflow a byte count", n);
    if ((s = gpi_check_buffer(ctx, flags, flag_bytes, "gp_compact_indices: flags"))) return s;
    if ((s = gpi_check_buffer(ctx, indices_out, out_bytes, "gp_compact_indices: indices_out"))) return s;
    if (gpi_overlap(indices_out, out_bytes, flags, flag_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "gp_compact_indices: indices_out overlaps flags");
    if (n && (((uintptr_t)flags % fs) || (uintptr_t)indices_out % sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT,
                         "gp_compact_indices: a buffer is not aligned to its element size");
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_compact_indices(ctx, flags, flag_type, indices_out, n, count_host);
    return gpi_cpu_compact_indices(flags, flag_type, indices_out, n, count_host);
}
