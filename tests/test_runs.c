/* SPDX-License-Identifier: BSD-3-Clause */
/* test_runs.c - gp_reduce_by_key, gp_unique, gp_unique_by_key and
 * gp_run_length_encode on each backend against a tiny reference written
 * here (runs found by scanning forward to each run's end, then reduced in a
 * separate loop), bit for bit, float sums included: every key dtype with
 * every value dtype and op, the test sizes and CUDA tile edges (tiles of
 * 4096 4-byte or 2048 8-byte keys; float sums 2048), run shapes (all equal,
 * all distinct, random runs of 1..10, few distinct keys, runs of 10^6), NaN
 * and -0.0 keys, in place, buffers not 16-byte aligned, outputs past the
 * count still poisoned, and bad arguments with outputs untouched. */
#include "test_util.h"

#include <gpuprim/runs.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

enum call { REDUCE_BY_KEY, UNIQUE, UNIQUE_BY_KEY, RLE };
static const char *call_name(int c)
{
    static const char *names[] = {"reduce_by_key", "unique", "unique_by_key", "run_length_encode"};
    return names[c];
}

/* ---- the tiny reference
 * ----------------------------------------------------------- */
static int tiny_equal(gp_dtype d, const void *k, size_t i, size_t j)
{
    switch (d) {
    case GP_INT32: return ((const int32_t *)k)[i] == ((const int32_t *)k)[j];
    case GP_UINT32: return ((const uint32_t *)k)[i] == ((const uint32_t *)k)[j];
    case GP_INT64: return ((const int64_t *)k)[i] == ((const int64_t *)k)[j];
    case GP_UINT64: return ((const uint64_t *)k)[i] == ((const uint64_t *)k)[j];
    case GP_FLOAT32: return ((const float *)k)[i] == ((const float *)k)[j];
    default: return ((const double *)k)[i] == ((const double *)k)[j];
    }
}

/* values[s, e) reduced into out (one element of d). */
static void tiny_reduce(gp_dtype d, gp_op op, const void *values, size_t s, size_t e, void *out)
{
    size_t i;
#define TINY(T, U, LO, HI)                                                        \
    do {                                                                         \
        const T *v = (const T *)values;                                          \
        T r = op == GP_OP_SUM ? v[s] : op == GP_OP_MIN ? (T)(HI) : (T)(LO);      \
        for (i = op == GP_OP_SUM ? s + 1 : s; i < e; i++) {                      \
            if (op == GP_OP_SUM) r = (T)((U)r + (U)v[i]);                        \
            else if (op == GP_OP_MIN && v[i] < r) r = v[i];                      \
            else if (op == GP_OP_MAX && v[i] > r) r = v[i];                      \
        }                                                                        \
        memcpy(out, &r, sizeof r);                                               \
    } while (0)
    switch (d) {
    case GP_INT32: TINY(int32_t, uint32_t, INT32_MIN, INT32_MAX); break;
    case GP_UINT32: TINY(uint32_t, uint32_t, 0, UINT32_MAX); break;
    case GP_INT64: TINY(int64_t, uint64_t, INT64_MIN, INT64_MAX); break;
    case GP_UINT64: TINY(uint64_t, uint64_t, 0, UINT64_MAX); break;
    case GP_FLOAT32: TINY(float, float, -INFINITY, INFINITY); break;
    default: TINY(double, double, -INFINITY, INFINITY); break;
    }
#undef TINY
}

/* The runs of keys[0, n): first keys, values (per call), lengths; returns the
 * count. */
static size_t tiny_runs(int call, gp_dtype kd, gp_dtype vd, gp_op op, const void *keys, const void *values, size_t n,
                        void *kout, void *vout, uint64_t *lens)
{
    const size_t ks = gp_dtype_size(kd), vs = gp_dtype_size(vd);
    size_t s = 0, e, r = 0;
    while (s < n) {
        for (e = s + 1; e < n && tiny_equal(kd, keys, e - 1, e); e++) {}
        memcpy((char *)kout + r * ks, (const char *)keys + s * ks, ks);
        if (call == UNIQUE_BY_KEY) memcpy((char *)vout + r * vs, (const char *)values + s * vs, vs);
        if (call == REDUCE_BY_KEY) tiny_reduce(vd, op, values, s, e, (char *)vout + r * vs);
        if (lens) lens[r] = e - s;
        r++;
        s = e;
    }
    return r;
}

/* ---- inputs
 * ------------------------------------------------------------------------- */
enum shape { ALL_EQUAL, DISTINCT, RUNS_1_TO_10, FEW_KEYS, RUNS_OF_A_MILLION, NSHAPES };
static const char *shape_name(int s)
{
    static const char *names[] = {"all-equal", "distinct", "runs 1..10", "few keys", "runs of 10^6"};
    return names[s];
}

/* Key number u as dtype d (distinct u give distinct keys for u < 2^24). */
static void put_key(gp_dtype d, void *k, size_t i, uint64_t u)
{
    switch (d) {
    case GP_INT32: ((int32_t *)k)[i] = (int32_t)u - 7; break;
    case GP_UINT32: ((uint32_t *)k)[i] = (uint32_t)u; break;
    case GP_INT64: ((int64_t *)k)[i] = (int64_t)u - 7; break;
    case GP_UINT64: ((uint64_t *)k)[i] = u * 0x100000001ull; break;
    case GP_FLOAT32: ((float *)k)[i] = (float)(u % (1u << 24)) * 0.5f; break;
    default: ((double *)k)[i] = (double)u * 0.25; break;
    }
}

