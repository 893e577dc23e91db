/* cpu/scan.c - sequential reference scan, the ground truth the CUDA scan is
 * tested against.
 *
 * Semantics shared with cpu/reduce.c and the CUDA backend:
 *   - Integer sums are done in the unsigned type of the same width, so they
 *     wrap (two's complement) without signed-overflow UB; converting the
 *     unsigned result back to the signed type is modular on every compiler
 *     gpuprim supports (GCC/Clang/NVCC document it).
 *   - min keeps the running value unless the new element compares strictly
 *     smaller (`x < acc`), max unless strictly larger (`x > acc`). A NaN
 *     element compares false, so NaNs are skipped (as fmin/fmax do) and the
 *     running value is never NaN; an all-NaN input gives the identity.
 *     Between -0.0 and +0.0 the earlier one is kept (the CUDA tree may keep
 *     the other: which zero comes out is unspecified).
 *   - Float sums are left-to-right IEEE sums starting from +0.0.
 * In place (in == out) works: each element is read before it is written.
 * The seeded form starts the running value from *seed (one element of the
 * dtype) instead of the identity: a distributed scan seeds each rank with
 * the combined totals of the ranks before it. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* One function per element type. ACC is the type the sum is computed in. */
#define DEFINE_SCAN(NAME, T, ACC, MIN_ID, MAX_ID)                                   \
    static void NAME(gp_op op, int inclusive, const T *in, T *out, size_t n,     \
                     const void *seed)                                           \
    {                                                                            \
        size_t i;                                                                \
        T acc = op == GP_OP_SUM ? (T)0 : op == GP_OP_MIN ? (MIN_ID) : (MAX_ID);  \
        if (seed) memcpy(&acc, seed, sizeof acc);                                \
        for (i = 0; i < n; i++) {                                                \
            T x = in[i], next;                                                   \
            if (op == GP_OP_SUM) next = (T)((ACC)acc + (ACC)x);                  \
            else if (op == GP_OP_MIN) next = x < acc ? x : acc;                  \
            else next = x > acc ? x : acc;                                       \
            out[i] = inclusive ? next : acc;                                     \
            acc = next;                                                          \
        }                                                                        \
    }

DEFINE_SCAN(scan_i32, int32_t, uint32_t, INT32_MAX, INT32_MIN)
DEFINE_SCAN(scan_u32, uint32_t, uint32_t, UINT32_MAX, 0)
DEFINE_SCAN(scan_i64, int64_t, uint64_t, INT64_MAX, INT64_MIN)
DEFINE_SCAN(scan_u64, uint64_t, uint64_t, UINT64_MAX, 0)
DEFINE_SCAN(scan_f32, float, float, INFINITY, -INFINITY)
DEFINE_SCAN(scan_f64, double, double, (double)INFINITY, -(double)INFINITY)

gp_status gpi_cpu_scan(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n)
{
    return gpi_cpu_scan_seeded(dtype, op, kind, in, out, n, NULL);
}

gp_status gpi_cpu_scan_seeded(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n,
                              const void *seed)
{
    int inclusive = kind == GP_SCAN_INCLUSIVE;
    switch (dtype) {
    case GP_INT32: scan_i32(op, inclusive, (const int32_t *)in, (int32_t *)out, n, seed); break;
    case GP_UINT32: scan_u32(op, inclusive, (const uint32_t *)in, (uint32_t *)out, n, seed); break;
    case GP_INT64: scan_i64(op, inclusive, (const int64_t *)in, (int64_t *)out, n, seed); break;
    case GP_UINT64: scan_u64(op, inclusive, (const uint64_t *)in, (uint64_t *)out, n, seed); break;
    case GP_FLOAT32: scan_f32(op, inclusive, (const float *)in, (float *)out, n, seed); break;
    case GP_FLOAT64: scan_f64(op, inclusive, (const double *)in, (double *)out, n, seed); break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    return GP_SUCCESS;
}
