/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bad_input.c - every public function of gpuprim.h (and the renderer's
 * calls that the other suites do not reach) against NULL, zero, huge,
 * unknown-enum, misaligned, overlapping and wrong-memory arguments, on both
 * backends: the status of docs/errors.md, a detail message on the context,
 * and outputs left untouched (device buffers still hold their poison, host
 * results their sentinels). One sweep per function family. */
#include "test_util.h"

#include <gpuprim/render.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define GPT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPT_ASAN 1
#endif
#endif

#define N 1000
#define BYTES (N * 16) /* room for N elements of every type, and for 16-byte transposes */

/* Unknown values of every enum: below, between and above the valid ones. */
static const int bad_dtypes[] = {0, -1, 7, 1000};
static const int bad_ops[] = {0, -1, 4, 99};
static const int bad_kinds[] = {0, 3, -7};
static const int bad_flag_types[] = {0, 3, -1};
static const int bad_boundaries[] = {0, 4, -2};

/* n whose byte count fits size_t but runs past the end of the address
 * space from any real pointer; and n whose byte count overflows. */
#define WRAPPING_N(es) ((SIZE_MAX - 64) / (es))
#define OVERFLOWING_N(es) (SIZE_MAX / (es) + 1)

typedef struct bufs {
    char *a, *b, *c;      /* backend buffers, BYTES each, poisoned */
    char *host;           /* plain host memory (wrong memory for CUDA) */
    unsigned char poison[BYTES];
} bufs;

static void make_bufs(gp_context *ctx, bufs *B)
{
    gpt_poison(B->poison, BYTES);
    B->a = gpt_buffer_from(ctx, B->poison, BYTES);
    B->b = gpt_buffer_from(ctx, B->poison, BYTES);
    B->c = gpt_buffer_from(ctx, B->poison, BYTES);
    B->host = gpt_malloc(BYTES);
    memcpy(B->host, B->poison, BYTES);
}

/* Nothing was written: every buffer still holds its poison. */
static void untouched(gp_context *ctx, bufs *B, const char *after)
{
    unsigned char *back = gpt_malloc(BYTES);
    char *const which[3] = {B->a, B->b, B->c};
    int k;
    for (k = 0; k < 3; k++) {
        gpt_buffer_to(ctx, back, which[k], BYTES);
        if (memcmp(back, B->poison, BYTES) != 0) fail_msg("%s: buffer %c was written", after, 'a' + k);
    }
    if (memcmp(B->host, B->poison, BYTES) != 0) fail_msg("%s: host memory was written", after);
    free(back);
}

static void free_bufs(gp_context *ctx, bufs *B)
{
    gpt_buffer_free(ctx, B->a);
    gpt_buffer_free(ctx, B->b);
    gpt_buffer_free(ctx, B->c);
    free(B->host);
}

