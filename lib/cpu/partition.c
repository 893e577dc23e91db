/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/partition.c - reference stable partition: one pass over the input
 * per part, each copying that part's elements in input order. Elements move
 * as raw bytes of the dtype's size. */
#include "permute_internal.h"

#include <string.h>

static int flag_set(const void *flags, gp_flag_type flag_type, size_t i)
{
    if (flag_type == GP_UINT8_FLAGS) return ((const uint8_t *)flags)[i] != 0;
    return ((const int32_t *)flags)[i] != 0;
}

/* 0: first part, 1: second, 2: third (the rest). */
static int part_of(const void *first_flags, const void *second_flags, gp_flag_type flag_type, size_t i)
{
    if (flag_set(first_flags, flag_type, i)) return 0;
    if (second_flags && flag_set(second_flags, flag_type, i)) return 1;
    return 2;
}

gp_status gpi_cpu_partition(gp_dtype dtype, const void *in, const void *first_flags, const void *second_flags,
                            gp_flag_type flag_type, void *out, size_t n, size_t counts[3])
{
    const size_t es = gp_dtype_size(dtype);
    size_t i, k = 0;
    int part;
    for (part = 0; part < 3; part++) {
        const size_t start = k;
        for (i = 0; i < n; i++)
            if (part_of(first_flags, second_flags, flag_type, i) == part)
                memcpy((char *)out + k++ * es, (const char *)in + i * es, es);
        counts[part] = k - start;
    }
    return GP_SUCCESS;
}
