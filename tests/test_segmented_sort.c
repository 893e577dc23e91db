/* SPDX-License-Identifier: BSD-3-Clause */
/* test_segmented_sort.c - gp_segmented_sort_keys / _pairs: the CPU
 * reference against an insertion sort per segment, each backend against the
 * reference for every key dtype, both orders, bit ranges, values of 4 and 8
 * bytes and indices, in place, over many segment shapes; NaN and -0.0 keys;
 * outputs outside the segments untouched; bad arguments. */
#include "test_util.h"

#include "segmented_internal.h"

#include <gpuprim/segmented.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};

/* Segment lengths at the CUDA backend's class boundaries (its block tiers
 * of 128 .. 8192 items, each -1/0/+1, then large). */
static const size_t boundary_lengths[] = {0,    1,    2,    3,    31,   32,   33,   127,  128,  129,  255,  256,
                                          257,  511,  512,  513,  1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,
                                          4097, 8191, 8192, 8193, 20000};

/* Shapes: 0 one segment of everything, 1 three segments (two empty, the
 * rest outside), 2 lengths 0..512, 3 random cuts with gaps at both ends,
 * 4 the boundary lengths in random order (cycled), 5 empty segments only,
 * 6 tiny segments (0..3) around two huge ones (n/3 each). */
#define SHAPES 7
static uint64_t *make_offsets(int shape, size_t n, size_t *segs)
{
    size_t s, k, cap = 2 * n + 16, order[COUNT(boundary_lengths)];
    uint64_t *off = gpt_malloc(cap * sizeof *off), at, t, len;
    int huge = 0;
    switch (shape) {
    case 0: *segs = 1, off[0] = 0, off[1] = n; break;
    case 1: *segs = 3; for (s = 0; s <= 3; s++) off[s] = n / 3; break;
    case 2:
        for (s = 0, at = 0; at < n; s++) off[s] = at, at += gpt_rand64() % 513;
        off[s] = n, *segs = s;
        break;
    case 4:
        for (k = 0; k < COUNT(order); k++) order[k] = k;
        for (k = COUNT(order) - 1; k > 0; k--) t = gpt_rand64() % (k + 1), s = order[k], order[k] = order[t], order[t] = s;
        for (s = 0, at = 0; at < n; s++) {
            len = boundary_lengths[order[s % COUNT(order)]];
            off[s] = at, at = at + len < n ? at + len : n;
        }
        off[s] = n, *segs = s;
        break;
    case 5: *segs = 4; for (s = 0; s <= 4; s++) off[s] = n / 2; break;
    case 6:
        for (s = 0, at = 0; at < n; s++) {
            len = gpt_rand64() % 4;
            if (s + 8 >= cap) len = n;
            if ((huge == 0 && at >= n / 5) || (huge == 1 && at >= n / 2)) len = n / 3, huge++;
            off[s] = at, at = at + len < n ? at + len : n;
        }
        off[s] = n, *segs = s;
        break;
    default: /* random cuts, gaps at both ends */
        *segs = 1 + gpt_rand64() % (n / 3 + 1);
        for (s = 0; s <= *segs; s++) off[s] = n / 7 + gpt_rand64() % (n - n / 7 - n / 9 + 1);
        off[0] = n / 7, off[*segs] = n - n / 9;
        for (s = 1; s <= *segs; s++)
            for (k = s; k > 0 && off[k - 1] > off[k]; k--) t = off[k], off[k] = off[k - 1], off[k - 1] = t;
        break;
    }
    return off;
}

/* The order image, written independently of the library (gpuprim.h's
 * definition), for the insertion sort. */
static uint64_t image(gp_dtype d, const void *keys, size_t i, int b, int e)
{
    uint64_t u, mask = e - b == 64 ? ~0ull : ((1ull << (e - b)) - 1);
    uint32_t w;
    switch (d) {
    case GP_UINT32: u = ((const uint32_t *)keys)[i]; break;
    case GP_INT32: u = ((const uint32_t *)keys)[i] ^ 0x80000000u; break;
    case GP_UINT64: u = ((const uint64_t *)keys)[i]; break;
    case GP_INT64: u = ((const uint64_t *)keys)[i] ^ (1ull << 63); break;
    case GP_FLOAT32:
        w = ((const uint32_t *)keys)[i];
        w = (w >> 31) ? ~w : (w | 0x80000000u);
        u = (uint32_t)(w - 0x7fffffu);
        break;
    default:
        u = ((const uint64_t *)keys)[i];
        u = (u >> 63) ? ~u : (u | (1ull << 63));
        u -= (1ull << 52) - 1;
        break;
    }
    return b == e ? 0 : (u >> b) & mask;
}

