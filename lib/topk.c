/* SPDX-License-Identifier: BSD-3-Clause */
/* topk.c - gp_top_k: argument checks, then the backend. */
#include "search_internal.h"

gp_status gp_top_k(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys_in, size_t n,
                   size_t k, void *keys_out, size_t value_size, const void *values_in, void *values_out)
{
    static const char fn[] = "gp_top_k";
    gpi_topk_args a = {key_dtype, 0, keys_in, n, k, keys_out, value_size, values_in, values_out};
    const size_t vs = value_size;
    size_t ks, kbytes, okbytes, vbytes = 0, ovbytes = 0;
    gp_status s = gpi_enter(ctx, fn);
    if (s || (s = gpi_key_order_check(ctx, fn, key_dtype, order))) return s;
    if (vs != 0 && vs != 4 && vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (0, 4 or 8 bytes)", fn, vs);
    if (k < 1 || k > n)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: k = %zu is not within [1, n = %zu]", fn, k, n);
    ks = gp_dtype_size(key_dtype);
    if (gpi_mul_size(n, ks, &kbytes) || (vs && gpi_mul_size(n, vs, &vbytes)))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu keys overflow a byte count", fn, n);
    okbytes = k * ks, ovbytes = k * vs;
    if (vs == 4 && !values_in && n > (size_t)UINT32_MAX + 1)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu indices do not fit 4-byte values", fn, n);
    if (!vs) values_in = NULL, values_out = NULL, a.values_in = NULL, a.values_out = NULL;
    if ((s = gpi_check_buffer(ctx, keys_in, kbytes, "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, keys_out, okbytes, "keys_out"))) return s;
    if (vs) {
        if (values_in && (s = gpi_check_buffer(ctx, values_in, vbytes, "values_in"))) return s;
        if ((s = gpi_check_buffer(ctx, values_out, ovbytes, "values_out"))) return s;
    }
    if (!values_in) vbytes = 0; /* the indices: nothing read */
    if (gpi_overlap(keys_out, okbytes, keys_in, kbytes) || gpi_overlap(keys_out, okbytes, values_in, vbytes) ||
        gpi_overlap(values_out, ovbytes, keys_in, kbytes) || gpi_overlap(values_out, ovbytes, values_in, vbytes) ||
        gpi_overlap(values_out, ovbytes, keys_out, okbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input or the other output", fn);
    if (((uintptr_t)keys_in | (uintptr_t)keys_out) % ks)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: keys not aligned to the %zu-byte key", fn, ks);
    if (vs && (((uintptr_t)values_in | (uintptr_t)values_out) % vs))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: values not aligned to %zu bytes", fn, vs);
    a.descending = order == GP_SORT_DESCENDING;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_topk(ctx, &a);
    return gpi_cpu_topk_threads(&a, gpi_cpu_threads(ctx));
}
