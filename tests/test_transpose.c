/* SPDX-License-Identifier: BSD-3-Clause */
/* gp_transpose: the CPU reference against a byte-level brute force, each
 * backend against the CPU reference (exact) at awkward shapes and every
 * element size, misaligned buffers, and every kind of bad argument with the
 * outputs verified untouched. */
#include "test_util.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const size_t elem_sizes[] = {4, 8, 16};

typedef struct { size_t rows, cols; } shape;

/* The independent check: every element moved one by one as bytes. */
static void brute_transpose(size_t es, const unsigned char *in, unsigned char *out, size_t rows, size_t cols)
{
    size_t r, c;
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) memcpy(out + (c * rows + r) * es, in + (r * cols + c) * es, es);
}

static void fill_bytes(void *buf, size_t bytes)
{
    unsigned char *p = buf;
    size_t i;
    for (i = 0; i < bytes; i++) p[i] = (unsigned char)(gpt_rand64() >> 56);
}

/* Fail with the first differing element's position in the output. */
static void compare_transposed(const unsigned char *got, const unsigned char *want, size_t es, size_t rows,
                               size_t cols, const char *what)
{
    size_t i, n = rows * cols;
    if (memcmp(got, want, n * es) == 0) return;
    for (i = 0; i < n; i++)
        if (memcmp(got + i * es, want + i * es, es) != 0)
            fail_msg("%s: %zu x %zu, elem %zu: output (%zu, %zu) differs", what, rows, cols, es, i / rows, i % rows);
}

/* Run gp_transpose at one shape with the buffers `offset` bytes past an
 * allocation's start, and hold the result against the CPU reference. */
static void check_shape(gp_context *ctx, size_t es, size_t rows, size_t cols, size_t offset)
{
    const size_t bytes = rows * cols * es;
    unsigned char *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes + offset);
    unsigned char *in_base, *out_base;

    fill_bytes(host, bytes);
    in_base = gpt_poisoned_buffer(ctx, bytes + offset);
    out_base = gpt_poisoned_buffer(ctx, bytes + offset);
    GPT_OK(ctx, gp_upload(ctx, in_base + offset, host, bytes));
    GPT_OK(ctx, gp_transpose(ctx, es, in_base + offset, out_base + offset, rows, cols));
    GPT_OK(ctx, gp_context_synchronize(ctx));

    assert_int_equal(gpi_cpu_transpose(es, host, ref, rows, cols, 1), GP_SUCCESS);
    gpt_buffer_to(ctx, got, out_base, bytes + offset);
    compare_transposed(got + offset, ref, es, rows, cols, gpt_backend_name(ctx));
    {
        size_t i;
        for (i = 0; i < offset; i++) assert_int_equal(got[i], 0xA5); /* nothing written before out */
    }
    gpt_buffer_to(ctx, got, in_base + offset, bytes);
    assert_memory_equal(got, host, bytes); /* the input is left alone */

    gpt_buffer_free(ctx, in_base);
    gpt_buffer_free(ctx, out_base);
    free(host);
    free(ref);
    free(got);
}

/* ---- the reference ------------------------------------------------------- */

static void reference_matches_brute_force(void **state)
{
    size_t e, rows, cols;
    (void)state;
    gpt_seed_once();
    for (e = 0; e < 3; e++) {
        const size_t es = elem_sizes[e];
        for (rows = 1; rows <= 70; rows += (rows < 10 ? 1 : 29)) {
            for (cols = 1; cols <= 70; cols += (cols < 10 ? 1 : 23)) {
                const size_t bytes = rows * cols * es;
                unsigned char *in = gpt_malloc(bytes + 1), *a = gpt_malloc(bytes + 1), *b = gpt_malloc(bytes);
                fill_bytes(in, bytes + 1);
                gpt_poison(a, bytes + 1);
                brute_transpose(es, in, b, rows, cols);
                assert_int_equal(gpi_cpu_transpose(es, in, a, rows, cols, 1), GP_SUCCESS);
                compare_transposed(a, b, es, rows, cols, "reference");
                assert_int_equal(a[bytes], 0xA5); /* nothing past the end */
                /* Misaligned pointers take the reference's byte-wise path. */
                gpt_poison(a, bytes + 1);
                assert_int_equal(gpi_cpu_transpose(es, in + 1, a + 1, rows, cols, 1), GP_SUCCESS);
                brute_transpose(es, in + 1, b, rows, cols);
                compare_transposed(a + 1, b, es, rows, cols, "reference, misaligned");
                assert_int_equal(a[0], 0xA5);
                free(in);
                free(a);
                free(b);
            }
        }
    }
}

/* ---- the backend against the reference ------------------------------------ */

