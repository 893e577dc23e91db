/* SPDX-License-Identifier: BSD-3-Clause */
/* gather.c - gp_gather and gp_scatter: argument checks, the index check
 * (GP_INDEX_CHECK), then the backend's move, which skips out-of-range
 * indices. */
#include "permute_internal.h"

/* Checks both calls share. src_n / dst_n: elements of in / out. */
static gp_status check(gp_context *ctx, const char *fn, size_t elem_size, const void *in, size_t src_n,
                       const uint64_t *indices, const void *out, size_t dst_n, size_t n, gp_index_check mode)
{
    size_t in_bytes, out_bytes, idx_bytes;
    gp_status s;
    if (elem_size != 4 && elem_size != 8 && elem_size != 16)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: elem_size %zu is not 4, 8 or 16", fn, elem_size);
    if (mode != GP_INDEX_CHECK && mode != GP_INDEX_SKIP)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown index check %d", fn, (int)mode);
    if (gpi_mul_size(src_n, elem_size, &in_bytes) || gpi_mul_size(dst_n, elem_size, &out_bytes) ||
        gpi_mul_size(n, sizeof(uint64_t), &idx_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: an array's size overflows a byte count", fn);
    if (n == 0) return GP_SUCCESS; /* nothing is read or written */
    if ((s = gpi_check_buffer(ctx, in, in_bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, indices, idx_bytes, "indices"))) return s;
    if ((s = gpi_check_buffer(ctx, out, out_bytes, "out"))) return s;
    if (gpi_overlap(out, out_bytes, in, in_bytes) || gpi_overlap(out, out_bytes, indices, idx_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: out overlaps in or indices", fn);
    if ((((uintptr_t)in | (uintptr_t)out) % elem_size) || (uintptr_t)indices % sizeof(uint64_t))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

/* GP_INDEX_CHECK: refuse any index >= limit, before anything is written. */
static gp_status check_indices(gp_context *ctx, const char *fn, const uint64_t *indices, size_t n, size_t limit)
{
    size_t bad = SIZE_MAX;
    gp_status s = ctx->backend == GP_BACKEND_CUDA
                      ? gpi_cuda_check_indices(ctx, indices, n, limit, &bad)
                      : gpi_cpu_check_indices_threads(indices, n, limit, &bad, gpi_cpu_threads(ctx));
    if (s) return s;
    if (bad != SIZE_MAX)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: indices[%zu] is out of range (%zu elements)", fn, bad,
                         limit);
    return GP_SUCCESS;
}

gp_status gp_gather(gp_context *ctx, size_t elem_size, const void *in, size_t in_n, const uint64_t *indices,
                    void *out, size_t n, gp_index_check check_mode)
{
    static const char fn[] = "gp_gather";
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = check(ctx, fn, elem_size, in, in_n, indices, out, n, n, check_mode))) return s;
    if (n == 0) return GP_SUCCESS;
    if (check_mode == GP_INDEX_CHECK && (s = check_indices(ctx, fn, indices, n, in_n))) return s;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_gather(ctx, elem_size, in, in_n, indices, out, n);
    return gpi_cpu_gather_threads(elem_size, in, in_n, indices, out, n, gpi_cpu_threads(ctx));
}

gp_status gp_scatter(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *indices, size_t n,
                     void *out, size_t out_n, gp_index_check check_mode)
{
    static const char fn[] = "gp_scatter";
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = check(ctx, fn, elem_size, in, n, indices, out, out_n, n, check_mode))) return s;
    if (n == 0) return GP_SUCCESS;
    if (check_mode == GP_INDEX_CHECK && (s = check_indices(ctx, fn, indices, n, out_n))) return s;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_scatter(ctx, elem_size, in, indices, n, out, out_n);
    return gpi_cpu_scatter_threads(elem_size, in, indices, n, out, out_n, gpi_cpu_threads(ctx));
}
