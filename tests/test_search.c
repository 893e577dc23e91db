/* SPDX-License-Identifier: BSD-3-Clause */
/* test_search.c - gp_lower_bound / gp_upper_bound: (1) the CPU reference
 * against counting (lower bound = how many keys come before the needle,
 * upper = how many are not after it, by an independent comparator), every
 * dtype, both orders, awkward sizes, duplicates, special floats, needles
 * equal to keys and outside the keys' range; (2) each backend against the
 * reference, poisoned outputs, inputs unchanged, the large sizes on CUDA;
 * (3) unsorted keys give positions in [0, n]; (4) bad arguments leave the
 * outputs untouched. */
#include "keys_util.h"

#include "search_internal.h" /* gpi_cpu_search: the reference */

#include <stdio.h>

/* Needles: keys of the array, random and special values, and each dtype's
 * extremes (below the first and above the last key in either order). */
static void fill_needles(gp_dtype d, const void *keys, size_t n, void *needles, size_t m)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    for (i = 0; i < m; i++) {
        const uint64_t r = gpt_rand64();
        switch (r % 4) {
        case 0:
            if (n) {
                memcpy((char *)needles + i * es, (const char *)keys + (r >> 8) % n * es, es);
                break;
            }
            /* fall through */
        case 1: gpt_fill_random(d, (char *)needles + i * es, 1, (r >> 8) & 1 ? 5 : 0); break;
        default: gpk_special(d, needles, i, gpt_rand64()); break;
        }
    }
}

/* The naive reference: count the keys before (lower) or not after (upper). */
static void count_bounds(gp_dtype d, int desc, int upper, const void *keys, size_t n, const void *needles, size_t m,
                         uint64_t *out)
{
    size_t i, j;
    for (i = 0; i < m; i++) {
        uint64_t c = 0;
        for (j = 0; j < n; j++) {
            const int cmp = gpk_cmp(d, desc, keys, j, needles, i);
            c += upper ? cmp <= 0 : cmp < 0;
        }
        out[i] = c;
    }
}

static void reference_matches_counting(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1024, 1025, 3001};
    size_t di, si, i;
    int dist, desc, upper;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (dist = 0; dist < GPK_NDISTS; dist++)
                for (desc = 0; desc < 2; desc++) {
                    const gp_dtype d = gpk_dtypes[di];
                    const size_t n = sizes[si], m = 97, es = gp_dtype_size(d);
                    void *keys = gpt_malloc(n * es), *needles = gpt_malloc(m * es);
                    uint64_t *want = gpt_malloc(m * 8), *got = gpt_malloc(m * 8);
                    gpk_fill(d, keys, n, dist);
                    gpk_sort(d, desc, keys, n);
                    fill_needles(d, keys, n, needles, m);
                    for (upper = 0; upper < 2; upper++) {
                        gpi_search_args a = {d, desc, upper, keys, n, needles, m, got};
                        count_bounds(d, desc, upper, keys, n, needles, m, want);
                        gpt_poison(got, m * 8);
                        assert_int_equal(gpi_cpu_search(&a), GP_SUCCESS);
                        for (i = 0; i < m; i++)
                            if (got[i] != want[i])
                                fail_msg("reference %s bound %s %s %s n=%zu needle %zu: %llu, counted %llu",
                                         upper ? "upper" : "lower", gpt_dtype_name(d), gpk_dist_name(dist),
                                         desc ? "desc" : "asc", n, i, (unsigned long long)got[i],
                                         (unsigned long long)want[i]);
                    }
                    free(keys), free(needles), free(want), free(got);
                }
}

/* -0.0 and +0.0 are distinct keys; NaNs sit past +inf. */
static void reference_zeros_and_nans(void **state)
{
    const double keys[] = {-INFINITY, -1.0, -0.0, -0.0, 0.0, 1.0, INFINITY, NAN, -NAN};
    const double needles[] = {-0.0, 0.0, NAN, -NAN, INFINITY, -INFINITY};
    const uint64_t lower[] = {2, 4, 7, 8, 6, 0}, upper[] = {4, 5, 8, 9, 7, 1};
    uint64_t got[6];
    gpi_search_args a = {GP_FLOAT64, 0, 0, keys, 9, needles, 6, got};
    (void)state;
    assert_int_equal(gpi_cpu_search(&a), GP_SUCCESS);
    assert_memory_equal(got, lower, sizeof lower);
    a.upper = 1;
    assert_int_equal(gpi_cpu_search(&a), GP_SUCCESS);
    assert_memory_equal(got, upper, sizeof upper);
}

