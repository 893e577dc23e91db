/* SPDX-License-Identifier: BSD-3-Clause */
/* test_segmented_scan.c - gp_segmented_scan and gp_scan_by_key: the CPU
 * reference against a brute force, each backend against the reference for
 * every dtype x op x kind over many segment shapes, in place, outputs
 * outside the segments untouched, NaN keys and -0.0 keys, bad arguments. */
#include "test_util.h"
#include "test_values.h"

#include "segmented_internal.h"

#include <gpuprim/segmented.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

/* Offsets within [lo, n - lo) for n elements: shape 0 one segment, 1 all
 * empty, 2 segments of 0..512, 3 random cuts with gaps at both ends. */
static uint64_t *make_offsets(int shape, size_t n, size_t *segs)
{
    size_t s, k, cap = n + 8;
    uint64_t *off = gpt_malloc(cap * sizeof *off), at, t;
    const uint64_t lo = shape == 3 ? n / 7 : 0, hi = shape == 3 ? n - n / 9 : n;
    switch (shape) {
    case 0: *segs = 1, off[0] = 0, off[1] = n; break;
    case 1: *segs = 4; for (s = 0; s <= 4; s++) off[s] = n / 2; break;
    case 2:
        for (s = 0, at = 0; at < n; s++) off[s] = at, at += gpt_rand64() % 513;
        off[s] = n, *segs = s;
        break;
    default:
        *segs = 1 + gpt_rand64() % (n / 3 + 1);
        for (s = 0; s <= *segs; s++) off[s] = lo + (hi > lo ? gpt_rand64() % (hi - lo + 1) : 0);
        off[0] = lo, off[*segs] = hi;
        for (s = 1; s <= *segs; s++)
            for (k = s; k > 0 && off[k - 1] > off[k]; k--) t = off[k], off[k] = off[k - 1], off[k - 1] = t;
        break;
    }
    return off;
}

static void brute(gp_dtype d, gp_op op, int inclusive, const void *in, void *out, size_t b, size_t e)
{
    val acc = identity(d, op);
    size_t i;
    for (i = b; i < e; i++) {
        val next = combine(d, op, acc, load(d, in, i));
        store(d, out, i, inclusive ? next : acc);
        acc = next;
    }
}

static void reference_matches_brute_force(void **state)
{
    size_t di, oi, s, segs;
    int shape, inc;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (shape = 0; shape < 4; shape++)
                for (inc = 0; inc < 2; inc++) {
                    gp_dtype d = dtypes[di];
                    size_t n = 3000, es = gp_dtype_size(d);
                    uint64_t *off = make_offsets(shape, n, &segs);
                    void *in = gpt_malloc(n * es), *ref = gpt_malloc(n * es), *want = gpt_malloc(n * es);
                    gpi_segscan_args a = {d, ops[oi], inc, in, ref, n, off, segs, (gp_dtype)0, NULL};
                    fill_input(d, ops[oi], in, n);
                    gpt_poison(ref, n * es), gpt_poison(want, n * es);
                    assert_int_equal(gpi_cpu_segmented_scan(&a), GP_SUCCESS);
                    for (s = 0; s < segs; s++) brute(d, ops[oi], inc, in, want, off[s], off[s + 1]);
                    assert_memory_equal(want, ref, n * es);
                    free(in), free(ref), free(want), free(off);
                }
}

/* Keys drawn from a few values so runs form; the reference runs over the
 * same data segmented by the runs' offsets. */
