/* SPDX-License-Identifier: BSD-3-Clause */
/* compact.c - gp_compact and gp_compact_indices: argument checks, then the
 * backend. */
#include "internal.h"

size_t gpi_flag_size(gp_flag_type t)
{
    return t == GP_UINT8_FLAGS ? 1 : t == GP_INT32_FLAGS ? 4 : 0;
}

gp_status gpi_flagged_sizes(gp_context *ctx, const char *fn, gp_dtype dtype, gp_flag_type flag_type, size_t n,
                            const void *count_out, const char *count_name, size_t *es, size_t *fs, size_t *bytes,
                            size_t *flag_bytes)
{
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    *fs = gpi_flag_size(flag_type);
    if (!*fs) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown flag type %d", fn, (int)flag_type);
    if (!count_out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, count_name);
    *es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, *es, bytes) || gpi_mul_size(n, *fs, flag_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    return GP_SUCCESS;
}

gp_status gpi_compact_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, const void *flags,
                            gp_flag_type flag_type, const void *out, size_t n, const void *count_out)
{
    size_t es = 1, fs = 1, bytes, flag_bytes; /* set by gpi_flagged_sizes; initialised for the compiler */
    gp_status s = gpi_flagged_sizes(ctx, fn, dtype, flag_type, n, count_out, "count", &es, &fs, &bytes, &flag_bytes);
    if (s) return s;
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, flags, flag_bytes, "flags"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "out"))) return s;
    /* in and flags are only read, so they may overlap each other. */
    if (gpi_overlap(out, bytes, in, bytes) || gpi_overlap(out, bytes, flags, flag_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: out overlaps in or flags", fn);
    if (n && ((((uintptr_t)in | (uintptr_t)out) % es) || (uintptr_t)flags % fs))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

gp_status gpi_compact_run(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count_host)
{
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_compact(ctx, dtype, in, flags, flag_type, out, n, count_host);
    return gpi_cpu_compact(dtype, in, flags, flag_type, out, n, count_host, gpi_cpu_threads(ctx));
}

gp_status gp_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                     gp_flag_type flag_type, void *out, size_t n, size_t *count_host)
{
    gp_status s = gpi_enter(ctx, "gp_compact");
    if (s) return s;
    if ((s = gpi_compact_check(ctx, "gp_compact", dtype, in, flags, flag_type, out, n, count_host))) return s;
    return gpi_compact_run(ctx, dtype, in, flags, flag_type, out, n, count_host);
}

gp_status gpi_compact_indices_check(gp_context *ctx, const char *fn, const void *flags, gp_flag_type flag_type,
                                    const uint64_t *indices_out, size_t n, const void *count_out)
{
    size_t fs, flag_bytes, out_bytes;
    gp_status s;
    fs = gpi_flag_size(flag_type);
    if (!fs) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown flag type %d", fn, (int)flag_type);
    if (!count_out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: count is NULL", fn);
    if (gpi_mul_size(n, fs, &flag_bytes) || gpi_mul_size(n, sizeof(uint64_t), &out_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, flags, flag_bytes, "flags"))) return s;
    if ((s = gpi_check_buffer(ctx, indices_out, out_bytes, "indices_out"))) return s;
    if (gpi_overlap(indices_out, out_bytes, flags, flag_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: indices_out overlaps flags", fn);
    if (n && (((uintptr_t)flags % fs) || (uintptr_t)indices_out % sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

gp_status gpi_compact_indices_run(gp_context *ctx, const void *flags, gp_flag_type flag_type, uint64_t *indices_out,
                                  size_t n, size_t *count_host)
{
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_compact_indices(ctx, flags, flag_type, indices_out, n, count_host);
    return gpi_cpu_compact_indices(flags, flag_type, indices_out, n, count_host, gpi_cpu_threads(ctx));
}

gp_status gp_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                             uint64_t *indices_out, size_t n, size_t *count_host)
{
    gp_status s = gpi_enter(ctx, "gp_compact_indices");
    if (s) return s;
    if ((s = gpi_compact_indices_check(ctx, "gp_compact_indices", flags, flag_type, indices_out, n, count_host)))
        return s;
    return gpi_compact_indices_run(ctx, flags, flag_type, indices_out, n, count_host);
}