/* The call returns `want` and leaves a detail message on the context. */
#define EXPECT(ctx, want, call)                                                                              \
    do {                                                                                                     \
        gp_status got_ = (call);                                                                             \
        if (got_ != (want))                                                                                  \
            fail_msg("line %d: %s\n  -> %s, want %s [%s]", __LINE__, #call, gp_status_string(got_),         \
                     gp_status_string(want), gp_context_last_error(ctx));                                    \
        if ((want) != GP_SUCCESS && (ctx) && gp_context_last_error(ctx)[0] == '\0')                          \
            fail_msg("line %d: %s\n  -> %s without a detail message", __LINE__, #call, gp_status_string(got_)); \
    } while (0)

/* ---- no context ------------------------------------------------------------------ */

static void null_context_everywhere(void **state)
{
    char buf[64];
    void *p = (void *)0x77;
    gp_backend be = (gp_backend)42;
    size_t count = 4242;
    uint64_t idx[4];
    gp_stencil3 w3 = {1, 1, 1};
    gp_stencil5 w5 = {1, 1, 1, 1, 1};
    int n = -5;
    (void)state;
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_cuda_device_count(NULL));
    EXPECT_STATUS(GP_SUCCESS, gp_cuda_device_count(&n));
    assert_true(n >= 0);
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_get_backend(NULL, &be));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_set_stream(NULL, NULL));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_get_stream(NULL, &p));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_set_workspace(NULL, NULL, 0));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_set_cpu_threads(NULL, 1));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_synchronize(NULL));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_malloc(NULL, &p, 16));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_free(NULL, buf));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_upload(NULL, buf, buf + 32, 16));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_download(NULL, buf, buf + 32, 16));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_copy(NULL, buf, buf + 32, 16));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_scan(NULL, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, buf, buf + 32, 4));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_reduce(NULL, GP_INT32, GP_OP_SUM, buf, 4, buf + 32));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_compact(NULL, GP_INT32, buf, buf + 16, GP_UINT8_FLAGS, buf + 32, 4, &count));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_compact_indices(NULL, buf, GP_UINT8_FLAGS, idx, 4, &count));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(NULL, GP_INT32, buf, 4, idx, &count));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(NULL, 4, buf, buf + 32, 2, 2));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_stencil_1d(NULL, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, buf, buf + 32, 4));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_stencil_2d(NULL, GP_FLOAT32, &w5, GP_BOUNDARY_ZERO, buf, buf + 32, 2, 2));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(NULL, GP_FLOAT32, GP_BOUNDARY_ZERO, buf, buf + 32, 2, 2));
    /* Outputs untouched, messages still there. */
    assert_ptr_equal(p, (void *)0x77);
    assert_int_equal(be, 42);
    assert_int_equal(count, 4242);
    assert_string_equal(gp_context_last_error(NULL), "");
    gp_context_destroy(NULL);
    /* The functions that cannot fail. */
    assert_int_equal(gp_version_number(), GP_VERSION_NUMBER);
    assert_non_null(gp_version_string());
    assert_non_null(gp_status_string((gp_status)-1));
    assert_non_null(gp_status_string((gp_status)1000));
    {
        size_t k;
        for (k = 0; k < COUNT(bad_dtypes); k++) assert_int_equal(gp_dtype_size((gp_dtype)bad_dtypes[k]), 0);
    }
}

static void context_create_bad(void **state)
{
    gp_context *ctx = (gp_context *)0x99;
    int n = 0;
    (void)state;
    gp_cuda_device_count(&n);
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(NULL, GP_BACKEND_CPU, 0));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(&ctx, (gp_backend)3, 0));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(&ctx, (gp_backend)-1, 0));
    if (n == 0) {
        EXPECT_STATUS(GP_ERROR_NO_DEVICE, gp_context_create(&ctx, GP_BACKEND_CUDA, 0));
        EXPECT_STATUS(GP_ERROR_NO_DEVICE, gp_context_create(&ctx, GP_BACKEND_CUDA, -1));
    } else {
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(&ctx, GP_BACKEND_CUDA, -1));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(&ctx, GP_BACKEND_CUDA, n));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_create(&ctx, GP_BACKEND_AUTO, n));
    }
    assert_ptr_equal(ctx, (gp_context *)0x99);
    /* The CPU backend ignores the device ordinal. */
    EXPECT_STATUS(GP_SUCCESS, gp_context_create(&ctx, GP_BACKEND_CPU, -12345));
    gp_context_destroy(ctx);
}

/* ---- contexts and buffers, per backend ------------------------------------------- */

