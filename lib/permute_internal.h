/* SPDX-License-Identifier: BSD-3-Clause */
/* permute_internal.h - what lib/partition.c, lib/gather.c and their CPU and
 * CUDA backends share. Never installed. Arguments reach the backends
 * checked. */
#ifndef GPUPRIM_PERMUTE_INTERNAL_H
#define GPUPRIM_PERMUTE_INTERNAL_H

#include "internal.h"
#include <gpuprim/permute.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Stable partition into three parts (first flags; else second flags; else
 * the rest). second_flags NULL: two parts, counts[1] = 0. counts: host
 * memory, the three parts' lengths. */
gp_status gpi_cpu_partition(gp_dtype dtype, const void *in, const void *first_flags, const void *second_flags,
                            gp_flag_type flag_type, void *out, size_t n, size_t counts[3]);
gp_status gpi_cpu_partition_threads(gp_dtype dtype, const void *in, const void *first_flags,
                                    const void *second_flags, gp_flag_type flag_type, void *out, size_t n,
                                    size_t counts[3], int threads);
/* Synchronizes. */
gp_status gpi_cuda_partition(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                             const void *second_flags, gp_flag_type flag_type, void *out, size_t n,
                             size_t counts[3]);

/* *first_bad: the first i with indices[i] >= limit, or SIZE_MAX where there
 * is none. The CUDA form synchronizes. */
gp_status gpi_cpu_check_indices(const uint64_t *indices, size_t n, uint64_t limit, size_t *first_bad);
gp_status gpi_cpu_check_indices_threads(const uint64_t *indices, size_t n, uint64_t limit, size_t *first_bad,
                                        int threads);
gp_status gpi_cuda_check_indices(gp_context *ctx, const uint64_t *indices, size_t n, uint64_t limit,
                                 size_t *first_bad);

/* Gather / scatter, skipping out-of-range indices (in_n / out_n elements). */
gp_status gpi_cpu_gather(size_t elem_size, const void *in, size_t in_n, const uint64_t *indices, void *out,
                         size_t n);
gp_status gpi_cpu_scatter(size_t elem_size, const void *in, const uint64_t *indices, size_t n, void *out,
                          size_t out_n);
gp_status gpi_cpu_gather_threads(size_t elem_size, const void *in, size_t in_n, const uint64_t *indices,
                                 void *out, size_t n, int threads);
gp_status gpi_cpu_scatter_threads(size_t elem_size, const void *in, const uint64_t *indices, size_t n, void *out,
                                  size_t out_n, int threads);
gp_status gpi_cuda_gather(gp_context *ctx, size_t elem_size, const void *in, size_t in_n, const uint64_t *indices,
                          void *out, size_t n);
gp_status gpi_cuda_scatter(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *indices, size_t n,
                           void *out, size_t out_n);

#ifdef __cplusplus
}
#endif

#endif