static void fill_keys(gp_dtype d, void *k, size_t n, int shape)
{
    size_t i, left = 0;
    uint64_t run = 0;
    for (i = 0; i < n; i++) {
        uint64_t u;
        switch (shape) {
        case ALL_EQUAL: u = 42; break;
        case DISTINCT: u = i; break;
        case RUNS_1_TO_10:
            if (left == 0) {
                left = 1 + (size_t)(gpt_rand64() % 10);
                run++;
            }
            left--;
            u = run;
            break;
        case FEW_KEYS: u = gpt_rand64() % 3; break;
        default: u = i / 1000000; break;
        }
        put_key(d, k, i, u);
    }
}

/* ---- one call against the tiny reference
 * ------------------------------------------- */
/* Values compare bit for bit, except that any NaN matches any NaN: a sum
 * of NaNs is NaN on both backends, but its payload and sign are the
 * hardware's (x86 keeps an operand's, the GPU gives its canonical NaN). */
static int same_value(gp_dtype vd, const void *a, const void *b)
{
    if (vd == GP_FLOAT32) {
        float x, y;
        memcpy(&x, a, 4), memcpy(&y, b, 4);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    } else if (vd == GP_FLOAT64) {
        double x, y;
        memcpy(&x, a, 8), memcpy(&y, b, 8);
        if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    }
    return !memcmp(a, b, gp_dtype_size(vd));
}

static void check_call(gp_context *ctx, int call, gp_dtype kd, gp_dtype vd, gp_op op, int with_lengths,
                       const void *keys, const void *values, size_t n, const char *shape)
{
    const size_t ks = gp_dtype_size(kd), vs = gp_dtype_size(vd);
    const size_t room = n ? n : 1;
    void *want_k = gpt_malloc(room * ks), *want_v = gpt_malloc(room * vs);
    uint64_t *want_l = gpt_malloc(room * 8);
    void *got_k = gpt_malloc(room * ks), *got_v = gpt_malloc(room * vs);
    uint64_t *got_l = gpt_malloc(room * 8);
    void *d_keys = gpt_buffer_from(ctx, keys, n * ks);
    void *d_vals = values ? gpt_buffer_from(ctx, values, n * vs) : NULL;
    void *d_kout = gpt_poisoned_buffer(ctx, room * ks), *d_vout = gpt_poisoned_buffer(ctx, room * vs);
    uint64_t *d_lens = gpt_poisoned_buffer(ctx, room * 8);
    const int wants_values = call == REDUCE_BY_KEY || call == UNIQUE_BY_KEY;
    const int wants_lengths = call == RLE || (call == REDUCE_BY_KEY && with_lengths);
    size_t want, count = (size_t)-3;
    char what[160];
    snprintf(what, sizeof what, "%s keys %s values %s op %d%s, %s, n=%zu [%s]", call_name(call), gpt_dtype_name(kd),
             wants_values ? gpt_dtype_name(vd) : "-", call == REDUCE_BY_KEY ? (int)op : 0,
             wants_lengths ? " +lengths" : "", shape, n, gpt_backend_name(ctx));
    want = tiny_runs(call, kd, vd, op, keys, values, n, want_k, want_v, wants_lengths ? want_l : NULL);
    switch (call) {
    case REDUCE_BY_KEY:
        GPT_OK(ctx, gp_reduce_by_key(ctx, kd, vd, op, d_keys, d_vals, n, d_kout, d_vout,
                                     with_lengths ? d_lens : NULL, &count));
        break;
    case UNIQUE: GPT_OK(ctx, gp_unique(ctx, kd, d_keys, n, d_kout, &count)); break;
    case UNIQUE_BY_KEY:
        GPT_OK(ctx, gp_unique_by_key(ctx, kd, vd, d_keys, d_vals, n, d_kout, d_vout, &count));
        break;
    default: GPT_OK(ctx, gp_run_length_encode(ctx, kd, d_keys, n, d_kout, d_lens, &count)); break;
    }
    if (count != want) fail_msg("%s: count %zu, want %zu", what, count, want);
    gpt_buffer_to(ctx, got_k, d_kout, room * ks);
    gpt_buffer_to(ctx, got_v, d_vout, room * vs);
    gpt_buffer_to(ctx, got_l, d_lens, room * 8);
    if (count && memcmp(got_k, want_k, count * ks)) fail_msg("%s: keys differ", what);
    gpt_expect_poison(got_k, count * ks, room * ks, what);
    if (wants_values) {
        size_t i;
        for (i = 0; i < count && same_value(vd, (char *)got_v + i * vs, (char *)want_v + i * vs); i++) {}
        if (i < count)
            fail_msg("%s: values differ first at run %zu (length %llu)", what, i,
                     (unsigned long long)(wants_lengths ? want_l[i] : 0));
        gpt_expect_poison(got_v, count * vs, room * vs, what);
    } else {
        gpt_expect_poison(got_v, 0, room * vs, what);
    }
    if (wants_lengths) {
        if (count && memcmp(got_l, want_l, count * 8)) fail_msg("%s: lengths differ", what);
        gpt_expect_poison(got_l, count * 8, room * 8, what);
    } else {
        gpt_expect_poison(got_l, 0, room * 8, what);
    }
    gpt_buffer_free(ctx, d_keys);
    gpt_buffer_free(ctx, d_vals);
    gpt_buffer_free(ctx, d_kout);
    gpt_buffer_free(ctx, d_vout);
    gpt_buffer_free(ctx, d_lens);
    free(want_k);
    free(want_v);
    free(want_l);
    free(got_k);
    free(got_v);
    free(got_l);
}