static void transpose_awkward_shapes(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int quick = gpt_quick();
    const shape shapes[] = {{1, 1},     {1, 1000},   {1000, 1},   {2, 3},    {3, 2},
                            {31, 33},   {32, 32},    {33, 31},    {17, 1000}, {1000, 17},
                            {1023, 1025}, {64, 96},  {1, 100003}, {100003, 1},
                            {quick ? 257 : 2049, quick ? 385 : 3001}};
    size_t e, i;
    for (e = 0; e < 3; e++)
        for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            check_shape(ctx, elem_sizes[e], shapes[i].rows, shapes[i].cols, 0);
}

/* More row tiles than a grid's y dimension holds (65535 x 32 rows), and
 * more column tiles than one would want in y: the kernel loops over tiles. */
static void transpose_tall_and_wide(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t e;
    if (gpt_quick()) {
        print_message("quick mode: tall and wide shapes shrunk\n");
        check_shape(ctx, 4, 70001, 3, 0);
        check_shape(ctx, 4, 3, 70001, 0);
        return;
    }
    for (e = 0; e < 3; e++) {
        check_shape(ctx, elem_sizes[e], 2100001, 2, 0);
        check_shape(ctx, elem_sizes[e], 2, 2100001, 0);
    }
}

/* Buffers not aligned to the element size still transpose exactly. */
static void transpose_misaligned(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t offsets[] = {1, 2, 4, 8};
    size_t e, o;
    for (e = 0; e < 3; e++)
        for (o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            check_shape(ctx, elem_sizes[e], 33, 31, offsets[o]);
            check_shape(ctx, elem_sizes[e], 1, 40, offsets[o]);
        }
}

/* ---- bad arguments ----------------------------------------------------------- */

static void transpose_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t rows = 8, cols = 8, bytes = 8 * 8 * 16;
    unsigned char *host = gpt_malloc(bytes), *back = gpt_malloc(2 * bytes), *poison = gpt_malloc(2 * bytes);
    unsigned char *in, *out, *big;
    gp_backend backend;
    size_t e;

    fill_bytes(host, bytes);
    gpt_poison(poison, 2 * bytes);
    in = gpt_buffer_from(ctx, host, bytes);
    out = gpt_poisoned_buffer(ctx, bytes);
    big = gpt_poisoned_buffer(ctx, 2 * bytes);

    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(NULL, 4, in, out, rows, cols));
    {
        static const size_t bad_sizes[] = {0, 1, 2, 3, 5, 12, 32, SIZE_MAX};
        size_t i;
        for (i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
            EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, bad_sizes[i], in, out, rows, cols));
        assert_true(strlen(gp_context_last_error(ctx)) > 0);
    }
    for (e = 0; e < 3; e++) {
        const size_t es = elem_sizes[e];
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, es, NULL, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, es, in, NULL, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_transpose(ctx, es, NULL, NULL, rows, cols));
        /* rows * cols, or its byte count, overflows size_t. */
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, es, in, out, SIZE_MAX / 2, 3));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, es, in, out, 3, SIZE_MAX / 2));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, es, in, out, SIZE_MAX / 2, 1));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_transpose(ctx, es, in, out, (SIZE_MAX / es) / 2 + 1, 2));
        assert_true(strlen(gp_context_last_error(ctx)) > 0);
        /* Out of place only: the same buffer, or ranges sharing one byte. */
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_transpose(ctx, es, big, big, rows, cols));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_transpose(ctx, es, big, big + es, rows, cols));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_transpose(ctx, es, big + es, big, rows, cols));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_transpose(ctx, es, big, big + rows * cols * es - 1, rows, cols));
        /* Empty: nothing to do, NULLs allowed. */
        EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, es, NULL, NULL, 0, cols));
        EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, es, NULL, NULL, rows, 0));
        EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, es, in, out, 0, 0));
        EXPECT_STATUS(GP_SUCCESS, gp_transpose(ctx, es, in, out, 0, SIZE_MAX));
    }
    /* Touching but not overlapping is fine. */
    GPT_OK(ctx, gp_transpose(ctx, 4, big, big + rows * cols * 4, rows, cols));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    GPT_OK(ctx, gp_upload(ctx, big, poison, 2 * bytes));

    GPT_OK(ctx, gp_context_get_backend(ctx, &backend));
    if (backend == GP_BACKEND_CUDA) {
        /* Host memory handed to the CUDA backend. */
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY, gp_transpose(ctx, 4, host, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY, gp_transpose(ctx, 4, in, back, rows, cols));
    }

    /* Nothing was written anywhere. */
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_expect_untouched(ctx, out, bytes);
    gpt_expect_untouched(ctx, big, 2 * bytes);
    gpt_buffer_to(ctx, back, in, bytes);
    assert_memory_equal(back, host, bytes);

    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    gpt_buffer_free(ctx, big);
    free(host);
    free(back);
    free(poison);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(transpose_awkward_shapes),
        GPT_TEST_BOTH(transpose_tall_and_wide),
        GPT_TEST_BOTH(transpose_misaligned),
        GPT_TEST_BOTH(transpose_bad_arguments),
    };
    return cmocka_run_group_tests_name("transpose", tests, NULL, NULL);
}
