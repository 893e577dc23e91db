/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sort.c - gp_sort_keys / gp_sort_pairs: (1) the CPU reference against
 * qsort with an independent comparator (floats by IEEE total order written
 * out case by case) and a stability check, on awkward sizes and key
 * distributions, 1 and several threads; (2) each backend against the
 * reference: every key type, keys / values / indices, both orders, full and
 * partial bit ranges, in place and out of place, poisoned outputs; (3) bad
 * arguments leave everything untouched. */
#include "keys_util.h"
#include "test_util.h"

#include "internal.h" /* gpi_cpu_sort: the reference */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference test loops over the first NDISTS; LOW_BYTE and HIGH_BYTE
 * (only the lowest or highest byte of the key's bits varies: most digit
 * passes see one digit, which a radix sort may skip) only in the backend
 * tests. */
enum dist { RANDOM, FEW_DISTINCT, ALL_EQUAL, SORTED, REVERSED, SPECIAL, NDISTS, LOW_BYTE = NDISTS, HIGH_BYTE };
static const char *dist_name(int d)
{
    static const char *names[] = {"random", "few-distinct", "all-equal", "sorted", "reversed", "special",
                                  "low-byte", "high-byte"};
    return names[d];
}

/* Floats that exercise the order: zeros of both signs, infinities, NaNs of
 * both signs with several payloads, denormals, the extremes. */
static double special_f64(uint64_t r)
{
    static const uint64_t bits[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                    0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                    0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
                                    0xffffffffffffffffull, 0x0000000000000001ull, 0x8000000000000001ull,
                                    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull,
                                    0xbff0000000000000ull};
    double d;
    uint64_t b = bits[r % COUNT(bits)];
    memcpy(&d, &b, 8);
    return d;
}
static float special_f32(uint64_t r)
{
    static const uint32_t bits[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                    0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u,
                                    0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
    float f;
    uint32_t b = bits[r % COUNT(bits)];
    memcpy(&f, &b, 4);
    return f;
}

static void fill_keys(gp_dtype d, void *k, size_t n, int dist)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    switch (dist) {
    case RANDOM: gpt_fill_random(d, k, n, 0); break;
    case FEW_DISTINCT: gpt_fill_random(d, k, n, 5); break;
    case ALL_EQUAL:
        gpt_fill_random(d, k, n ? 1 : 0, 0);
        for (i = 1; i < n; i++) memcpy((char *)k + i * es, k, es);
        break;
    case SORTED:
    case REVERSED: /* a ramp across the type's range, then reversed */
        for (i = 0; i < n; i++) {
            size_t j = dist == SORTED ? i : n - 1 - i;
            double v = (double)j * 3.0 - (double)n; /* negative to positive */
            switch (d) {
            case GP_UINT32: ((uint32_t *)k)[i] = (uint32_t)(j * 2654435u / (n ? n : 1) * 1000u + j); break;
            case GP_INT32: ((int32_t *)k)[i] = (int32_t)v; break;
            case GP_UINT64: ((uint64_t *)k)[i] = (uint64_t)j << 20; break;
            case GP_INT64: ((int64_t *)k)[i] = (int64_t)v * 4096; break;
            case GP_FLOAT32: ((float *)k)[i] = (float)v; break;
            default: ((double *)k)[i] = v; break;
            }
        }
        break;
    case LOW_BYTE:
    case HIGH_BYTE: { /* one constant, then a random byte at the bottom or top of the bits */
        const uint64_t c = gpt_rand64() & (dist == LOW_BYTE ? ~0xffull : ~(0xffull << (8 * es - 8)));
        for (i = 0; i < n; i++) {
            const uint64_t r = gpt_rand64() & 0xff, v = c | (dist == LOW_BYTE ? r : r << (8 * es - 8));
            if (es == 4) ((uint32_t *)k)[i] = (uint32_t)v;
            else ((uint64_t *)k)[i] = v;
        }
        break;
    }
    default: /* SPECIAL: floats from the list between random ones; integers at the extremes */
        for (i = 0; i < n; i++) {
            uint64_t r = gpt_rand64();
            int pick = (r >> 60) & 1;
            switch (d) {
            case GP_UINT32: ((uint32_t *)k)[i] = pick ? 0xffffffffu - (uint32_t)(r % 3) : (uint32_t)(r % 3); break;
            case GP_INT32: ((int32_t *)k)[i] = pick ? INT32_MAX - (int32_t)(r % 3) : INT32_MIN + (int32_t)(r % 3); break;
            case GP_UINT64: ((uint64_t *)k)[i] = pick ? ~0ull - r % 3 : r % 3; break;
            case GP_INT64: ((int64_t *)k)[i] = pick ? INT64_MAX - (int64_t)(r % 3) : INT64_MIN + (int64_t)(r % 3); break;
            case GP_FLOAT32: ((float *)k)[i] = pick ? (float)((double)(r % 1000) - 500.0) : special_f32(r); break;
            default: ((double *)k)[i] = pick ? (double)(r % 1000) - 500.0 : special_f64(r); break;
            }
        }
    }
}