/* Every call on fresh keys and values of one shape. types: ALL_TYPES, every
 * key dtype x value dtype x op; else the first `types` of a few
 * representative (key, value) pairs, each with every op. */
#define ALL_TYPES 0
static void check_shape(gp_context *ctx, size_t n, int shape, size_t types)
{
    static const gp_dtype pairs[][2] = {{GP_INT32, GP_INT32}, {GP_FLOAT32, GP_FLOAT32}, {GP_INT64, GP_FLOAT64},
                                        {GP_FLOAT64, GP_UINT32}};
    const int all_types = types == ALL_TYPES && !gpt_tiny();
    const size_t nk = all_types ? COUNT(dtypes) : types != ALL_TYPES && types < COUNT(pairs) ? types : COUNT(pairs);
    size_t ki, vi, oi;
    for (ki = 0; ki < nk; ki += gpt_dtype_step(nk)) {
        const gp_dtype kd = all_types ? dtypes[ki] : pairs[ki][0];
        void *keys = gpt_malloc((n ? n : 1) * 8);
        fill_keys(kd, keys, n, shape);
        check_call(ctx, UNIQUE, kd, kd, GP_OP_SUM, 0, keys, NULL, n, shape_name(shape));
        check_call(ctx, RLE, kd, kd, GP_OP_SUM, 1, keys, NULL, n, shape_name(shape));
        for (vi = 0; vi < (all_types ? COUNT(dtypes) : 1); vi++) {
            const gp_dtype vd = all_types ? dtypes[vi] : pairs[ki][1];
            void *values = gpt_malloc((n ? n : 1) * 8);
            gpt_fill_random(vd, values, n, 0);
            check_call(ctx, UNIQUE_BY_KEY, kd, vd, GP_OP_SUM, 0, keys, values, n, shape_name(shape));
            for (oi = 0; oi < COUNT(ops); oi++)
                check_call(ctx, REDUCE_BY_KEY, kd, vd, ops[oi], (int)(oi != 1), keys, values, n, shape_name(shape));
            free(values);
        }
        free(keys);
    }
}

/* ---- (1) the CPU reference against the tiny one
 * ------------------------------------ */
static void cpu_reference_matches_tiny(void **state)
{
    gp_context *ctx;
    (void)state;
    gpt_seed_once();
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    {
        static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000};
        size_t si;
        int sh;
        for (si = 0; si < COUNT(sizes); si++)
            for (sh = 0; sh < RUNS_OF_A_MILLION; sh++) check_shape(ctx, sizes[si], sh, ALL_TYPES);
    }
    gp_context_destroy(ctx);
}

/* ---- (2) each backend: sizes x shapes x types
 * ------------------------------------------ */
static void runs_match_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    /* CUDA tiles hold 4096 4-byte or 2048 8-byte keys (float sums: 2048):
     * one tile +-1, two, many with a partial last one */
    static const size_t edges[] = {2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 2048 * 7 + 5, 4096 * 7 + 5};
    const size_t *sizes = gpt_sizes();
    size_t si;
    int sh;
    for (si = 0; sizes[si] != SIZE_MAX; si++)
        for (sh = 0; sh < RUNS_OF_A_MILLION; sh++)
            check_shape(ctx, sizes[si], sh, sizes[si] <= 4097 ? ALL_TYPES : sizes[si] <= 65537 ? 4 : 2);
    for (si = 0; si < COUNT(edges); si++)
        for (sh = 0; sh < RUNS_OF_A_MILLION; sh++) check_shape(ctx, edges[si], sh, ALL_TYPES);
}

/* Runs far longer than a tile, spanning hundreds of them (the carried
 * partial reductions, and on CUDA the ordered chain of float sums). */
static void runs_of_a_million(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    check_shape(ctx, gpt_tiny() ? 300007 : gpt_quick() ? 2000003 : 3500001, RUNS_OF_A_MILLION, 2);
}

/* Reduce-by-key without lengths (check_shape's sums and maxima carry
 * lengths) at the CUDA tile edges (a tile holds 4096 4-byte or 2048 8-byte
 * keys), and every call over about a thousand tiles, more than the GPU
 * holds blocks at once. */
