/* SPDX-License-Identifier: BSD-3-Clause */
/* test_segmented_reduce.c - gp_segmented_reduce: the CPU reference against
 * a brute force, every dtype x op on each backend against the reference over
 * many segment shapes, float sums bit for bit (the tree both backends
 * follow), identities of empty segments, NaN and -0.0, bad arguments with
 * outputs untouched. */
#include "test_util.h"
#include "test_values.h"

#include "segmented_internal.h"

#include <gpuprim/segmented.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

/* Segment shapes: n elements cut into *segs segments (offsets malloc'd). */
enum { SHAPE_ALL_EMPTY, SHAPE_ONE, SHAPE_SMALL, SHAPE_RANDOM, SHAPE_GAPS, SHAPE_BIG_AND_SMALL, SHAPE_EDGE_LENGTHS,
       SHAPE_COUNT };

static uint64_t *make_offsets(int shape, size_t *n, size_t *segs)
{
    size_t s, cap = 10002;
    uint64_t *off = gpt_malloc(cap * sizeof *off), at = 0;
    switch (shape) {
    case SHAPE_ALL_EMPTY: /* elements before and after, every segment empty */
        *segs = 7;
        for (s = 0; s <= 7; s++) off[s] = *n / 2;
        break;
    case SHAPE_ONE:
        *segs = 1, off[0] = 0, off[1] = *n;
        break;
    case SHAPE_SMALL: /* 10^4 segments of 0..512 elements: n follows */
        *segs = 10000;
        for (s = 0; s < 10000; s++) off[s] = at, at += gpt_rand64() % 513;
        off[10000] = at, *n = at;
        break;
    case SHAPE_RANDOM: /* random cuts, empty ones likely */
        *segs = 1 + gpt_rand64() % 300;
        for (s = 0; s <= *segs; s++) off[s] = *n ? gpt_rand64() % (*n + 1) : 0;
        for (s = 1; s <= *segs; s++) /* insertion sort: small */
            for (size_t k = s; k > 0 && off[k - 1] > off[k]; k--) at = off[k], off[k] = off[k - 1], off[k - 1] = at;
        off[0] = 0, off[*segs] = *n;
        break;
    case SHAPE_GAPS: /* elements outside every segment at both ends */
        *segs = 3;
        off[0] = *n / 5, off[1] = *n / 3, off[2] = *n / 3, off[3] = *n - *n / 4;
        break;
    case SHAPE_EDGE_LENGTHS: { /* lengths around a 16-byte vector, a warp's vectors and a tree block, at
                                  every start alignment: n follows */
        static const uint64_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                                        4095, 4096, 4097, 8191, 8192, 8193};
        *segs = 10 * COUNT(lens);
        for (s = 0; s < *segs; s++) off[s] = at, at += lens[(s * 7) % COUNT(lens)];
        off[*segs] = at, *n = at;
        break;
    }
    case SHAPE_BIG_AND_SMALL:
    default: /* one long segment (several tree blocks) among short ones */
        *segs = 5;
        if (*n < 8) {
            for (s = 0; s <= 5; s++) off[s] = s < 2 ? 0 : *n;
            break;
        }
        off[0] = 0, off[1] = *n / 100, off[2] = *n / 100 + 1, off[3] = *n - 3, off[4] = *n - 3, off[5] = *n;
        break;
    }
    return off;
}

static void brute(gp_dtype d, gp_op op, const void *in, const uint64_t *off, size_t segs, void *out)
{
    size_t s, i;
    for (s = 0; s < segs; s++) {
        val acc = identity(d, op);
        for (i = off[s]; i < off[s + 1]; i++) acc = combine(d, op, acc, load(d, in, i));
        store(d, out, s, acc);
    }
}

