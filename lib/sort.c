/* sort.c - gp_sort_keys / gp_sort_pairs: argument checks, then the backend. */
#include "internal.h"

/* pairs: gp_sort_pairs (value_size must then be 4 or 8; 0 means keys only to the backends). */
static gp_status sort_check(gp_context *ctx, const char *fn, const gpi_sort_args *a, gp_sort_order order, int pairs)
{
    size_t ks, kbytes, vbytes = 0;
    gp_status s;
    if (!gpi_valid_dtype(a->key_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)a->key_dtype);
    if (order != GP_SORT_ASCENDING && order != GP_SORT_DESCENDING)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown sort order %d", fn, (int)order);
    ks = gp_dtype_size(a->key_dtype);
    if (a->begin_bit < 0 || a->end_bit < a->begin_bit || (size_t)a->end_bit > 8 * ks)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: bit range [%d, %d) is not within [0, %zu)", fn,
                         a->begin_bit, a->end_bit, 8 * ks);
    if (gpi_mul_size(a->n, ks, &kbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu keys overflow a byte count", fn, a->n);
    if (pairs) {
        const size_t vs = a->value_size;
        if (vs != 4 && vs != 8)
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (4 or 8 bytes)", fn, vs);
        if (gpi_mul_size(a->n, vs, &vbytes))
            return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu values overflow a byte count", fn, a->n);
        if (!a->values_in && vs == 4 && a->n > (size_t)UINT32_MAX + 1)
            return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu indices do not fit 4-byte values", fn, a->n);
    }
    if ((s = gpi_check_buffer(ctx, a->keys_in, kbytes, "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->keys_out, kbytes, "keys_out"))) return s;
    if (a->keys_in != a->keys_out && gpi_overlap(a->keys_in, kbytes, a->keys_out, kbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_in and keys_out overlap (only equal is allowed)", fn);
    if (a->n && (((uintptr_t)a->keys_in | (uintptr_t)a->keys_out) % ks))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: keys not aligned to the %zu-byte key", fn, ks);
    if (pairs) {
        const size_t vs = a->value_size;
        if (a->values_in && (s = gpi_check_buffer(ctx, a->values_in, vbytes, "values_in"))) return s;
        if ((s = gpi_check_buffer(ctx, a->values_out, vbytes, "values_out"))) return s;
        if (a->values_in && a->values_in != a->values_out && gpi_overlap(a->values_in, vbytes, a->values_out, vbytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: values_in and values_out overlap (only equal is allowed)",
                             fn);
        if (gpi_overlap(a->values_out, vbytes, a->keys_out, kbytes) ||
            gpi_overlap(a->values_out, vbytes, a->keys_in, kbytes) ||
            (a->values_in && (gpi_overlap(a->values_in, vbytes, a->keys_out, kbytes) ||
                              gpi_overlap(a->values_in, vbytes, a->keys_in, kbytes))))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys and values overlap", fn);
        if (a->n && (((uintptr_t)a->values_in | (uintptr_t)a->values_out) % vs))
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: values not aligned to %zu bytes", fn, vs);
    }
    return GP_SUCCESS;
}

static gp_status sort_run(gp_context *ctx, const char *fn, gpi_sort_args *a, gp_sort_order order, int pairs)
{
    gp_status s = gpi_enter(ctx);
    if (s) return s;
    if ((s = sort_check(ctx, fn, a, order, pairs))) return s;
    a->descending = order == GP_SORT_DESCENDING;
    if (a->n == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_sort(ctx, a);
    return gpi_cpu_sort(a, gpi_cpu_threads(ctx));
}

gp_status gp_sort_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                       void *keys_out, size_t n, int begin_bit, int end_bit)
{
    gpi_sort_args a = {key_dtype, 0, keys_in, keys_out, 0, NULL, NULL, n, begin_bit, end_bit};
    return sort_run(ctx, "gp_sort_keys", &a, order, 0);
}

gp_status gp_sort_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                        void *keys_out, size_t value_size, const void *values_in, void *values_out, size_t n,
                        int begin_bit, int end_bit)
{
    gpi_sort_args a = {key_dtype, 0, keys_in, keys_out, value_size, values_in, values_out, n, begin_bit, end_bit};
    return sort_run(ctx, "gp_sort_pairs", &a, order, 1);
}