static void check_no_lengths(gp_context *ctx, size_t n, int shape)
{
    static const gp_dtype pairs[][2] = {{GP_INT32, GP_INT32},   {GP_UINT32, GP_UINT64}, {GP_INT64, GP_INT64},
                                        {GP_FLOAT64, GP_INT32}, {GP_FLOAT32, GP_FLOAT64}};
    const size_t npairs = n > 100000 ? 3 : COUNT(pairs);
    size_t pi, oi;
    for (pi = 0; pi < npairs; pi++) {
        const gp_dtype kd = pairs[pi][0], vd = pairs[pi][1];
        void *keys = gpt_malloc((n ? n : 1) * 8), *values = gpt_malloc((n ? n : 1) * 8);
        fill_keys(kd, keys, n, shape);
        gpt_fill_random(vd, values, n, 0);
        for (oi = 0; oi < COUNT(ops); oi++)
            check_call(ctx, REDUCE_BY_KEY, kd, vd, ops[oi], 0, keys, values, n, shape_name(shape));
        if (n > 100000) {
            check_call(ctx, REDUCE_BY_KEY, kd, vd, GP_OP_SUM, 1, keys, values, n, shape_name(shape));
            check_call(ctx, UNIQUE, kd, kd, GP_OP_SUM, 0, keys, NULL, n, shape_name(shape));
            check_call(ctx, UNIQUE_BY_KEY, kd, vd, GP_OP_SUM, 0, keys, values, n, shape_name(shape));
            check_call(ctx, RLE, kd, kd, GP_OP_SUM, 1, keys, NULL, n, shape_name(shape));
        }
        free(keys);
        free(values);
    }
}

static void runs_without_lengths(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t edges[] = {1, 33, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 4096 * 7 + 5};
    static const int shapes[] = {ALL_EQUAL, DISTINCT, RUNS_1_TO_10};
    size_t si;
    int sh;
    for (si = 0; si < COUNT(edges); si++)
        for (sh = 0; sh < RUNS_OF_A_MILLION; sh++) check_no_lengths(ctx, edges[si], sh);
    /* 1000 tiles of 4-byte keys (+1: a partial last one): more tiles than
     * the GPU holds blocks */
    for (si = 0; si < COUNT(shapes); si++) check_no_lengths(ctx, gpt_tiny() ? 4096 * 40 + 1 : 4096 * 1000 + 1, shapes[si]);
    check_no_lengths(ctx, gpt_tiny() ? 4096 * 40 : 4096 * 1000, RUNS_1_TO_10);
}

/* ---- (3) float keys: NaN is a run of its own, -0.0 == +0.0 (first key out)
 * ---------- */
static void runs_float_keys(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const double k[] = {NAN, NAN, 1.0, 1.0, -0.0, 0.0, 0.0, -0.0, INFINITY, INFINITY, -INFINITY, NAN, 2.0, 0.0, -0.0};
    const uint64_t want_lens[] = {1, 1, 2, 4, 2, 1, 1, 1, 2};
    const size_t n = COUNT(k);
    float kf[COUNT(k)];
    double vals[COUNT(k)];
    size_t i, count = 0;
    for (i = 0; i < n; i++) {
        kf[i] = (float)k[i];
        vals[i] = (double)i - 3.5;
    }
    for (i = 0; i < 2; i++) {
        const gp_dtype kd = i ? GP_FLOAT64 : GP_FLOAT32;
        const void *keys = i ? (const void *)k : (const void *)kf;
        void *d_k = gpt_buffer_from(ctx, keys, n * gp_dtype_size(kd)), *d_out = gpt_poisoned_buffer(ctx, n * 8);
        uint64_t *d_l = gpt_poisoned_buffer(ctx, n * 8), lens[COUNT(k)];
        unsigned char got[COUNT(k) * 8];
        GPT_OK(ctx, gp_run_length_encode(ctx, kd, d_k, n, d_out, d_l, &count));
        assert_int_equal(count, COUNT(want_lens));
        gpt_buffer_to(ctx, lens, d_l, sizeof lens);
        assert_memory_equal(lens, want_lens, sizeof want_lens);
        gpt_buffer_to(ctx, got, d_out, n * gp_dtype_size(kd));
        /* the run {-0.0, 0.0, 0.0, -0.0} is written as its first key, -0.0 */
        if (kd == GP_FLOAT64) assert_true(signbit(((double *)got)[3]) && ((double *)got)[3] == 0.0);
        else assert_true(signbit(((float *)got)[3]) && ((float *)got)[3] == 0.0f);
        gpt_buffer_free(ctx, d_k);
        gpt_buffer_free(ctx, d_out);
        gpt_buffer_free(ctx, d_l);
        check_call(ctx, REDUCE_BY_KEY, kd, GP_FLOAT64, GP_OP_SUM, 1, keys, vals, n, "special keys");
        check_call(ctx, REDUCE_BY_KEY, kd, GP_FLOAT64, GP_OP_MIN, 1, keys, vals, n, "special keys");
        check_call(ctx, UNIQUE_BY_KEY, kd, GP_FLOAT64, GP_OP_SUM, 0, keys, vals, n, "special keys");
    }
    /* The same rules over many CUDA tiles. */
    {
        const size_t big = 70001;
        double *h = gpt_malloc(big * 8), *v = gpt_malloc(big * 8);
        for (i = 0; i < big; i++) h[i] = k[(i / 5 + i / 17) % n];
        gpt_fill_random(GP_FLOAT64, v, big, 0);
        check_call(ctx, REDUCE_BY_KEY, GP_FLOAT64, GP_FLOAT64, GP_OP_SUM, 1, h, v, big, "special keys");
        check_call(ctx, RLE, GP_FLOAT64, GP_FLOAT64, GP_OP_SUM, 1, h, NULL, big, "special keys");
        free(h);
        free(v);
    }
}

