/* SPDX-License-Identifier: BSD-3-Clause */
/* test_find_repeats.c - gp_find_repeats: the CPU reference against a brute
 * force, every dtype on each backend against the reference at every test
 * size (random data with frequent and with rare repeats, tiles at the
 * two-pass form's sparse/dense limit, all-equal, no repeats), the
 * CUDA two-pass form at every size and its own edges, the float
 * rules (NaN never repeats, -0.0 == +0.0), bad arguments. */
#include "test_util.h"

#include "internal.h" /* gpi_cpu_find_repeats: the reference */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};

/* SPARSE and TILE_EDGE aim at the CUDA two-pass form: tiles of 8192 4-byte
 * or 4096 8-byte elements keep up to 1/16 of their positions as a list
 * (sparse), more as a bitmap (dense). TILE_EDGE gives tile t exactly
 * items/16 - 1 + t % 3 repeats: one under the limit, at it, one over. */
enum pattern { SMALL_RANGE, SPARSE, TILE_EDGE, ALL_EQUAL, NO_REPEATS, NPATTERNS };
static const char *pattern_name(int p)
{
    static const char *names[] = {"small-range", "sparse", "tile-edge", "all-equal", "no-repeats"};
    return names[p];
}

static void fill(gp_dtype d, void *buf, size_t n, int pattern)
{
    size_t i;
    if (pattern == SMALL_RANGE || pattern == SPARSE) {
        /* values 0..2: about a third of neighbours repeat; 0..39: 2.5% */
        gpt_fill_random(d, buf, n, pattern == SMALL_RANGE ? 3 : 40);
        return;
    }
    for (i = 0; i < n; i++) {
        /* i itself is distinct for every test size in every type (below
         * 2^24, exact in a float); TILE_EDGE's runs are negative. */
        const size_t items = gp_dtype_size(d) == 4 ? 8192 : 4096, tile = i / items;
        const int run = pattern == TILE_EDGE && i % items <= items / 16 - 1 + tile % 3;
        uint64_t v = pattern == ALL_EQUAL ? 42 : run ? (uint64_t)-(int64_t)(tile + 1) : (uint64_t)i;
        switch (d) {
        case GP_INT32: ((int32_t *)buf)[i] = (int32_t)v - 5; break;
        case GP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
        case GP_INT64: ((int64_t *)buf)[i] = (int64_t)v - 5; break;
        case GP_UINT64: ((uint64_t *)buf)[i] = v; break;
        case GP_FLOAT32: ((float *)buf)[i] = (float)v * 0.5f; break;
        case GP_FLOAT64: ((double *)buf)[i] = (double)v * 0.25; break;
        }
    }
}

/* ---- (1) the reference against a brute force ----------------------------------
 * Written differently: values compared as doubles for floats (same ==
 * semantics) and as raw bytes for integers, walking pairs from the end. */
static int brute_equal(gp_dtype d, const void *in, size_t i)
{
    size_t es = gp_dtype_size(d);
    if (d == GP_FLOAT32) return (double)((const float *)in)[i] == (double)((const float *)in)[i + 1];
    if (d == GP_FLOAT64) return ((const double *)in)[i] == ((const double *)in)[i + 1];
    return memcmp((const char *)in + i * es, (const char *)in + (i + 1) * es, es) == 0;
}

static size_t brute_repeats(gp_dtype d, const void *in, size_t n, uint64_t *out)
{
    size_t count = 0, i, k;
    for (i = 1; i < n; i++) count += brute_equal(d, in, i - 1);
    k = count;
    for (i = n; i-- > 1;)
        if (brute_equal(d, in, i - 1)) out[--k] = i - 1;
    return count;
}

static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 100, 1000};
    size_t di, si;
    int p;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (p = 0; p < NPATTERNS; p++) {
                gp_dtype d = dtypes[di];
                size_t n = sizes[si], count = 12345, bcount;
                void *in = gpt_malloc(n * gp_dtype_size(d));
                uint64_t *ref = gpt_malloc(n * 8), *brute = gpt_malloc(n * 8);
                fill(d, in, n, p);
                gpt_poison(ref, n * 8);
                assert_int_equal(gpi_cpu_find_repeats(d, in, n, ref, &count, 1), GP_SUCCESS);
                bcount = brute_repeats(d, in, n, brute);
                assert_int_equal(count, bcount);
                if (count) assert_memory_equal(ref, brute, count * 8);
                gpt_expect_poison(ref, count * 8, n * 8, "reference find_repeats");
                if (p == ALL_EQUAL) assert_int_equal(count, n ? n - 1 : 0);
                if (p == NO_REPEATS) assert_int_equal(count, 0);
                free(in);
                free(ref);
                free(brute);
            }
}

