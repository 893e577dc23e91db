/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/ops.h - the operators of scan and reduce over one element type, for
 * the CPU backend's files (cpu/scan.c, cpu/reduce.c).
 *
 * Semantics shared with the CUDA backend:
 *   - Integer sums are done in the unsigned type of the same width, so they
 *     wrap (two's complement) without signed-overflow UB; converting the
 *     unsigned result back to the signed type is modular on every compiler
 *     gpuprim supports (GCC/Clang/NVCC document it).
 *   - min keeps the running value unless the new element compares strictly
 *     smaller (`x < acc`), max unless strictly larger (`x > acc`). A NaN
 *     element compares false, so NaNs are skipped (as fmin/fmax do) and the
 *     running value is never NaN; an all-NaN input gives the identity.
 *     Between -0.0 and +0.0 the earlier one is kept.
 * Folding pieces of an array in order with these operators gives exactly
 * what one left-to-right pass gives for integer sums, min and max (for min
 * and max the first of the equal extremes wins either way): so those are
 * split among threads freely. Float sums are not associative; the callers
 * fix their order (see cpu/scan.c and cpu/tree_sum.c). */
#ifndef GPUPRIM_CPU_OPS_H
#define GPUPRIM_CPU_OPS_H

#include "internal.h"

#include <math.h>

/* For element type T (sums in ACC), with SUF naming the functions:
 *   SUF_identity(op)
 *   SUF_combine(op, acc, x)          acc op x
 *   SUF_fold(op, in, n, acc)         acc op in[0] op ... op in[n-1], left to right
 *   SUF_scan(op, inclusive, in, out, n, acc)   the scan from acc (in == out allowed)
 * Each loop is written once per operator so that the compiler can
 * vectorize the folds of integers. */
#define GPI_DEFINE_OPS(SUF, T, ACC, MIN_ID, MAX_ID)                                                     \
    static inline T SUF##_identity(gp_op op)                                                            \
    {                                                                                                   \
        return op == GP_OP_SUM ? (T)0 : op == GP_OP_MIN ? (MIN_ID) : (MAX_ID);                          \
    }                                                                                                   \
    static inline T SUF##_combine(gp_op op, T acc, T x)                                                 \
    {                                                                                                   \
        if (op == GP_OP_SUM) return (T)((ACC)acc + (ACC)x);                                             \
        if (op == GP_OP_MIN) return x < acc ? x : acc;                                                  \
        return x > acc ? x : acc;                                                                       \
    }                                                                                                   \
    static inline T SUF##_fold(gp_op op, const T *in, size_t n, T acc)                                  \
    {                                                                                                   \
        size_t i;                                                                                       \
        if (op == GP_OP_SUM)                                                                            \
            for (i = 0; i < n; i++) acc = (T)((ACC)acc + (ACC)in[i]);                                   \
        else if (op == GP_OP_MIN)                                                                       \
            for (i = 0; i < n; i++) acc = in[i] < acc ? in[i] : acc;                                    \
        else                                                                                            \
            for (i = 0; i < n; i++) acc = in[i] > acc ? in[i] : acc;                                    \
        return acc;                                                                                     \
    }                                                                                                   \
    static inline void SUF##_scan(gp_op op, int inclusive, const T *in, T *out, size_t n, T acc)        \
    {                                                                                                   \
        size_t i;                                                                                       \
        if (op == GP_OP_SUM && inclusive)                                                               \
            for (i = 0; i < n; i++) out[i] = acc = (T)((ACC)acc + (ACC)in[i]);                          \
        else if (op == GP_OP_SUM)                                                                       \
            for (i = 0; i < n; i++) {                                                                   \
                const T x = in[i];                                                                      \
                out[i] = acc;                                                                           \
                acc = (T)((ACC)acc + (ACC)x);                                                           \
            }                                                                                           \
        else                                                                                            \
            for (i = 0; i < n; i++) {                                                                   \
                const T x = in[i];                                                                      \
                const T next = op == GP_OP_MIN ? (x < acc ? x : acc) : (x > acc ? x : acc);             \
                out[i] = inclusive ? next : acc;                                                        \
                acc = next;                                                                             \
            }                                                                                           \
    }

GPI_DEFINE_OPS(ops_i32, int32_t, uint32_t, INT32_MAX, INT32_MIN)
GPI_DEFINE_OPS(ops_u32, uint32_t, uint32_t, UINT32_MAX, 0)
GPI_DEFINE_OPS(ops_i64, int64_t, uint64_t, INT64_MAX, INT64_MIN)
GPI_DEFINE_OPS(ops_u64, uint64_t, uint64_t, UINT64_MAX, 0)
GPI_DEFINE_OPS(ops_f32, float, float, INFINITY, -INFINITY)
GPI_DEFINE_OPS(ops_f64, double, double, (double)INFINITY, -(double)INFINITY)

#endif