/* Stable insertion sort of each segment's positions, then the outputs. */
static void brute(gp_dtype d, int desc, const void *kin, void *kout, size_t vs, const void *vin, void *vout,
                  const uint64_t *off, size_t segs, int b, int e)
{
    const size_t ks = gp_dtype_size(d);
    size_t s, i, k;
    for (s = 0; s < segs; s++) {
        const size_t lo = off[s], m = off[s + 1] - off[s];
        size_t *p = gpt_malloc((m + 1) * sizeof *p);
        for (i = 0; i < m; i++) {
            const size_t x = lo + i;
            const uint64_t ix = image(d, kin, x, b, e);
            for (k = i; k > 0; k--) {
                const uint64_t iy = image(d, kin, p[k - 1], b, e);
                if (desc ? iy >= ix : iy <= ix) break;
                p[k] = p[k - 1];
            }
            p[k] = x;
        }
        for (i = 0; i < m; i++) {
            memcpy((char *)kout + (lo + i) * ks, (const char *)kin + p[i] * ks, ks);
            if (vs == 4) ((uint32_t *)vout)[lo + i] = vin ? ((const uint32_t *)vin)[p[i]] : (uint32_t)p[i];
            if (vs == 8) ((uint64_t *)vout)[lo + i] = vin ? ((const uint64_t *)vin)[p[i]] : (uint64_t)p[i];
        }
        free(p);
    }
}

/* Keys with many repeats (stability shows), NaNs, both zeros, infinities. */
static void fill_keys(gp_dtype d, void *k, size_t n)
{
    size_t i;
    gpt_fill_random(d, k, n, d == GP_FLOAT32 || d == GP_FLOAT64 ? 0 : 50);
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64() % 16;
        double v = r == 0 ? NAN : r == 1 ? -NAN : r == 2 ? -0.0 : r == 3 ? 0.0 : r == 4 ? -INFINITY : 7.0;
        if (r > 5) continue;
        if (d == GP_FLOAT32) ((float *)k)[i] = (float)v;
        if (d == GP_FLOAT64) ((double *)k)[i] = v;
    }
}

static void reference_matches_brute_force(void **state)
{
    size_t di, segs;
    int shape, desc;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (shape = 0; shape < SHAPES; shape++)
            for (desc = 0; desc < 2; desc++) {
                const gp_dtype d = dtypes[di];
                const size_t n = 2000, ks = gp_dtype_size(d);
                const int bits = (int)(8 * ks), b = shape == 3 ? 3 : 0, e = shape == 3 ? bits - 5 : bits;
                uint64_t *off = make_offsets(shape, n, &segs);
                void *k = gpt_malloc(n * ks), *ref = gpt_malloc(n * ks), *want = gpt_malloc(n * ks);
                uint64_t *vref = gpt_malloc(n * 8), *vwant = gpt_malloc(n * 8);
                gpi_segsort_args a = {{d, desc, k, ref, 8, NULL, vref, n, b, e}, off, segs};
                fill_keys(d, k, n);
                gpt_poison(ref, n * ks), gpt_poison(want, n * ks), gpt_poison(vref, n * 8), gpt_poison(vwant, n * 8);
                assert_int_equal(gpi_cpu_segmented_sort(&a), GP_SUCCESS);
                brute(d, desc, k, want, 8, NULL, vwant, off, segs, b, e);
                assert_memory_equal(want, ref, n * ks);
                assert_memory_equal(vwant, vref, n * 8);
                free(k), free(ref), free(want), free(vref), free(vwant), free(off);
            }
}

