/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/runs.c - sequential reference for the runs calls: one loop over the
 * input that opens a run wherever a key differs from the one before it.
 *   keys: integers compare all bits, floats with == (NaN equals nothing,
 *         -0.0 == +0.0); a run's key out is its first key, copied as bytes.
 *   values: GP_OP_SUM from the run's first value, left to right (integers
 *         wrap in unsigned arithmetic); MIN/MAX from the identity, skipping
 *         NaN, keeping the earlier of equal values (as cpu/reduce.c).
 * In place (keys_out == keys_in, values_out == values_in) works because an
 * entry is written only at or before the position being read, and each
 * element is read before anything is written at its position. */
#include "runs_internal.h"

#include <math.h>
#include <string.h>

/* The previous key, kept by value (in place, its slot may be rewritten). */
static int key_equal(gp_dtype d, const void *keys, size_t i, const unsigned char *prev)
{
    switch (d) {
    case GP_INT32:
    case GP_UINT32: {
        uint32_t a, b;
        memcpy(&a, prev, 4);
        b = ((const uint32_t *)keys)[i];
        return a == b;
    }
    case GP_INT64:
    case GP_UINT64: {
        uint64_t a, b;
        memcpy(&a, prev, 8);
        b = ((const uint64_t *)keys)[i];
        return a == b;
    }
    case GP_FLOAT32: {
        float a;
        memcpy(&a, prev, 4);
        return a == ((const float *)keys)[i];
    }
    default: {
        double a;
        memcpy(&a, prev, 8);
        return a == ((const double *)keys)[i];
    }
    }
}

/* A run's running value, in the value dtype. */
typedef union acc {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
} acc;

#define MIN_OF(a, x) ((x) < (a) ? (x) : (a)) /* NaN x loses; ties keep a */
#define MAX_OF(a, x) ((x) > (a) ? (x) : (a))

/* first: x opens the run (SUM starts from it, MIN/MAX from the identity). */
static void accumulate(gp_dtype d, gp_op op, acc *a, const void *values, size_t i, int first)
{
#define STEP(FIELD, T, U, MIN_ID, MAX_ID)                                            \
    do {                                                                           \
        const T x = ((const T *)values)[i];                                        \
        if (op == GP_OP_SUM) a->FIELD = first ? x : (T)((U)a->FIELD + (U)x);       \
        else if (op == GP_OP_MIN) a->FIELD = MIN_OF(first ? (T)(MIN_ID) : a->FIELD, x); \
        else a->FIELD = MAX_OF(first ? (T)(MAX_ID) : a->FIELD, x);                  \
    } while (0)
    switch (d) {
    case GP_INT32: STEP(i32, int32_t, uint32_t, INT32_MAX, INT32_MIN); break;
    case GP_UINT32: STEP(u32, uint32_t, uint32_t, UINT32_MAX, 0); break;
    case GP_INT64: STEP(i64, int64_t, uint64_t, INT64_MAX, INT64_MIN); break;
    case GP_UINT64: STEP(u64, uint64_t, uint64_t, UINT64_MAX, 0); break;
    case GP_FLOAT32: STEP(f32, float, float, INFINITY, -INFINITY); break;
    default: STEP(f64, double, double, INFINITY, -INFINITY); break;
    }
#undef STEP
}

gp_status gpi_cpu_runs(const gpi_runs_args *a, size_t *count)
{
    const size_t ks = gp_dtype_size(a->key_dtype);
    const size_t vs = a->values != GPI_RUNS_NO_VALUES ? gp_dtype_size(a->value_dtype) : 0;
    const unsigned char *keys = (const unsigned char *)a->keys_in;
    const unsigned char *values = (const unsigned char *)a->values_in;
    unsigned char *keys_out = (unsigned char *)a->keys_out, *values_out = (unsigned char *)a->values_out;
    unsigned char prev[8];
    size_t i, runs = 0, start = 0;
    acc run_value;
    memset(&run_value, 0, sizeof run_value);
    for (i = 0; i < a->n; i++) {
        if (i == 0 || !key_equal(a->key_dtype, keys, i, prev)) {
            /* A new run: finish the previous one, then open this one. */
            if (i > 0) {
                if (a->values == GPI_RUNS_REDUCE) memcpy(values_out + (runs - 1) * vs, &run_value, vs);
                if (a->lengths_out) a->lengths_out[runs - 1] = (uint64_t)(i - start);
            }
            memcpy(prev, keys + i * ks, ks);
            if (a->values == GPI_RUNS_REDUCE) accumulate(a->value_dtype, a->op, &run_value, values, i, 1);
            if (a->values == GPI_RUNS_FIRST) memmove(values_out + runs * vs, values + i * vs, vs);
            memmove(keys_out + runs * ks, prev, ks);
            start = i;
            runs++;
        } else {
            memcpy(prev, keys + i * ks, ks);
            if (a->values == GPI_RUNS_REDUCE) accumulate(a->value_dtype, a->op, &run_value, values, i, 0);
        }
    }
    if (runs) {
        if (a->values == GPI_RUNS_REDUCE) memcpy(values_out + (runs - 1) * vs, &run_value, vs);
        if (a->lengths_out) a->lengths_out[runs - 1] = (uint64_t)(a->n - start);
    }
    *count = runs;
    return GP_SUCCESS;
}
