/* SPDX-License-Identifier: BSD-3-Clause */
/* runs.c - gp_reduce_by_key, gp_unique, gp_unique_by_key and
 * gp_run_length_encode: argument checks, then the backend. All four are one
 * operation over runs of equal consecutive keys (gpi_runs_args). */
#include "runs_internal.h"

/* A buffer's element size must divide its address. */
static int misaligned(const void *p, size_t es)
{
    return p && (uintptr_t)p % es != 0;
}

gp_status gpi_runs_check(gp_context *ctx, const char *fn, const gpi_runs_args *a, int lengths_required,
                         const void *count_out)
{
    const int with_values = a->values != GPI_RUNS_NO_VALUES;
    size_t ks, vs = 0, kbytes, vbytes = 0, lbytes;
    gp_status s;
    if (!gpi_valid_dtype(a->key_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)a->key_dtype);
    if (with_values && !gpi_valid_dtype(a->value_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown value dtype %d", fn, (int)a->value_dtype);
    if (a->values == GPI_RUNS_REDUCE && !gpi_valid_op(a->op))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown op %d", fn, (int)a->op);
    if (!count_out) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: count is NULL", fn);
    if (a->n == 0) return GP_SUCCESS; /* nothing is read or written: any pointers */
    ks = gp_dtype_size(a->key_dtype);
    if (with_values) vs = gp_dtype_size(a->value_dtype);
    if (gpi_mul_size(a->n, ks, &kbytes) || (with_values && gpi_mul_size(a->n, vs, &vbytes)) ||
        gpi_mul_size(a->n, sizeof(uint64_t), &lbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, a->n);
    if (lengths_required && !a->lengths_out)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: lengths_out is NULL", fn);
    if ((s = gpi_check_buffer(ctx, a->keys_in, kbytes, "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->keys_out, kbytes, "keys_out"))) return s;
    if (with_values) {
        if ((s = gpi_check_buffer(ctx, a->values_in, vbytes, "values_in"))) return s;
        if ((s = gpi_check_buffer(ctx, a->values_out, vbytes, "values_out"))) return s;
    }
    if (a->lengths_out && (s = gpi_check_buffer(ctx, a->lengths_out, lbytes, "lengths_out"))) return s;
    /* Outputs against everything else: only keys_out == keys_in and
     * values_out == values_in (exactly) are allowed. */
    if (a->keys_out != a->keys_in && gpi_overlap(a->keys_out, kbytes, a->keys_in, kbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_out overlaps keys_in (only keys_out == keys_in is allowed)",
                         fn);
    if (with_values) {
        if (gpi_overlap(a->keys_out, kbytes, a->values_in, vbytes) ||
            gpi_overlap(a->keys_out, kbytes, a->values_out, vbytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_out overlaps values_in or values_out", fn);
        if (a->values_out != a->values_in && gpi_overlap(a->values_out, vbytes, a->values_in, vbytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP,
                             "%s: values_out overlaps values_in (only values_out == values_in is allowed)", fn);
        if (gpi_overlap(a->values_out, vbytes, a->keys_in, kbytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: values_out overlaps keys_in", fn);
    }
    if (a->lengths_out &&
        (gpi_overlap(a->lengths_out, lbytes, a->keys_in, kbytes) ||
         gpi_overlap(a->lengths_out, lbytes, a->keys_out, kbytes) ||
         (with_values && (gpi_overlap(a->lengths_out, lbytes, a->values_in, vbytes) ||
                          gpi_overlap(a->lengths_out, lbytes, a->values_out, vbytes)))))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: lengths_out overlaps another buffer", fn);
    if (misaligned(a->keys_in, ks) || misaligned(a->keys_out, ks) ||
        (with_values && (misaligned(a->values_in, vs) || misaligned(a->values_out, vs))) ||
        misaligned(a->lengths_out, sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

gp_status gpi_runs_run(gp_context *ctx, const gpi_runs_args *a, size_t *count_host)
{
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_runs(ctx, a, count_host);
    return gpi_cpu_runs_threads(a, count_host, gpi_cpu_threads(ctx));
}

static gp_status runs_call(gp_context *ctx, const char *fn, const gpi_runs_args *a, int lengths_required,
                           size_t *count_host)
{
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = gpi_runs_check(ctx, fn, a, lengths_required, count_host))) return s;
    return gpi_runs_run(ctx, a, count_host);
}

gp_status gp_reduce_by_key(gp_context *ctx, gp_dtype key_dtype, gp_dtype value_dtype, gp_op op,
                           const void *keys_in, const void *values_in, size_t n, void *keys_out, void *values_out,
                           uint64_t *lengths_out, size_t *count_host)
{
    const gpi_runs_args a = {key_dtype, keys_in, keys_out, n, GPI_RUNS_REDUCE, value_dtype, op,
                             values_in, values_out, lengths_out};
    return runs_call(ctx, "gp_reduce_by_key", &a, 0, count_host);
}

gp_status gp_unique(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *out, size_t *count_host)
{
    const gpi_runs_args a = {dtype, in, out, n, GPI_RUNS_NO_VALUES, dtype, GP_OP_SUM, NULL, NULL, NULL};
    return runs_call(ctx, "gp_unique", &a, 0, count_host);
}

gp_status gp_unique_by_key(gp_context *ctx, gp_dtype key_dtype, gp_dtype value_dtype, const void *keys_in,
                           const void *values_in, size_t n, void *keys_out, void *values_out, size_t *count_host)
{
    const gpi_runs_args a = {key_dtype, keys_in, keys_out, n, GPI_RUNS_FIRST, value_dtype, GP_OP_SUM,
                             values_in, values_out, NULL};
    return runs_call(ctx, "gp_unique_by_key", &a, 0, count_host);
}

gp_status gp_run_length_encode(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *values_out,
                               uint64_t *lengths_out, size_t *count_host)
{
    const gpi_runs_args a = {dtype, in, values_out, n, GPI_RUNS_NO_VALUES, dtype, GP_OP_SUM, NULL, NULL,
                             lengths_out};
    return runs_call(ctx, "gp_run_length_encode", &a, 1, count_host);
}
