/* SPDX-License-Identifier: BSD-3-Clause */
/* Contexts, buffers, status strings and version: the parts every other
 * suite stands on. */
#include "test_util.h"

#include <gpuprim/render.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void version_matches_header(void **state)
{
    (void)state;
    assert_int_equal(gp_version_number(), GP_VERSION_NUMBER);
    assert_string_equal(gp_version_string(), GP_VERSION_STRING);
}

static void every_status_has_a_message(void **state)
{
    int s;
    (void)state;
    for (s = GP_SUCCESS; s <= GP_ERROR_NO_NCCL; s++) {
        const char *m = gp_status_string((gp_status)s);
        assert_non_null(m);
        assert_true(strlen(m) > 3);
        assert_string_not_equal(m, "unknown status code");
    }
    assert_string_equal(gp_status_string((gp_status)12345), "unknown status code");
}

static void dtype_sizes(void **state)
{
    (void)state;
    assert_int_equal(gp_dtype_size(GP_INT32), 4);
    assert_int_equal(gp_dtype_size(GP_UINT32), 4);
    assert_int_equal(gp_dtype_size(GP_FLOAT32), 4);
    assert_int_equal(gp_dtype_size(GP_INT64), 8);
    assert_int_equal(gp_dtype_size(GP_UINT64), 8);
    assert_int_equal(gp_dtype_size(GP_FLOAT64), 8);
    assert_int_equal(gp_dtype_size((gp_dtype)0), 0);
    assert_int_equal(gp_dtype_size((gp_dtype)99), 0);
}

static void context_bad_arguments(void **state)
{
    gp_context *ctx = (gp_context *)0x1;
    gp_backend b;
    void *p;
    (void)state;
    assert_int_equal(gp_context_create(NULL, GP_BACKEND_CPU, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_create(&ctx, (gp_backend)77, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(ctx, (gp_context *)0x1); /* untouched on error */
    assert_int_equal(gp_context_get_backend(NULL, &b), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_set_stream(NULL, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_synchronize(NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_malloc(NULL, &p, 16), GP_ERROR_INVALID_ARGUMENT);
    assert_string_equal(gp_context_last_error(NULL), "");
    gp_context_destroy(NULL); /* allowed */
}

static void cuda_without_device_is_a_status(void **state)
{
    gp_context *ctx = NULL;
    int n = -1;
    (void)state;
    assert_int_equal(gp_cuda_device_count(&n), GP_SUCCESS);
    assert_true(n >= 0);
    assert_int_equal(gp_cuda_device_count(NULL), GP_ERROR_INVALID_ARGUMENT);
    if (n == 0) {
        assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CUDA, 0), GP_ERROR_NO_DEVICE);
        assert_null(ctx);
        /* AUTO falls back to the CPU. */
        assert_int_equal(gp_context_create(&ctx, GP_BACKEND_AUTO, 0), GP_SUCCESS);
        {
            gp_backend b = GP_BACKEND_AUTO;
            assert_int_equal(gp_context_get_backend(ctx, &b), GP_SUCCESS);
            assert_int_equal(b, GP_BACKEND_CPU);
        }
        gp_context_destroy(ctx);
    } else {
        assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CUDA, n), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CUDA, -1), GP_ERROR_INVALID_ARGUMENT);
    }
}

