/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/argminmax.c - the reference arg-min / arg-max: one loop keeping the
 * first strictly better element. NaN compares false, so it is never taken;
 * -0.0 and +0.0 compare equal, so the earlier one stays. No candidate
 * (n == 0 or all NaN): index n and the identity of MIN / MAX. */
#include "segmented_internal.h"

#include <math.h>
#include <string.h>

#define DEFINE_ARG(NAME, T, MIN_ID, MAX_ID)                                               \
    static void NAME(int is_max, const T *in, size_t n, void *value, uint64_t *index)   \
    {                                                                                   \
        T best = is_max ? (MAX_ID) : (MIN_ID);                                          \
        uint64_t at = n;                                                                \
        size_t i;                                                                       \
        for (i = 0; i < n; i++) {                                                       \
            const T x = in[i];                                                          \
            if (x != x) continue; /* NaN */                                             \
            if (at == n || (is_max ? x > best : x < best)) {                            \
                best = x;                                                               \
                at = i;                                                                 \
            }                                                                           \
        }                                                                               \
        if (value) memcpy(value, &best, sizeof best);                                   \
        *index = at;                                                                    \
    }

DEFINE_ARG(arg_i32, int32_t, INT32_MAX, INT32_MIN)
DEFINE_ARG(arg_u32, uint32_t, UINT32_MAX, 0)
DEFINE_ARG(arg_i64, int64_t, INT64_MAX, INT64_MIN)
DEFINE_ARG(arg_u64, uint64_t, UINT64_MAX, 0)
DEFINE_ARG(arg_f32, float, INFINITY, -INFINITY)
DEFINE_ARG(arg_f64, double, (double)INFINITY, -(double)INFINITY)

gp_status gpi_cpu_argminmax(gp_dtype dtype, int is_max, const void *in, size_t n, void *value, uint64_t *index)
{
    switch (dtype) {
    case GP_INT32: arg_i32(is_max, (const int32_t *)in, n, value, index); break;
    case GP_UINT32: arg_u32(is_max, (const uint32_t *)in, n, value, index); break;
    case GP_INT64: arg_i64(is_max, (const int64_t *)in, n, value, index); break;
    case GP_UINT64: arg_u64(is_max, (const uint64_t *)in, n, value, index); break;
    case GP_FLOAT32: arg_f32(is_max, (const float *)in, n, value, index); break;
    case GP_FLOAT64: arg_f64(is_max, (const double *)in, n, value, index); break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    return GP_SUCCESS;
}