static void run_case(gp_context *ctx, gp_dtype d, gp_op op, int inclusive, int shape, size_t n, int by_key,
                     int in_place)
{
    const size_t es = gp_dtype_size(d);
    size_t segs = 0, i;
    uint64_t *off = by_key ? NULL : make_offsets(shape, n, &segs);
    uint32_t *keys = gpt_malloc(n * 4 + 4);
    void *host = gpt_malloc(n * es + 1), *ref = gpt_malloc(n * es + 1), *got = gpt_malloc(n * es + 1);
    void *in, *out, *doff = NULL, *dkeys = NULL;
    gp_scan_kind kind = inclusive ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
    gpi_segscan_args a = {d, op, inclusive, host, ref, n, off, segs, GP_UINT32, keys};
    char what[128];
    fill_input(d, op, host, n);
    for (i = 0; i < n; i++) keys[i] = (uint32_t)(gpt_rand64() % (shape + 2));
    if (in_place) memcpy(ref, host, n * es);
    else gpt_poison(ref, n * es);
    assert_int_equal(gpi_cpu_segmented_scan(&a), GP_SUCCESS);
    in = gpt_buffer_from(ctx, host, n * es);
    out = in_place ? in : gpt_poisoned_buffer(ctx, n * es);
    if (by_key) {
        dkeys = gpt_buffer_from(ctx, keys, n * 4);
        GPT_OK(ctx, gp_scan_by_key(ctx, GP_UINT32, dkeys, d, op, kind, in, out, n));
    } else {
        doff = gpt_buffer_from(ctx, off, (segs + 1) * 8);
        GPT_OK(ctx, gp_segmented_scan(ctx, d, op, kind, in, out, n, doff, segs));
    }
    gpt_buffer_to(ctx, got, out, n * es);
    snprintf(what, sizeof what, "%s %s %s shape %d%s [%s]", by_key ? "scan by key" : "segmented scan", op_name(op),
             inclusive ? "inclusive" : "exclusive", shape, in_place ? " in place" : "", gpt_backend_name(ctx));
    expect_equal(ref, got, d, n, what);
    if (!in_place) gpt_buffer_free(ctx, out);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, dkeys);
    free(host), free(ref), free(got), free(keys), free(off);
}

static void segmented_scan_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    /* CUDA tiles: 2048 (float sums; 8-byte values) or 4096 (4-byte values) elements */
    static const size_t sizes[] = {1, 2, 33, 2047, 2048, 2049, 4095, 4096, 4097, 8193, 65537, 1000003, 5000011};
    size_t di, oi, si;
    int shape, inc;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (si = 0; si < COUNT(sizes); si++)
                for (shape = 0; shape < 4; shape++)
                    for (inc = 0; inc < 2; inc++) {
                        if ((gpt_quick() || !gpt_on_cuda(ctx)) && sizes[si] > 100000) continue;
                        run_case(ctx, dtypes[di], ops[oi], inc, shape, sizes[si], 0, (int)(si % 2));
                        if (shape < 2) run_case(ctx, dtypes[di], ops[oi], inc, shape, sizes[si], 1, (int)(si % 2));
                    }
}

/* By key with runs spanning many CUDA tiles, 8-byte and float keys, and
 * buffers one element past a 16-byte boundary (loads and stores element by
 * element), against the CPU reference. */