static gp_dtype g_dtype;
static const void *g_keys;
static int g_desc;

/* Sorts positions; ties broken by position: the stable order. */
static int cmp_pos(const void *x, const void *y)
{
    size_t i = *(const uint64_t *)x, j = *(const uint64_t *)y;
    int c = gpk_cmp(g_dtype, 0, g_keys, i, g_keys, j); /* ascending, independent of the library */
    if (g_desc) c = -c;
    if (c) return c;
    return (i > j) - (i < j);
}

static void reference_matches_qsort(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 257, 1000, 70001, 200003};
    size_t di, si, i;
    int dist, desc, threads;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (dist = 0; dist < NDISTS; dist++)
                for (desc = 0; desc < 2; desc++)
                    for (threads = 1; threads <= 4; threads += 3) {
                        const gp_dtype d = gpk_dtypes[di];
                        const size_t n = sizes[si], es = gp_dtype_size(d);
                        void *keys = gpt_malloc(n * es), *out = gpt_malloc(n * es), *want = gpt_malloc(n * es);
                        uint64_t *pos = gpt_malloc(n * 8), *idx = gpt_malloc(n * 8);
                        gpi_sort_args a = {d, desc, keys, out, 8, NULL, idx, n, 0, (int)(8 * es)};
                        if (n > 1000 && (threads == 1 || dist != RANDOM)) goto next; /* the big ones once */
                        fill_keys(d, keys, n, dist);
                        for (i = 0; i < n; i++) pos[i] = i;
                        g_dtype = d, g_keys = keys, g_desc = desc;
                        qsort(pos, n, 8, cmp_pos);
                        for (i = 0; i < n; i++) memcpy((char *)want + i * es, (char *)keys + pos[i] * es, es);
                        gpt_poison(out, n * es);
                        gpt_poison(idx, n * 8);
                        assert_int_equal(gpi_cpu_sort(&a, threads), GP_SUCCESS);
                        if (memcmp(out, want, n * es) || memcmp(idx, pos, n * 8))
                            fail_msg("reference sort %s %s %s n=%zu threads=%d differs from qsort", gpt_dtype_name(d),
                                     dist_name(dist), desc ? "descending" : "ascending", n, threads);
                    next:
                        free(keys), free(out), free(want), free(pos), free(idx);
                    }
}

/* A partial bit range: only those bits of the image order, ties stable. */
static void reference_partial_bits(void **state)
{
    const size_t n = 5000;
    uint32_t *keys = gpt_malloc(n * 4), *out = gpt_malloc(n * 4);
    uint64_t *idx = gpt_malloc(n * 8);
    size_t i;
    gpi_sort_args a = {GP_UINT32, 0, keys, out, 8, NULL, idx, n, 4, 13};
    (void)state;
    gpt_seed_once();
    gpt_fill_random(GP_UINT32, keys, n, 0);
    assert_int_equal(gpi_cpu_sort(&a, 3), GP_SUCCESS);
    for (i = 0; i < n; i++) assert_int_equal(out[i], keys[idx[i]]);
    for (i = 1; i < n; i++) {
        uint32_t p = (out[i - 1] >> 4) & 0x1ff, q = (out[i] >> 4) & 0x1ff;
        assert_true(p <= q);
        if (p == q) assert_true(idx[i - 1] < idx[i]);
    }
    free(keys), free(out), free(idx);
}

/* ---- (2) a backend against the reference ---------------------------------- */
enum vals { KEYS_ONLY, VALUES4, VALUES8, INDICES4, INDICES8, NVALS };