static void context_and_buffers_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    bufs B;
    void *p = (void *)0x55;
    gp_backend be = (gp_backend)42;
    make_bufs(ctx, &B);

    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_get_backend(ctx, NULL));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_get_stream(ctx, NULL));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_context_set_cpu_threads(ctx, -1));
    if (!cuda) EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_context_set_stream(ctx, (void *)0x10));
    /* Workspace: both or neither; a wrapping range; host memory on CUDA. */
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_context_set_workspace(ctx, B.a, 0));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_context_set_workspace(ctx, NULL, 64));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_context_set_workspace(ctx, B.a, SIZE_MAX));
    if (cuda) EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_context_set_workspace(ctx, B.host, BYTES));

    /* gp_malloc */
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_malloc(ctx, NULL, 16));
    EXPECT_STATUS(GP_SUCCESS, gp_malloc(ctx, &p, 0));
    assert_null(p);
    p = (void *)0x55;
    if (cuda) {
        EXPECT(ctx, GP_ERROR_OUT_OF_MEMORY, gp_malloc(ctx, &p, (size_t)1 << 60));
    } else {
#ifdef GPT_ASAN
        print_message("(AddressSanitizer: an impossible host malloc would abort; not tried)\n");
#else
        EXPECT(ctx, GP_ERROR_OUT_OF_MEMORY, gp_malloc(ctx, &p, SIZE_MAX - 4096));
#endif
    }
    assert_ptr_equal(p, (void *)0x55);
    EXPECT_STATUS(GP_SUCCESS, gp_free(ctx, NULL));

    /* Copies: NULL, overlap, wrapping sizes, wrong memory; 0 bytes is a no-op
     * even with NULL pointers. */
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_upload(ctx, NULL, B.host, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_upload(ctx, B.a, NULL, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_download(ctx, NULL, B.a, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_download(ctx, B.host, NULL, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_copy(ctx, NULL, B.a, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_copy(ctx, B.a, NULL, 16));
    EXPECT_STATUS(GP_SUCCESS, gp_upload(ctx, NULL, NULL, 0));
    EXPECT_STATUS(GP_SUCCESS, gp_download(ctx, NULL, NULL, 0));
    EXPECT_STATUS(GP_SUCCESS, gp_copy(ctx, NULL, NULL, 0));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_copy(ctx, B.a + 8, B.a, 64));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_copy(ctx, B.a, B.a + 63, 64));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_copy(ctx, B.a, B.a, 64));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_copy(ctx, B.b, B.a, SIZE_MAX));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_copy(ctx, B.b, B.a, SIZE_MAX - 64));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_upload(ctx, B.a, B.host, SIZE_MAX - 64));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_download(ctx, B.host, B.a, SIZE_MAX - 64));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_upload(ctx, B.host, B.host + 64, 64));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_download(ctx, B.host, B.host + 64, 64));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_copy(ctx, B.a, B.host, 64));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_copy(ctx, B.host, B.a, 64));
    } else {
        /* On the CPU, host memory is the backend's: only overlap is wrong. */
        EXPECT(ctx, GP_ERROR_OVERLAP, gp_upload(ctx, B.host, B.host + 32, 64));
        EXPECT(ctx, GP_ERROR_OVERLAP, gp_download(ctx, B.host + 32, B.host, 64));
    }
    GPT_OK(ctx, gp_context_get_backend(ctx, &be));
    assert_int_equal(be, cuda ? GP_BACKEND_CUDA : GP_BACKEND_CPU);
    untouched(ctx, &B, "buffer calls");
    GPT_OK(ctx, gp_context_synchronize(ctx));
    free_bufs(ctx, &B);
}

/* ---- primitives --------------------------------------------------------------------- */