static void reference_matches_brute_force(void **state)
{
    size_t di, oi, shape;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (shape = 0; shape < SHAPE_COUNT; shape++) {
                gp_dtype d = dtypes[di];
                size_t n = 20000, segs, es = gp_dtype_size(d);
                uint64_t *off = make_offsets((int)shape, &n, &segs);
                void *in = gpt_malloc(n * es + 1), *ref = gpt_malloc(segs * es), *want = gpt_malloc(segs * es);
                fill_input(d, ops[oi], in, n);
                assert_int_equal(gpi_cpu_segmented_reduce(d, ops[oi], in, off, segs, ref), GP_SUCCESS);
                brute(d, ops[oi], in, off, segs, want);
                expect_equal(want, ref, d, segs, "segmented reference vs brute force");
                free(in), free(ref), free(want), free(off);
            }
}

/* The tree replay: on values whose sum is exact it is the plain sum; and
 * an order-sensitive case: 1, 2^-24, 0, 2^-24 adds lanes 1 and 3 first
 * (2^-23), then 1 + 2^-23 is exact, where a left-to-right sum loses both. */
static void tree_sum_known_values(void **state)
{
    float *x = gpt_malloc(8192 * sizeof *x), got;
    size_t i;
    (void)state;
    for (i = 0; i < 8192; i++) x[i] = (float)(i % 7) - 3.0f;
    assert_int_equal(gpi_cpu_tree_sum_f32(x, 8192, &got, 1), GP_SUCCESS);
    {
        double want = 0;
        for (i = 0; i < 8192; i++) want += x[i];
        assert_true(got == (float)want);
    }
    assert_int_equal(gpi_cpu_tree_sum_f32(x, 0, &got, 1), GP_SUCCESS);
    assert_true(got == 0.0f && !signbit(got));
    x[0] = -0.0f;
    assert_int_equal(gpi_cpu_tree_sum_f32(x, 1, &got, 1), GP_SUCCESS);
    assert_true(got == 0.0f && signbit(got)); /* -0.0 alone stays -0.0 */
    for (i = 0; i < 8192; i++) x[i] = 0;
    x[0] = 1.0f, x[1] = ldexpf(1.0f, -24), x[3] = ldexpf(1.0f, -24);
    assert_int_equal(gpi_cpu_tree_sum_f32(x, 8192, &got, 1), GP_SUCCESS);
    assert_true(got == 1.0f + ldexpf(1.0f, -23));
    free(x);
}

static void run_case(gp_context *ctx, gp_dtype d, gp_op op, int shape, size_t n, int exact_floats)
{
    size_t segs, es = gp_dtype_size(d);
    uint64_t *off = make_offsets(shape, &n, &segs);
    void *host = gpt_malloc(n * es + 1), *ref = gpt_malloc(segs * es), *got = gpt_malloc(segs * es);
    void *in, *out, *doff;
    char what[96];
    if (exact_floats) fill_input(d, op, host, n);
    else gpt_fill_random(d, host, n, 0); /* float sums: rounding must match too */
    assert_int_equal(gpi_cpu_segmented_reduce(d, op, host, off, segs, ref), GP_SUCCESS);
    in = gpt_buffer_from(ctx, host, n * es);
    doff = gpt_buffer_from(ctx, off, (segs + 1) * 8);
    out = gpt_poisoned_buffer(ctx, segs * es);
    GPT_OK(ctx, gp_segmented_reduce(ctx, d, op, in, n, doff, segs, out));
    gpt_buffer_to(ctx, got, out, segs * es);
    snprintf(what, sizeof what, "%s segmented reduce shape %d [%s]", op_name(op), shape, gpt_backend_name(ctx));
    expect_equal(ref, got, d, segs, what);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, out), gpt_buffer_free(ctx, doff);
    free(host), free(ref), free(got), free(off);
}