static void run_sort(gp_context *ctx, gp_dtype d, size_t n, int dist, int desc, int b, int e, int vals, int in_place)
{
    const size_t es = gp_dtype_size(d);
    const size_t vs = vals == KEYS_ONLY ? 0 : (vals == VALUES4 || vals == INDICES4) ? 4 : 8;
    const int indices = vals == INDICES4 || vals == INDICES8;
    void *keys_h = gpt_malloc(n * es), *vals_h = gpt_malloc(n * 8);
    void *ref_k = gpt_malloc(n * es), *ref_v = gpt_malloc(n * 8), *got_k = gpt_malloc(n * es), *got_v = gpt_malloc(n * 8);
    void *kin, *kout, *vin = NULL, *vout = NULL;
    gpi_sort_args a = {d, desc, keys_h, ref_k, vs, indices ? NULL : vals_h, ref_v, n, b, e};
    char what[160];
    fill_keys(d, keys_h, n, dist);
    gpt_fill_random(GP_UINT64, vals_h, n, 0);
    assert_int_equal(gpi_cpu_sort(&a, 2), GP_SUCCESS);

    kin = gpt_buffer_from(ctx, keys_h, n * es);
    kout = in_place ? kin : gpt_poisoned_buffer(ctx, n * es);
    if (vs) {
        vin = indices ? NULL : gpt_buffer_from(ctx, vals_h, n * vs);
        vout = in_place && vin ? vin : gpt_poisoned_buffer(ctx, n * vs);
    }
    snprintf(what, sizeof what, "sort %s %s %s bits [%d,%d) %s%s n=%zu [%s]", gpt_dtype_name(d), dist_name(dist),
             desc ? "desc" : "asc", b, e,
             vals == KEYS_ONLY ? "keys" : vals == VALUES4 ? "values4" : vals == VALUES8 ? "values8"
                                                 : vals == INDICES4 ? "indices4" : "indices8",
             in_place ? " in place" : "", n, gpt_backend_name(ctx));
    if (vs)
        GPT_OK(ctx, gp_sort_pairs(ctx, d, desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, kin, kout, vs,
                                  indices ? NULL : vin, vout, n, b, e));
    else
        GPT_OK(ctx, gp_sort_keys(ctx, d, desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, kin, kout, n, b, e));
    gpt_buffer_to(ctx, got_k, kout, n * es);
    if (memcmp(got_k, ref_k, n * es)) fail_msg("%s: keys differ from the reference", what);
    if (vs) {
        gpt_buffer_to(ctx, got_v, vout, n * vs);
        if (memcmp(got_v, ref_v, n * vs)) fail_msg("%s: values differ from the reference", what);
    }
    if (!in_place) { /* the input is read only */
        gpt_buffer_to(ctx, got_k, kin, n * es);
        if (memcmp(got_k, keys_h, n * es)) fail_msg("%s: keys_in was changed", what);
        gpt_buffer_free(ctx, kout);
    }
    gpt_buffer_free(ctx, kin);
    if (vin) gpt_buffer_free(ctx, vin);
    if (vout && vout != vin) gpt_buffer_free(ctx, vout);
    free(keys_h), free(vals_h), free(ref_k), free(ref_v), free(got_k), free(got_v);
}

static void sort_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, si;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            const gp_dtype d = gpk_dtypes[di];
            const int w = (int)(8 * gp_dtype_size(d));
            const size_t n = sizes[si];
            const int small = n <= 4097, big = n > 65537;
            int dist, vals;
            if (big && !gpt_on_cuda(ctx)) continue; /* the CPU backend is the reference's own code */
            if (big) { /* the large sizes: the main forms only */
                run_sort(ctx, d, n, RANDOM, 0, 0, w, KEYS_ONLY, 0);
                run_sort(ctx, d, n, RANDOM, 1, 0, w, VALUES8, 0);
                run_sort(ctx, d, n, SPECIAL, 0, 2, w - 3, INDICES4, 1);
                continue;
            }
            for (dist = 0; dist < NDISTS; dist++)
                if (small || dist == RANDOM || dist == SPECIAL) run_sort(ctx, d, n, dist, 0, 0, w, KEYS_ONLY, 0);
            for (vals = 0; vals < NVALS; vals++) {
                run_sort(ctx, d, n, RANDOM, 0, 0, w, vals, 0);
                if (small) run_sort(ctx, d, n, FEW_DISTINCT, 1, 0, w, vals, 1);
            }
            run_sort(ctx, d, n, SPECIAL, 1, 0, w, VALUES8, 0);
            run_sort(ctx, d, n, RANDOM, 0, 3, w - 5, INDICES4, 0); /* partial range, stability visible */
            run_sort(ctx, d, n, FEW_DISTINCT, 1, 1, w / 2, VALUES4, 1);
            run_sort(ctx, d, n, RANDOM, 0, 7, 7, VALUES8, 0); /* empty range: a copy */
            if (small) run_sort(ctx, d, n, SPECIAL, 0, 0, w, KEYS_ONLY, 1);
        }
}

/* Sizes around the tiles of a radix sort (2816, 3072 and 4096 keys: gpuprim's
 * own CUDA sort, GP_CUDA_SORT=own, by key and value size) and past 2^20,
 * key distributions whose digit passes are mostly constant (skipped), in
 * place and out of place, every value form. The large sizes on CUDA only. */
