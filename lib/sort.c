/* SPDX-License-Identifier: BSD-3-Clause */
/* sort.c - gp_sort_keys / gp_sort_pairs: argument checks, then the backend. */
#include "internal.h"

gp_status gpi_key_order_check(gp_context *ctx, const char *fn, gp_dtype key_dtype, gp_sort_order order)
{
    if (!gpi_valid_dtype(key_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)key_dtype);
    if (order != GP_SORT_ASCENDING && order != GP_SORT_DESCENDING)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown sort order %d", fn, (int)order);
    return GP_SUCCESS;
}

gp_status gpi_sort_key_check(gp_context *ctx, const char *fn, gp_dtype key_dtype, gp_sort_order order, int begin_bit,
                             int end_bit)
{
    size_t ks;
    gp_status s = gpi_key_order_check(ctx, fn, key_dtype, order);
    if (s) return s;
    ks = gp_dtype_size(key_dtype);
    if (begin_bit < 0 || end_bit < begin_bit || (size_t)end_bit > 8 * ks)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: bit range [%d, %d) is not within [0, %zu)", fn,
                         begin_bit, end_bit, 8 * ks);
    return GP_SUCCESS;
}

gp_status gpi_sort_value_size_check(gp_context *ctx, const char *fn, size_t vs, const void *values_in, size_t n,
                                    size_t *vbytes)
{
    if (vs != 4 && vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (4 or 8 bytes)", fn, vs);
    if (gpi_mul_size(n, vs, vbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu values overflow a byte count", fn, n);
    if (!values_in && vs == 4 && n > (size_t)UINT32_MAX + 1)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu indices do not fit 4-byte values", fn, n);
    return GP_SUCCESS;
}

gp_status gpi_sort_keys_buffers_check(gp_context *ctx, const char *fn, const void *keys_in, const void *keys_out,
                                      size_t n, size_t ks, size_t kbytes)
{
    gp_status s;
    if ((s = gpi_check_buffer(ctx, keys_in, kbytes, "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, keys_out, kbytes, "keys_out"))) return s;
    if (keys_in != keys_out && gpi_overlap(keys_in, kbytes, keys_out, kbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_in and keys_out overlap (only equal is allowed)", fn);
    if (n && (((uintptr_t)keys_in | (uintptr_t)keys_out) % ks))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: keys not aligned to the %zu-byte key", fn, ks);
    return GP_SUCCESS;
}

gp_status gpi_sort_values_buffers_check(gp_context *ctx, const char *fn, const void *keys_in, const void *keys_out,
                                        size_t kbytes, const void *values_in, const void *values_out, size_t n,
                                        size_t vs, size_t vbytes)
{
    gp_status s;
    if (values_in && (s = gpi_check_buffer(ctx, values_in, vbytes, "values_in"))) return s;
    if ((s = gpi_check_buffer(ctx, values_out, vbytes, "values_out"))) return s;
    if (values_in && values_in != values_out && gpi_overlap(values_in, vbytes, values_out, vbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: values_in and values_out overlap (only equal is allowed)", fn);
    if (gpi_overlap(values_out, vbytes, keys_out, kbytes) || gpi_overlap(values_out, vbytes, keys_in, kbytes) ||
        (values_in && (gpi_overlap(values_in, vbytes, keys_out, kbytes) ||
                       gpi_overlap(values_in, vbytes, keys_in, kbytes))))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys and values overlap", fn);
    if (n && (((uintptr_t)values_in | (uintptr_t)values_out) % vs))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: values not aligned to %zu bytes", fn, vs);
    return GP_SUCCESS;
}

/* pairs: gp_sort_pairs (value_size must then be 4 or 8; 0 means keys only to the backends). */
static gp_status sort_check(gp_context *ctx, const char *fn, const gpi_sort_args *a, gp_sort_order order, int pairs)
{
    size_t ks, kbytes, vbytes = 0;
    gp_status s;
    if ((s = gpi_sort_key_check(ctx, fn, a->key_dtype, order, a->begin_bit, a->end_bit))) return s;
    ks = gp_dtype_size(a->key_dtype);
    if (gpi_mul_size(a->n, ks, &kbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu keys overflow a byte count", fn, a->n);
    if (pairs && (s = gpi_sort_value_size_check(ctx, fn, a->value_size, a->values_in, a->n, &vbytes))) return s;
    if ((s = gpi_sort_keys_buffers_check(ctx, fn, a->keys_in, a->keys_out, a->n, ks, kbytes))) return s;
    if (pairs && (s = gpi_sort_values_buffers_check(ctx, fn, a->keys_in, a->keys_out, kbytes, a->values_in,
                                                    a->values_out, a->n, a->value_size, vbytes)))
        return s;
    return GP_SUCCESS;
}

static gp_status sort_run(gp_context *ctx, const char *fn, gpi_sort_args *a, gp_sort_order order, int pairs)
{
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = sort_check(ctx, fn, a, order, pairs))) return s;
    a->descending = order == GP_SORT_DESCENDING;
    if (a->n == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_sort(ctx, a);
    {
        const size_t bytes = gpi_cpu_sort_scratch_bytes(a);
        void *scratch = NULL;
        if (bytes && (s = gpi_workspace_aligned(ctx, bytes, &scratch))) return s;
        if ((s = gpi_cpu_sort_with(a, gpi_cpu_threads(ctx), scratch))) return gpi_error(ctx, s, "%s: %zu keys", fn, a->n);
    }
    return GP_SUCCESS;
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

/* ---- the double-buffer form: caller-owned keys_alt and scratch -------------- */

static int integer_key(gp_dtype t) { return t == GP_UINT32 || t == GP_INT32 || t == GP_UINT64 || t == GP_INT64; }

/* Checks shared by gp_sort_scratch_bytes and gp_sort_keys_double_buffer. */
static gp_status double_buffer_key_check(gp_context *ctx, const char *fn, gp_dtype key_dtype, int begin_bit,
                                         int end_bit)
{
    size_t ks;
    if (!gpi_valid_dtype(key_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)key_dtype);
    if (!integer_key(key_dtype))
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED, "%s: float keys (integer keys only; gp_sort_keys sorts floats)",
                         fn);
    ks = gp_dtype_size(key_dtype);
    if (begin_bit < 0 || end_bit < begin_bit || (size_t)end_bit > 8 * ks)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: bit range [%d, %d) is not within [0, %zu)", fn,
                         begin_bit, end_bit, 8 * ks);
    return GP_SUCCESS;
}

/* The scratch a backend needs; 0 on the CPU and where nothing is sorted. */
static gp_status double_buffer_scratch(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit, int end_bit,
                                       size_t *bytes)
{
    *bytes = 0;
    if (ctx->backend != GP_BACKEND_CUDA || n == 0 || begin_bit == end_bit) return GP_SUCCESS;
    return gpi_cuda_sort_scratch_bytes(ctx, key_dtype, n, begin_bit, end_bit, bytes);
}

gp_status gp_sort_scratch_bytes(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit, int end_bit,
                                size_t *scratch_bytes)
{
    static const char fn[] = "gp_sort_scratch_bytes";
    size_t bytes;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if (!scratch_bytes) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: scratch_bytes is NULL", fn);
    if ((s = double_buffer_key_check(ctx, fn, key_dtype, begin_bit, end_bit))) return s;
    if ((s = double_buffer_scratch(ctx, key_dtype, n, begin_bit, end_bit, &bytes))) return s;
    *scratch_bytes = bytes;
    return GP_SUCCESS;
}

gp_status gp_sort_keys_double_buffer(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, void *keys,
                                     void *keys_alt, size_t n, int begin_bit, int end_bit, void *scratch,
                                     size_t scratch_bytes, int *sorted_in_alt)
{
    static const char fn[] = "gp_sort_keys_double_buffer";
    size_t ks, kbytes, need;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = double_buffer_key_check(ctx, fn, key_dtype, begin_bit, end_bit))) return s;
    if (order != GP_SORT_ASCENDING && order != GP_SORT_DESCENDING)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown sort order %d", fn, (int)order);
    if (!sorted_in_alt) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: sorted_in_alt is NULL", fn);
    ks = gp_dtype_size(key_dtype);
    if (gpi_mul_size(n, ks, &kbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu keys overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, keys, kbytes, "keys"))) return s;
    if ((s = gpi_check_buffer(ctx, keys_alt, kbytes, "keys_alt"))) return s;
    if (gpi_overlap(keys, kbytes, keys_alt, kbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys and keys_alt overlap", fn);
    if (n && (((uintptr_t)keys | (uintptr_t)keys_alt) % ks))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: keys not aligned to the %zu-byte key", fn, ks);
    if ((s = double_buffer_scratch(ctx, key_dtype, n, begin_bit, end_bit, &need))) return s;
    if (scratch_bytes < need)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: scratch of %zu bytes (%zu needed: gp_sort_scratch_bytes)",
                         fn, scratch_bytes, need);
    if (need) {
        if ((s = gpi_check_buffer(ctx, scratch, scratch_bytes, "scratch"))) return s;
        if (gpi_overlap(scratch, scratch_bytes, keys, kbytes) || gpi_overlap(scratch, scratch_bytes, keys_alt, kbytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: scratch overlaps the keys", fn);
    }
    if (n == 0 || begin_bit == end_bit) {
        *sorted_in_alt = 0;
        return GP_SUCCESS;
    }
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_sort_double_buffer(ctx, key_dtype, order == GP_SORT_DESCENDING, keys, keys_alt, n, begin_bit,
                                           end_bit, scratch, scratch_bytes, sorted_in_alt);
    {
        gpi_sort_args a = {key_dtype, order == GP_SORT_DESCENDING, keys, keys, 0, NULL, NULL, n, begin_bit, end_bit};
        /* keys_alt is the scratch: the keys end in keys, as the flag says. */
        if ((s = gpi_cpu_sort_with(&a, gpi_cpu_threads(ctx), keys_alt))) return gpi_error(ctx, s, "%s: %zu keys", fn, n);
        *sorted_in_alt = 0;
    }
    return GP_SUCCESS;
}
