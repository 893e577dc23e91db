/* SPDX-License-Identifier: BSD-3-Clause */
/* test_argminmax.c - gp_argmin / gp_argmax: the CPU reference against a
 * brute force, each backend against the reference for every dtype at every
 * test size, ties (lowest index), NaN skipped, -0.0 == +0.0, no candidate
 * (index n), bad arguments with outputs untouched. */
#include "test_util.h"
#include "test_values.h"

#include "segmented_internal.h"

#include <gpuprim/argminmax.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};

/* Brute force: the first index whose value no other non-NaN value beats. */
static uint64_t brute(gp_dtype d, int is_max, const void *in, size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++) {
        const val x = load(d, in, i);
        int best = !(is_float(d) && isnan(x.f));
        for (j = 0; j < n && best; j++) {
            const val y = load(d, in, j);
            const val w = combine(d, is_max ? GP_OP_MAX : GP_OP_MIN, x, y); /* y wins only when strictly better */
            if (memcmp(&w, &x, sizeof w) || (j < i && !memcmp(&y, &x, sizeof y))) best = 0;
        }
        if (best) return i;
    }
    return n;
}

/* Few distinct values (ties), some NaN for floats. */
static void fill(gp_dtype d, void *p, size_t n, uint64_t range)
{
    size_t i;
    gpt_fill_random(d, p, n, range);
    if (is_float(d))
        for (i = 0; i < n; i++)
            if (gpt_rand64() % 5 == 0) {
                if (d == GP_FLOAT32) ((float *)p)[i] = NAN;
                else ((double *)p)[i] = NAN;
            }
}

static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 7, 100, 777};
    size_t di, si;
    int mx;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (mx = 0; mx < 2; mx++) {
                const gp_dtype d = dtypes[di];
                const size_t n = sizes[si];
                void *in = gpt_malloc(n * 8 + 8);
                unsigned char v[16];
                uint64_t idx;
                fill(d, in, n, si % 2 ? 5 : 0);
                assert_int_equal(gpi_cpu_argminmax(d, mx, in, n, v, &idx), GP_SUCCESS);
                assert_int_equal(idx, brute(d, mx, in, n));
                if (idx < n) assert_memory_equal(v, (char *)in + idx * gp_dtype_size(d), gp_dtype_size(d));
                free(in);
            }
}

static void matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, si;
    int mx, r;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++)
            for (mx = 0; mx < 2; mx++)
                for (r = 0; r < 2; r++) {
                    const gp_dtype d = dtypes[di];
                    const size_t n = sizes[si], es = gp_dtype_size(d);
                    void *host = gpt_malloc(n * es + 1), *in;
                    unsigned char want[16], got[16];
                    uint64_t wi, gi = 12345;
                    char what[96];
                    fill(d, host, n, r ? 3 : 0);
                    assert_int_equal(gpi_cpu_argminmax(d, mx, host, n, want, &wi), GP_SUCCESS);
                    in = gpt_buffer_from(ctx, host, n * es);
                    gpt_poison(got, 16);
                    GPT_OK(ctx, (mx ? gp_argmax : gp_argmin)(ctx, d, in, n, got, &gi));
                    snprintf(what, sizeof what, "arg%s %s n=%zu [%s]", mx ? "max" : "min", gpt_dtype_name(d), n,
                             gpt_backend_name(ctx));
                    if (gi != wi) fail_msg("%s: index %llu, want %llu", what, (unsigned long long)gi,
                                           (unsigned long long)wi);
                    expect_equal(want, got, d, 1, what);
                    gpt_expect_poison(got, es, 16, what);
                    gpt_buffer_free(ctx, in);
                    free(host);
                }
}

/* Starts off the 16-byte boundary (the device's unaligned head), sizes
 * around its vector and grid steps, and a unique extreme planted at the
 * first element, the last, the middle (tied with the last), or the fifth,
 * among many ties. */