/* vs: 0 keys only; 4 or 8 values (with_values) or indices. */
static void run_case(gp_context *ctx, gp_dtype d, int desc, int shape, size_t n, size_t vs, int with_values,
                     int in_place, int b, int e)
{
    const size_t ks = gp_dtype_size(d);
    size_t segs;
    uint64_t *off = make_offsets(shape, n, &segs);
    void *k = gpt_malloc(n * ks + 1), *kref = gpt_malloc(n * ks + 1), *kgot = gpt_malloc(n * ks + 1);
    void *v = gpt_malloc(n * 8 + 1), *vref = gpt_malloc(n * 8 + 1), *vgot = gpt_malloc(n * 8 + 1);
    void *dk, *dko, *dv = NULL, *dvo = NULL, *doff;
    gpi_segsort_args a = {{d, desc, k, kref, vs, with_values ? v : NULL, vref, n, b, e}, off, segs};
    const gp_sort_order order = desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
    char what[128];
    fill_keys(d, k, n);
    gpt_fill_random(GP_UINT64, v, n, 0);
    memcpy(kref, k, n * ks), memcpy(vref, v, n * 8); /* outside the segments: as the device buffers */
    if (!in_place) gpt_poison(kref, n * ks), gpt_poison(vref, n * 8);
    assert_int_equal(gpi_cpu_segmented_sort(&a), GP_SUCCESS);
    dk = gpt_buffer_from(ctx, k, n * ks);
    dko = in_place ? dk : gpt_poisoned_buffer(ctx, n * ks);
    doff = gpt_buffer_from(ctx, off, (segs + 1) * 8);
    if (vs) {
        dv = with_values ? gpt_buffer_from(ctx, v, n * 8) : NULL;
        dvo = in_place && with_values ? dv : gpt_poisoned_buffer(ctx, n * 8);
        if (in_place && !with_values) gpt_buffer_free(ctx, dvo), dvo = gpt_buffer_from(ctx, v, n * 8);
        GPT_OK(ctx, gp_segmented_sort_pairs(ctx, d, order, dk, dko, vs, dv, dvo, n, doff, segs, b, e));
    } else {
        GPT_OK(ctx, gp_segmented_sort_keys(ctx, d, order, dk, dko, n, doff, segs, b, e));
    }
    snprintf(what, sizeof what, "segmented sort %s %s shape %d vs %zu%s bits [%d,%d) [%s]", gpt_dtype_name(d),
             desc ? "desc" : "asc", shape, vs, in_place ? " in place" : "", b, e, gpt_backend_name(ctx));
    gpt_buffer_to(ctx, kgot, dko, n * ks);
    if (memcmp(kref, kgot, n * ks)) fail_msg("%s: keys differ", what);
    if (vs) {
        gpt_buffer_to(ctx, vgot, dvo, n * vs);
        if (memcmp(vref, vgot, n * vs)) fail_msg("%s: values differ", what);
    }
    if (dko != dk) gpt_buffer_free(ctx, dko);
    if (dvo != dv) gpt_buffer_free(ctx, dvo);
    gpt_buffer_free(ctx, dk), gpt_buffer_free(ctx, dv), gpt_buffer_free(ctx, doff);
    free(k), free(kref), free(kgot), free(v), free(vref), free(vgot), free(off);
}

static void segmented_sort_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {1, 33, 4097, 100003, 3000017};
    size_t di, si;
    int shape, desc;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di += gpt_dtype_step(COUNT(dtypes)))
        for (si = 0; si < COUNT(sizes); si++)
            for (shape = 0; shape < SHAPES; shape++)
                for (desc = 0; desc < 2; desc++) {
                    const int bits = (int)(8 * gp_dtype_size(dtypes[di]));
                    if ((gpt_quick() || !gpt_on_cuda(ctx)) && sizes[si] > (gpt_tiny() ? 5000 : 200000)) continue;
                    if ((shape == 4 || shape == 5) && sizes[si] > 200000) continue;
                    run_case(ctx, dtypes[di], desc, shape, sizes[si], 0, 0, 0, 0, bits);
                    run_case(ctx, dtypes[di], desc, shape, sizes[si], 4, 1, (int)(si % 2), 0, bits);
                    run_case(ctx, dtypes[di], desc, shape, sizes[si], 8, 0, (int)(si % 2), 2, bits - 3);
                    run_case(ctx, dtypes[di], desc, shape, sizes[si], 8, 1, 1, 0, 0);
                    run_case(ctx, dtypes[di], desc, shape, sizes[si], 4, 0, 0, 5, 5 + 7);
                }
}

