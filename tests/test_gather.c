/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gather.c - gp_gather and gp_scatter: the CPU reference against a
 * tiny reference, each backend against the reference for 4-, 8- and
 * 16-byte elements at awkward sizes with sorted, random and reversed
 * indices, out-of-range indices in both modes (refused with nothing
 * written, or skipped), scatter with unique indices, bad arguments. */
#include "test_util.h"

#include "permute_internal.h" /* gpi_cpu_gather/scatter: the reference */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t elem_sizes[] = {4, 8, 16};

enum order { SORTED, RANDOM, REVERSED, NORDERS };

static void fill_bytes(void *p, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i += 8) {
        const uint64_t r = gpt_rand64();
        memcpy((unsigned char *)p + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
}

/* n indices into [0, m) (m > 0): ascending, random, or descending;
 * `bad` of them (at random positions) out of range. */
static void fill_indices(uint64_t *idx, size_t n, size_t m, int order, size_t bad)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (order == SORTED) idx[i] = (uint64_t)((unsigned __int128)i * m / (n ? n : 1));
        else if (order == REVERSED) idx[i] = m - 1 - (uint64_t)((unsigned __int128)i * m / (n ? n : 1));
        else idx[i] = gpt_rand64() % m;
    }
    for (i = 0; i < bad && n; i++) {
        const uint64_t r = gpt_rand64();
        idx[r % n] = (r >> 32) & 1 ? m + (r >> 40) : UINT64_MAX - (r >> 60);
    }
}

