/* SPDX-License-Identifier: BSD-3-Clause */
/* test_compact.c - gp_compact and gp_compact_indices: the CPU reference
 * against a brute force, every dtype x flag type on each backend against
 * the reference at every test size and flag pattern (with a check that
 * nothing past the count is written), bad arguments. */
#include "test_util.h"

#include "internal.h" /* gpi_cpu_compact*: the reference */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_flag_type flag_types[] = {GP_UINT8_FLAGS, GP_INT32_FLAGS};

enum pattern { RANDOM_DENSE, RANDOM_SPARSE, ALL_ZERO, ALL_SET, NPATTERNS };
static const char *pattern_name(int p)
{
    static const char *names[] = {"dense", "sparse", "all-zero", "all-set"};
    return names[p];
}
static const char *flag_name(gp_flag_type t) { return t == GP_UINT8_FLAGS ? "uint8" : "int32"; }
static size_t flag_size(gp_flag_type t) { return t == GP_UINT8_FLAGS ? 1 : 4; }

/* Non-zero flags take many values, including int32 ones whose low byte is
 * zero (0x100, INT32_MIN): "non-zero" means the whole int32. */
static void fill_flags(gp_flag_type t, void *flags, size_t n, int pattern)
{
    static const int32_t odd_set[] = {1, -1, 0x100, 0x10000, INT32_MIN, 7};
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = gpt_rand64();
        int set = pattern == ALL_SET ? 1 : pattern == ALL_ZERO ? 0 : pattern == RANDOM_DENSE ? (r & 3) != 0 : (r & 15) == 0;
        if (t == GP_UINT8_FLAGS) ((uint8_t *)flags)[i] = set ? (uint8_t)(1 + (r >> 8) % 255) : 0;
        else ((int32_t *)flags)[i] = set ? odd_set[(r >> 8) % COUNT(odd_set)] : 0;
    }
}

static int flag_at(gp_flag_type t, const void *flags, size_t i)
{
    return t == GP_UINT8_FLAGS ? ((const uint8_t *)flags)[i] != 0 : ((const int32_t *)flags)[i] != 0;
}

/* ---- (1) the reference against a brute force ----------------------------------
 * Written differently: first count the selected elements, then fill the
 * output from the back. */
static size_t brute_compact(size_t es, const void *in, gp_flag_type t, const void *flags, void *out, size_t n)
{
    size_t i, count = 0, k;
    for (i = 0; i < n; i++) count += flag_at(t, flags, i);
    k = count;
    for (i = n; i-- > 0;)
        if (flag_at(t, flags, i)) {
            k--;
            memcpy((char *)out + k * es, (const char *)in + i * es, es);
        }
    return count;
}

static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 100, 1000};
    size_t di, fi, si;
    int p;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (fi = 0; fi < COUNT(flag_types); fi++)
            for (si = 0; si < COUNT(sizes); si++)
                for (p = 0; p < NPATTERNS; p++) {
                    gp_dtype d = dtypes[di];
                    gp_flag_type t = flag_types[fi];
                    size_t n = sizes[si], es = gp_dtype_size(d), count = 12345, bcount, i;
                    void *in = gpt_malloc(n * es), *flags = gpt_malloc(n * 4);
                    void *ref = gpt_malloc(n * es), *brute = gpt_malloc(n * es);
                    uint64_t *idx = gpt_malloc(n * 8);
                    gpt_fill_random(d, in, n, 0);
                    fill_flags(t, flags, n, p);
                    gpt_poison(ref, n * es);
                    assert_int_equal(gpi_cpu_compact(d, in, flags, t, ref, n, &count, 1), GP_SUCCESS);
                    bcount = brute_compact(es, in, t, flags, brute, n);
                    assert_int_equal(count, bcount);
                    if (count) assert_memory_equal(ref, brute, count * es);
                    gpt_expect_poison(ref, count * es, n * es, "reference compact");
                    gpt_poison(idx, n * 8);
                    count = 12345;
                    assert_int_equal(gpi_cpu_compact_indices(flags, t, idx, n, &count, 1), GP_SUCCESS);
                    assert_int_equal(count, bcount);
                    for (i = 0; i < count; i++) assert_true(flag_at(t, flags, idx[i]) && (i == 0 || idx[i] > idx[i - 1]));
                    gpt_expect_poison(idx, count * 8, n * 8, "reference compact_indices");
                    free(in);
                    free(flags);
                    free(ref);
                    free(brute);
                    free(idx);
                }
}

