/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/runs.c - the runs calls on the CPU: the sequential reference (one
 * loop over the input that opens a run wherever a key differs from the one
 * before it), and below it the same on the context's threads.
 *   keys: integers compare all bits, floats with == (NaN equals nothing,
 *         -0.0 == +0.0); a run's key out is its first key, copied as bytes.
 *   values: GP_OP_SUM from the run's first value, left to right (integers
 *         wrap in unsigned arithmetic); MIN/MAX from the identity, skipping
 *         NaN, keeping the earlier of equal values (as cpu/reduce.c).
 * In place (keys_out == keys_in, values_out == values_in) works because an
 * entry is written only at or before the position being read, and each
 * element is read before anything is written at its position. */
#include "key_runs.h"
#include "ops.h"
#include "pool.h"
#include "runs_internal.h"

#include <math.h>
#include <stdlib.h>
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

/* ---- on the context's threads -------------------------------------------
 * The input is cut into near-equal pieces; a part owns the runs that START
 * in its piece, so a run is never split and its elements,
 * [begin[p], begin[p+1]), form a runs problem of their own whose answer is
 * the reference's for those runs. Step 1 counts each piece's run starts;
 * their prefix is each part's first output entry; step 2 solves each
 * part's problem into its outputs from there: float sums by gpi_cpu_runs
 * itself (which NaN a sum of two NaNs gives depends on the operand order
 * of the compiled add), the rest by typed loops of the same result, which
 * also serve a call on one thread (faster than the reference's loop).
 * In place, a part whose outputs start below its elements would write
 * where the parts before it may still be reading: its keys and values go
 * to scratch in step 2 and to their place in step 3, once every part has
 * read its input. */

typedef struct runs_job {
    const gpi_runs_args *a;
    size_t ks, vs;
    int keys_in_place, values_in_place, float_sum;
    unsigned char *keys_scratch, *values_scratch; /* in place: the staged parts' entries */
    size_t first[GPI_POOL_MAX_PARTS];           /* step 1: the piece's first run start (its end: none) */
    size_t runs[GPI_POOL_MAX_PARTS];            /* step 1: its run starts */
    size_t begin[GPI_POOL_MAX_PARTS + 1];       /* part p's elements: [begin[p], begin[p+1]) */
    size_t out_at[GPI_POOL_MAX_PARTS];          /* its first output entry */
    size_t staged_at[GPI_POOL_MAX_PARTS];       /* in place: its entries' place in scratch, or SIZE_MAX */
} runs_job;

/* values[b, e) reduced as accumulate does, into dst (one value); not float
 * sums (see above). */
static void reduce_run(gp_dtype d, gp_op op, const void *values, size_t b, size_t e, void *dst)
{
#define REDUCE_CASE(DT, SUF, T)                                                                           \
    case DT: {                                                                                            \
        const T *x = (const T *)values + b;                                                               \
        const T r = op == GP_OP_SUM ? SUF##_fold(op, x + 1, e - b - 1, x[0])                              \
                                    : SUF##_fold(op, x, e - b, SUF##_identity(op));                       \
        memcpy(dst, &r, sizeof r);                                                                        \
        return;                                                                                           \
    }
    switch (d) {
        REDUCE_CASE(GP_INT32, ops_i32, int32_t)
        REDUCE_CASE(GP_UINT32, ops_u32, uint32_t)
        REDUCE_CASE(GP_INT64, ops_i64, int64_t)
        REDUCE_CASE(GP_UINT64, ops_u64, uint64_t)
        REDUCE_CASE(GP_FLOAT32, ops_f32, float)
        REDUCE_CASE(GP_FLOAT64, ops_f64, double)
    default: return;
    }
#undef REDUCE_CASE
}

/* gpi_cpu_runs's result for a (not a float sum), run by run: each entry
 * written once its run has been read, at or before it (in place too).
 * Returns the count. */
static size_t runs_typed(const gpi_runs_args *a, size_t ks, size_t vs)
{
    const unsigned char *keys = (const unsigned char *)a->keys_in, *values = (const unsigned char *)a->values_in;
    unsigned char *keys_out = (unsigned char *)a->keys_out, *values_out = (unsigned char *)a->values_out;
    size_t b, e, r;
    for (b = 0, r = 0; b < a->n; b = e, r++) {
        e = gpi_key_run_end(a->key_dtype, keys, b, a->n);
        memmove(keys_out + r * ks, keys + b * ks, ks);
        if (a->values == GPI_RUNS_FIRST) memmove(values_out + r * vs, values + b * vs, vs);
        else if (a->values == GPI_RUNS_REDUCE) reduce_run(a->value_dtype, a->op, values, b, e, values_out + r * vs);
        if (a->lengths_out) a->lengths_out[r] = (uint64_t)(e - b);
    }
    return r;
}