static void offsets_and_planted_extremes(void **state)
{
    static const size_t sizes[] = {1, 3, 4, 5, 17, 1023, 4097, 2162687, 2162689, 3000017};
    gp_context *ctx = gpt_ctx(state);
    size_t di, si, off, pi;
    int mx;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (off = 0; off < 4; off++)
                for (pi = 0; pi < 4; pi++)
                    for (mx = 0; mx < 2; mx++) {
                        const gp_dtype d = dtypes[di];
                        const size_t n = sizes[si], es = gp_dtype_size(d);
                        if (n > 1000000 && (off > 1 || pi != 2)) continue; /* big: fewer shapes */
                        const size_t plant[4] = {0, n - 1, n / 2, n > 4 ? 4 : 0};
                        unsigned char *host = gpt_malloc((n + off) * es), *buf;
                        unsigned char want[16], got[16], ext[8];
                        uint64_t wi, gi = 12345;
                        char what[128];
                        fill(d, host + off * es, n, 3);
                        /* the other direction's identity cannot be beaten: a unique extreme */
                        if (pi < 3 || n > 4) {
                            switch (d) {
                            case GP_INT32: *(int32_t *)ext = mx ? INT32_MAX : INT32_MIN; break;
                            case GP_UINT32: *(uint32_t *)ext = mx ? UINT32_MAX : 0; break;
                            case GP_INT64: *(int64_t *)ext = mx ? INT64_MAX : INT64_MIN; break;
                            case GP_UINT64: *(uint64_t *)ext = mx ? UINT64_MAX : 0; break;
                            case GP_FLOAT32: *(float *)ext = mx ? 1e30f : -1e30f; break;
                            default: *(double *)ext = mx ? 1e300 : -1e300; break;
                            }
                            memcpy(host + (off + plant[pi]) * es, ext, es);
                            if (pi == 2) memcpy(host + (off + n - 1) * es, ext, es); /* a later tie loses */
                        }
                        assert_int_equal(gpi_cpu_argminmax(d, mx, host + off * es, n, want, &wi), GP_SUCCESS);
                        buf = gpt_buffer_from(ctx, host, (n + off) * es);
                        gpt_poison(got, 16);
                        GPT_OK(ctx, (mx ? gp_argmax : gp_argmin)(ctx, d, buf + off * es, n, got, &gi));
                        snprintf(what, sizeof what, "arg%s %s n=%zu off=%zu plant=%zu [%s]", mx ? "max" : "min",
                                 gpt_dtype_name(d), n, off, pi, gpt_backend_name(ctx));
                        if (gi != wi) fail_msg("%s: index %llu, want %llu", what, (unsigned long long)gi,
                                               (unsigned long long)wi);
                        expect_equal(want, got, d, 1, what);
                        gpt_buffer_free(ctx, buf);
                        free(host);
                    }
}

static void special_values(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const float x[6] = {NAN, 0.0f, -0.0f, 3.0f, NAN, 3.0f};
    const double nans[3] = {NAN, NAN, NAN};
    float v;
    double dv;
    uint64_t i;
    void *in = gpt_buffer_from(ctx, x, sizeof x), *dn = gpt_buffer_from(ctx, nans, sizeof nans);
    GPT_OK(ctx, gp_argmin(ctx, GP_FLOAT32, in, 6, &v, &i));
    assert_true(i == 1 && v == 0.0f && !signbit(v)); /* +0.0 first: -0.0 does not beat it */
    GPT_OK(ctx, gp_argmax(ctx, GP_FLOAT32, in, 6, NULL, &i));
    assert_true(i == 3);
    GPT_OK(ctx, gp_argmin(ctx, GP_FLOAT64, dn, 3, &dv, &i));
    assert_true(i == 3 && dv == INFINITY);
    GPT_OK(ctx, gp_argmax(ctx, GP_FLOAT64, dn, 3, &dv, &i));
    assert_true(i == 3 && dv == -INFINITY);
    GPT_OK(ctx, gp_argmax(ctx, GP_FLOAT64, dn, 0, &dv, &i));
    assert_true(i == 0 && dv == -INFINITY);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, dn);
}

static void bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t x[4] = {3, 1, 2, 1};
    unsigned char v[8];
    uint64_t i = 77;
    void *in = gpt_buffer_from(ctx, x, sizeof x);
    gpt_poison(v, 8);
    assert_int_equal(gp_argmin(NULL, GP_INT32, in, 4, v, &i), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_argmin(ctx, (gp_dtype)0, in, 4, v, &i), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_argmin(ctx, GP_INT32, NULL, 4, v, &i), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_argmax(ctx, GP_INT32, in, 4, v, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_argmax(ctx, GP_INT32, in, SIZE_MAX / 2, v, &i), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_argmax(ctx, GP_INT32, (char *)in + 1, 2, v, &i), GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) assert_int_equal(gp_argmax(ctx, GP_INT32, x, 4, v, &i), GP_ERROR_WRONG_MEMORY);
    gpt_expect_poison(v, 0, 8, "gp_argmin with bad arguments");
    assert_true(i == 77);
    GPT_OK(ctx, gp_argmin(ctx, GP_INT32, in, 4, v, &i));
    assert_true(i == 1);
    gpt_buffer_free(ctx, in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(matches_reference),
        GPT_TEST_BOTH(offsets_and_planted_extremes),
        GPT_TEST_BOTH(special_values),
        GPT_TEST_BOTH(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