static void scan_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    bufs B;
    size_t k;
    make_bufs(ctx, &B);
    for (k = 0; k < COUNT(bad_dtypes); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_scan(ctx, (gp_dtype)bad_dtypes[k], GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.b, N));
    for (k = 0; k < COUNT(bad_ops); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT32, (gp_op)bad_ops[k], GP_SCAN_INCLUSIVE, B.a, B.b, N));
    for (k = 0; k < COUNT(bad_kinds); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT32, GP_OP_SUM, (gp_scan_kind)bad_kinds[k], B.a, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, NULL, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT64, GP_OP_MAX, GP_SCAN_EXCLUSIVE, B.a + 4, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_scan(ctx, GP_INT32, GP_OP_MIN, GP_SCAN_EXCLUSIVE, B.a, B.b + 2, N));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.b, OVERFLOWING_N(4)));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_scan(ctx, GP_FLOAT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.b, SIZE_MAX));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.b, WRAPPING_N(4)));
    /* In place is allowed; any other overlap is not. */
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.a + 4, N));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_scan(ctx, GP_INT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a + 8 * (N - 1), B.a, N));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.host, B.b, N));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a, B.host, N));
    }
    /* n == 0 does nothing, even with NULL buffers or unaligned ones. */
    EXPECT_STATUS(GP_SUCCESS, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, NULL, 0));
    EXPECT_STATUS(GP_SUCCESS, gp_scan(ctx, GP_INT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, B.a + 1, B.b + 3, 0));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    untouched(ctx, &B, "gp_scan");
    free_bufs(ctx, &B);
}

static void reduce_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    bufs B;
    uint64_t result = 0x1122334455667788ull;
    size_t k;
    make_bufs(ctx, &B);
    for (k = 0; k < COUNT(bad_dtypes); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_reduce(ctx, (gp_dtype)bad_dtypes[k], GP_OP_SUM, B.a, N, &result));
    for (k = 0; k < COUNT(bad_ops); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_reduce(ctx, GP_UINT64, (gp_op)bad_ops[k], B.a, N, &result));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_reduce(ctx, GP_INT32, GP_OP_SUM, B.a, N, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_reduce(ctx, GP_INT32, GP_OP_SUM, NULL, N, &result));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_reduce(ctx, GP_FLOAT64, GP_OP_MIN, B.a + 4, N, &result));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_reduce(ctx, GP_INT32, GP_OP_SUM, B.a, OVERFLOWING_N(4), &result));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_reduce(ctx, GP_UINT64, GP_OP_MAX, B.a, WRAPPING_N(8), &result));
    if (cuda) EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_reduce(ctx, GP_INT32, GP_OP_SUM, B.host, N, &result));
    assert_true(result == 0x1122334455667788ull);
    /* n == 0 writes the identity (documented), even with a NULL buffer. */
    GPT_OK(ctx, gp_reduce(ctx, GP_UINT32, GP_OP_MIN, NULL, 0, &result));
    assert_int_equal((uint32_t)result, UINT32_MAX);
    untouched(ctx, &B, "gp_reduce");
    free_bufs(ctx, &B);
}