/* A permutation of [0, n): unique scatter destinations. */
static void fill_permutation(uint64_t *idx, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) idx[i] = i;
    for (i = n; i > 1; i--) {
        const size_t j = (size_t)(gpt_rand64() % i);
        const uint64_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

static void reference_matches_tiny(void **state)
{
    const size_t n = 500, m = 300;
    size_t ei, i;
    (void)state;
    gpt_seed_once();
    for (ei = 0; ei < COUNT(elem_sizes); ei++) {
        const size_t es = elem_sizes[ei];
        uint64_t *idx = gpt_malloc(n * 8);
        unsigned char *in = gpt_malloc(n * es), *out = gpt_malloc(n * es), *want = gpt_malloc(n * es);
        size_t bad = 0;
        fill_bytes(in, n * es);
        fill_indices(idx, n, m, RANDOM, 17);
        /* gather: element by element, out-of-range ones left poisoned */
        gpt_poison(out, n * es);
        gpt_poison(want, n * es);
        for (i = 0; i < n; i++)
            if (idx[i] < m)
                for (size_t b = 0; b < es; b++) want[i * es + b] = in[idx[i] * es + b];
        assert_int_equal(gpi_cpu_gather(es, in, m, idx, out, n), GP_SUCCESS);
        assert_memory_equal(out, want, n * es);
        /* scatter: the last writer wins on the CPU */
        gpt_poison(out, m * es);
        gpt_poison(want, m * es);
        for (i = 0; i < n; i++)
            if (idx[i] < m) memcpy(want + idx[i] * es, in + i * es, es);
        assert_int_equal(gpi_cpu_scatter(es, in, idx, n, out, m), GP_SUCCESS);
        assert_memory_equal(out, want, m * es);
        assert_int_equal(gpi_cpu_check_indices(idx, n, m, &bad), GP_SUCCESS);
        for (i = 0; idx[i] < m; i++) {}
        assert_int_equal(bad, i);
        free(idx);
        free(in);
        free(out);
        free(want);
    }
}

/* A gather's or scatter's outcome over out_bytes of output (poisoned, with a
 * guard byte past it): refused, the output is untouched; else it equals ref
 * and the guard byte is untouched. */
static void expect_outcome(gp_context *ctx, gp_status s, int refused, const unsigned char *ref,
                           const unsigned char *got, size_t out_bytes, const char *what)
{
    if (refused) {
        if (s != GP_ERROR_INVALID_ARGUMENT) fail_msg("%s: status %s, want refusal", what, gp_status_string(s));
        gpt_expect_poison(got, 0, out_bytes + 1, what);
    } else {
        if (s != GP_SUCCESS) fail_msg("%s: %s [%s]", what, gp_status_string(s), gp_context_last_error(ctx));
        if (out_bytes && memcmp(ref, got, out_bytes) != 0) fail_msg("%s: elements differ", what);
        gpt_expect_poison(got, out_bytes, out_bytes + 1, what);
    }
}

/* One case's host arrays (input, indices, reference, result) and its
 * buffers. */
typedef struct permute_case {
    uint64_t *idx;
    unsigned char *in, *ref, *got;
    void *d_in, *d_idx, *d_out;
} permute_case;

/* Upload the input and idx_n indices, poison the output (each with a guard
 * past its end). */
static void case_upload(gp_context *ctx, permute_case *c, size_t in_bytes, size_t idx_n, size_t out_bytes)
{
    c->d_in = gpt_buffer_from(ctx, c->in, in_bytes + 1);
    c->d_idx = gpt_buffer_from(ctx, c->idx, idx_n * 8 + 8);
    c->d_out = gpt_poisoned_buffer(ctx, out_bytes + 1);
}

/* Download the output, judge the call's outcome (expect_outcome), free the case. */
static void case_finish(gp_context *ctx, permute_case *c, gp_status s, int refused, size_t out_bytes,
                        const char *what)
{
    gpt_buffer_to(ctx, c->got, c->d_out, out_bytes + 1);
    expect_outcome(ctx, s, refused, c->ref, c->got, out_bytes, what);
    gpt_buffer_free(ctx, c->d_in);
    gpt_buffer_free(ctx, c->d_idx);
    gpt_buffer_free(ctx, c->d_out);
    free(c->idx);
    free(c->in);
    free(c->ref);
    free(c->got);
}

static void run_gather(gp_context *ctx, size_t es, size_t n, size_t m, int order, size_t bad, gp_index_check mode)
{
    permute_case c;
    char what[128];
    gp_status s;
    c.idx = gpt_malloc(n * 8 + 8);
    c.in = gpt_malloc(m * es + 1), c.ref = gpt_malloc(n * es + 1), c.got = gpt_malloc(n * es + 1);
    fill_bytes(c.in, m * es);
    fill_indices(c.idx, n, m, order, bad);
    gpt_poison(c.ref, n * es);
    gpi_cpu_gather(es, c.in, m, c.idx, c.ref, n);
    case_upload(ctx, &c, m * es, n, n * es);
    snprintf(what, sizeof what, "gather %zu-byte, n=%zu from %zu, order %d, %zu bad, %s [%s]", es, n, m, order, bad,
             mode == GP_INDEX_CHECK ? "check" : "skip", gpt_backend_name(ctx));
    s = gp_gather(ctx, es, c.d_in, m, c.d_idx, c.d_out, n, mode);
    case_finish(ctx, &c, s, bad && n && mode == GP_INDEX_CHECK, n * es, what);
}

/* Scatter into m >= n slots through unique indices (a permutation of
 * [0, m) cut to n), `bad` of them out of range. */
static void run_scatter(gp_context *ctx, size_t es, size_t n, size_t m, size_t bad, gp_index_check mode)
{
    permute_case c;
    char what[128];
    size_t i;
    gp_status s;
    c.idx = gpt_malloc(m * 8 + 8);
    c.in = gpt_malloc(n * es + 1), c.ref = gpt_malloc(m * es + 1), c.got = gpt_malloc(m * es + 1);
    fill_bytes(c.in, n * es);
    fill_permutation(c.idx, m);
    for (i = 0; i < bad && n; i++) c.idx[gpt_rand64() % n] = m + i;
    gpt_poison(c.ref, m * es);
    gpi_cpu_scatter(es, c.in, c.idx, n, c.ref, m);
    case_upload(ctx, &c, n * es, n, m * es);
    snprintf(what, sizeof what, "scatter %zu-byte, n=%zu into %zu, %zu bad, %s [%s]", es, n, m, bad,
             mode == GP_INDEX_CHECK ? "check" : "skip", gpt_backend_name(ctx));
    s = gp_scatter(ctx, es, c.d_in, c.d_idx, n, c.d_out, m, mode);
    case_finish(ctx, &c, s, bad && n && mode == GP_INDEX_CHECK, m * es, what);
}

static void gather_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t ei, si;
    int order;
    for (ei = 0; ei < COUNT(elem_sizes); ei++)
        for (si = 0; sizes[si] != SIZE_MAX; si++)
            for (order = 0; order < NORDERS; order++) {
                const size_t n = sizes[si], m = n ? n + n / 3 + 1 : 5;
                run_gather(ctx, elem_sizes[ei], n, m, order, 0, GP_INDEX_SKIP);
                run_gather(ctx, elem_sizes[ei], n, m, order, 0, GP_INDEX_CHECK);
                if (n <= 65537) { /* out-of-range indices: refused, or skipped */
                    run_gather(ctx, elem_sizes[ei], n, m, order, 3, GP_INDEX_CHECK);
                    run_gather(ctx, elem_sizes[ei], n, m, order, 3, GP_INDEX_SKIP);
                }
            }
}

static void scatter_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t ei, si;
    for (ei = 0; ei < COUNT(elem_sizes); ei++)
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            const size_t n = sizes[si], m = n + n / 2 + 1;
            run_scatter(ctx, elem_sizes[ei], n, m, 0, GP_INDEX_SKIP);
            run_scatter(ctx, elem_sizes[ei], n, m, 0, GP_INDEX_CHECK);
            run_scatter(ctx, elem_sizes[ei], n, n, 0, GP_INDEX_CHECK); /* a full permutation */
            if (n <= 65537) {
                run_scatter(ctx, elem_sizes[ei], n, m, 2, GP_INDEX_CHECK);
                run_scatter(ctx, elem_sizes[ei], n, m, 2, GP_INDEX_SKIP);
            }
        }
}

