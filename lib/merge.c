/* SPDX-License-Identifier: BSD-3-Clause */
/* merge.c - gp_merge_keys / gp_merge_pairs: argument checks, then the backend. */
#include "search_internal.h"

static gp_status merge_run(gp_context *ctx, const char *fn, gpi_merge_args *a, gp_sort_order order, int pairs)
{
    const size_t vs = a->value_size;
    size_t ks, n, abytes, bbytes, obytes, avb = 0, bvb = 0, ovb = 0;
    gp_status s = gpi_enter(ctx, fn);
    if (s || (s = gpi_key_order_check(ctx, fn, a->key_dtype, order))) return s;
    if (pairs && vs != 4 && vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (4 or 8 bytes)", fn, vs);
    ks = gp_dtype_size(a->key_dtype);
    n = a->na + a->nb;
    if (n < a->na || gpi_mul_size(n, ks, &obytes) || (pairs && gpi_mul_size(n, vs, &ovb)))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu + %zu elements overflow a byte count", fn, a->na,
                         a->nb);
    abytes = a->na * ks, bbytes = a->nb * ks;
    if (pairs) avb = a->na * vs, bvb = a->nb * vs;
    if ((s = gpi_check_buffer(ctx, a->a_keys, abytes, "a_keys"))) return s;
    if ((s = gpi_check_buffer(ctx, a->b_keys, bbytes, "b_keys"))) return s;
    if ((s = gpi_check_buffer(ctx, a->keys_out, obytes, "keys_out"))) return s;
    if (pairs) {
        if ((s = gpi_check_buffer(ctx, a->a_values, avb, "a_values"))) return s;
        if ((s = gpi_check_buffer(ctx, a->b_values, bvb, "b_values"))) return s;
        if ((s = gpi_check_buffer(ctx, a->values_out, ovb, "values_out"))) return s;
    }
    if (gpi_overlap(a->keys_out, obytes, a->a_keys, abytes) || gpi_overlap(a->keys_out, obytes, a->b_keys, bbytes) ||
        (pairs && (gpi_overlap(a->keys_out, obytes, a->a_values, avb) ||
                   gpi_overlap(a->keys_out, obytes, a->b_values, bvb) ||
                   gpi_overlap(a->values_out, ovb, a->a_values, avb) ||
                   gpi_overlap(a->values_out, ovb, a->b_values, bvb) ||
                   gpi_overlap(a->values_out, ovb, a->a_keys, abytes) ||
                   gpi_overlap(a->values_out, ovb, a->b_keys, bbytes) ||
                   gpi_overlap(a->values_out, ovb, a->keys_out, obytes))))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input or the other output", fn);
    if ((a->na && (uintptr_t)a->a_keys % ks) || (a->nb && (uintptr_t)a->b_keys % ks) ||
        (n && (uintptr_t)a->keys_out % ks))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: keys not aligned to the %zu-byte key", fn, ks);
    if (pairs && ((a->na && (uintptr_t)a->a_values % vs) || (a->nb && (uintptr_t)a->b_values % vs) ||
                  (n && (uintptr_t)a->values_out % vs)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: values not aligned to %zu bytes", fn, vs);
    a->descending = order == GP_SORT_DESCENDING;
    if (!pairs) a->value_size = 0;
    if (n == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_merge(ctx, a);
    return gpi_cpu_merge_threads(a, gpi_cpu_threads(ctx));
}

gp_status gp_merge_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *a_keys, size_t na,
                        const void *b_keys, size_t nb, void *keys_out)
{
    gpi_merge_args a = {key_dtype, 0, a_keys, NULL, na, b_keys, NULL, nb, 0, keys_out, NULL};
    return merge_run(ctx, "gp_merge_keys", &a, order, 0);
}

gp_status gp_merge_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *a_keys,
                         const void *a_values, size_t na, const void *b_keys, const void *b_values, size_t nb,
                         size_t value_size, void *keys_out, void *values_out)
{
    gpi_merge_args a = {key_dtype, 0, a_keys, a_values, na, b_keys, b_values, nb, value_size, keys_out, values_out};
    return merge_run(ctx, "gp_merge_pairs", &a, order, 1);
}
