/* SPDX-License-Identifier: BSD-3-Clause */
/* radix/radix_sort.h - gpuprim's own LSD radix sort (radix_sort.cu), as
 * cuda/sort.cu calls it. Arguments already checked (lib/sort.c). */
#ifndef GPUPRIM_CUDA_RADIX_SORT_H
#define GPUPRIM_CUDA_RADIX_SORT_H

#include "internal.h"

#include <stddef.h>

/* True when the environment asks for it: GP_CUDA_SORT=own (read once, at
 * the first call). CUB's sort is the default. */
bool gpi_radix_selected(void);

/* The largest input the own sort takes (its look-back counts are 30-bit);
 * beyond it the caller uses CUB. */
size_t gpi_radix_max_keys(void);

/* gp_sort_keys / gp_sort_pairs with begin_bit < end_bit and
 * n <= gpi_radix_max_keys(); scratch from the context's workspace. */
gp_status gpi_radix_sort(gp_context *ctx, const gpi_sort_args *a);

/* The double-buffer form (integer keys): scratch it needs, and the sort
 * itself with caller scratch of at least that many bytes. Every pass runs,
 * so where the keys end is known on the host: *in_alt = the pass count is odd. */
size_t gpi_radix_double_buffer_scratch(gp_dtype key_dtype, size_t n);
gp_status gpi_radix_sort_double_buffer(gp_context *ctx, gp_dtype key_dtype, int descending, void *keys, void *alt,
                                       size_t n, int begin_bit, int end_bit, void *scratch, int *in_alt);

#endif