/* Scatter with duplicates: each written slot holds one of its candidates. */
static void scatter_duplicates_pick_a_candidate(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 100000, m = 1000;
    uint64_t *idx = gpt_malloc(n * 8), *in = gpt_malloc(n * 8), *got = gpt_malloc(m * 8);
    void *d_in, *d_idx, *d_out;
    size_t i;
    for (i = 0; i < n; i++) {
        idx[i] = gpt_rand64() % m;
        in[i] = idx[i] << 32 | i; /* the slot it aims at, and who it is */
    }
    d_in = gpt_buffer_from(ctx, in, n * 8);
    d_idx = gpt_buffer_from(ctx, idx, n * 8);
    d_out = gpt_poisoned_buffer(ctx, m * 8);
    GPT_OK(ctx, gp_scatter(ctx, 8, d_in, d_idx, n, d_out, m, GP_INDEX_SKIP));
    gpt_buffer_to(ctx, got, d_out, m * 8);
    for (i = 0; i < m; i++) {
        const uint64_t who = got[i] & 0xffffffffu;
        if (got[i] == 0xa5a5a5a5a5a5a5a5ull) continue; /* no index named it */
        assert_true(who < n && idx[who] == i && got[i] >> 32 == i);
    }
    gpt_buffer_free(ctx, d_in);
    gpt_buffer_free(ctx, d_idx);
    gpt_buffer_free(ctx, d_out);
    free(idx);
    free(in);
    free(got);
}

static void gather_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    void *in = gpt_poisoned_buffer(ctx, n * 16), *out = gpt_poisoned_buffer(ctx, n * 16);
    uint64_t *idx_h = gpt_malloc(n * 8);
    void *idx;
    char *inb = (char *)in, *outb = (char *)out;
    size_t i;
    for (i = 0; i < n; i++) idx_h[i] = i;
    idx = gpt_buffer_from(ctx, idx_h, n * 8);

    assert_int_equal(gp_gather(NULL, 4, in, n, idx, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 2, in, n, idx, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_gather(ctx, 32, in, n, idx, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 4, in, n, idx, out, n, (gp_index_check)0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 4, NULL, n, idx, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 4, in, n, NULL, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 4, in, n, idx, NULL, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 16, in, SIZE_MAX / 8, idx, out, n, GP_INDEX_CHECK), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_gather(ctx, 4, in, n, idx, out, SIZE_MAX / 4, GP_INDEX_CHECK), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_gather(ctx, 4, in, n, idx, inb + 4, n, GP_INDEX_SKIP), GP_ERROR_OVERLAP);
    assert_int_equal(gp_gather(ctx, 4, in, n, idx, idx, n, GP_INDEX_SKIP), GP_ERROR_OVERLAP);
    assert_int_equal(gp_gather(ctx, 16, inb + 8, n - 1, idx, out, n, GP_INDEX_SKIP), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 8, in, n, idx, outb + 4, n - 1, GP_INDEX_SKIP), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_gather(ctx, 4, in, n, (const uint64_t *)(void *)((char *)idx + 4), out, n - 1, GP_INDEX_SKIP),
                     GP_ERROR_INVALID_ARGUMENT);
    /* an index one past in's end: refused, naming its position */
    assert_int_equal(gp_gather(ctx, 4, in, n - 1, idx, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(gp_context_last_error(ctx), "indices[63]"));
    assert_int_equal(gp_scatter(NULL, 4, in, idx, n, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scatter(ctx, 12, in, idx, n, out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scatter(ctx, 4, in, idx, n, out, n, (gp_index_check)3), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scatter(ctx, 4, in, idx, n, NULL, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scatter(ctx, 4, in, idx, n, in, n, GP_INDEX_CHECK), GP_ERROR_OVERLAP);
    assert_int_equal(gp_scatter(ctx, 4, in, idx, n, out, n - 1, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_gather(ctx, 4, host, n, idx, out, n, GP_INDEX_SKIP), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_scatter(ctx, 4, in, idx, n, host, n, GP_INDEX_SKIP), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, out, n * 16);
    gpt_expect_untouched(ctx, in, n * 16);
    /* n == 0 needs no buffers */
    GPT_OK(ctx, gp_gather(ctx, 4, NULL, 0, NULL, NULL, 0, GP_INDEX_CHECK));
    GPT_OK(ctx, gp_scatter(ctx, 16, NULL, NULL, 0, NULL, 0, GP_INDEX_SKIP));
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    gpt_buffer_free(ctx, idx);
    free(idx_h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_tiny),
        GPT_TEST_BOTH(gather_matches_reference),
        GPT_TEST_BOTH(scatter_matches_reference),
        GPT_TEST_BOTH(scatter_duplicates_pick_a_candidate),
        GPT_TEST_BOTH(gather_bad_arguments),
    };
    return cmocka_run_group_tests_name("gather", tests, NULL, NULL);
}