static void compact_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    bufs B;
    size_t count = 4242, k;
    uint64_t *idx;
    make_bufs(ctx, &B);
    idx = (uint64_t *)B.c;
    for (k = 0; k < COUNT(bad_dtypes); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_compact(ctx, (gp_dtype)bad_dtypes[k], B.a, B.b, GP_UINT8_FLAGS, B.c, N, &count));
    for (k = 0; k < COUNT(bad_flag_types); k++) {
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_compact(ctx, GP_INT32, B.a, B.b, (gp_flag_type)bad_flag_types[k], B.c, N, &count));
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_compact_indices(ctx, B.b, (gp_flag_type)bad_flag_types[k], idx, N, &count));
    }
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.c, N, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, NULL, B.b, GP_UINT8_FLAGS, B.c, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, B.a, NULL, GP_UINT8_FLAGS, B.c, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, NULL, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT64, B.a + 4, B.b, GP_UINT8_FLAGS, B.c, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, B.a, B.b + 1, GP_INT32_FLAGS, B.c, N, &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW,
           gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.c, OVERFLOWING_N(4), &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.c, WRAPPING_N(4), &count));
    /* out may not overlap in or flags; in and flags may share memory. */
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.a, N, &count));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.b + 100, N / 2, &count));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_compact(ctx, GP_INT32, B.a + 4 * N, B.a, GP_UINT8_FLAGS, B.a + 4 * (N - 1), N, &count));
    /* gp_compact_indices */
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, idx, N, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact_indices(ctx, NULL, GP_UINT8_FLAGS, idx, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, NULL, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact_indices(ctx, B.b + 2, GP_INT32_FLAGS, idx, N, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
           gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, (uint64_t *)(B.c + 4), N, &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, idx, OVERFLOWING_N(8), &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, idx, WRAPPING_N(8), &count));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_compact_indices(ctx, B.c + 8, GP_UINT8_FLAGS, idx, N, &count));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_compact(ctx, GP_INT32, B.host, B.b, GP_UINT8_FLAGS, B.c, N, &count));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_compact(ctx, GP_INT32, B.a, B.host, GP_UINT8_FLAGS, B.c, N, &count));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_compact(ctx, GP_INT32, B.a, B.b, GP_UINT8_FLAGS, B.host, N, &count));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_compact_indices(ctx, B.host, GP_UINT8_FLAGS, idx, N, &count));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY,
               gp_compact_indices(ctx, B.b, GP_UINT8_FLAGS, (uint64_t *)B.host, N, &count));
    }
    assert_int_equal(count, 4242);
    /* n == 0: a count of 0, nothing else written, NULL buffers allowed. */
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, NULL, NULL, GP_UINT8_FLAGS, NULL, 0, &count));
    assert_int_equal(count, 0);
    count = 4242;
    GPT_OK(ctx, gp_compact_indices(ctx, NULL, GP_INT32_FLAGS, NULL, 0, &count));
    assert_int_equal(count, 0);
    untouched(ctx, &B, "gp_compact");
    free_bufs(ctx, &B);
}

static void find_repeats_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    bufs B;
    size_t count = 4242, k;
    uint64_t *idx;
    make_bufs(ctx, &B);
    idx = (uint64_t *)B.b;
    for (k = 0; k < COUNT(bad_dtypes); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, (gp_dtype)bad_dtypes[k], B.a, N, idx, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, GP_INT32, B.a, N, idx, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, GP_INT32, NULL, N, idx, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, GP_INT32, B.a, N, NULL, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, GP_FLOAT64, B.a + 4, N, idx, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_find_repeats(ctx, GP_INT32, B.a, N, (uint64_t *)(B.b + 4), &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_find_repeats(ctx, GP_INT32, B.a, OVERFLOWING_N(4), idx, &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_find_repeats(ctx, GP_UINT64, B.a, OVERFLOWING_N(8), idx, &count));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_find_repeats(ctx, GP_INT32, B.a, WRAPPING_N(8), idx, &count));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_find_repeats(ctx, GP_INT32, B.a, N, (uint64_t *)B.a, &count));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_find_repeats(ctx, GP_INT64, B.a + 8 * 5, 8, (uint64_t *)B.a, &count));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_find_repeats(ctx, GP_INT32, B.host, N, idx, &count));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_find_repeats(ctx, GP_INT32, B.a, N, (uint64_t *)B.host, &count));
    }
    assert_int_equal(count, 4242);
    /* n == 0 and n == 1: no pairs, and no room needed for indices. */
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, NULL, 0, NULL, &count));
    assert_int_equal(count, 0);
    count = 4242;
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, B.a, 1, NULL, &count));
    assert_int_equal(count, 0);
    untouched(ctx, &B, "gp_find_repeats");
    free_bufs(ctx, &B);
}

