/* cpu/reduce.c - sequential reference reduction. Same operator semantics as
 * cpu/scan.c (see there): wrapping integer sums in unsigned arithmetic,
 * min/max that skip NaN and keep the earlier of two equal values, float sums
 * left to right from +0.0. n == 0 gives the identity. */
#include "internal.h"

#include <math.h>
#include <string.h>

#define DEFINE_REDUCE(NAME, T, ACC, MIN_ID, MAX_ID)                              \
    static void NAME(gp_op op, const T *in, size_t n, void *result)            \
    {                                                                          \
        size_t i;                                                              \
        T acc = op == GP_OP_SUM ? (T)0 : op == GP_OP_MIN ? (MIN_ID) : (MAX_ID); \
        for (i = 0; i < n; i++) {                                              \
            T x = in[i];                                                       \
            if (op == GP_OP_SUM) acc = (T)((ACC)acc + (ACC)x);                 \
            else if (op == GP_OP_MIN) acc = x < acc ? x : acc;                 \
            else acc = x > acc ? x : acc;                                      \
        }                                                                      \
        memcpy(result, &acc, sizeof acc); /* result is host memory, maybe unaligned */ \
    }

DEFINE_REDUCE(reduce_i32, int32_t, uint32_t, INT32_MAX, INT32_MIN)
DEFINE_REDUCE(reduce_u32, uint32_t, uint32_t, UINT32_MAX, 0)
DEFINE_REDUCE(reduce_i64, int64_t, uint64_t, INT64_MAX, INT64_MIN)
DEFINE_REDUCE(reduce_u64, uint64_t, uint64_t, UINT64_MAX, 0)
DEFINE_REDUCE(reduce_f32, float, float, INFINITY, -INFINITY)
DEFINE_REDUCE(reduce_f64, double, double, (double)INFINITY, -(double)INFINITY)

gp_status gpi_cpu_reduce(gp_dtype dtype, gp_op op, const void *in, size_t n, void *result)
{
    switch (dtype) {
    case GP_INT32: reduce_i32(op, (const int32_t *)in, n, result); break;
    case GP_UINT32: reduce_u32(op, (const uint32_t *)in, n, result); break;
    case GP_INT64: reduce_i64(op, (const int64_t *)in, n, result); break;
    case GP_UINT64: reduce_u64(op, (const uint64_t *)in, n, result); break;
    case GP_FLOAT32: reduce_f32(op, (const float *)in, n, result); break;
    case GP_FLOAT64: reduce_f64(op, (const double *)in, n, result); break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    return GP_SUCCESS;
}