/* ---- (2) the backend against the reference ---------------------------------------- */
/* shift: bit 0 moves in, bit 1 flags, bit 2 out one element past an
 * aligned allocation (element-aligned, not vector-aligned: the kernels'
 * unvectorized paths). */
static void run_compact_shifted(gp_context *ctx, gp_dtype d, gp_flag_type t, size_t n, int pattern, int shift)
{
    size_t es = gp_dtype_size(d), fs = flag_size(t), ref_count = 0, count = (size_t)-7;
    size_t si = shift & 1 ? 1 : 0, sf = shift & 2 ? 1 : 0, so = shift & 4 ? 1 : 0;
    char *in_h = gpt_malloc((n + 1) * es), *flags_h = gpt_malloc((n + 1) * fs), *ref = gpt_malloc(n * es);
    char *got = gpt_malloc((n + 1) * es), *in, *flags, *out;
    char what[112];
    gpt_fill_random(d, in_h, n + 1, 0);
    fill_flags(t, flags_h, n + 1, pattern);
    gpi_cpu_compact(d, in_h + si * es, flags_h + sf * fs, t, ref, n, &ref_count, 1);
    in = gpt_buffer_from(ctx, in_h, (n + 1) * es);
    flags = gpt_buffer_from(ctx, flags_h, (n + 1) * fs);
    out = gpt_poisoned_buffer(ctx, (n + 1) * es);
    GPT_OK(ctx, gp_compact(ctx, d, in + si * es, flags + sf * fs, t, out + so * es, n, &count));
    snprintf(what, sizeof what, "compact %s, %s flags, %s, n=%zu, shift %d [%s]", gpt_dtype_name(d), flag_name(t),
             pattern_name(pattern), n, shift, gpt_backend_name(ctx));
    if (count != ref_count) fail_msg("%s: count %zu, want %zu", what, count, ref_count);
    gpt_buffer_to(ctx, got, out, (n + 1) * es);
    if (count && memcmp(ref, got + so * es, count * es) != 0) fail_msg("%s: elements differ", what);
    gpt_expect_poison(got, 0, so * es, what);
    gpt_expect_poison(got, (so + count) * es, (n + 1) * es, what);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, flags);
    gpt_buffer_free(ctx, out);
    free(in_h);
    free(flags_h);
    free(ref);
    free(got);
}

static void run_compact(gp_context *ctx, gp_dtype d, gp_flag_type t, size_t n, int pattern)
{
    run_compact_shifted(ctx, d, t, n, pattern, 0);
}

static void run_indices(gp_context *ctx, gp_flag_type t, size_t n, int pattern)
{
    size_t fs = flag_size(t), ref_count = 0, count = (size_t)-7;
    void *flags_h = gpt_malloc(n * fs), *flags, *out;
    uint64_t *ref = gpt_malloc(n * 8), *got = gpt_malloc(n * 8);
    char what[96];
    fill_flags(t, flags_h, n, pattern);
    gpi_cpu_compact_indices(flags_h, t, ref, n, &ref_count, 1);
    flags = gpt_buffer_from(ctx, flags_h, n * fs);
    out = gpt_poisoned_buffer(ctx, n * 8);
    GPT_OK(ctx, gp_compact_indices(ctx, flags, t, out, n, &count));
    snprintf(what, sizeof what, "compact_indices, %s flags, %s, n=%zu [%s]", flag_name(t), pattern_name(pattern), n,
             gpt_backend_name(ctx));
    if (count != ref_count) fail_msg("%s: count %zu, want %zu", what, count, ref_count);
    gpt_buffer_to(ctx, got, out, n * 8);
    if (count && memcmp(ref, got, count * 8) != 0) fail_msg("%s: indices differ", what);
    gpt_expect_poison(got, count * 8, n * 8, what);
    gpt_buffer_free(ctx, flags);
    gpt_buffer_free(ctx, out);
    free(flags_h);
    free(ref);
    free(got);
}

