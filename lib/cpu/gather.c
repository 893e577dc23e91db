/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/gather.c - reference gather and scatter: plain loops in index order,
 * elements as opaque bytes; an out-of-range index is skipped. */
#include "permute_internal.h"

#include <string.h>

gp_status gpi_cpu_check_indices(const uint64_t *indices, size_t n, uint64_t limit, size_t *first_bad)
{
    size_t i;
    *first_bad = SIZE_MAX;
    for (i = 0; i < n; i++)
        if (indices[i] >= limit) {
            *first_bad = i;
            break;
        }
    return GP_SUCCESS;
}

gp_status gpi_cpu_gather(size_t elem_size, const void *in, size_t in_n, const uint64_t *indices, void *out,
                         size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (indices[i] < in_n)
            memcpy((char *)out + i * elem_size, (const char *)in + indices[i] * elem_size, elem_size);
    return GP_SUCCESS;
}

gp_status gpi_cpu_scatter(size_t elem_size, const void *in, const uint64_t *indices, size_t n, void *out,
                          size_t out_n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (indices[i] < out_n)
            memcpy((char *)out + indices[i] * elem_size, (const char *)in + i * elem_size, elem_size);
    return GP_SUCCESS;
}