/* Float values: a sum starts from the run's first value (a lone -0.0 stays
 * -0.0); min and max skip NaN (all NaN: the identity) and keep the first of
 * -0.0 and +0.0. */
static void runs_float_values(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int32_t keys[] = {1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 6};
    const float v[] = {-0.0f, NAN, NAN, 1.0f, NAN, -2.0f, -0.0f, 0.0f, 0.0f, -0.0f, 1e30f, -1e30f};
    const float want_min[] = {-0.0f, INFINITY, -2.0f, -0.0f, 0.0f, -1e30f};
    const float want_sum_first = -0.0f;
    const size_t n = COUNT(keys);
    void *d_k = gpt_buffer_from(ctx, keys, sizeof keys), *d_v = gpt_buffer_from(ctx, v, sizeof v);
    void *d_ko = gpt_poisoned_buffer(ctx, sizeof keys), *d_vo = gpt_poisoned_buffer(ctx, sizeof v);
    float got[COUNT(keys)];
    size_t count = 0;
    GPT_OK(ctx, gp_reduce_by_key(ctx, GP_INT32, GP_FLOAT32, GP_OP_MIN, d_k, d_v, n, d_ko, d_vo, NULL, &count));
    assert_int_equal(count, 6);
    gpt_buffer_to(ctx, got, d_vo, sizeof got);
    assert_memory_equal(got, want_min, sizeof want_min);
    GPT_OK(ctx, gp_reduce_by_key(ctx, GP_INT32, GP_FLOAT32, GP_OP_SUM, d_k, d_v, n, d_ko, d_vo, NULL, &count));
    gpt_buffer_to(ctx, got, d_vo, sizeof got);
    assert_memory_equal(&got[0], &want_sum_first, 4);
    assert_true(isnan(got[1]));
    check_call(ctx, REDUCE_BY_KEY, GP_INT32, GP_FLOAT32, GP_OP_MAX, 1, keys, v, n, "special values");
    check_call(ctx, REDUCE_BY_KEY, GP_INT32, GP_FLOAT32, GP_OP_SUM, 1, keys, v, n, "special values");
    gpt_buffer_free(ctx, d_k);
    gpt_buffer_free(ctx, d_v);
    gpt_buffer_free(ctx, d_ko);
    gpt_buffer_free(ctx, d_vo);
}

/* ---- (4) in place
 * ------------------------------------------------------------------------ */
static void runs_in_place(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 50001;
    int64_t *keys = gpt_malloc(n * 8), *want_k = gpt_malloc(n * 8), *got = gpt_malloc(n * 8);
    double *vals = gpt_malloc(n * 8), *want_v = gpt_malloc(n * 8), *got_v = gpt_malloc(n * 8);
    uint64_t *want_l = gpt_malloc(n * 8), *got_l = gpt_malloc(n * 8);
    size_t want, count = 0;
    void *d_k, *d_v;
    uint64_t *d_l;
    fill_keys(GP_INT64, keys, n, RUNS_1_TO_10);
    gpt_fill_random(GP_FLOAT64, vals, n, 0);

    want = tiny_runs(UNIQUE, GP_INT64, GP_INT64, GP_OP_SUM, keys, NULL, n, want_k, NULL, NULL);
    d_k = gpt_buffer_from(ctx, keys, n * 8);
    GPT_OK(ctx, gp_unique(ctx, GP_INT64, d_k, n, d_k, &count));
    assert_int_equal(count, want);
    gpt_buffer_to(ctx, got, d_k, n * 8);
    assert_memory_equal(got, want_k, want * 8);
    assert_memory_equal(got + want, keys + want, (n - want) * 8); /* past the count: the input as it was */
    gpt_buffer_free(ctx, d_k);

    want = tiny_runs(REDUCE_BY_KEY, GP_INT64, GP_FLOAT64, GP_OP_SUM, keys, vals, n, want_k, want_v, want_l);
    d_k = gpt_buffer_from(ctx, keys, n * 8);
    d_v = gpt_buffer_from(ctx, vals, n * 8);
    d_l = gpt_poisoned_buffer(ctx, n * 8);
    GPT_OK(ctx, gp_reduce_by_key(ctx, GP_INT64, GP_FLOAT64, GP_OP_SUM, d_k, d_v, n, d_k, d_v, d_l, &count));
    assert_int_equal(count, want);
    gpt_buffer_to(ctx, got, d_k, n * 8);
    gpt_buffer_to(ctx, got_v, d_v, n * 8);
    gpt_buffer_to(ctx, got_l, d_l, n * 8);
    assert_memory_equal(got, want_k, want * 8);
    assert_memory_equal(got_v, want_v, want * 8);
    assert_memory_equal(got_l, want_l, want * 8);
    gpt_buffer_free(ctx, d_k);
    gpt_buffer_free(ctx, d_v);
    gpt_buffer_free(ctx, d_l);

    want = tiny_runs(UNIQUE_BY_KEY, GP_INT64, GP_FLOAT64, GP_OP_SUM, keys, vals, n, want_k, want_v, NULL);
    d_k = gpt_buffer_from(ctx, keys, n * 8);
    d_v = gpt_buffer_from(ctx, vals, n * 8);
    GPT_OK(ctx, gp_unique_by_key(ctx, GP_INT64, GP_FLOAT64, d_k, d_v, n, d_k, d_v, &count));
    assert_int_equal(count, want);
    gpt_buffer_to(ctx, got, d_k, n * 8);
    gpt_buffer_to(ctx, got_v, d_v, n * 8);
    assert_memory_equal(got, want_k, want * 8);
    assert_memory_equal(got_v, want_v, want * 8);
    gpt_buffer_free(ctx, d_k);
    gpt_buffer_free(ctx, d_v);
    free(keys);
    free(want_k);
    free(got);
    free(vals);
    free(want_v);
    free(got_v);
    free(want_l);
    free(got_l);
}