static void by_key_case(gp_context *ctx, gp_dtype kd, gp_dtype d, gp_op op, int inclusive, size_t n, size_t run,
                        int misaligned)
{
    const size_t es = gp_dtype_size(d), ks = gp_dtype_size(kd), skew = misaligned ? 1 : 0;
    char *keys = gpt_malloc((n + 1) * ks), *host = gpt_malloc((n + 1) * es);
    void *ref = gpt_malloc(n * es), *got = gpt_malloc(n * es);
    char *dk, *din, *dout;
    size_t i;
    char what[128];
    gpi_segscan_args a = {d, op, inclusive, NULL, ref, n, NULL, 0, kd, NULL};
    memset(keys, 0, ks);
    memset(host, 0, es);
    for (i = 0; i < n; i++) {
        const uint64_t u = i / run;
        char *k = keys + (i + 1) * ks;
        if (kd == GP_UINT64)
            memcpy(k, &u, 8);
        else if (kd == GP_FLOAT32) {
            const float f = (float)u;
            memcpy(k, &f, 4);
        } else {
            const uint32_t w = (uint32_t)u;
            memcpy(k, &w, 4);
        }
    }
    fill_input(d, op, host + es, n);
    a.in = host + skew * es; /* what the device reads (aligned: the last element unused) */
    a.keys = keys + skew * ks;
    gpt_poison(ref, n * es);
    assert_int_equal(gpi_cpu_segmented_scan(&a), GP_SUCCESS);
    dk = gpt_buffer_from(ctx, keys, (n + 1) * ks);
    din = gpt_buffer_from(ctx, host, (n + 1) * es);
    dout = gpt_poisoned_buffer(ctx, (n + 1) * es);
    GPT_OK(ctx, gp_scan_by_key(ctx, kd, dk + skew * ks, d, op, inclusive ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE,
                               din + skew * es, dout + skew * es, n));
    gpt_buffer_to(ctx, got, dout + skew * es, n * es);
    snprintf(what, sizeof what, "scan by key %s keys, %s, runs of %zu%s [%s]", gpt_dtype_name(kd), op_name(op), run,
             misaligned ? ", misaligned" : "", gpt_backend_name(ctx));
    expect_equal(ref, got, d, n, what);
    gpt_buffer_free(ctx, dk), gpt_buffer_free(ctx, din), gpt_buffer_free(ctx, dout);
    free(keys), free(host), free(ref), free(got);
}

static void scan_by_key_long_runs_wide_keys_misaligned(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = gpt_quick() ? 300007 : 1000003;
    int mis, inc;
    gpt_seed_once();
    for (mis = 0; mis < 2; mis++)
        for (inc = 0; inc < 2; inc++) {
            by_key_case(ctx, GP_UINT32, GP_INT32, GP_OP_SUM, inc, n, 100003, mis);
            by_key_case(ctx, GP_UINT64, GP_INT32, GP_OP_SUM, inc, n, 7, mis);
            by_key_case(ctx, GP_UINT32, GP_INT64, GP_OP_MAX, inc, n, 50001, mis);
            by_key_case(ctx, GP_FLOAT32, GP_FLOAT32, GP_OP_MIN, inc, n, 3, mis);
            by_key_case(ctx, GP_UINT64, GP_FLOAT64, GP_OP_MAX, inc, n, 9000, mis);
            by_key_case(ctx, GP_UINT32, GP_UINT32, GP_OP_MIN, inc, 4096 * 3 + 1, 1, mis);
            by_key_case(ctx, GP_UINT32, GP_UINT32, GP_OP_SUM, inc, 4096 * 3 - 1, 4096 * 3, mis);
        }
    /* More tiles than the GPU holds blocks at once: short runs, runs of
     * one, runs over several tiles, all equal. */
    for (inc = 0; inc < 2; inc++) {
        by_key_case(ctx, GP_UINT32, GP_INT32, GP_OP_SUM, inc, 4096 * 1500 + 3, 10, 0);
        by_key_case(ctx, GP_UINT32, GP_INT64, GP_OP_SUM, inc, 2048 * 3000 + 1, 1, 0);
        by_key_case(ctx, GP_UINT64, GP_UINT32, GP_OP_MIN, inc, 4096 * 1500, 9000, 0);
        by_key_case(ctx, GP_FLOAT32, GP_UINT32, GP_OP_MAX, inc, 4096 * 1500 - 1, 4096 * 1500, 0);
    }
}

/* NaN keys never equal (each its own segment); -0.0 equals +0.0. */
static void float_keys(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    float k[7] = {1.0f, 1.0f, NAN, NAN, -0.0f, 0.0f, 2.0f};
    int32_t x[7] = {1, 2, 3, 4, 5, 6, 7}, got[7];
    const int32_t want[7] = {1, 3, 3, 4, 5, 11, 7};
    void *dk = gpt_buffer_from(ctx, k, sizeof k), *dx = gpt_buffer_from(ctx, x, sizeof x);
    void *out = gpt_poisoned_buffer(ctx, sizeof got);
    GPT_OK(ctx, gp_scan_by_key(ctx, GP_FLOAT32, dk, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, dx, out, 7));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_memory_equal(want, got, sizeof got);
    gpt_buffer_free(ctx, dk), gpt_buffer_free(ctx, dx), gpt_buffer_free(ctx, out);
}