/* Runs on both backends: round trip through a buffer, copies, workspace. */
static void buffers_round_trip(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 100003;
    uint32_t *host = gpt_malloc(n * 4), *back = gpt_malloc(n * 4);
    void *a, *b, *p = (void *)0x1;
    gp_backend be;
    gpt_fill_random(GP_UINT32, host, n, 0);
    a = gpt_buffer_from(ctx, host, n * 4);
    b = gpt_poisoned_buffer(ctx, n * 4);
    GPT_OK(ctx, gp_copy(ctx, b, a, n * 4));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_poison(back, n * 4);
    gpt_buffer_to(ctx, back, b, n * 4);
    assert_memory_equal(host, back, n * 4);

    /* Overlapping copy is refused, zero bytes is a no-op, NULLs are errors. */
    assert_int_equal(gp_copy(ctx, (char *)a + 4, a, 64), GP_ERROR_OVERLAP);
    assert_int_equal(gp_copy(ctx, b, a, 0), GP_SUCCESS);
    assert_int_equal(gp_upload(ctx, NULL, host, 4), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_download(ctx, host, NULL, 4), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_malloc(ctx, &p, 0), GP_SUCCESS);
    assert_null(p);
    assert_int_equal(gp_malloc(ctx, NULL, 4), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_free(ctx, NULL), GP_SUCCESS);

    /* Workspace: both-or-neither, then accepted. */
    assert_int_equal(gp_context_set_workspace(ctx, a, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_set_workspace(ctx, NULL, 16), GP_ERROR_INVALID_ARGUMENT);
    GPT_OK(ctx, gp_context_set_workspace(ctx, a, n * 4));
    GPT_OK(ctx, gp_context_set_workspace(ctx, NULL, 0));

    GPT_OK(ctx, gp_context_get_backend(ctx, &be));
    if (be == GP_BACKEND_CUDA) {
        /* Host memory handed to the CUDA backend is detected. */
        assert_int_equal(gp_copy(ctx, back, a, 64), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_copy(ctx, b, host, 64), GP_ERROR_WRONG_MEMORY);
        assert_true(strlen(gp_context_last_error(ctx)) > 0);
        /* An impossible allocation is out-of-memory, and the context still works. */
        p = NULL;
        assert_int_equal(gp_malloc(ctx, &p, (size_t)1 << 50), GP_ERROR_OUT_OF_MEMORY);
        assert_null(p);
        GPT_OK(ctx, gp_copy(ctx, b, a, n * 4));
        GPT_OK(ctx, gp_context_synchronize(ctx));
    } else {
        assert_int_equal(gp_context_set_stream(ctx, (void *)0x10), GP_ERROR_INVALID_ARGUMENT);
    }
    GPT_OK(ctx, gp_context_set_stream(ctx, NULL));
    gpt_buffer_free(ctx, a);
    gpt_buffer_free(ctx, b);
    free(host);
    free(back);
}


/* Every call on a context starts with an empty detail message: a failed
 * setter's message does not outlive the next call, setters included. */
static void details_do_not_outlive_the_next_call(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    void *p = (void *)0x1;
    int k;
    for (k = 0; k < 7; k++) {
        /* a failure that leaves a detail, on either backend */
        if (k % 2) assert_int_equal(gp_context_set_workspace(ctx, (void *)0x10, 0), GP_ERROR_INVALID_ARGUMENT);
        else assert_int_equal(gp_context_set_cpu_threads(ctx, -5), GP_ERROR_INVALID_ARGUMENT);
        assert_true(gp_context_last_error(ctx)[0] != '\0');
        switch (k) {
        case 0: GPT_OK(ctx, gp_context_set_stream(ctx, NULL)); break;
        case 1: GPT_OK(ctx, gp_context_set_workspace(ctx, NULL, 0)); break;
        case 2: GPT_OK(ctx, gp_context_set_cpu_threads(ctx, 0)); break;
        case 3: GPT_OK(ctx, gp_free(ctx, NULL)); break;
        case 4:
            GPT_OK(ctx, gp_malloc(ctx, &p, 0));
            assert_null(p);
            break;
        case 5: GPT_OK(ctx, gp_context_synchronize(ctx)); break;
        case 6: GPT_OK(ctx, gp_upload(ctx, NULL, NULL, 0)); break;
        }
        if (gp_context_last_error(ctx)[0] != '\0')
            fail_msg("case %d: a stale detail survives a successful call: \"%s\"", k, gp_context_last_error(ctx));
    }
}

/* The case the CPU backend meets: a stream refused, then NULL accepted. */
static void refused_stream_detail_is_cleared(void **state)
{
    gp_context *ctx = NULL;
    (void)state;
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_context_set_stream(ctx, (void *)0x10), GP_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(gp_context_last_error(ctx), "no streams"));
    assert_int_equal(gp_context_set_stream(ctx, NULL), GP_SUCCESS);
    assert_string_equal(gp_context_last_error(ctx), "");
    assert_int_equal(gp_context_set_stream(ctx, (void *)0x10), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_set_workspace(ctx, NULL, 0), GP_SUCCESS);
    assert_string_equal(gp_context_last_error(ctx), "");
    gp_context_destroy(ctx);
}

/* Any thread count is safe: counts past 1024 are taken as 1024, and the CPU
 * renderer (which works with twice the count) still draws the exact image. */
static void huge_thread_counts_are_capped(void **state)
{
    static const int counts[] = {INT_MAX, INT_MAX - 1, 1 << 30, 1025, 1024, 3};
    const int W = 67, H = 45;
    gp_context *ctx = NULL;
    gp_scene *scene = NULL;
    float *want = gpt_malloc((size_t)W * H * 16), *got = gpt_malloc((size_t)W * H * 16);
    size_t k, differ = 1;
    (void)state;
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&scene, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_render_reference(scene, W, H, want), GP_SUCCESS);
    for (k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        assert_int_equal(gp_context_set_cpu_threads(ctx, counts[k]), GP_SUCCESS);
        assert_string_equal(gp_context_last_error(ctx), "");
        gpt_poison(got, (size_t)W * H * 16);
        assert_int_equal(gp_render(ctx, scene, W, H, got), GP_SUCCESS);
        assert_int_equal(gp_image_compare(want, got, W, H, NULL, &differ), GP_SUCCESS);
        assert_int_equal(differ, 0);
        assert_memory_equal(got, want, (size_t)W * H * 16);
    }
    gp_scene_destroy(scene);
    gp_context_destroy(ctx);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(every_status_has_a_message),
        cmocka_unit_test(dtype_sizes),
        cmocka_unit_test(context_bad_arguments),
        cmocka_unit_test(cuda_without_device_is_a_status),
        GPT_TEST_BOTH(buffers_round_trip),
        GPT_TEST_BOTH(details_do_not_outlive_the_next_call),
        cmocka_unit_test(refused_stream_detail_is_cleared),
        cmocka_unit_test(huge_thread_counts_are_capped),
    };
    return cmocka_run_group_tests_name("context", tests, NULL, NULL);
}