static void segmented_reduce_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {0, 1, 33, 4096, 4097, 100003, 9000001};
    size_t di, oi, si;
    int shape;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (shape = 0; shape < SHAPE_COUNT; shape++)
                for (si = 0; si < COUNT(sizes); si++) {
                    if ((shape == SHAPE_SMALL || shape == SHAPE_EDGE_LENGTHS) && si > 0) break; /* n is the shape's own */
                    if ((gpt_quick() || !gpt_on_cuda(ctx)) && sizes[si] > 200000) continue;
                    run_case(ctx, dtypes[di], ops[oi], shape, sizes[si], 1);
                }
}

/* Float sums with rounding: the bits match the reference on both backends. */
static void float_sums_same_bits(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {4097, 100003, 20000000};
    size_t si;
    int shape;
    gpt_seed_once();
    for (si = 0; si < COUNT(sizes); si++)
        for (shape = 0; shape < SHAPE_COUNT; shape++) {
            if ((gpt_quick() || !gpt_on_cuda(ctx)) && sizes[si] > 200000) continue;
            run_case(ctx, GP_FLOAT32, GP_OP_SUM, shape, sizes[si], 0);
            run_case(ctx, GP_FLOAT64, GP_OP_SUM, shape, sizes[si], 0);
        }
}

static void nan_and_zeros(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    float x[6] = {NAN, 2.0f, NAN, NAN, -0.0f, 5.0f};
    uint64_t off[5] = {0, 2, 4, 5, 6};
    float got[4];
    void *in = gpt_buffer_from(ctx, x, sizeof x), *doff = gpt_buffer_from(ctx, off, sizeof off);
    void *out = gpt_poisoned_buffer(ctx, sizeof got);
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_FLOAT32, GP_OP_MIN, in, 6, doff, 4, out));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_true(got[0] == 2.0f && got[1] == INFINITY && got[2] == 0.0f && got[3] == 5.0f);
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_FLOAT32, GP_OP_MAX, in, 6, doff, 4, out));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_true(got[0] == 2.0f && got[1] == -INFINITY && got[2] == 0.0f && got[3] == 5.0f);
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_FLOAT32, GP_OP_SUM, in, 6, doff, 4, out));
    gpt_buffer_to(ctx, got, out, sizeof got);
    assert_true(isnan(got[0]) && isnan(got[1]) && got[2] == 0.0f && signbit(got[2]) && got[3] == 5.0f);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, out);
}

static void bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint64_t off[3] = {0, 4, 8}, desc[3] = {0, 5, 4}, past[3] = {0, 4, 9};
    void *in = gpt_buffer_from(ctx, x, sizeof x), *doff = gpt_buffer_from(ctx, off, sizeof off);
    void *ddesc = gpt_buffer_from(ctx, desc, sizeof desc), *dpast = gpt_buffer_from(ctx, past, sizeof past);
    void *out = gpt_poisoned_buffer(ctx, 8);
    assert_int_equal(gp_segmented_reduce(NULL, GP_INT32, GP_OP_SUM, in, 8, doff, 2, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, (gp_dtype)0, GP_OP_SUM, in, 8, doff, 2, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, (gp_op)9, in, 8, doff, 2, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, NULL, 8, doff, 2, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, NULL, 2, out), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, doff, 2, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, doff, SIZE_MAX, out), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, SIZE_MAX / 2, doff, 2, out),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, doff, 2, (char *)in + 4), GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, doff, 2, (char *)out + 1),
                     GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, x, 8, doff, 2, out), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, off, 2, out), GP_ERROR_WRONG_MEMORY);
    } else { /* offsets are validated on the CPU backend (on CUDA they are the caller's promise) */
        assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, in, 2, out), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, ddesc, 2, out),
                         GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, dpast, 2, out),
                         GP_ERROR_INVALID_ARGUMENT);
    }
    gpt_expect_untouched(ctx, out, 8);
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, 8, doff, 0, out)); /* nothing to do */
    gpt_expect_untouched(ctx, out, 8);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, ddesc), gpt_buffer_free(ctx, dpast);
    gpt_buffer_free(ctx, out);
}