static void compact_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, fi, si;
    int p;
    for (di = 0; di < COUNT(dtypes); di++)
        for (fi = 0; fi < COUNT(flag_types); fi++)
            for (si = 0; sizes[si] != SIZE_MAX; si++)
                for (p = 0; p < NPATTERNS; p++)
                    /* The all-zero / all-set patterns once per size is enough. */
                    if (p < ALL_ZERO || di == 0 || sizes[si] <= 4097) run_compact(ctx, dtypes[di], flag_types[fi], sizes[si], p);
}

static void compact_indices_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t fi, si;
    int p;
    for (fi = 0; fi < COUNT(flag_types); fi++)
        for (si = 0; sizes[si] != SIZE_MAX; si++)
            for (p = 0; p < NPATTERNS; p++) run_indices(ctx, flag_types[fi], sizes[si], p);
}

/* Sizes at the CUDA kernel's tile edges (8192 4-byte or 4096 8-byte
 * elements a tile), and buffers that are element- but not vector-aligned. */
static void compact_tile_edges_and_alignment(void **state)
{
    static const size_t sizes[] = {4095, 4096, 4097, 8191, 8192, 8193, 16385, 24577};
    static const size_t shifted_sizes[] = {1, 3, 33, 4097, 8193, 100003};
    gp_context *ctx = gpt_ctx(state);
    size_t di, fi, si;
    int shift;
    for (di = 0; di < COUNT(dtypes); di += 2) /* one 4-byte and one 8-byte dtype is enough here */
        for (fi = 0; fi < COUNT(flag_types); fi++) {
            for (si = 0; si < COUNT(sizes); si++) run_compact(ctx, dtypes[di], flag_types[fi], sizes[si], RANDOM_DENSE);
            for (si = 0; si < COUNT(shifted_sizes); si++)
                for (shift = 1; shift < 8; shift++)
                    run_compact_shifted(ctx, dtypes[di], flag_types[fi], shifted_sizes[si], RANDOM_DENSE, shift);
        }
    for (fi = 0; fi < COUNT(flag_types); fi++)
        for (si = 0; si < COUNT(sizes); si++) run_indices(ctx, flag_types[fi], sizes[si], RANDOM_SPARSE);
}

/* in and flags may be the same memory (both are only read). */
static void compact_in_may_alias_flags(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t host[6] = {0, 5, 0, -3, 0x100, 0}, got[6], want[3] = {5, -3, 0x100};
    size_t count = 0;
    void *buf = gpt_buffer_from(ctx, host, sizeof host), *out = gpt_poisoned_buffer(ctx, sizeof host);
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, buf, buf, GP_INT32_FLAGS, out, 6, &count));
    assert_int_equal(count, 3);
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_memory_equal(got, want, sizeof want);
    gpt_expect_poison(got, sizeof want, sizeof got, "aliased compact");
    gpt_buffer_free(ctx, buf);
    gpt_buffer_free(ctx, out);
}

