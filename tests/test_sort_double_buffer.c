/* SPDX-License-Identifier: BSD-3-Clause */
/* gp_sort_keys_double_buffer and gp_sort_scratch_bytes (the sort on
 * caller-owned memory that libgpuprim-render bins with) against gp_sort_keys
 * on the same keys, and their argument checks; also the context calls for
 * layered libraries (gp_context_enter, gp_context_set_error,
 * gp_context_get_cpu_threads, gp_context_get_device). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

static const gp_dtype kTypes[] = {GP_UINT32, GP_INT32, GP_UINT64, GP_INT64};

static void matches_sort_keys(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {0, 1, 31, 33, 1000, 4097, 100003};
    size_t ti, si;
    int order;
    gpt_seed_once();
    for (ti = 0; ti < sizeof kTypes / sizeof kTypes[0]; ti++)
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (order = GP_SORT_ASCENDING; order <= GP_SORT_DESCENDING; order++) {
                const gp_dtype t = kTypes[ti];
                const size_t n = sizes[si], ks = gp_dtype_size(t), bytes = n * ks;
                const int bits = (int)(8 * ks), b0 = si % 2 ? 0 : 3, b1 = si % 3 ? bits : bits - 5;
                void *host = gpt_malloc(bytes + 1), *want = gpt_malloc(bytes + 1), *got = gpt_malloc(bytes + 1);
                void *keys, *alt, *expect, *scratch = NULL;
                size_t sb = 0;
                int in_alt = -1;
                gpt_fill_random(t, host, n, si % 2 ? 50 : 0); /* skewed (many equal) or full range */
                keys = gpt_buffer_from(ctx, host, bytes);
                expect = gpt_buffer_from(ctx, host, bytes);
                alt = gpt_poisoned_buffer(ctx, bytes);
                GPT_OK(ctx, gp_sort_scratch_bytes(ctx, t, n, b0, b1, &sb));
                if (gpt_on_cuda(ctx) && n > 1) assert_true(sb > 0);
                if (!gpt_on_cuda(ctx)) assert_int_equal(sb, 0);
                scratch = sb ? gpt_buffer(ctx, sb) : NULL;
                GPT_OK(ctx, gp_sort_keys_double_buffer(ctx, t, (gp_sort_order)order, keys, alt, n, b0, b1, scratch,
                                                       sb, &in_alt));
                assert_true(in_alt == 0 || in_alt == 1);
                GPT_OK(ctx, gp_sort_keys(ctx, t, (gp_sort_order)order, expect, expect, n, b0, b1));
                gpt_buffer_to(ctx, want, expect, bytes);
                gpt_buffer_to(ctx, got, in_alt ? alt : keys, bytes);
                if (bytes && memcmp(want, got, bytes) != 0)
                    fail_msg("%s n=%zu bits [%d, %d) order %d differs from gp_sort_keys", gpt_dtype_name(t), n, b0,
                             b1, order);
                gpt_buffer_free(ctx, keys);
                gpt_buffer_free(ctx, alt);
                gpt_buffer_free(ctx, expect);
                gpt_buffer_free(ctx, scratch);
                free(host);
                free(want);
                free(got);
            }
}

static void bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 1000;
    uint32_t *keys = gpt_buffer(ctx, n * 4 * 2), *alt = gpt_buffer(ctx, n * 4);
    void *scratch;
    size_t sb = 12345;
    int in_alt = -7, threads = -1;
    assert_int_equal(gp_sort_scratch_bytes(ctx, GP_FLOAT32, n, 0, 32, &sb), GP_ERROR_UNSUPPORTED);
    assert_int_equal(gp_sort_scratch_bytes(ctx, GP_UINT32, n, 0, 33, &sb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_scratch_bytes(ctx, GP_UINT32, n, 0, 32, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_scratch_bytes(NULL, GP_UINT32, n, 0, 32, &sb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(sb, 12345); /* untouched */
    GPT_OK(ctx, gp_sort_scratch_bytes(ctx, GP_UINT32, n, 0, 32, &sb));
    scratch = sb ? gpt_buffer(ctx, sb) : NULL;
    assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_FLOAT32, GP_SORT_ASCENDING, keys, alt, n, 0, 32, scratch, sb,
                                                &in_alt), GP_ERROR_UNSUPPORTED);
    assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, (gp_sort_order)0, keys, alt, n, 0, 32, scratch, sb,
                                                &in_alt), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, NULL, alt, n, 0, 32, scratch, sb,
                                                &in_alt), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, alt, n, 0, 32, scratch, sb,
                                                NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, keys + n / 2, n, 0, 32,
                                                scratch, sb, &in_alt), GP_ERROR_OVERLAP);
    if (sb) {
        assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, alt, n, 0, 32, scratch,
                                                    sb - 1, &in_alt), GP_ERROR_INVALID_ARGUMENT);
        assert_non_null(strstr(gp_context_last_error(ctx), "gp_sort_scratch_bytes"));
        assert_int_equal(gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, alt, n, 0, 32, keys,
                                                    sb, &in_alt), GP_ERROR_OVERLAP);
    }
    assert_int_equal(in_alt, -7); /* untouched */
    /* the context calls for layered libraries */
    assert_int_equal(gp_context_enter(NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_set_error(ctx, GP_ERROR_PARSE, "layer: %d", 42), GP_ERROR_PARSE);
    assert_string_equal(gp_context_last_error(ctx), "layer: 42");
    GPT_OK(ctx, gp_context_enter(ctx));
    assert_string_equal(gp_context_last_error(ctx), ""); /* cleared */
    assert_int_equal(gp_context_set_error(NULL, GP_ERROR_IO, "x"), GP_ERROR_IO);
    assert_int_equal(gp_context_get_cpu_threads(NULL, &threads), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_get_cpu_threads(ctx, NULL), GP_ERROR_INVALID_ARGUMENT);
    GPT_OK(ctx, gp_context_set_cpu_threads(ctx, 3));
    GPT_OK(ctx, gp_context_get_cpu_threads(ctx, &threads));
    assert_int_equal(threads, 3);
    GPT_OK(ctx, gp_context_set_cpu_threads(ctx, 0));
    GPT_OK(ctx, gp_context_get_cpu_threads(ctx, &threads));
    assert_true(threads >= 1 && threads <= 256);
    assert_int_equal(gp_context_get_device(NULL, &threads), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_get_device(ctx, NULL), GP_ERROR_INVALID_ARGUMENT);
    GPT_OK(ctx, gp_context_get_device(ctx, &threads));
    if (gpt_on_cuda(ctx)) assert_true(threads >= 0);
    else assert_int_equal(threads, -1);
    gpt_buffer_free(ctx, keys);
    gpt_buffer_free(ctx, alt);
    gpt_buffer_free(ctx, scratch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(matches_sort_keys),
        GPT_TEST_BOTH(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