/* In place on 4-byte keys and values (the exact kernel; runs_in_place's
 * float sums take the ordered one): runs of one put every output entry on
 * its own input element, also the last key of each tile, which the next
 * tile reads as the key before its first. */
static void check_in_place_exact(gp_context *ctx, size_t n)
{
    int32_t *keys = gpt_malloc(n * 4), *vals = gpt_malloc(n * 4), *want_k = gpt_malloc(n * 4);
    int32_t *want_v = gpt_malloc(n * 4), *got = gpt_malloc(n * 4), *got_v = gpt_malloc(n * 4);
    uint64_t *want_l = gpt_malloc(n * 8), *got_l = gpt_malloc(n * 8);
    static const int shapes[] = {DISTINCT, RUNS_1_TO_10, ALL_EQUAL};
    static const gp_op exact_ops[] = {GP_OP_SUM, GP_OP_MIN};
    size_t si, oi, want, count = 0;
    for (si = 0; si < COUNT(shapes); si++) {
        void *d_k, *d_v;
        uint64_t *d_l;
        fill_keys(GP_INT32, keys, n, shapes[si]);
        gpt_fill_random(GP_INT32, vals, n, 0);

        want = tiny_runs(RLE, GP_INT32, GP_INT32, GP_OP_SUM, keys, NULL, n, want_k, NULL, want_l);
        d_k = gpt_buffer_from(ctx, keys, n * 4);
        d_l = gpt_poisoned_buffer(ctx, n * 8);
        GPT_OK(ctx, gp_run_length_encode(ctx, GP_INT32, d_k, n, d_k, d_l, &count));
        assert_int_equal(count, want);
        gpt_buffer_to(ctx, got, d_k, n * 4);
        gpt_buffer_to(ctx, got_l, d_l, n * 8);
        assert_memory_equal(got, want_k, want * 4);
        assert_memory_equal(got + want, keys + want, (n - want) * 4);
        assert_memory_equal(got_l, want_l, want * 8);
        gpt_buffer_free(ctx, d_k);
        gpt_buffer_free(ctx, d_l);

        for (oi = 0; oi < COUNT(exact_ops); oi++) {
            want = tiny_runs(REDUCE_BY_KEY, GP_INT32, GP_INT32, exact_ops[oi], keys, vals, n, want_k, want_v, want_l);
            d_k = gpt_buffer_from(ctx, keys, n * 4);
            d_v = gpt_buffer_from(ctx, vals, n * 4);
            d_l = gpt_poisoned_buffer(ctx, n * 8);
            GPT_OK(ctx, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, exact_ops[oi], d_k, d_v, n, d_k, d_v, d_l, &count));
            assert_int_equal(count, want);
            gpt_buffer_to(ctx, got, d_k, n * 4);
            gpt_buffer_to(ctx, got_v, d_v, n * 4);
            gpt_buffer_to(ctx, got_l, d_l, n * 8);
            assert_memory_equal(got, want_k, want * 4);
            assert_memory_equal(got_v, want_v, want * 4);
            assert_memory_equal(got_l, want_l, want * 8);
            assert_memory_equal(got_v + want, vals + want, (n - want) * 4);
            gpt_buffer_free(ctx, d_k);
            gpt_buffer_free(ctx, d_v);
            gpt_buffer_free(ctx, d_l);
        }

        want = tiny_runs(UNIQUE_BY_KEY, GP_INT32, GP_INT32, GP_OP_SUM, keys, vals, n, want_k, want_v, NULL);
        d_k = gpt_buffer_from(ctx, keys, n * 4);
        d_v = gpt_buffer_from(ctx, vals, n * 4);
        GPT_OK(ctx, gp_unique_by_key(ctx, GP_INT32, GP_INT32, d_k, d_v, n, d_k, d_v, &count));
        assert_int_equal(count, want);
        gpt_buffer_to(ctx, got, d_k, n * 4);
        gpt_buffer_to(ctx, got_v, d_v, n * 4);
        assert_memory_equal(got, want_k, want * 4);
        assert_memory_equal(got_v, want_v, want * 4);
        gpt_buffer_free(ctx, d_k);
        gpt_buffer_free(ctx, d_v);
    }
    free(keys);
    free(vals);
    free(want_k);
    free(want_v);
    free(got);
    free(got_v);
    free(want_l);
    free(got_l);
}

static void runs_in_place_exact(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    check_in_place_exact(ctx, 4096 * 5 + 3);
    /* about a thousand tiles: later tiles read while earlier ones write */
    check_in_place_exact(ctx, 4096 * 1000 + 3);
}

/* Buffers one element past a 16-byte boundary: the CUDA kernels load full
 * tiles element by element there instead of 16 bytes at a time. */
