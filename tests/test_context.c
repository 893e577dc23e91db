/* Contexts, buffers, status strings and version: the parts every other
 * suite stands on. */
#include "test_util.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_matches_header),
        cmocka_unit_test(every_status_has_a_message),
        cmocka_unit_test(dtype_sizes),
        cmocka_unit_test(context_bad_arguments),
        cmocka_unit_test(cuda_without_device_is_a_status),
        GPT_TEST_BOTH(buffers_round_trip),
    };
    return cmocka_run_group_tests_name("context", tests, NULL, NULL);
}
