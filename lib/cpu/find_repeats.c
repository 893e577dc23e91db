/* cpu/find_repeats.c - sequential reference: every i in [0, n-1) with
 * in[i] == in[i+1]. Values compare with the type's == (for floats NaN never
 * equals anything and -0.0 == +0.0), so signed and unsigned integers of one
 * width behave alike but floats need their own loops. */
#include "internal.h"

#define DEFINE_REPEATS(NAME, T)                                           \
    static size_t NAME(const T *in, size_t n, uint64_t *out)             \
    {                                                                    \
        size_t i, k = 0;                                                 \
        for (i = 0; i + 1 < n; i++)                                      \
            if (in[i] == in[i + 1]) out[k++] = (uint64_t)i;              \
        return k;                                                        \
    }

DEFINE_REPEATS(repeats_u32, uint32_t)
DEFINE_REPEATS(repeats_u64, uint64_t)
DEFINE_REPEATS(repeats_f32, float)
DEFINE_REPEATS(repeats_f64, double)

gp_status gpi_cpu_find_repeats(gp_dtype dtype, const void *in, size_t n, uint64_t *out, size_t *count)
{
    switch (dtype) {
    case GP_INT32:
    case GP_UINT32: *count = repeats_u32((const uint32_t *)in, n, out); break;
    case GP_INT64:
    case GP_UINT64: *count = repeats_u64((const uint64_t *)in, n, out); break;
    case GP_FLOAT32: *count = repeats_f32((const float *)in, n, out); break;
    case GP_FLOAT64: *count = repeats_f64((const double *)in, n, out); break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    return GP_SUCCESS;
}