/* ---- tile edges --------------------------------------------------------
 * The CUDA backend cuts many short segments of the exact operators by
 * items into tiles (2048 or 4096 elements, 8 or 16 per thread): shapes
 * whose boundaries and empty segments fall on and around those edges. */
enum { EDGE_CROSS, EDGE_MANY_TILES, EDGE_EMPTIES_AT_EDGES, EDGE_ALL_EMPTY_END, EDGE_ALL_EMPTY_START,
       EDGE_ALL_EMPTY_MIDDLE, EDGE_EMPTY_AND_ONES, EDGE_THREAD_ALIGNED, EDGE_GAPS, EDGE_WHOLE_TILES, EDGE_COUNT };

typedef struct offset_list {
    uint64_t *off;
    size_t segs, cap;
} offset_list;

static void push_segment(offset_list *l, uint64_t len)
{
    if (l->segs + 2 > l->cap) {
        l->cap *= 2;
        l->off = realloc(l->off, l->cap * sizeof *l->off);
        assert_non_null(l->off);
    }
    l->off[l->segs + 1] = l->off[l->segs] + len;
    l->segs++;
}

/* Offsets of an edge shape; *n gets the array length. */
static uint64_t *edge_offsets(int shape, size_t *n, size_t *segs)
{
    offset_list l = {NULL, 0, 1024};
    size_t i, b, j;
    uint64_t first = 0, tail = 0;
    l.off = gpt_malloc(l.cap * sizeof *l.off);
    l.off[0] = 0;
    switch (shape) {
    case EDGE_CROSS: { /* across 1 and 2 tile edges, at many phases */
        static const uint64_t lens[] = {3000, 1, 5000, 16, 2047, 2049, 4095, 4097, 8, 0, 7, 6000, 8191, 8193, 15, 17};
        for (i = 0; i < 400; i++) push_segment(&l, lens[(i * 5) % COUNT(lens)]);
        break;
    }
    case EDGE_MANY_TILES: /* one segment over ~75 whole tiles and one over 3, among short ones */
        for (i = 0; i < 3000; i++) {
            push_segment(&l, gpt_rand64() % 65);
            if (i == 1000) push_segment(&l, 300001);
            if (i == 2000) push_segment(&l, 9000);
        }
        break;
    case EDGE_EMPTIES_AT_EDGES: /* 20 empty segments at each tile edge and one before and after it */
        for (b = 1; b <= 40; b++)
            for (j = 0; j < 3; j++) {
                const uint64_t at = b * 2048 - 1 + j;
                push_segment(&l, at - l.off[l.segs]);
                for (i = 0; i < 20; i++) push_segment(&l, 0);
            }
        push_segment(&l, 100);
        for (i = 0; i < 20; i++) push_segment(&l, 0); /* and at the end of the array */
        break;
    case EDGE_ALL_EMPTY_END:    /* all at n, n a multiple of every tile: the tile past the last item */
    case EDGE_ALL_EMPTY_START:  /* all at 0 */
    case EDGE_ALL_EMPTY_MIDDLE: /* all at n / 2 + 1 */
        *n = 3 * 4096;
        *segs = 30000;
        free(l.off);
        l.off = gpt_malloc((*segs + 1) * sizeof *l.off);
        for (i = 0; i <= *segs; i++)
            l.off[i] = shape == EDGE_ALL_EMPTY_END ? *n : shape == EDGE_ALL_EMPTY_START ? 0 : *n / 2 + 1;
        return l.off;
    case EDGE_EMPTY_AND_ONES: /* a boundary at every element, empty segments between */
        for (i = 0; i < 40000; i++) push_segment(&l, (i % 3) == 1);
        break;
    case EDGE_THREAD_ALIGNED: /* ends on threads' and tiles' edges (multiples of 8 and 16) */
        for (i = 0; i < 3000; i++) push_segment(&l, (gpt_rand64() % 33) * (i % 2 ? 8 : 16));
        break;
    case EDGE_GAPS: /* elements outside every segment before and after many short ones */
        first = 5000, tail = 7000;
        push_segment(&l, 0);
        l.off[0] = l.off[1] = first;
        for (i = 0; i < 3000; i++) push_segment(&l, gpt_rand64() % 301);
        break;
    case EDGE_WHOLE_TILES: /* exactly whole tiles, aligned, and one element */
    default: {
        static const uint64_t lens[] = {2048, 4096, 4096, 2048, 8192, 1, 2047, 2048, 4096, 12288};
        for (i = 0; i < 40 * COUNT(lens); i++) push_segment(&l, lens[i % COUNT(lens)]);
        break;
    }
    }
    *segs = l.segs;
    *n = l.off[l.segs] + tail;
    return l.off;
}