static void sort_tile_edges(void **state)
{
    static const size_t sizes[] = {2815, 2816, 2817, 3071, 3072, 3073, 4095, 4096, 4097, 8191, 8193, 12289,
                                   (1u << 20) + 7, 3000017};
    gp_context *ctx = gpt_ctx(state);
    size_t di, si;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++) {
            const gp_dtype d = gpk_dtypes[di];
            const int w = (int)(8 * gp_dtype_size(d));
            const size_t n = sizes[si];
            int vals;
            if (n > 100000 && !gpt_on_cuda(ctx)) continue;
            for (vals = 0; vals < NVALS; vals++) {
                if (n > 100000 && (vals == VALUES8 || vals == INDICES4)) continue; /* the large ones: fewer forms */
                run_sort(ctx, d, n, RANDOM, vals & 1, 0, w, vals, 0);
                run_sort(ctx, d, n, LOW_BYTE, 0, 0, w, vals, vals & 1);  /* one active pass: in place, odd */
                run_sort(ctx, d, n, HIGH_BYTE, 1, 0, w, vals, !(vals & 1));
            }
            run_sort(ctx, d, n, ALL_EQUAL, 0, 0, w, INDICES4, 0);   /* no active pass: copy, indices */
            run_sort(ctx, d, n, ALL_EQUAL, 1, 0, w, VALUES8, 1);    /* no active pass, in place */
            run_sort(ctx, d, n, FEW_DISTINCT, 0, 0, w, VALUES4, 1); /* in place, one active pass */
            run_sort(ctx, d, n, SPECIAL, 1, 0, w, INDICES8, 1);
            run_sort(ctx, d, n, SPECIAL, 0, 0, w, KEYS_ONLY, 1);
            run_sort(ctx, d, n, RANDOM, 0, 0, 16, VALUES4, 0);         /* 2 passes */
            run_sort(ctx, d, n, RANDOM, 1, 5, 17, INDICES4, 1);        /* 2 passes, the last 4 bits wide */
            run_sort(ctx, d, n, RANDOM, 0, w - 9, w, KEYS_ONLY, 1);    /* 2 passes, odd offset */
            run_sort(ctx, d, n, SPECIAL, 0, w - 1, w, VALUES8, 0);     /* the sign bit alone */
        }
}

/* ---- (3) bad arguments ------------------------------------------------------- */
static void sort_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    char *k = gpt_poisoned_buffer(ctx, 4 * n * 8), *v = gpt_poisoned_buffer(ctx, 4 * n * 8);
    const gp_sort_order up = GP_SORT_ASCENDING;

    assert_int_equal(gp_sort_keys(NULL, GP_UINT32, up, k, k + 512, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, (gp_dtype)0, up, k, k + 512, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, (gp_sort_order)0, k, k + 512, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, (gp_sort_order)3, k, k + 512, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    /* bit ranges */
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k, k + 512, n, -1, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k, k + 512, n, 0, 33), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k, k + 512, n, 9, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_FLOAT64, up, k, k + 1024, n, 0, 65), GP_ERROR_INVALID_ARGUMENT);
    /* NULL buffers, overflow, overlap, alignment */
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, NULL, k, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k, NULL, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT64, up, k, k + 1024, SIZE_MAX / 4, 0, 64), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k, k + 4, n, 0, 32), GP_ERROR_OVERLAP);
    assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, k + 2, k + 512, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    /* pairs: value sizes, overlaps between keys and values, index overflow */
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 0, v, v + 1024, n, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 2, v, v + 1024, n, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 16, v, v + 1024, n, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 8, v, NULL, n, 0, 32), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 8, v, v + 8, n, 0, 32), GP_ERROR_OVERLAP);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 8, v, k + 704, n, 0, 32), GP_ERROR_OVERLAP);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 4, k + 600, v, n, 0, 32), GP_ERROR_OVERLAP);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 8, v + 4, v + 1024, n, 0, 32),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 4, NULL, v, (size_t)UINT32_MAX + 2, 0, 32),
                     GP_ERROR_SIZE_OVERFLOW);
    if (gp_context_last_error(ctx)[0] == '\0') fail_msg("no detail message");
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_sort_keys(ctx, GP_UINT32, up, host, k, n, 0, 32), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_sort_pairs(ctx, GP_UINT32, up, k, k + 512, 4, v, host, n, 0, 32), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, k, 4 * n * 8);
    gpt_expect_untouched(ctx, v, 4 * n * 8);
    /* n == 0 needs no buffers */
    GPT_OK(ctx, gp_sort_keys(ctx, GP_FLOAT32, up, NULL, NULL, 0, 0, 32));
    GPT_OK(ctx, gp_sort_pairs(ctx, GP_INT64, GP_SORT_DESCENDING, NULL, NULL, 8, NULL, NULL, 0, 0, 64));
    gpt_buffer_free(ctx, k);
    gpt_buffer_free(ctx, v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_qsort),
        cmocka_unit_test(reference_partial_bits),
        GPT_TEST_BOTH(sort_matches_reference),
        GPT_TEST_BOTH(sort_tile_edges),
        GPT_TEST_BOTH(sort_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