static void run_search(gp_context *ctx, gp_dtype d, size_t n, size_t m, int dist, int desc, int upper)
{
    const size_t es = gp_dtype_size(d);
    void *keys_h = gpt_malloc(n * es), *needles_h = gpt_malloc(m * es);
    uint64_t *want = gpt_malloc(m * 8), *got = gpt_malloc(m * 8);
    void *keys, *needles, *out;
    gpi_search_args a = {d, desc, upper, keys_h, n, needles_h, m, want};
    const gp_sort_order order = desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
    char what[128];
    gpk_fill(d, keys_h, n, dist);
    if (gpt_on_cuda(ctx) && n > 100000) { /* the library's sort: the comparator's is slow at these sizes */
        void *k = gpt_buffer_from(ctx, keys_h, n * es);
        GPT_OK(ctx, gp_sort_keys(ctx, d, order, k, k, n, 0, (int)(8 * es)));
        gpt_buffer_to(ctx, keys_h, k, n * es);
        gpt_buffer_free(ctx, k);
    } else {
        gpk_sort(d, desc, keys_h, n);
    }
    fill_needles(d, keys_h, n, needles_h, m);
    if (m) assert_int_equal(gpi_cpu_search(&a), GP_SUCCESS);
    keys = gpt_buffer_from(ctx, keys_h, n * es);
    needles = gpt_buffer_from(ctx, needles_h, m * es);
    out = gpt_poisoned_buffer(ctx, m * 8 + 64);
    snprintf(what, sizeof what, "%s bound %s %s %s n=%zu m=%zu [%s]", upper ? "upper" : "lower", gpt_dtype_name(d),
             gpk_dist_name(dist), desc ? "desc" : "asc", n, m, gpt_backend_name(ctx));
    if (upper) GPT_OK(ctx, gp_upper_bound(ctx, d, order, keys, n, needles, m, out));
    else GPT_OK(ctx, gp_lower_bound(ctx, d, order, keys, n, needles, m, out));
    gpt_buffer_to(ctx, got, out, m * 8);
    if (memcmp(got, want, m * 8)) fail_msg("%s: positions differ from the reference", what);
    {
        unsigned char tail[64];
        gpt_buffer_to(ctx, tail, (char *)out + m * 8, 64);
        gpt_expect_poison(tail, 0, 64, what);
    }
    free(got);
    got = gpt_malloc(n * es + 1);
    gpt_buffer_to(ctx, got, keys, n * es);
    if (memcmp(got, keys_h, n * es)) fail_msg("%s: keys were changed", what);
    gpt_buffer_free(ctx, keys), gpt_buffer_free(ctx, needles), gpt_buffer_free(ctx, out);
    free(keys_h), free(needles_h), free(want), free(got);
}

static void search_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    static const size_t needle_counts[] = {1, 31, 1025, 5000};
    size_t di, si, mi;
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            const gp_dtype d = gpk_dtypes[di];
            const size_t n = sizes[si];
            int dist;
            if (n > 4097 && !gpt_on_cuda(ctx)) continue; /* the CPU backend is the reference's own code */
            if (n > 4097) {
                run_search(ctx, d, n, 100003, GPK_RANDOM, 0, 0);
                run_search(ctx, d, n, 4099, GPK_FEW_DISTINCT, 1, 1);
                run_search(ctx, d, n, 4099, GPK_SPECIAL, 0, 1);
                continue;
            }
            for (dist = 0; dist < GPK_NDISTS; dist++)
                for (mi = 0; mi < COUNT(needle_counts); mi++)
                    run_search(ctx, d, n, needle_counts[mi], dist, (int)(mi & 1), (int)((mi >> 1) ^ (dist & 1)));
            run_search(ctx, d, n, 0, GPK_RANDOM, 0, 0);
        }
}

/* CUDA, keys of 64 MiB and more with many needles: the search through an
 * index of the keys' lines (a partial last line, both bounds and orders,
 * duplicates, specials, 8-byte keys). */
static void search_indexed_path(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n4 = ((size_t)1 << 24) + 5, n8 = ((size_t)1 << 23) + 13;
    if (!gpt_on_cuda(ctx)) skip();
    run_search(ctx, GP_UINT32, n4, ((size_t)1 << 17) + 3, GPK_RANDOM, 0, 0);
    run_search(ctx, GP_UINT32, n4, ((size_t)1 << 18) + 1, GPK_FEW_DISTINCT, 1, 1);
    run_search(ctx, GP_FLOAT32, n4, ((size_t)1 << 17) + 7, GPK_SPECIAL, 1, 0);
    run_search(ctx, GP_INT64, n8, ((size_t)1 << 17) + 9, GPK_RANDOM, 1, 1);
    run_search(ctx, GP_FLOAT64, n8, ((size_t)1 << 17) + 11, GPK_FEW_DISTINCT, 0, 0);
}