/* Segment heads take identity op x: a NaN first element is skipped by
 * min, and -0.0 + identity is +0.0 for sums, as in gp_scan. */
static void nan_and_zero_heads(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    float x[4] = {NAN, 3.0f, -0.0f, 1.0f}, got[4];
    uint64_t off[3] = {0, 2, 4};
    void *dx = gpt_buffer_from(ctx, x, sizeof x), *doff = gpt_buffer_from(ctx, off, sizeof off);
    void *out = gpt_poisoned_buffer(ctx, sizeof got);
    GPT_OK(ctx, gp_segmented_scan(ctx, GP_FLOAT32, GP_OP_MIN, GP_SCAN_INCLUSIVE, dx, out, 4, doff, 2));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_true(got[0] == INFINITY && got[1] == 3.0f && got[2] == 0.0f && got[3] == 0.0f);
    GPT_OK(ctx, gp_segmented_scan(ctx, GP_FLOAT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, dx, out, 4, doff, 2));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_true(isnan(got[0]) && isnan(got[1]) && got[2] == 0.0f && !signbit(got[2]) && got[3] == 1.0f);
    gpt_buffer_free(ctx, dx), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, out);
}

static void bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t off[3] = {0, 4, 8}, desc[3] = {0, 5, 4};
    void *in = gpt_buffer_from(ctx, x, sizeof x), *doff = gpt_buffer_from(ctx, off, sizeof off);
    void *ddesc = gpt_buffer_from(ctx, desc, sizeof desc), *out = gpt_poisoned_buffer(ctx, sizeof x);
    const gp_scan_kind inc = GP_SCAN_INCLUSIVE;
    assert_int_equal(gp_segmented_scan(NULL, GP_INT32, GP_OP_SUM, inc, in, out, 8, doff, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, (gp_dtype)9, GP_OP_SUM, inc, in, out, 8, doff, 2),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, (gp_op)0, inc, in, out, 8, doff, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, (gp_scan_kind)7, in, out, 8, doff, 2),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, out, 8, NULL, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, NULL, out, 8, doff, 2),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, (char *)in + 4, 4, doff, 1),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, out, 8, (uint64_t *)out, 1),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, out, SIZE_MAX / 2, doff, 2),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_scan_by_key(ctx, (gp_dtype)0, in, GP_INT32, GP_OP_SUM, inc, in, out, 8),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan_by_key(ctx, GP_INT32, NULL, GP_INT32, GP_OP_SUM, inc, in, out, 8),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan_by_key(ctx, GP_INT32, out, GP_INT32, GP_OP_SUM, inc, in, out, 8), GP_ERROR_OVERLAP);
    if (gpt_on_cuda(ctx))
        assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, x, out, 8, doff, 2), GP_ERROR_WRONG_MEMORY);
    else
        assert_int_equal(gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, out, 8, ddesc, 2),
                         GP_ERROR_INVALID_ARGUMENT);
    gpt_expect_untouched(ctx, out, sizeof x);
    GPT_OK(ctx, gp_segmented_scan(ctx, GP_INT32, GP_OP_SUM, inc, in, out, 8, doff, 0));
    GPT_OK(ctx, gp_scan_by_key(ctx, GP_INT32, in, GP_INT32, GP_OP_SUM, inc, in, out, 0));
    gpt_expect_untouched(ctx, out, sizeof x);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, ddesc), gpt_buffer_free(ctx, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(segmented_scan_matches_reference),
        GPT_TEST_BOTH(scan_by_key_long_runs_wide_keys_misaligned),
        GPT_TEST_BOTH(float_keys),
        GPT_TEST_BOTH(nan_and_zero_heads),
        GPT_TEST_BOTH(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
