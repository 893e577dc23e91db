/* SPDX-License-Identifier: BSD-3-Clause */
/* test_partition.c - gp_partition and gp_partition3: the CPU reference
 * against a brute force, each backend against the reference for every
 * dtype x flag type at awkward sizes and flag patterns (none selected, all
 * selected, dense, sparse, alternating), the CUDA kernels' tile and mask
 * block edges, unaligned buffers, bad arguments. */
#include "test_util.h"

#include "permute_internal.h" /* gpi_cpu_partition: the reference */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_flag_type flag_types[] = {GP_UINT8_FLAGS, GP_INT32_FLAGS};

enum pattern { DENSE, SPARSE, NONE_SET, ALL_SET, ALTERNATE, NPATTERNS };
static size_t flag_size(gp_flag_type t) { return t == GP_UINT8_FLAGS ? 1 : 4; }

/* Set flags take many values, int32 ones with a zero low byte among them. */
static void fill_flags(gp_flag_type t, void *flags, size_t n, int pattern)
{
    static const int32_t odd_set[] = {1, -1, 0x100, 0x10000, INT32_MIN, 7};
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        const int set = pattern == ALL_SET     ? 1
                        : pattern == NONE_SET  ? 0
                        : pattern == ALTERNATE ? (i & 1) == 0
                        : pattern == DENSE     ? (r & 1) != 0
                                               : (r & 15) == 0;
        if (t == GP_UINT8_FLAGS) ((uint8_t *)flags)[i] = set ? (uint8_t)(1 + (r >> 8) % 255) : 0;
        else ((int32_t *)flags)[i] = set ? odd_set[(r >> 8) % COUNT(odd_set)] : 0;
    }
}

static int flag_at(gp_flag_type t, const void *flags, size_t i)
{
    return t == GP_UINT8_FLAGS ? ((const uint8_t *)flags)[i] != 0 : ((const int32_t *)flags)[i] != 0;
}

/* Brute force, written differently: each element's destination is counted
 * from the flags of all elements before it. */
static void brute_partition(size_t es, const void *in, gp_flag_type t, const void *f1, const void *f2, void *out,
                            size_t n, size_t counts[3])
{
    size_t i, j, c[3] = {0, 0, 0};
    for (i = 0; i < n; i++) c[flag_at(t, f1, i) ? 0 : f2 && flag_at(t, f2, i) ? 1 : 2]++;
    for (i = 0; i < n; i++) {
        const int part = flag_at(t, f1, i) ? 0 : f2 && flag_at(t, f2, i) ? 1 : 2;
        size_t dst = part == 0 ? 0 : part == 1 ? c[0] : c[0] + c[1];
        for (j = 0; j < i; j++) dst += (flag_at(t, f1, j) ? 0 : f2 && flag_at(t, f2, j) ? 1 : 2) == part;
        memcpy((char *)out + dst * es, (const char *)in + i * es, es);
    }
    memcpy(counts, c, sizeof c);
}

static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 100, 700};
    size_t di, fi, si;
    int p, three;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (fi = 0; fi < COUNT(flag_types); fi++)
            for (si = 0; si < COUNT(sizes); si++)
                for (p = 0; p < NPATTERNS; p++)
                    for (three = 0; three < 2; three++) {
                        const gp_dtype d = dtypes[di];
                        const gp_flag_type t = flag_types[fi];
                        const size_t n = sizes[si], es = gp_dtype_size(d);
                        size_t counts[3] = {7, 7, 7}, bc[3];
                        void *in = gpt_malloc(n * es + 1), *f1 = gpt_malloc(n * 4 + 1), *f2 = gpt_malloc(n * 4 + 1);
                        void *ref = gpt_malloc(n * es + 1), *brute = gpt_malloc(n * es + 1);
                        gpt_fill_random(d, in, n, 0);
                        fill_flags(t, f1, n, p);
                        fill_flags(t, f2, n, DENSE);
                        gpt_poison(ref, n * es);
                        assert_int_equal(gpi_cpu_partition(d, in, f1, three ? f2 : NULL, t, ref, n, counts), GP_SUCCESS);
                        brute_partition(es, in, t, f1, three ? f2 : NULL, brute, n, bc);
                        assert_memory_equal(counts, bc, sizeof bc);
                        if (n) assert_memory_equal(ref, brute, n * es);
                        free(in);
                        free(f1);
                        free(f2);
                        free(ref);
                        free(brute);
                    }
}

/* shift: bit 0 moves in, bit 1 the flags, bit 2 out one element past an
 * aligned allocation (the kernels' unvectorized paths). */