/* Unsorted keys: any position in [0, n], nothing written past the output. */
static void search_unsorted_stays_in_range(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {1, 33, 1025, 100003, ((size_t)1 << 24) + 3};
    size_t si, i;
    for (si = 0; si < COUNT(sizes); si++) {
        const size_t n = sizes[si], m = n > 1000000 ? 200003 : 3001; /* the largest: the indexed path on CUDA */
        if (n > 1000000 && !gpt_on_cuda(ctx)) continue;
        uint32_t *keys_h = gpt_malloc(n * 4), *needles_h = gpt_malloc(m * 4);
        uint64_t *got = gpt_malloc(m * 8);
        void *keys, *needles, *out;
        gpt_fill_random(GP_UINT32, keys_h, n, 0);
        gpt_fill_random(GP_UINT32, needles_h, m, 0);
        keys = gpt_buffer_from(ctx, keys_h, n * 4);
        needles = gpt_buffer_from(ctx, needles_h, m * 4);
        out = gpt_poisoned_buffer(ctx, m * 8);
        GPT_OK(ctx, gp_lower_bound(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, n, needles, m, out));
        gpt_buffer_to(ctx, got, out, m * 8);
        for (i = 0; i < m; i++) assert_true(got[i] <= n);
        GPT_OK(ctx, gp_upper_bound(ctx, GP_UINT32, GP_SORT_DESCENDING, keys, n, needles, m, out));
        gpt_buffer_to(ctx, got, out, m * 8);
        for (i = 0; i < m; i++) assert_true(got[i] <= n);
        gpt_buffer_free(ctx, keys), gpt_buffer_free(ctx, needles), gpt_buffer_free(ctx, out);
        free(keys_h), free(needles_h), free(got);
    }
}

static void search_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64, m = 16;
    char *k = gpt_poisoned_buffer(ctx, 4096), *o = gpt_poisoned_buffer(ctx, 1024);
    uint64_t *out = (uint64_t *)o;
    const gp_sort_order up = GP_SORT_ASCENDING;

    assert_int_equal(gp_lower_bound(NULL, GP_UINT32, up, k, n, k + 512, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, (gp_dtype)0, up, k, n, k + 512, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_lower_bound(ctx, (gp_dtype)7, up, k, n, k + 512, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_upper_bound(ctx, GP_UINT32, (gp_sort_order)0, k, n, k + 512, m, out),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_upper_bound(ctx, GP_UINT32, (gp_sort_order)3, k, n, k + 512, m, out),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, NULL, n, k + 512, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, NULL, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, k + 512, m, NULL), GP_ERROR_INVALID_ARGUMENT);
    /* overflow of the keys' or the needles' byte counts */
    assert_int_equal(gp_lower_bound(ctx, GP_UINT64, up, k, SIZE_MAX / 4, k + 512, m, out), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, k + 512, SIZE_MAX / 4, out), GP_ERROR_SIZE_OVERFLOW);
    /* positions_out over the keys or the needles; misaligned buffers */
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, k + 512, m, (uint64_t *)(k + 128)), GP_ERROR_OVERLAP);
    assert_int_equal(gp_upper_bound(ctx, GP_UINT32, up, k, n, k + 512, m, (uint64_t *)(k + 520)), GP_ERROR_OVERLAP);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k + 2, n, k + 512, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT64, up, k, n, k + 516, m, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, k + 512, m, (uint64_t *)(o + 4)),
                     GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, host, n, k + 512, m, out), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_lower_bound(ctx, GP_UINT32, up, k, n, k + 512, m, (uint64_t *)host),
                         GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, k, 4096);
    gpt_expect_untouched(ctx, o, 1024);
    /* m == 0 needs no buffers; n == 0 needs no keys and writes zeros */
    GPT_OK(ctx, gp_lower_bound(ctx, GP_FLOAT32, up, NULL, 5, NULL, 0, NULL));
    GPT_OK(ctx, gp_upper_bound(ctx, GP_INT64, GP_SORT_DESCENDING, NULL, 0, k, 4, out));
    {
        uint64_t got[4];
        gpt_buffer_to(ctx, got, out, sizeof got);
        assert_true(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0);
    }
    gpt_buffer_free(ctx, k);
    gpt_buffer_free(ctx, o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_counting),
        cmocka_unit_test(reference_zeros_and_nans),
        GPT_TEST_BOTH(search_matches_reference),
        GPT_TEST_BOTH(search_indexed_path),
        GPT_TEST_BOTH(search_unsorted_stays_in_range),
        GPT_TEST_BOTH(search_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