/* One edge shape: in read from element `shift` of its buffer (1: not
 * 16-byte aligned), against the reference. */
static void run_edge_case(gp_context *ctx, gp_dtype d, gp_op op, int shape, size_t shift)
{
    size_t n, segs, es = gp_dtype_size(d);
    uint64_t *off = edge_offsets(shape, &n, &segs);
    char *host = gpt_malloc((n + shift) * es + 1);
    void *ref = gpt_malloc(segs * es), *got = gpt_malloc(segs * es), *in, *out, *doff;
    char what[96];
    fill_input(d, op, host, n + shift);
    assert_int_equal(gpi_cpu_segmented_reduce(d, op, host + shift * es, off, segs, ref), GP_SUCCESS);
    in = gpt_buffer_from(ctx, host, (n + shift) * es);
    doff = gpt_buffer_from(ctx, off, (segs + 1) * 8);
    out = gpt_poisoned_buffer(ctx, segs * es);
    GPT_OK(ctx, gp_segmented_reduce(ctx, d, op, (char *)in + shift * es, n, doff, segs, out));
    gpt_buffer_to(ctx, got, out, segs * es);
    snprintf(what, sizeof what, "%s segmented reduce edge shape %d shift %zu [%s]", op_name(op), shape, shift,
             gpt_backend_name(ctx));
    expect_equal(ref, got, d, segs, what);
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, out), gpt_buffer_free(ctx, doff);
    free(host), free(ref), free(got), free(off);
}

static void tile_edges_match_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t di, oi, shift;
    int shape;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (shape = 0; shape < EDGE_COUNT; shape++)
                for (shift = 0; shift < 2; shift++) {
                    if (shift && !gpt_on_cuda(ctx)) continue; /* alignment matters on CUDA only */
                    run_edge_case(ctx, dtypes[di], ops[oi], shape, shift);
                }
}

/* CUDA: broken offsets are the caller's promise, but read and write
 * nothing out of bounds (compute-sanitizer would see it); the call
 * succeeds. */
static void broken_offsets_stay_in_bounds(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 20000;
    uint64_t off[6] = {5000, 100, 19000, 30000, 0, UINT64_MAX};
    float *x = gpt_malloc(n * 4);
    void *in, *doff, *out;
    if (!gpt_on_cuda(ctx)) {
        free(x);
        skip();
    }
    gpt_fill_random(GP_FLOAT32, x, n, 0);
    in = gpt_buffer_from(ctx, x, n * 4);
    doff = gpt_buffer_from(ctx, off, sizeof off);
    out = gpt_poisoned_buffer(ctx, 5 * 4);
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_FLOAT32, GP_OP_SUM, in, n, doff, 5, out));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_buffer_free(ctx, in), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, out);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        cmocka_unit_test(tree_sum_known_values),
        GPT_TEST_BOTH(segmented_reduce_matches_reference),
        GPT_TEST_BOTH(float_sums_same_bits),
        GPT_TEST_BOTH(tile_edges_match_reference),
        GPT_TEST_BOTH(nan_and_zeros),
        GPT_TEST_BOTH(bad_arguments),
        GPT_TEST_BOTH(broken_offsets_stay_in_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