static void run_partition(gp_context *ctx, gp_dtype d, gp_flag_type t, size_t n, int pattern, int three, int shift)
{
    const size_t es = gp_dtype_size(d), fs = flag_size(t);
    const size_t si = shift & 1, sf = (shift >> 1) & 1, so = (shift >> 2) & 1;
    size_t ref_counts[3], counts[3] = {7, 7, 7}, selected = 7;
    char *in_h = gpt_malloc((n + 1) * es), *f1_h = gpt_malloc((n + 1) * fs), *f2_h = gpt_malloc((n + 1) * fs);
    char *ref = gpt_malloc(n * es + 1), *got = gpt_malloc((n + 1) * es), *in, *f1, *f2, *out;
    char what[128];
    gpt_fill_random(d, in_h, n + 1, 0);
    fill_flags(t, f1_h, n + 1, pattern);
    fill_flags(t, f2_h, n + 1, pattern == ALL_SET || pattern == ALTERNATE ? DENSE : pattern);
    gpi_cpu_partition(d, in_h + si * es, f1_h + sf * fs, three ? f2_h + sf * fs : NULL, t, ref, n, ref_counts);
    in = gpt_buffer_from(ctx, in_h, (n + 1) * es);
    f1 = gpt_buffer_from(ctx, f1_h, (n + 1) * fs);
    f2 = gpt_buffer_from(ctx, f2_h, (n + 1) * fs);
    out = gpt_poisoned_buffer(ctx, (n + 1) * es);
    snprintf(what, sizeof what, "partition%s %s, %s flags, pattern %d, n=%zu, shift %d [%s]", three ? "3" : "",
             gpt_dtype_name(d), t == GP_UINT8_FLAGS ? "uint8" : "int32", pattern, n, shift, gpt_backend_name(ctx));
    if (three) {
        GPT_OK(ctx, gp_partition3(ctx, d, in + si * es, f1 + sf * fs, f2 + sf * fs, t, out + so * es, n, counts));
        if (memcmp(counts, ref_counts, sizeof counts) != 0)
            fail_msg("%s: counts %zu %zu %zu, want %zu %zu %zu", what, counts[0], counts[1], counts[2], ref_counts[0],
                     ref_counts[1], ref_counts[2]);
    } else {
        GPT_OK(ctx, gp_partition(ctx, d, in + si * es, f1 + sf * fs, t, out + so * es, n, &selected));
        if (selected != ref_counts[0]) fail_msg("%s: %zu selected, want %zu", what, selected, ref_counts[0]);
    }
    gpt_buffer_to(ctx, got, out, (n + 1) * es);
    if (n && memcmp(ref, got + so * es, n * es) != 0) fail_msg("%s: elements differ", what);
    gpt_expect_poison(got, 0, so * es, what);
    gpt_expect_poison(got, (so + n) * es, (n + 1) * es, what);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, f1);
    gpt_buffer_free(ctx, f2);
    gpt_buffer_free(ctx, out);
    free(in_h);
    free(f1_h);
    free(f2_h);
    free(ref);
    free(got);
}

static void partition_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, fi, si;
    int p, three;
    for (di = 0; di < COUNT(dtypes); di++)
        for (fi = 0; fi < COUNT(flag_types); fi++)
            for (si = 0; sizes[si] != SIZE_MAX; si++)
                for (p = 0; p < NPATTERNS; p++)
                    for (three = 0; three < 2; three++)
                        if ((p < NONE_SET || di < 2 || sizes[si] <= 4097) && (p != ALTERNATE || sizes[si] <= 65537))
                            run_partition(ctx, dtypes[di], flag_types[fi], sizes[si], p, three, 0);
}

/* Tile edges of the CUDA kernels: a move tile is 8192 4-byte or 4096
 * 8-byte elements, a block of the mask kernel reads the flags of 4 tiles
 * (32768 / 16384 elements) and chains its counts to the blocks before it;
 * sizes a tile or a mask block +-1 and several of them +-1, every flag
 * pattern. Then element- but not vector-aligned buffers. */
static void partition_tile_edges_and_alignment(void **state)
{
    static const size_t sizes[] = {4095,  4096,  4097,  8191,  8192,  8193,  12287, 12289, 16383,  16384, 16385,
                                   24575, 24577, 32767, 32768, 32769, 40961, 65535, 65536, 65537, 139263, 139265};
    static const size_t shifted[] = {1, 3, 33, 4097, 8193, 100003};
    gp_context *ctx = gpt_ctx(state);
    size_t di, fi, si;
    int p, shift, three;
    for (di = 0; di < COUNT(dtypes); di += 2)
        for (fi = 0; fi < COUNT(flag_types); fi++)
            for (three = 0; three < 2; three++) {
                for (si = 0; si < COUNT(sizes); si++)
                    for (p = 0; p < NPATTERNS; p++)
                        if (p == DENSE || (p != SPARSE && dtypes[di] != GP_FLOAT32))
                            run_partition(ctx, dtypes[di], flag_types[fi], sizes[si], p, three, 0);
                for (si = 0; si < COUNT(shifted); si++)
                    for (shift = 1; shift < 8; shift++)
                        run_partition(ctx, dtypes[di], flag_types[fi], shifted[si], SPARSE, three, shift);
            }
}

