/* SPDX-License-Identifier: BSD-3-Clause */
/* partition.c - gp_partition and gp_partition3: argument checks, then the
 * backend. */
#include "permute_internal.h"

/* second_flags is checked only when `three`. */
static gp_status check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, const void *first_flags,
                       const void *second_flags, int three, gp_flag_type flag_type, const void *out, size_t n,
                       const void *counts_out)
{
    size_t es, fs, bytes, flag_bytes;
    gp_status s = gpi_flagged_sizes(ctx, fn, dtype, flag_type, n, counts_out, "the count output", &es, &fs, &bytes,
                                    &flag_bytes);
    if (s) return s;
    if ((s = gpi_check_buffer(ctx, in, bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, first_flags, flag_bytes, three ? "first_flags" : "flags"))) return s;
    if (three && (s = gpi_check_buffer(ctx, second_flags, flag_bytes, "second_flags"))) return s;
    if ((s = gpi_check_buffer(ctx, out, bytes, "out"))) return s;
    /* the inputs are only read, so they may overlap each other */
    if (gpi_overlap(out, bytes, in, bytes) || gpi_overlap(out, bytes, first_flags, flag_bytes) ||
        (three && gpi_overlap(out, bytes, second_flags, flag_bytes)))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: out overlaps an input", fn);
    if (n && ((((uintptr_t)in | (uintptr_t)out) % es) || (uintptr_t)first_flags % fs ||
              (three && (uintptr_t)second_flags % fs)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

static gp_status run(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                     const void *second_flags, gp_flag_type flag_type, void *out, size_t n, size_t counts[3])
{
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_partition(ctx, dtype, in, first_flags, second_flags, flag_type, out, n, counts);
    return gpi_cpu_partition_threads(dtype, in, first_flags, second_flags, flag_type, out, n, counts,
                                     gpi_cpu_threads(ctx));
}

gp_status gp_partition(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                       void *out, size_t n, size_t *selected_host)
{
    size_t counts[3];
    gp_status s = gpi_enter(ctx, "gp_partition");
    if (s) return s;
    if ((s = check(ctx, "gp_partition", dtype, in, flags, NULL, 0, flag_type, out, n, selected_host))) return s;
    if ((s = run(ctx, dtype, in, flags, NULL, flag_type, out, n, counts))) return s;
    *selected_host = counts[0];
    return GP_SUCCESS;
}

gp_status gp_partition3(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                        const void *second_flags, gp_flag_type flag_type, void *out, size_t n, size_t counts_host[3])
{
    size_t counts[3];
    gp_status s = gpi_enter(ctx, "gp_partition3");
    if (s) return s;
    if ((s = check(ctx, "gp_partition3", dtype, in, first_flags, second_flags, 1, flag_type, out, n, counts_host)))
        return s;
    if ((s = run(ctx, dtype, in, first_flags, second_flags, flag_type, out, n, counts))) return s;
    counts_host[0] = counts[0];
    counts_host[1] = counts[1];
    counts_host[2] = counts[2];
    return GP_SUCCESS;
}
