/* SPDX-License-Identifier: BSD-3-Clause */
/* search.c - gp_lower_bound / gp_upper_bound: argument checks, then the backend. */
#include "search_internal.h"

static gp_status search_run(gp_context *ctx, const char *fn, gpi_search_args *a, gp_sort_order order)
{
    size_t ks, kbytes, nbytes, pbytes;
    gp_status s = gpi_enter(ctx, fn);
    if (s || (s = gpi_key_order_check(ctx, fn, a->key_dtype, order))) return s;
    ks = gp_dtype_size(a->key_dtype);
    if (gpi_mul_size(a->n, ks, &kbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu keys overflow a byte count", fn, a->n);
    if (gpi_mul_size(a->m, ks, &nbytes) || gpi_mul_size(a->m, sizeof(uint64_t), &pbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu needles overflow a byte count", fn, a->m);
    /* The keys are read only when there are needles to look up. */
    if ((s = gpi_check_buffer(ctx, a->keys, a->m ? kbytes : 0, "keys"))) return s;
    if ((s = gpi_check_buffer(ctx, a->needles, nbytes, "needles"))) return s;
    if ((s = gpi_check_buffer(ctx, a->positions, pbytes, "positions_out"))) return s;
    if (gpi_overlap(a->positions, pbytes, a->needles, nbytes) ||
        (a->m && gpi_overlap(a->positions, pbytes, a->keys, kbytes)))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: positions_out overlaps keys or needles", fn);
    if (a->m && (((uintptr_t)a->needles % ks) || (a->n && (uintptr_t)a->keys % ks) ||
                 (uintptr_t)a->positions % sizeof(uint64_t)))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    a->descending = order == GP_SORT_DESCENDING;
    if (a->m == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_search(ctx, a);
    return gpi_cpu_search_threads(a, gpi_cpu_threads(ctx));
}

gp_status gp_lower_bound(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys, size_t n,
                         const void *needles, size_t m, uint64_t *positions_out)
{
    gpi_search_args a = {key_dtype, 0, 0, keys, n, needles, m, positions_out};
    return search_run(ctx, "gp_lower_bound", &a, order);
}

gp_status gp_upper_bound(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys, size_t n,
                         const void *needles, size_t m, uint64_t *positions_out)
{
    gpi_search_args a = {key_dtype, 0, 1, keys, n, needles, m, positions_out};
    return search_run(ctx, "gp_upper_bound", &a, order);
}