/* Enough mask blocks (512 and more) for the CUDA look-back's delays, with
 * the output one element off a 16-byte boundary. */
static void partition_many_mask_blocks(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = (size_t)512 * 32768 + 12347;
    int three;
    for (three = 0; three < 2; three++) {
        run_partition(ctx, GP_INT32, GP_UINT8_FLAGS, n, DENSE, three, 4);
        run_partition(ctx, GP_INT64, GP_INT32_FLAGS, n / 2, ALTERNATE, three, 0);
    }
}

/* The flag arrays may be one buffer, and may alias in. */
static void partition_inputs_may_alias(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 10001;
    int32_t *h = gpt_malloc(n * 4), *ref = gpt_malloc(n * 4), *got = gpt_malloc(n * 4);
    size_t i, counts[3], ref_counts[3];
    void *in, *out;
    for (i = 0; i < n; i++) h[i] = (gpt_rand64() & 1) ? (int32_t)i : 0;
    gpi_cpu_partition(GP_INT32, h, h, h, GP_INT32_FLAGS, ref, n, ref_counts);
    assert_int_equal(ref_counts[1], 0);
    in = gpt_buffer_from(ctx, h, n * 4);
    out = gpt_poisoned_buffer(ctx, n * 4);
    GPT_OK(ctx, gp_partition3(ctx, GP_INT32, in, in, in, GP_INT32_FLAGS, out, n, counts));
    gpt_buffer_to(ctx, got, out, n * 4);
    assert_memory_equal(counts, ref_counts, sizeof counts);
    assert_memory_equal(got, ref, n * 4);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    free(h);
    free(ref);
    free(got);
}

static void partition_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    void *in = gpt_poisoned_buffer(ctx, 2 * n * 8), *flags = gpt_poisoned_buffer(ctx, n * 4);
    void *out = gpt_poisoned_buffer(ctx, 2 * n * 8);
    char *inb = (char *)in, *outb = (char *)out;
    size_t count = 777, counts[3] = {777, 777, 777};

    assert_int_equal(gp_partition(NULL, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, (gp_dtype)0, in, flags, GP_UINT8_FLAGS, out, n, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, flags, (gp_flag_type)3, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, NULL, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, NULL, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, NULL, n, &count), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, SIZE_MAX, &count),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, inb + 8, n, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, outb + 4, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_OVERLAP);
    assert_int_equal(gp_partition(ctx, GP_INT64, inb + 4, flags, GP_UINT8_FLAGS, out, n, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition(ctx, GP_INT32, in, (char *)flags + 1, GP_INT32_FLAGS, out, n - 1, &count),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition3(ctx, GP_INT32, in, flags, NULL, GP_UINT8_FLAGS, out, n, counts),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition3(ctx, GP_INT32, in, flags, flags, GP_UINT8_FLAGS, out, n, NULL),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_partition3(ctx, GP_INT32, in, flags, outb + 4, GP_UINT8_FLAGS, out, n, counts),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_partition3(ctx, GP_INT32, in, flags, (char *)flags + 2, GP_INT32_FLAGS, out, n - 1, counts),
                     GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_partition(ctx, GP_INT32, host, flags, GP_UINT8_FLAGS, out, n, &count), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_partition3(ctx, GP_INT32, in, flags, host, GP_UINT8_FLAGS, out, n, counts),
                         GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    assert_int_equal(count, 777);
    assert_int_equal(counts[0], 777);
    assert_int_equal(counts[2], 777);
    gpt_expect_untouched(ctx, out, 2 * n * 8);
    gpt_expect_untouched(ctx, in, 2 * n * 8);
    GPT_OK(ctx, gp_partition(ctx, GP_INT32, NULL, NULL, GP_UINT8_FLAGS, NULL, 0, &count));
    assert_int_equal(count, 0);
    GPT_OK(ctx, gp_partition3(ctx, GP_INT32, NULL, NULL, NULL, GP_UINT8_FLAGS, NULL, 0, counts));
    assert_true(counts[0] == 0 && counts[1] == 0 && counts[2] == 0);
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, flags);
    gpt_buffer_free(ctx, out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(partition_matches_reference),
        GPT_TEST_BOTH(partition_tile_edges_and_alignment),
        GPT_TEST_CUDA(partition_many_mask_blocks),
        GPT_TEST_BOTH(partition_inputs_may_alias),
        GPT_TEST_BOTH(partition_bad_arguments),
    };
    return cmocka_run_group_tests_name("partition", tests, NULL, NULL);
}