static void transpose_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    static const size_t bad_sizes[] = {0, 1, 2, 3, 12, 32, SIZE_MAX};
    bufs B;
    size_t k;
    make_bufs(ctx, &B);
    for (k = 0; k < COUNT(bad_sizes); k++)
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, bad_sizes[k], B.a, B.b, 10, 10));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, 4, NULL, B.b, 10, 10));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, 4, B.a, NULL, 10, 10));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, 4, B.a, B.b, SIZE_MAX / 2, 3));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, 16, B.a, B.b, (size_t)1 << 32, (size_t)1 << 29));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, 4, B.a, B.b, WRAPPING_N(4), 1));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, 8, B.a, B.b, 1, WRAPPING_N(8)));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_transpose(ctx, 4, B.a, B.a, 10, 10));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_transpose(ctx, 16, B.a, B.a + 16 * 99, 10, 10));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_transpose(ctx, 4, B.host, B.b, 10, 10));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_transpose(ctx, 4, B.a, B.host, 10, 10));
    }
    /* An empty matrix does nothing, whatever the pointers. */
    EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, 4, NULL, NULL, 0, 10));
    EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, 8, NULL, NULL, 10, 0));
    EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, 16, B.a, B.a, 0, SIZE_MAX));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    untouched(ctx, &B, "gp_transpose");
    free_bufs(ctx, &B);
}

static void stencils_bad(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int cuda = gpt_on_cuda(ctx);
    static const gp_dtype int_types[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64};
    const gp_stencil3 w3 = {0.25, 0.5, 0.25};
    const gp_stencil5 w5 = {-4, 1, 1, 1, 1};
    bufs B;
    size_t k;
    make_bufs(ctx, &B);
    for (k = 0; k < COUNT(bad_dtypes); k++) {
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_stencil_1d(ctx, (gp_dtype)bad_dtypes[k], &w3, GP_BOUNDARY_ZERO, B.a, B.b, N));
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_stencil_2d(ctx, (gp_dtype)bad_dtypes[k], &w5, GP_BOUNDARY_ZERO, B.a, B.b, 10, 10));
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT,
               gp_laplacian_2d(ctx, (gp_dtype)bad_dtypes[k], GP_BOUNDARY_ZERO, B.a, B.b, 10, 10));
    }
    for (k = 0; k < COUNT(int_types); k++) {
        EXPECT(ctx, GP_ERROR_UNSUPPORTED, gp_stencil_1d(ctx, int_types[k], &w3, GP_BOUNDARY_ZERO, B.a, B.b, N));
        EXPECT(ctx, GP_ERROR_UNSUPPORTED, gp_stencil_2d(ctx, int_types[k], &w5, GP_BOUNDARY_ZERO, B.a, B.b, 10, 10));
        EXPECT(ctx, GP_ERROR_UNSUPPORTED, gp_laplacian_2d(ctx, int_types[k], GP_BOUNDARY_ZERO, B.a, B.b, 10, 10));
    }
    for (k = 0; k < COUNT(bad_boundaries); k++) {
        const gp_boundary b = (gp_boundary)bad_boundaries[k];
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, &w3, b, B.a, B.b, N));
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_2d(ctx, GP_FLOAT64, &w5, b, B.a, B.b, 10, 10));
        EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(ctx, GP_FLOAT32, b, B.a, B.b, 10, 10));
    }
    /* Weights are checked even for an empty grid. */
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, B.a, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, B.a, B.b, 0));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_2d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, B.a, B.b, 10, 10));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, NULL, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, B.a, NULL, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_2d(ctx, GP_FLOAT64, &w5, GP_BOUNDARY_ZERO, NULL, B.b, 10, 10));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_ZERO, B.a, NULL, 10, 10));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, B.a + 2, B.b, N));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_stencil_2d(ctx, GP_FLOAT64, &w5, GP_BOUNDARY_ZERO, B.a, B.b + 4, 10, 10));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW,
           gp_stencil_1d(ctx, GP_FLOAT64, &w3, GP_BOUNDARY_CLAMP, B.a, B.b, OVERFLOWING_N(8)));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_CLAMP, B.a, B.b, WRAPPING_N(4)));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_stencil_2d(ctx, GP_FLOAT32, &w5, GP_BOUNDARY_CLAMP, B.a, B.b, SIZE_MAX, 2));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW,
           gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_CLAMP, B.a, B.b, WRAPPING_N(8), 1));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_PERIODIC, B.a, B.a, N));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_stencil_1d(ctx, GP_FLOAT64, &w3, GP_BOUNDARY_PERIODIC, B.a + 8, B.a, N));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_stencil_2d(ctx, GP_FLOAT32, &w5, GP_BOUNDARY_PERIODIC, B.a, B.a + 396, 10, 10));
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_laplacian_2d(ctx, GP_FLOAT32, GP_BOUNDARY_PERIODIC, B.a, B.a, 10, 10));
    if (cuda) {
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, B.host, B.b, N));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_stencil_2d(ctx, GP_FLOAT32, &w5, GP_BOUNDARY_ZERO, B.a, B.host, 10, 10));
        EXPECT(ctx, GP_ERROR_WRONG_MEMORY, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_ZERO, B.host, B.b, 10, 10));
    }
    /* Empty grids do nothing (with weights given). */
    EXPECT_STATUS(GP_SUCCESS, gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, NULL, NULL, 0));
    EXPECT_STATUS(GP_SUCCESS, gp_stencil_2d(ctx, GP_FLOAT64, &w5, GP_BOUNDARY_ZERO, NULL, NULL, 0, 10));
    EXPECT_STATUS(GP_SUCCESS, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_ZERO, NULL, NULL, 10, 0));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    untouched(ctx, &B, "stencils");
    free_bufs(ctx, &B);
}

