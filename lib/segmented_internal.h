/* SPDX-License-Identifier: BSD-3-Clause */
/* segmented_internal.h - the backends of the segmented calls and of
 * arg-min/max (include/gpuprim/segmented.h, argminmax.h). Arguments are
 * checked by lib/segmented.c and lib/argminmax.c before these run; offsets
 * are validated there on the CPU backend only (see segmented.h). */
#ifndef GPUPRIM_SEGMENTED_INTERNAL_H
#define GPUPRIM_SEGMENTED_INTERNAL_H

#include "internal.h"

#include <gpuprim/argminmax.h>
#include <gpuprim/segmented.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Segment s of an array of n elements, as the CUDA backend reads it:
 * offsets clamped to n, an end before its start made empty. */
static inline GPI_HOSTDEV void gpi_segment_bounds(const uint64_t *offsets, size_t s, uint64_t n, uint64_t *begin,
                                                  uint64_t *end)
{
    uint64_t b = offsets[s], e = offsets[s + 1];
    b = b < n ? b : n;
    e = e < n ? e : n;
    *begin = b;
    *end = e < b ? b : e;
}

/* A checked segmented sort: gpi_sort_args plus the segments. */
typedef struct gpi_segsort_args {
    gpi_sort_args sort;
    const uint64_t *offsets;
    size_t n_segments;
} gpi_segsort_args;

/* Segments of scan: by offsets (keys NULL) or by runs of equal keys. */
typedef struct gpi_segscan_args {
    gp_dtype dtype;
    gp_op op;
    int inclusive;
    const void *in;
    void *out;
    size_t n;
    const uint64_t *offsets; /* NULL: by key */
    size_t n_segments;
    gp_dtype key_dtype;
    const void *keys;
} gpi_segscan_args;

/* ---- CPU backend (lib/cpu/segmented.c, lib/cpu/argminmax.c) ---- */
gp_status gpi_cpu_segmented_reduce(gp_dtype dtype, gp_op op, const void *in, const uint64_t *offsets,
                                   size_t n_segments, void *out);
gp_status gpi_cpu_segmented_scan(const gpi_segscan_args *a);
gp_status gpi_cpu_segmented_sort(const gpi_segsort_args *a);
/* is_max: arg-max, else arg-min. value: host memory (may be NULL). */
gp_status gpi_cpu_argminmax(gp_dtype dtype, int is_max, const void *in, size_t n, void *value, uint64_t *index);
/* The same on `threads` threads (gpi_cpu_threads): bit for bit the
 * sequential reference's result whatever the count. */
gp_status gpi_cpu_segmented_reduce_threads(gp_dtype dtype, gp_op op, const void *in, const uint64_t *offsets,
                                           size_t n_segments, void *out, int threads);
gp_status gpi_cpu_segmented_scan_threads(const gpi_segscan_args *a, int threads);
gp_status gpi_cpu_segmented_sort_threads(const gpi_segsort_args *a, int threads);
gp_status gpi_cpu_argminmax_threads(gp_dtype dtype, int is_max, const void *in, size_t n, void *value,
                                    uint64_t *index, int threads);

/* ---- CUDA backend (lib/cuda/segmented_*.cu, argminmax.cu) ---- */
gp_status gpi_cuda_segmented_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                    const uint64_t *offsets, size_t n_segments, void *out);
gp_status gpi_cuda_segmented_scan(gp_context *ctx, const gpi_segscan_args *a);
gp_status gpi_cuda_segmented_sort(gp_context *ctx, const gpi_segsort_args *a);
gp_status gpi_cuda_argminmax(gp_context *ctx, gp_dtype dtype, int is_max, const void *in, size_t n,
                             void *value_host, uint64_t *index_host);

#ifdef __cplusplus
}
#endif

#endif