/* CUDA: both plans (GP_CUDA_SEGSORT, read at each call) on the shapes
 * that reach every class: the per-segment plan with its block tiers and a
 * device sort per large segment, and the all-at-once fallback. */
static void segmented_sort_plans(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const char *plans[] = {"split", "global"};
    static const int shapes[] = {0, 4, 5, 6};
    static const size_t sizes[] = {33, 9000, 100003};
    size_t pi, di, si, hi;
    int desc;
    gpt_seed_once();
    for (pi = 0; pi < COUNT(plans); pi++) {
        setenv("GP_CUDA_SEGSORT", plans[pi], 1);
        for (di = 0; di < COUNT(dtypes); di += gpt_dtype_step(COUNT(dtypes)))
            for (si = 0; si < COUNT(sizes) - (gpt_tiny() ? 1 : 0); si++)
                for (hi = 0; hi < COUNT(shapes); hi++)
                    for (desc = 0; desc < 2; desc++) {
                        const int bits = (int)(8 * gp_dtype_size(dtypes[di]));
                        const int shape = shapes[hi];
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 0, 0, (int)(hi % 2), 0, bits);
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 4, 1, (int)(si % 2), 0, bits);
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 8, 0, (int)(si % 2), 2, bits - 3);
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 8, 1, 1, 0, 0);
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 4, 0, 0, 5, 5 + 7);
                        run_case(ctx, dtypes[di], desc, shape, sizes[si], 8, 1, 0, 1, bits);
                    }
    }
    unsetenv("GP_CUDA_SEGSORT");
}

static void bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    uint32_t x[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    uint64_t off[3] = {0, 4, 8}, past[3] = {0, 4, 9};
    void *k = gpt_buffer_from(ctx, x, sizeof x), *doff = gpt_buffer_from(ctx, off, sizeof off);
    void *dpast = gpt_buffer_from(ctx, past, sizeof past);
    void *ko = gpt_poisoned_buffer(ctx, sizeof x), *vo = gpt_poisoned_buffer(ctx, 64);
    const gp_sort_order asc = GP_SORT_ASCENDING;
    assert_int_equal(gp_segmented_sort_keys(NULL, GP_UINT32, asc, k, ko, 8, doff, 2, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, (gp_dtype)0, asc, k, ko, 8, doff, 2, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, (gp_sort_order)0, k, ko, 8, doff, 2, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, doff, 2, 0, 33), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, doff, 2, 5, 4), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, NULL, 2, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, (char *)k + 4, 4, doff, 1, 0, 32),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, (uint64_t *)ko, 1, 0, 32),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_sort_pairs(ctx, GP_UINT32, asc, k, ko, 2, NULL, vo, 8, doff, 2, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_segmented_sort_pairs(ctx, GP_UINT32, asc, k, ko, 4, NULL, ko, 8, doff, 2, 0, 32),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_segmented_sort_pairs(ctx, GP_UINT32, asc, k, ko, 4, NULL, NULL, 8, doff, 2, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx))
        assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, x, ko, 8, doff, 2, 0, 32), GP_ERROR_WRONG_MEMORY);
    else
        assert_int_equal(gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, dpast, 2, 0, 32),
                         GP_ERROR_INVALID_ARGUMENT);
    gpt_expect_untouched(ctx, ko, sizeof x);
    gpt_expect_untouched(ctx, vo, 64);
    GPT_OK(ctx, gp_segmented_sort_keys(ctx, GP_UINT32, asc, k, ko, 8, doff, 0, 0, 32));
    gpt_expect_untouched(ctx, ko, sizeof x);
    gpt_buffer_free(ctx, k), gpt_buffer_free(ctx, doff), gpt_buffer_free(ctx, dpast);
    gpt_buffer_free(ctx, ko), gpt_buffer_free(ctx, vo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(segmented_sort_matches_reference),
        GPT_TEST_CUDA(segmented_sort_plans),
        GPT_TEST_BOTH(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