static void check_misaligned(gp_context *ctx, int call, gp_dtype kd, gp_dtype vd, gp_op op, size_t n, int shape)
{
    const size_t ks = gp_dtype_size(kd), vs = gp_dtype_size(vd);
    char *keys = gpt_malloc((n + 1) * ks), *vals = gpt_malloc((n + 1) * vs);
    void *want_k = gpt_malloc(n * ks), *want_v = gpt_malloc(n * vs), *got_k = gpt_malloc(n * ks);
    void *got_v = gpt_malloc(n * vs);
    uint64_t *want_l = gpt_malloc(n * 8), *got_l = gpt_malloc(n * 8);
    const int wants_values = call == REDUCE_BY_KEY || call == UNIQUE_BY_KEY;
    const int wants_lengths = call == RLE || call == REDUCE_BY_KEY;
    char *d_k, *d_v, *d_ko, *d_vo;
    uint64_t *d_l;
    size_t want, count = 0;
    char what[120];
    snprintf(what, sizeof what, "%s keys %s values %s op %d, misaligned, %s, n=%zu [%s]", call_name(call),
             gpt_dtype_name(kd), gpt_dtype_name(vd), (int)op, shape_name(shape), n, gpt_backend_name(ctx));
    memset(keys, 0, ks);
    memset(vals, 0, vs);
    fill_keys(kd, keys + ks, n, shape);
    gpt_fill_random(vd, vals + vs, n, 0);
    want = tiny_runs(call, kd, vd, op, keys + ks, wants_values ? vals + vs : NULL, n, want_k, want_v,
                     wants_lengths ? want_l : NULL);
    d_k = gpt_buffer_from(ctx, keys, (n + 1) * ks);
    d_v = gpt_buffer_from(ctx, vals, (n + 1) * vs);
    d_ko = gpt_poisoned_buffer(ctx, (n + 1) * ks);
    d_vo = gpt_poisoned_buffer(ctx, (n + 1) * vs);
    d_l = gpt_poisoned_buffer(ctx, (n + 1) * 8);
    switch (call) {
    case REDUCE_BY_KEY:
        GPT_OK(ctx, gp_reduce_by_key(ctx, kd, vd, op, d_k + ks, d_v + vs, n, d_ko + ks, d_vo + vs, d_l + 1, &count));
        break;
    case UNIQUE: GPT_OK(ctx, gp_unique(ctx, kd, d_k + ks, n, d_ko + ks, &count)); break;
    case UNIQUE_BY_KEY:
        GPT_OK(ctx, gp_unique_by_key(ctx, kd, vd, d_k + ks, d_v + vs, n, d_ko + ks, d_vo + vs, &count));
        break;
    default: GPT_OK(ctx, gp_run_length_encode(ctx, kd, d_k + ks, n, d_ko + ks, d_l + 1, &count)); break;
    }
    if (count != want) fail_msg("%s: count %zu, want %zu", what, count, want);
    gpt_buffer_to(ctx, got_k, d_ko + ks, n * ks);
    gpt_buffer_to(ctx, got_v, d_vo + vs, n * vs);
    gpt_buffer_to(ctx, got_l, d_l + 1, n * 8);
    if (memcmp(got_k, want_k, count * ks)) fail_msg("%s: keys differ", what);
    gpt_expect_poison(got_k, count * ks, n * ks, what);
    if (wants_values) {
        size_t i;
        for (i = 0; i < count && same_value(vd, (char *)got_v + i * vs, (char *)want_v + i * vs); i++) {}
        if (i < count) fail_msg("%s: values differ first at run %zu", what, i);
    }
    if (wants_lengths && memcmp(got_l, want_l, count * 8)) fail_msg("%s: lengths differ", what);
    gpt_buffer_free(ctx, d_k);
    gpt_buffer_free(ctx, d_v);
    gpt_buffer_free(ctx, d_ko);
    gpt_buffer_free(ctx, d_vo);
    gpt_buffer_free(ctx, d_l);
    free(keys);
    free(vals);
    free(want_k);
    free(want_v);
    free(got_k);
    free(got_v);
    free(want_l);
    free(got_l);
}

static void runs_misaligned(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const int shapes[] = {DISTINCT, RUNS_1_TO_10};
    size_t si;
    for (si = 0; si < COUNT(shapes); si++) {
        const int sh = shapes[si];
        check_misaligned(ctx, UNIQUE, GP_INT32, GP_INT32, GP_OP_SUM, 4096 * 3 + 7, sh);
        check_misaligned(ctx, RLE, GP_UINT64, GP_INT32, GP_OP_SUM, 2048 * 3 + 7, sh);
        check_misaligned(ctx, UNIQUE_BY_KEY, GP_INT32, GP_INT64, GP_OP_SUM, 4096 * 3 + 7, sh);
        check_misaligned(ctx, REDUCE_BY_KEY, GP_INT32, GP_INT32, GP_OP_SUM, 4096 * 3 + 7, sh);
        check_misaligned(ctx, REDUCE_BY_KEY, GP_FLOAT32, GP_UINT64, GP_OP_MAX, 4096 * 3 + 7, sh);
        check_misaligned(ctx, REDUCE_BY_KEY, GP_INT64, GP_FLOAT32, GP_OP_MIN, 2048 * 3 + 7, sh);
    }
}

/* ---- (5) bad arguments: a status, a message, outputs untouched
 * ---------------------- */
