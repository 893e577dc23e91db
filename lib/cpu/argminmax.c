/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/argminmax.c - arg-min / arg-max. The reference: one loop keeping the
 * first strictly better element. NaN compares false, so it is never taken;
 * -0.0 and +0.0 compare equal, so the earlier one stays. No candidate
 * (n == 0 or all NaN): index n and the identity of MIN / MAX. */
#include "segmented_internal.h"
#include "pool.h"

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

/* ---- the same on the context's threads: each part finds the first best
 * element of its contiguous piece by the reference's rule, then the
 * pieces' winners are taken in order, a later one only when strictly
 * better. Without NaN the order is a strict weak one (-0.0 ties +0.0), so
 * this is the first best element of the whole: the reference's answer. */

typedef struct arg_job {
    int is_max;
    const void *in;
    size_t n;
    int found[GPI_POOL_MAX_PARTS];             /* the piece holds a candidate */
    uint64_t at[GPI_POOL_MAX_PARTS];
    unsigned char best[GPI_POOL_MAX_PARTS][8]; /* the winner's bits */
} arg_job;

#define DEFINE_ARG_THREADS(NAME, T, MIN_ID, MAX_ID)                                         \
    static void NAME##_part(void *arg, int part, int parts)                                \
    {                                                                                     \
        arg_job *j = (arg_job *)arg;                                                      \
        const T *in = (const T *)j->in;                                                   \
        const int is_max = j->is_max;                                                     \
        T best = is_max ? (MAX_ID) : (MIN_ID);                                            \
        int found = 0;                                                                     \
        size_t lo, hi, i, at = 0;                                                         \
        gpi_pool_range(j->n, part, parts, 1, &lo, &hi);                                   \
        for (i = lo; i < hi; i++) {                                                       \
            const T x = in[i];                                                            \
            if (x != x) continue; /* NaN */                                               \
            if (!found || (is_max ? x > best : x < best)) {                               \
                best = x;                                                                 \
                at = i;                                                                   \
                found = 1;                                                                \
            }                                                                             \
        }                                                                                 \
        j->found[part] = found;                                                           \
        j->at[part] = at;                                                                 \
        memcpy(j->best[part], &best, sizeof best);                                        \
    }                                                                                     \
    static void NAME##_threads(arg_job *j, int parts, void *value, uint64_t *index)       \
    {                                                                                     \
        T best = j->is_max ? (MAX_ID) : (MIN_ID);                                         \
        uint64_t at = j->n;                                                               \
        int p;                                                                            \
        gpi_pool_run(parts, NAME##_part, j);                                              \
        for (p = 0; p < parts; p++) {                                                     \
            T x;                                                                          \
            if (!j->found[p]) continue;                                                   \
            memcpy(&x, j->best[p], sizeof x);                                             \
            if (at == j->n || (j->is_max ? x > best : x < best)) {                        \
                best = x;                                                                 \
                at = j->at[p];                                                            \
            }                                                                             \
        }                                                                                 \
        if (value) memcpy(value, &best, sizeof best);                                     \
        *index = at;                                                                      \
    }

DEFINE_ARG_THREADS(arg_i32, int32_t, INT32_MAX, INT32_MIN)
DEFINE_ARG_THREADS(arg_u32, uint32_t, UINT32_MAX, 0)
DEFINE_ARG_THREADS(arg_i64, int64_t, INT64_MAX, INT64_MIN)
DEFINE_ARG_THREADS(arg_u64, uint64_t, UINT64_MAX, 0)
DEFINE_ARG_THREADS(arg_f32, float, INFINITY, -INFINITY)
DEFINE_ARG_THREADS(arg_f64, double, (double)INFINITY, -(double)INFINITY)

gp_status gpi_cpu_argminmax_threads(gp_dtype dtype, int is_max, const void *in, size_t n, void *value,
                                    uint64_t *index, int threads)
{
    const int parts = gpi_pool_parts(n, threads);
    arg_job j;
    if (parts == 1) return gpi_cpu_argminmax(dtype, is_max, in, n, value, index);
    j.is_max = is_max;
    j.in = in;
    j.n = n;
    switch (dtype) {
    case GP_INT32: arg_i32_threads(&j, parts, value, index); break;
    case GP_UINT32: arg_u32_threads(&j, parts, value, index); break;
    case GP_INT64: arg_i64_threads(&j, parts, value, index); break;
    case GP_UINT64: arg_u64_threads(&j, parts, value, index); break;
    case GP_FLOAT32: arg_f32_threads(&j, parts, value, index); break;
    case GP_FLOAT64: arg_f64_threads(&j, parts, value, index); break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    return GP_SUCCESS;
}