/* ---- (2) the backend against the reference ---------------------------------------- */
static void run_case(gp_context *ctx, gp_dtype d, size_t n, int pattern, const void *given)
{
    size_t es = gp_dtype_size(d), ref_count = 0, count = (size_t)-7;
    void *host = gpt_malloc(n * es), *in, *out;
    uint64_t *ref = gpt_malloc(n * 8), *got = gpt_malloc(n * 8);
    char what[96];
    if (given) memcpy(host, given, n * es);
    else fill(d, host, n, pattern);
    gpi_cpu_find_repeats(d, host, n, ref, &ref_count, 1);
    in = gpt_buffer_from(ctx, host, n * es);
    out = gpt_poisoned_buffer(ctx, n * 8); /* one more than the n - 1 needed: also checked */
    GPT_OK(ctx, gp_find_repeats(ctx, d, in, n, out, &count));
    snprintf(what, sizeof what, "find_repeats %s, %s, n=%zu [%s]", gpt_dtype_name(d),
             given ? "special values" : pattern_name(pattern), n, gpt_backend_name(ctx));
    if (count != ref_count) fail_msg("%s: count %zu, want %zu", what, count, ref_count);
    gpt_buffer_to(ctx, got, out, n * 8);
    if (count && memcmp(ref, got, count * 8) != 0) fail_msg("%s: indices differ", what);
    gpt_expect_poison(got, count * 8, n * 8, what);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    free(host);
    free(ref);
    free(got);
}

static void find_repeats_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, si;
    int p;
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++)
            for (p = 0; p < NPATTERNS; p++) run_case(ctx, dtypes[di], sizes[si], p, NULL);
}

/* The two-pass form (CUDA; large inputs take it by themselves) at every
 * test size and at its own edges: a tile of 8192 4-byte / 4096 8-byte
 * elements +-1, a few tiles with a partial last one, and more tiles than an
 * H100/H200 runs warps of the expand kernel at once (so they loop), each
 * with sparse and dense tiles (the patterns above). Its context is made with
 * GP_CUDA_REPEATS=twopass unless the environment already names a
 * form; elsewhere the one-pass kernel answers and the case passes for it. */
static int setup_twopass(void **state)
{
    return gpt_setup_context_env(state, "GP_CUDA_REPEATS", "twopass");
}

static void find_repeats_two_pass_any_size(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t edges[] = {4095, 4096, 4097, 8191, 8192, 8193, 12289, 16385, 3 * 8192 + 1};
    const size_t *sizes = gpt_sizes();
    /* 5401 tiles: for int32 an H200 runs 132 SMs x 5 blocks x 8 warps = 5280 of them at once */
    const size_t big32 = gpt_quick() ? 0 : (size_t)8192 * 5400 + 7, big64 = (size_t)4096 * 5400 + 3;
    size_t di, si;
    int p;
    for (di = 0; di < COUNT(dtypes); di++) {
        for (si = 0; sizes[si] != SIZE_MAX; si++)
            for (p = 0; p < NPATTERNS; p++) run_case(ctx, dtypes[di], sizes[si], p, NULL);
        for (si = 0; si < COUNT(edges); si++)
            for (p = 0; p < NPATTERNS; p++) run_case(ctx, dtypes[di], edges[si], p, NULL);
    }
    if (big32)
        for (p = 0; p < NPATTERNS; p++)
            if (p != ALL_EQUAL && p != NO_REPEATS) {
                run_case(ctx, GP_INT32, big32, p, NULL);
                run_case(ctx, GP_FLOAT64, big64, p, NULL);
            }
}