static void runs_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    char *a = gpt_poisoned_buffer(ctx, n * 8 * 4 + 8); /* + 8: vo + 4 below stays inside */
    char *k = a, *v = a + n * 8, *ko = a + 2 * n * 8, *vo = a + 3 * n * 8;
    uint64_t *l = gpt_poisoned_buffer(ctx, n * 8);
    size_t count = 777;
#define BAD(status, call)                                                            \
    do {                                                                             \
        assert_int_equal((call), (status));                                         \
        assert_true(strlen(gp_context_last_error(ctx)) > 0);                        \
    } while (0)
    assert_int_equal(gp_unique(NULL, GP_INT32, k, n, ko, &count), GP_ERROR_INVALID_ARGUMENT);
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, (gp_dtype)0, k, n, ko, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, (gp_dtype)7, k, n, ko, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, GP_INT32, NULL, n, ko, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, GP_INT32, k, n, NULL, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, GP_INT32, k, n, ko, NULL));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, GP_INT32, k, 0, ko, NULL));
    BAD(GP_ERROR_SIZE_OVERFLOW, gp_unique(ctx, GP_INT32, k, SIZE_MAX, ko, &count));
    BAD(GP_ERROR_OVERLAP, gp_unique(ctx, GP_INT32, k, n, k + 4, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique(ctx, GP_INT32, k + 2, n, ko, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_reduce_by_key(ctx, GP_INT32, (gp_dtype)99, GP_OP_SUM, k, v, n, ko, vo, l, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, (gp_op)4, k, v, n, ko, vo, l, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, NULL, n, ko, vo, l, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, NULL, l, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT,
        gp_reduce_by_key(ctx, GP_INT32, GP_INT64, GP_OP_SUM, k, v, n, ko, vo + 4, l, &count));
    BAD(GP_ERROR_SIZE_OVERFLOW,
        gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, SIZE_MAX / 8 + 1, ko, vo, l, &count));
    /* outputs against inputs and each other: only exact in place is allowed */
    BAD(GP_ERROR_OVERLAP, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, v, vo, l, &count));
    BAD(GP_ERROR_OVERLAP, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, ko, l, &count));
    BAD(GP_ERROR_OVERLAP, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, k, l, &count));
    BAD(GP_ERROR_OVERLAP, gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, v + 4, l, &count));
    BAD(GP_ERROR_OVERLAP,
        gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, vo, (uint64_t *)(vo + 8), &count));
    BAD(GP_ERROR_OVERLAP,
        gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, k, v, n, ko, vo, (uint64_t *)k, &count));
    BAD(GP_ERROR_OVERLAP, gp_unique_by_key(ctx, GP_INT64, GP_INT64, k, v, n, v, k, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_unique_by_key(ctx, GP_INT64, (gp_dtype)-1, k, v, n, ko, vo, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_run_length_encode(ctx, GP_INT32, k, n, ko, NULL, &count));
    BAD(GP_ERROR_INVALID_ARGUMENT, gp_run_length_encode(ctx, GP_INT32, k, n, ko, (uint64_t *)(vo + 4), &count));
    BAD(GP_ERROR_OVERLAP, gp_run_length_encode(ctx, GP_INT32, k, n, ko, (uint64_t *)ko, &count));
    BAD(GP_ERROR_OVERLAP, gp_run_length_encode(ctx, GP_INT32, k, n, ko, (uint64_t *)k, &count));
    if (gpt_on_cuda(ctx)) {
        int32_t host[64];
        gpt_poison(host, sizeof host);
        BAD(GP_ERROR_WRONG_MEMORY, gp_unique(ctx, GP_INT32, host, n, ko, &count));
        BAD(GP_ERROR_WRONG_MEMORY, gp_unique(ctx, GP_INT32, k, n, host, &count));
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
#undef BAD
    assert_int_equal(count, 777);
    gpt_expect_untouched(ctx, a, n * 8 * 4 + 8);
    gpt_expect_untouched(ctx, l, n * 8);

    /* n == 0: a count of 0, any pointers */
    GPT_OK(ctx, gp_unique(ctx, GP_INT32, NULL, 0, NULL, &count));
    assert_int_equal(count, 0);
    count = 5;
    GPT_OK(ctx, gp_reduce_by_key(ctx, GP_FLOAT64, GP_FLOAT32, GP_OP_MAX, NULL, NULL, 0, NULL, NULL, NULL, &count));
    assert_int_equal(count, 0);
    count = 5;
    GPT_OK(ctx, gp_run_length_encode(ctx, GP_UINT64, NULL, 0, NULL, NULL, &count));
    assert_int_equal(count, 0);
    gpt_buffer_free(ctx, a);
    gpt_buffer_free(ctx, l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_reference_matches_tiny),
        GPT_TEST_BOTH(runs_match_reference),
        GPT_TEST_BOTH(runs_of_a_million),
        GPT_TEST_BOTH(runs_without_lengths),
        GPT_TEST_BOTH(runs_float_keys),
        GPT_TEST_BOTH(runs_float_values),
        GPT_TEST_BOTH(runs_in_place),
        GPT_TEST_BOTH(runs_in_place_exact),
        GPT_TEST_BOTH(runs_misaligned),
        GPT_TEST_BOTH(runs_bad_arguments),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("runs", tests, NULL, NULL);
}