/* ---- (3) bad arguments: a status, a message, and outputs untouched --------- */
static void compact_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    void *in = gpt_poisoned_buffer(ctx, 2 * n * 8), *flags = gpt_poisoned_buffer(ctx, n * 4);
    void *out = gpt_poisoned_buffer(ctx, 2 * n * 8);
    char *inb = (char *)in, *outb = (char *)out;
    size_t count = 777;

    assert_int_equal(gp_compact(NULL, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, (gp_dtype)0, in, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_compact(ctx, (gp_dtype)99, in, flags, GP_UINT8_FLAGS, out, n, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, (gp_flag_type)0, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, (gp_flag_type)99, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, NULL, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, NULL, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, NULL, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, SIZE_MAX, &count),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_compact(ctx, GP_INT64, in, flags, GP_INT32_FLAGS, out, SIZE_MAX / 4 + 1, &count),
                     GP_ERROR_SIZE_OVERFLOW);
    /* out may not overlap in (partially or exactly) nor flags. */
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, inb + 8, n, &count), GP_ERROR_OVERLAP);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_compact(ctx, GP_INT32, outb + 8, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, in, n, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, outb + 4, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_OVERLAP);
    /* Misaligned elements or flags. */
    assert_int_equal(gp_compact(ctx, GP_INT64, inb + 4, flags, GP_UINT8_FLAGS, out, n, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact(ctx, GP_INT32, in, (char *)flags + 1, GP_INT32_FLAGS, out, n - 1, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    if (gp_context_last_error(ctx)[0] == '\0') fail_msg("no detail message");
    if (strcmp(gpt_backend_name(ctx), "cuda") == 0) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_compact(ctx, GP_INT32, host, flags, GP_UINT8_FLAGS, out, n, &count),
                         GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, host, n, &count),
                         GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    assert_int_equal(count, 777);
    gpt_expect_untouched(ctx, out, 2 * n * 8);
    gpt_expect_untouched(ctx, in, 2 * n * 8);

    /* n == 0 writes a count of 0 and needs no buffers. */
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, NULL, NULL, GP_UINT8_FLAGS, NULL, 0, &count));
    assert_int_equal(count, 0);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, flags);
    gpt_buffer_free(ctx, out);
}

static void compact_indices_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    void *flags = gpt_poisoned_buffer(ctx, n * 8 * 2), *out = gpt_poisoned_buffer(ctx, n * 8);
    char *fb = (char *)flags;
    size_t count = 777;

    assert_int_equal(gp_compact_indices(NULL, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact_indices(ctx, flags, (gp_flag_type)0, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_compact_indices(ctx, flags, (gp_flag_type)99, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact_indices(ctx, NULL, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, NULL, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, out, n, NULL), GP_ERROR_INVALID_ARGUMENT);
    /* 1-byte flags never overflow, the 8-byte indices do. */
    assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, out, SIZE_MAX, &count), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, out, SIZE_MAX / 8 + 1, &count),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_compact_indices(ctx, flags, GP_INT32_FLAGS, (uint64_t *)(fb + 8), n, &count),
                     GP_ERROR_OVERLAP);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_compact_indices(ctx, (char *)out + 8, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, (uint64_t *)(fb + n * 8 + 4), n / 2, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_compact_indices(ctx, fb + 2, GP_INT32_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    if (strcmp(gpt_backend_name(ctx), "cuda") == 0) {
        uint64_t host[64];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_compact_indices(ctx, flags, GP_UINT8_FLAGS, host, n, &count), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    assert_int_equal(count, 777);
    gpt_expect_untouched(ctx, out, n * 8);
    gpt_expect_untouched(ctx, flags, n * 8 * 2);
    GPT_OK(ctx, gp_compact_indices(ctx, NULL, GP_INT32_FLAGS, NULL, 0, &count));
    assert_int_equal(count, 0);
    gpt_buffer_free(ctx, flags);
    gpt_buffer_free(ctx, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(compact_matches_reference),
        GPT_TEST_BOTH(compact_indices_matches_reference),
        GPT_TEST_BOTH(compact_tile_edges_and_alignment),
        GPT_TEST_BOTH(compact_in_may_alias_flags),
        GPT_TEST_BOTH(compact_bad_arguments),
        GPT_TEST_BOTH(compact_indices_bad_arguments),
    };
    return cmocka_run_group_tests_name("compact", tests, NULL, NULL);
}