/* The whole call on the calling thread. */
static gp_status runs_sequential(const gpi_runs_args *a, size_t ks, size_t vs, int float_sum, size_t *count)
{
    if (float_sum) return gpi_cpu_runs(a, count);
    *count = runs_typed(a, ks, vs);
    return GP_SUCCESS;
}

static void count_part(void *arg, int part, int parts)
{
    runs_job *j = (runs_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->a->n, part, parts, 1, &lo, &hi);
    j->runs[part] = gpi_key_count_starts(j->a->key_dtype, j->a->keys_in, lo, hi, &j->first[part]);
}

static void write_part(void *arg, int part, int parts)
{
    const runs_job *j = (const runs_job *)arg;
    const gpi_runs_args *a = j->a;
    const size_t lo = j->begin[part], at = j->out_at[part], staged_at = j->staged_at[part];
    gpi_runs_args sub = *a;
    size_t count;
    (void)parts;
    if (!j->runs[part]) return;
    sub.n = j->begin[part + 1] - lo;
    sub.keys_in = (const unsigned char *)a->keys_in + lo * j->ks;
    sub.keys_out = staged_at != SIZE_MAX && j->keys_in_place ? j->keys_scratch + staged_at * j->ks
                                                             : (unsigned char *)a->keys_out + at * j->ks;
    if (j->vs) {
        sub.values_in = (const unsigned char *)a->values_in + lo * j->vs;
        sub.values_out = staged_at != SIZE_MAX && j->values_in_place ? j->values_scratch + staged_at * j->vs
                                                                     : (unsigned char *)a->values_out + at * j->vs;
    }
    if (a->lengths_out) sub.lengths_out = a->lengths_out + at;
    if (j->float_sum) gpi_cpu_runs(&sub, &count);
    else count = runs_typed(&sub, j->ks, j->vs);
    (void)count;
}

static void copy_part(void *arg, int part, int parts)
{
    const runs_job *j = (const runs_job *)arg;
    const gpi_runs_args *a = j->a;
    const size_t m = j->runs[part], at = j->out_at[part], from = j->staged_at[part];
    (void)parts;
    if (from == SIZE_MAX) return;
    if (j->keys_in_place) memcpy((unsigned char *)a->keys_out + at * j->ks, j->keys_scratch + from * j->ks, m * j->ks);
    if (j->values_in_place)
        memcpy((unsigned char *)a->values_out + at * j->vs, j->values_scratch + from * j->vs, m * j->vs);
}

gp_status gpi_cpu_runs_threads(const gpi_runs_args *a, size_t *count, int threads)
{
    const int parts = gpi_pool_parts(a->n, threads);
    const size_t ks = gp_dtype_size(a->key_dtype);
    const size_t vs = a->values != GPI_RUNS_NO_VALUES ? gp_dtype_size(a->value_dtype) : 0;
    const int float_sum = a->values == GPI_RUNS_REDUCE && a->op == GP_OP_SUM &&
                          (a->value_dtype == GP_FLOAT32 || a->value_dtype == GP_FLOAT64);
    runs_job *j;
    size_t total = 0, staged = 0;
    int p;
    if (parts <= 1 || !(j = (runs_job *)malloc(sizeof *j))) return runs_sequential(a, ks, vs, float_sum, count);
    j->a = a;
    j->ks = ks;
    j->vs = vs;
    j->keys_in_place = a->keys_out == a->keys_in;
    j->values_in_place = vs && a->values_out == a->values_in;
    j->float_sum = float_sum;
    j->keys_scratch = j->values_scratch = NULL;
    gpi_pool_run(parts, count_part, j); /* reads only */
    j->begin[parts] = a->n;
    for (p = parts - 1; p >= 0; p--) j->begin[p] = j->runs[p] ? j->first[p] : j->begin[p + 1];
    for (p = 0; p < parts; p++) {
        /* in place, outputs below the part's elements land in earlier parts' */
        const int stage = (j->keys_in_place || j->values_in_place) && j->runs[p] && j->begin[p] > total;
        j->out_at[p] = total;
        j->staged_at[p] = stage ? staged : SIZE_MAX;
        staged += stage ? j->runs[p] : 0;
        total += j->runs[p];
    }
    if (staged) {
        j->keys_scratch = j->keys_in_place ? (unsigned char *)malloc(staged * j->ks) : NULL;
        j->values_scratch = j->values_in_place ? (unsigned char *)malloc(staged * j->vs) : NULL;
        if ((j->keys_in_place && !j->keys_scratch) || (j->values_in_place && !j->values_scratch)) {
            free(j->keys_scratch), free(j->values_scratch), free(j);
            return runs_sequential(a, ks, vs, float_sum, count); /* nothing written yet */
        }
    }
    gpi_pool_run(parts, write_part, j);
    if (staged) gpi_pool_run(parts, copy_part, j);
    free(j->keys_scratch), free(j->values_scratch), free(j);
    *count = total;
    return GP_SUCCESS;
}