/* After every kind of refusal the context still works: a scan and a
 * compaction give the right answers and the detail message is cleared. */
static void context_usable_after_errors(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t in[N], out[N], want = 0;
    uint8_t flags[N];
    size_t count = 0, i;
    void *d_in, *d_out, *d_flags;
    for (i = 0; i < N; i++) {
        in[i] = (int32_t)i - 300;
        flags[i] = (uint8_t)(i % 3 == 0);
    }
    d_in = gpt_buffer_from(ctx, in, sizeof in);
    d_flags = gpt_buffer_from(ctx, flags, sizeof flags);
    d_out = gpt_buffer(ctx, sizeof out);
    EXPECT(ctx, GP_ERROR_OVERLAP, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, (char *)d_in + 4, N));
    EXPECT(ctx, GP_ERROR_SIZE_OVERFLOW, gp_copy(ctx, d_out, d_in, SIZE_MAX));
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_out, N));
    assert_string_equal(gp_context_last_error(ctx), "");
    gpt_buffer_to(ctx, out, d_out, sizeof out);
    for (i = 0; i < N; i++) {
        want += in[i];
        assert_int_equal(out[i], want);
    }
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, gp_compact(ctx, GP_INT32, d_in, d_flags, (gp_flag_type)0, d_out, N, &count));
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, N, &count));
    assert_int_equal(count, (N + 2) / 3);
    gpt_buffer_to(ctx, out, d_out, count * 4);
    for (i = 0; i < count; i++) assert_int_equal(out[i], in[3 * i]);
    gpt_buffer_free(ctx, d_in);
    gpt_buffer_free(ctx, d_out);
    gpt_buffer_free(ctx, d_flags);
}

/* ---- renderer: what the other suites leave out -------------------------------------- */

static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

/* gp_scene_from_circles takes any floats: NaN, infinities, negative and
 * zero radii, huge coordinates. Rendering them must not misbehave, and the
 * CPU tile renderer must still give the reference's image float for float.
 * The CUDA renderer is held to the --check rule (one 8-bit level) on the
 * finite ones, which scene files can also hold (huge, zero radius); for
 * NaN and infinities it must only succeed. */