/* NaN never repeats (not even the same NaN bits); -0.0 and +0.0 do. */
static void find_repeats_float_rules(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const double v[] = {NAN, NAN, 1.0, 1.0, -0.0, 0.0, 0.0, -0.0, INFINITY, INFINITY, -INFINITY, NAN, -INFINITY, 2.0};
    const uint64_t want[] = {2, 4, 5, 6, 8};
    const size_t n = COUNT(v);
    float f[COUNT(v)];
    size_t i;
    for (i = 0; i < n; i++) f[i] = (float)v[i];
    for (i = 0; i < 2; i++) {
        gp_dtype d = i ? GP_FLOAT64 : GP_FLOAT32;
        const void *host = i ? (const void *)v : (const void *)f;
        void *in = gpt_buffer_from(ctx, host, n * gp_dtype_size(d)), *out = gpt_poisoned_buffer(ctx, n * 8);
        uint64_t got[COUNT(v)];
        size_t count = 0, ref_count = 0;
        GPT_OK(ctx, gp_find_repeats(ctx, d, in, n, out, &count));
        assert_int_equal(count, COUNT(want));
        gpt_buffer_to(ctx, got, out, n * 8);
        assert_memory_equal(got, want, sizeof want);
        gpt_expect_poison(got, sizeof want, sizeof got, "float rules");
        /* the reference agrees */
        gpi_cpu_find_repeats(d, host, n, got, &ref_count, 1);
        assert_int_equal(ref_count, COUNT(want));
        assert_memory_equal(got, want, sizeof want);
        gpt_buffer_free(ctx, in);
        gpt_buffer_free(ctx, out);
    }
    /* The same rules at a size that spans many CUDA tiles. */
    {
        const size_t big = 70001;
        double *h = gpt_malloc(big * 8);
        for (i = 0; i < big; i++) h[i] = v[(i * 7 + i / 3) % n];
        run_case(ctx, GP_FLOAT64, big, 0, h);
        free(h);
    }
}

/* Signed and unsigned integers compare all bits: -1 and UINT32_MAX patterns. */
static void find_repeats_integer_bits(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int64_t a[] = {-1, -1, 0, INT64_MIN, INT64_MIN, INT64_MAX, (int64_t)0xFFFFFFFF, -1, 0x100000000LL, 0};
    run_case(ctx, GP_INT64, COUNT(a), 0, a);
    run_case(ctx, GP_UINT64, COUNT(a), 0, a);
}

/* ---- (3) bad arguments: a status, a message, and outputs untouched --------- */
static void find_repeats_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    void *in = gpt_poisoned_buffer(ctx, n * 8 * 2), *out = gpt_poisoned_buffer(ctx, n * 8);
    char *inb = (char *)in;
    uint64_t *o = (uint64_t *)out;
    size_t count = 777;

    assert_int_equal(gp_find_repeats(NULL, GP_INT32, in, n, o, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, (gp_dtype)0, in, n, o, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_find_repeats(ctx, (gp_dtype)99, in, n, o, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, NULL, n, o, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, n, NULL, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, n, o, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, 0, o, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, SIZE_MAX, o, &count), GP_ERROR_SIZE_OVERFLOW);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_find_repeats(ctx, GP_UINT32, in, SIZE_MAX / 8 + 2, o, &count), GP_ERROR_SIZE_OVERFLOW);
    /* indices_out may not overlap in, partially or exactly. */
    assert_int_equal(gp_find_repeats(ctx, GP_INT64, in, n, (uint64_t *)(inb + 8 * 8), &count), GP_ERROR_OVERLAP);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_find_repeats(ctx, GP_INT64, in, n, (uint64_t *)in, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, (char *)out + 8, n, o, &count), GP_ERROR_OVERLAP);
    /* Misaligned input or indices. */
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, inb + 2, n, o, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, n / 2, (uint64_t *)(inb + n * 8 + 4), &count),
                     GP_ERROR_INVALID_ARGUMENT);
    if (strcmp(gpt_backend_name(ctx), "cuda") == 0) {
        uint64_t host[64];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_find_repeats(ctx, GP_INT32, in, n, host, &count), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_find_repeats(ctx, GP_INT32, host, n, o, &count), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    assert_int_equal(count, 777);
    gpt_expect_untouched(ctx, out, n * 8);
    gpt_expect_untouched(ctx, in, n * 8 * 2);

    /* n == 0 and n == 1 have no pairs: count 0, no indices buffer needed. */
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, NULL, 0, NULL, &count));
    assert_int_equal(count, 0);
    count = 777;
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, in, 1, NULL, &count));
    assert_int_equal(count, 0);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(find_repeats_matches_reference),
        {"find_repeats_two_pass_any_size [cuda]", find_repeats_two_pass_any_size, setup_twopass,
         gpt_teardown_context, &gpt_cuda},
        GPT_TEST_BOTH(find_repeats_float_rules),
        GPT_TEST_BOTH(find_repeats_integer_bits),
        GPT_TEST_BOTH(find_repeats_bad_arguments),
    };
    return cmocka_run_group_tests_name("find_repeats", tests, NULL, NULL);
}
