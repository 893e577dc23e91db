/* SPDX-License-Identifier: BSD-3-Clause */
/* test_promises.c - the header's answers to its open questions, held on
 * each backend: min/max skip NaN; stencil weights are rounded to the element
 * type first; output sizes of find-repeats (n-1) and compact-indices (n)
 * with nothing written past the count; device memory from cudaMalloc is
 * accepted; a bad gp_context_set_cpu_threads leaves a detail message. */
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void min_max_skip_nan(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const float in[6] = {NAN, 3.f, NAN, -2.f, 5.f, NAN};
    const float want_min[6] = {INFINITY, 3.f, 3.f, -2.f, -2.f, -2.f};
    const float want_max[6] = {-INFINITY, 3.f, 3.f, 3.f, 5.f, 5.f};
    float got[6], r;
    void *buf = gpt_buffer_from(ctx, in, sizeof in), *out = gpt_buffer(ctx, sizeof in);
    GPT_OK(ctx, gp_scan(ctx, GP_FLOAT32, GP_OP_MIN, GP_SCAN_INCLUSIVE, buf, out, 6));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_memory_equal(got, want_min, sizeof got);
    GPT_OK(ctx, gp_scan(ctx, GP_FLOAT32, GP_OP_MAX, GP_SCAN_INCLUSIVE, buf, out, 6));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_memory_equal(got, want_max, sizeof got);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_MIN, buf, 6, &r));
    assert_true(r == -2.f);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_MAX, buf, 6, &r));
    assert_true(r == 5.f);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_MAX, buf, 1, &r)); /* all NaN: the identity */
    assert_true(isinf(r) && r < 0);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_SUM, buf, 6, &r)); /* sums propagate NaN */
    assert_true(isnan(r));
    gpt_buffer_free(ctx, buf);
    gpt_buffer_free(ctx, out);
}

static void stencil_weights_are_rounded_first(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const gp_stencil3 w = {0.1, 0.7, 0.3}; /* none exact in float */
    const float in[3] = {1.f / 3.f, 2.f / 7.f, 5.f / 11.f};
    float got[3], want;
    void *a = gpt_buffer_from(ctx, in, sizeof in), *b = gpt_buffer(ctx, sizeof in);
    GPT_OK(ctx, gp_stencil_1d(ctx, GP_FLOAT32, &w, GP_BOUNDARY_ZERO, a, b, 3));
    gpt_buffer_to(ctx, got, b, sizeof got);
    /* element 1, in float: ((float)left*in0 + (float)center*in1) + (float)right*in2 */
    want = (float)w.left * in[0];
    want = want + (float)w.center * in[1];
    want = want + (float)w.right * in[2];
    assert_memory_equal(&got[1], &want, sizeof want);
    gpt_buffer_free(ctx, a);
    gpt_buffer_free(ctx, b);
}

/* Outputs of exactly the documented size, between guard bytes. */
static void output_sizes(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    enum { N = 300, GUARD = 64 };
    int32_t vals[N];
    unsigned char flags[N];
    uint64_t host[N + 2 * GUARD / 8];
    size_t count, i;
    char *guarded;
    void *in, *fl;
    for (i = 0; i < N; i++) {
        vals[i] = (int32_t)(i / 3); /* repeats: 2 of every 3 */
        flags[i] = (unsigned char)(i % 4 == 0);
    }
    in = gpt_buffer_from(ctx, vals, sizeof vals);
    fl = gpt_buffer_from(ctx, flags, sizeof flags);
    /* find-repeats: room for n - 1 */
    guarded = gpt_poisoned_buffer(ctx, (N - 1) * 8 + 2 * GUARD);
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, in, N, (uint64_t *)(guarded + GUARD), &count));
    assert_int_equal(count, 200);
    gpt_buffer_to(ctx, host, guarded, (N - 1) * 8 + 2 * GUARD);
    gpt_expect_poison(host, 0, GUARD, "before indices_out");
    gpt_expect_poison(host, GUARD + count * 8, (N - 1) * 8 + 2 * GUARD, "past the count");
    gpt_buffer_free(ctx, guarded);
    /* compact-indices: room for n */
    guarded = gpt_poisoned_buffer(ctx, N * 8 + 2 * GUARD);
    GPT_OK(ctx, gp_compact_indices(ctx, fl, GP_UINT8_FLAGS, (uint64_t *)(guarded + GUARD), N, &count));
    assert_int_equal(count, N / 4);
    gpt_buffer_to(ctx, host, guarded, N * 8 + 2 * GUARD);
    gpt_expect_poison(host, 0, GUARD, "before indices_out");
    gpt_expect_poison(host, GUARD + count * 8, N * 8 + 2 * GUARD, "past the count");
    gpt_buffer_free(ctx, guarded);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, fl);
}

/* Memory from cudaMalloc itself, not gp_malloc: accepted by every primitive. */
static void caller_device_memory(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    enum { N = 100000 };
    int32_t *host = gpt_malloc(N * 4), *back = gpt_malloc(N * 4), sum = 0, got = 0;
    void *d_in = NULL, *d_out = NULL;
    size_t i;
    if (!gpt_on_cuda(ctx)) { /* a CPU context takes plain host memory */
        free(host);
        free(back);
        return;
    }
    for (i = 0; i < N; i++) host[i] = (int32_t)(i % 7) - 3;
    for (i = 0; i < N; i++) sum += host[i];
    assert_int_equal(cudaMalloc(&d_in, N * 4), cudaSuccess);
    assert_int_equal(cudaMalloc(&d_out, N * 4), cudaSuccess);
    assert_int_equal(cudaMemcpy(d_in, host, N * 4, cudaMemcpyHostToDevice), cudaSuccess);
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_out, N));
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_SUM, d_in, N, &got));
    assert_int_equal(got, sum);
    GPT_OK(ctx, gp_context_synchronize(ctx));
    assert_int_equal(cudaMemcpy(back, d_out, N * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(back[N - 1], sum);
    cudaFree(d_in);
    cudaFree(d_out);
    free(host);
    free(back);
}

static void set_cpu_threads_detail(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    assert_int_equal(gp_context_set_cpu_threads(ctx, -1), GP_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(gp_context_last_error(ctx), "-1"));
    assert_int_equal(gp_context_set_cpu_threads(ctx, 2), GP_SUCCESS);
    assert_string_equal(gp_context_last_error(ctx), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(min_max_skip_nan),
        GPT_TEST_BOTH(stencil_weights_are_rounded_first),
        GPT_TEST_BOTH(output_sizes),
        GPT_TEST_CUDA(caller_device_memory),
        GPT_TEST_BOTH(set_cpu_threads_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