static void render_both_ways(gp_context *ctx, const gp_circle *circles, size_t nc, int compare_on_cuda,
                             const char *what)
{
    static const int sizes[][2] = {{8, 8}, {70, 20}, {1, 1}};
    int snow, z;
    size_t i;
    for (snow = 0; snow <= 1; snow++) {
        gp_scene *s = NULL;
        assert_int_equal(gp_scene_from_circles(&s, circles, nc, snow), GP_SUCCESS);
        for (z = 0; z < 3; z++) {
            const int w = sizes[z][0], h = sizes[z][1];
            const size_t n = (size_t)w * (size_t)h * 4;
            float *ref = gpt_malloc(n * sizeof(float)), *img = gpt_malloc(n * sizeof(float));
            assert_int_equal(gp_render_reference(s, w, h, ref), GP_SUCCESS);
            GPT_OK(ctx, gp_render(ctx, s, w, h, img));
            if (!gpt_on_cuda(ctx)) {
                for (i = 0; i < n; i++)
                    if (!same_float(ref[i], img[i]))
                        fail_msg("%s, snow=%d %dx%d: float %zu is %g, reference %g", what, snow, w, h, i,
                                 (double)img[i], (double)ref[i]);
            } else if (compare_on_cuda) {
                int diff = 0;
                size_t px = 0;
                GPT_OK(ctx, gp_image_compare(ref, img, w, h, &diff, &px));
                if (diff > 1)
                    fail_msg("%s, snow=%d %dx%d: the CUDA image differs from the reference by %d levels in %zu "
                             "pixels", what, snow, w, h, diff, px);
            }
            free(ref);
            free(img);
        }
        GPT_OK(ctx, gp_context_synchronize(ctx));
        gp_scene_destroy(s);
    }
}

static void hostile_circles_render_like_the_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const float inf = 1.0f / 0.0f, nan = 0.0f / 0.0f, big = 3.0e38f;
    const gp_circle finite[] = {
        {0.5f, 0.5f, 0.5f, 0.25f, 1, 0, 0},
        {0.3f, 0.3f, 0.5f, -0.2f, 1, 0, 0},     /* negative radius: nothing */
        {0.0625f, 0.0625f, 0.5f, 0.0f, 1, 1, 1}, /* zero radius on a pixel centre */
        {big, big, big, big, big, -big, 0},
        {-big, 0.5f, 0.5f, big, 0.2f, 0.2f, 0.2f},
        {0.5f, 0.5f, -big, 0.1f, big, -big, 0},
        {1e-30f, 1e-30f, 1e-30f, 1e-40f, 0.1f, 0.2f, 0.3f},
        {0.5f, 0.5f, 0.5f, 1e19f, 0.1f, 0.2f, 0.3f}, /* radius squared overflows */
    };
    const gp_circle non_finite[] = {
        {0.5f, 0.5f, 0.5f, 0.25f, 1, 0, 0},      {nan, 0.5f, 0.5f, 0.25f, 0, 1, 0},
        {0.5f, nan, 0.5f, 0.25f, 0, 0, 1},       {0.5f, 0.5f, nan, 0.25f, 1, 1, 0},
        {0.5f, 0.5f, 0.5f, nan, 1, 0, 1},        {inf, 0.5f, 0.5f, 0.25f, 0, 1, 1},
        {-inf, -inf, 0.5f, inf, 0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, -inf, 0.1f, inf, -inf, nan},
    };
    render_both_ways(ctx, finite, sizeof finite / sizeof finite[0], 1, "finite extremes");
    render_both_ways(ctx, non_finite, sizeof non_finite / sizeof non_finite[0], 0, "NaN and infinities");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_context_everywhere),
        cmocka_unit_test(context_create_bad),
        GPT_TEST_BOTH(context_and_buffers_bad),
        GPT_TEST_BOTH(scan_bad),
        GPT_TEST_BOTH(reduce_bad),
        GPT_TEST_BOTH(compact_bad),
        GPT_TEST_BOTH(find_repeats_bad),
        GPT_TEST_BOTH(transpose_bad),
        GPT_TEST_BOTH(stencils_bad),
        GPT_TEST_BOTH(context_usable_after_errors),
        GPT_TEST_BOTH(hostile_circles_render_like_the_reference),
    };
    return cmocka_run_group_tests_name("bad_input", tests, NULL, NULL);
}
