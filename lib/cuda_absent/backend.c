/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_absent/backend.c - the CUDA backend's entry points in a build without
 * CUDA (GPUPRIM_CUDA=OFF, or no CUDA compiler found), in place of lib/cuda/.
 * No CUDA context can be made in such a build, so the dispatch never calls
 * these; each still reports GP_ERROR_NO_DEVICE with a detail saying why.
 * A gpi_cuda_* entry point missing here fails the link of libgpuprim
 * (--no-undefined), so a new family cannot be forgotten. */
#include "internal.h"
#include "histogram_internal.h"
#include "permute_internal.h"
#include "runs_internal.h"
#include "search_internal.h"
#include "segmented_internal.h"
#include "comm_internal.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static gp_status absent(gp_context *ctx, const char *what)
{
    return gpi_error(ctx, GP_ERROR_NO_DEVICE, "%s: this build of gpuprim has no CUDA (built without a CUDA compiler)",
                     what);
}

gp_status gpi_cuda_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out,
                        size_t n)
{
    return absent(ctx, "scan");
}

gp_status gpi_cuda_scan_seeded(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in,
                               void *out, size_t n, const void *seed)
{
    return absent(ctx, "scan");
}

gp_status gpi_cuda_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host)
{
    return absent(ctx, "reduce");
}

gp_status gpi_cuda_reduce_device(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                 void *result_dev)
{
    return absent(ctx, "reduce");
}

gp_status gpi_cuda_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                           void *out, size_t n, size_t *count_host)
{
    return absent(ctx, "compact");
}

gp_status gpi_cuda_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type, uint64_t *out,
                                   size_t n, size_t *count_host)
{
    return absent(ctx, "compact_indices");
}

gp_status gpi_cuda_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, uint64_t *out,
                                size_t *count_host)
{
    return absent(ctx, "find_repeats");
}

gp_status gpi_cuda_transpose(gp_context *ctx, size_t elem_size, const void *in, void *out, size_t rows, size_t cols)
{
    return absent(ctx, "transpose");
}

gp_status gpi_cuda_stencil_1d(gp_context *ctx, gp_dtype dtype, const gp_stencil3 *w, gp_boundary b, const void *in,
                              void *out, size_t n)
{
    return absent(ctx, "stencil_1d");
}

gp_status gpi_cuda_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *w, gp_boundary b, const void *in,
                              void *out, size_t rows, size_t cols)
{
    return absent(ctx, "stencil_2d");
}

gp_status gpi_cuda_sort(gp_context *ctx, const gpi_sort_args *a) { return absent(ctx, "sort"); }

gp_status gpi_cuda_copy(gp_context *ctx, void *dst, const void *src, size_t bytes) { return absent(ctx, "copy"); }

gp_status gpi_cuda_sort_scratch_bytes(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit, int end_bit,
                                      size_t *tmp_bytes)
{
    return absent(ctx, "sort_scratch_bytes");
}

gp_status gpi_cuda_sort_double_buffer(gp_context *ctx, gp_dtype key_dtype, int descending, void *keys, void *alt,
                                      size_t n, int begin_bit, int end_bit, void *tmp, size_t tmp_bytes, int *in_alt)
{
    return absent(ctx, "sort_keys_double_buffer");
}

gp_status gpi_cuda_histogram_even(gp_context *ctx, const gpi_hist_even *p, const void *samples, size_t n,
                                  gp_dtype count_dtype, void *counts)
{
    return absent(ctx, "histogram_even");
}

gp_status gpi_cuda_histogram_range(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                                   const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts)
{
    return absent(ctx, "histogram_range");
}

gp_status gpi_cuda_partition(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                             const void *second_flags, gp_flag_type flag_type, void *out, size_t n, size_t counts[3])
{
    return absent(ctx, "partition");
}

gp_status gpi_cuda_check_indices(gp_context *ctx, const uint64_t *indices, size_t n, uint64_t limit,
                                 size_t *first_bad)
{
    return absent(ctx, "index check");
}

gp_status gpi_cuda_gather(gp_context *ctx, size_t elem_size, const void *in, size_t in_n, const uint64_t *indices,
                          void *out, size_t n)
{
    return absent(ctx, "gather");
}

gp_status gpi_cuda_scatter(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *indices, size_t n,
                           void *out, size_t out_n)
{
    return absent(ctx, "scatter");
}

gp_status gpi_cuda_runs(gp_context *ctx, const gpi_runs_args *a, size_t *count_host) { return absent(ctx, "runs"); }

gp_status gpi_cuda_search(gp_context *ctx, const gpi_search_args *a) { return absent(ctx, "search"); }
gp_status gpi_cuda_merge(gp_context *ctx, const gpi_merge_args *a) { return absent(ctx, "merge"); }
gp_status gpi_cuda_topk(gp_context *ctx, const gpi_topk_args *a) { return absent(ctx, "top_k"); }

gp_status gpi_cuda_segmented_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                    const uint64_t *offsets, size_t n_segments, void *out)
{
    return absent(ctx, "segmented_reduce");
}

gp_status gpi_cuda_segmented_scan(gp_context *ctx, const gpi_segscan_args *a)
{
    return absent(ctx, "segmented_scan");
}

gp_status gpi_cuda_segmented_sort(gp_context *ctx, const gpi_segsort_args *a)
{
    return absent(ctx, "segmented_sort");
}

gp_status gpi_cuda_argminmax(gp_context *ctx, gp_dtype dtype, int is_max, const void *in, size_t n,
                             void *value_host, uint64_t *index_host)
{
    return absent(ctx, "argminmax");
}

gp_status gpi_cuda_add_u64(gp_context *ctx, uint64_t *p, size_t count, uint64_t base)
{
    return absent(ctx, "add_u64");
}

gp_status gpi_cuda_dist_images(gp_context *ctx, gp_dtype key_dtype, int descending, const void *keys, size_t n,
                               int begin_bit, int end_bit, uint64_t *out)
{
    return absent(ctx, "dist_images");
}
