/* cpu/compact.c - sequential reference stream compaction. Elements move as
 * raw 4- or 8-byte words: only the dtype's size matters, so float payloads
 * (NaN bit patterns included) are copied bit for bit. */
#include "internal.h"

static int flag_set(const void *flags, gp_flag_type flag_type, size_t i)
{
    if (flag_type == GP_UINT8_FLAGS) return ((const uint8_t *)flags)[i] != 0;
    return ((const int32_t *)flags)[i] != 0;
}

gp_status gpi_cpu_compact(gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count)
{
    size_t i, k = 0;
    if (gp_dtype_size(dtype) == 4) {
        const uint32_t *src = (const uint32_t *)in;
        uint32_t *dst = (uint32_t *)out;
        for (i = 0; i < n; i++)
            if (flag_set(flags, flag_type, i)) dst[k++] = src[i];
    } else {
        const uint64_t *src = (const uint64_t *)in;
        uint64_t *dst = (uint64_t *)out;
        for (i = 0; i < n; i++)
            if (flag_set(flags, flag_type, i)) dst[k++] = src[i];
    }
    *count = k;
    return GP_SUCCESS;
}

gp_status gpi_cpu_compact_indices(const void *flags, gp_flag_type flag_type, uint64_t *out, size_t n,
                                  size_t *count)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++)
        if (flag_set(flags, flag_type, i)) out[k++] = (uint64_t)i;
    *count = k;
    return GP_SUCCESS;
}
