/* SPDX-License-Identifier: BSD-3-Clause */
/* test_merge.c - gp_merge_keys / gp_merge_pairs: (1) the CPU reference
 * against a stable sort of a then b (which is the stable merge, a's keys
 * first on ties), every dtype, both orders, awkward sizes on each side,
 * duplicates across the two arrays, special floats; (2) each backend against
 * the reference, keys / 4- and 8-byte values, poisoned outputs, the large
 * sizes on CUDA; (3) bad arguments leave the outputs untouched. */
#include "keys_util.h"

#include "search_internal.h" /* gpi_cpu_merge: the reference */

#include <stdio.h>

/* Sorted keys of one distribution; values are their positions in a||b, as
 * 8 bytes, so a stable merge is visible in them. */
static void make_side(gp_dtype d, int desc, int dist, void *keys, size_t n)
{
    gpk_fill(d, keys, n, dist);
    gpk_sort(d, desc, keys, n);
}

static void reference_matches_stable_sort(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 31, 32, 33, 257, 2049};
    size_t di, ai, bi, i;
    int dist, desc;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (ai = 0; ai < COUNT(sizes); ai++)
            for (bi = 0; bi < COUNT(sizes); bi++)
                for (dist = 0; dist < GPK_NDISTS; dist++)
                    for (desc = 0; desc < 2; desc++) {
                        const gp_dtype d = gpk_dtypes[di];
                        const size_t na = sizes[ai], nb = sizes[bi], n = na + nb, es = gp_dtype_size(d);
                        char *cat = gpt_malloc(n * es), *want = gpt_malloc(n * es), *got = gpt_malloc(n * es);
                        uint64_t *vals = gpt_malloc(n * 8), *pos = gpt_malloc(n * 8), *gotv = gpt_malloc(n * 8);
                        gpi_merge_args a = {d, desc, cat, vals, na, cat + na * es, vals + na, nb, 8, got, gotv};
                        if ((na > 257 || nb > 257) && dist == GPK_ALL_EQUAL) goto next;
                        make_side(d, desc, dist, cat, na);
                        make_side(d, desc, dist == GPK_ALL_EQUAL ? GPK_ALL_EQUAL : (dist + 1) % GPK_NDISTS,
                                  cat + na * es, nb);
                        if (dist == GPK_ALL_EQUAL && na && nb) memcpy(cat + na * es, cat, es); /* ties across */
                        if (dist == GPK_ALL_EQUAL) gpk_sort(d, desc, cat + na * es, nb);
                        for (i = 0; i < n; i++) vals[i] = i;
                        gpk_stable_order(d, desc, cat, pos, n);
                        for (i = 0; i < n; i++) memcpy(want + i * es, cat + pos[i] * es, es);
                        gpt_poison(got, n * es), gpt_poison(gotv, n * 8);
                        assert_int_equal(gpi_cpu_merge(&a), GP_SUCCESS);
                        if (memcmp(got, want, n * es) || memcmp(gotv, pos, n * 8))
                            fail_msg("reference merge %s %s %s na=%zu nb=%zu differs from a stable sort",
                                     gpt_dtype_name(d), gpk_dist_name(dist), desc ? "desc" : "asc", na, nb);
                    next:
                        free(cat), free(want), free(got), free(vals), free(pos), free(gotv);
                    }
}

/* vs: 0 keys only, 4 or 8 values. */
static void run_merge(gp_context *ctx, gp_dtype d, size_t na, size_t nb, int dist, int desc, size_t vs)
{
    const size_t es = gp_dtype_size(d), n = na + nb;
    char *ka = gpt_malloc(na * es), *kb = gpt_malloc(nb * es), *va = gpt_malloc(na * 8), *vb = gpt_malloc(nb * 8);
    char *want_k = gpt_malloc(n * es), *want_v = gpt_malloc(n * 8), *got = gpt_malloc(n * 8 + 64);
    void *dka, *dkb, *dva = NULL, *dvb = NULL, *dko, *dvo = NULL;
    const gp_sort_order order = desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
    gpi_merge_args a = {d, desc, ka, va, na, kb, vb, nb, vs, want_k, want_v};
    char what[128];
    if (gpt_on_cuda(ctx) && n > 100000) { /* the library's sort at these sizes */
        gpk_fill(d, ka, na, dist), gpk_fill(d, kb, nb, dist);
        dka = gpt_buffer_from(ctx, ka, na * es), dkb = gpt_buffer_from(ctx, kb, nb * es);
        GPT_OK(ctx, gp_sort_keys(ctx, d, order, dka, dka, na, 0, (int)(8 * es)));
        GPT_OK(ctx, gp_sort_keys(ctx, d, order, dkb, dkb, nb, 0, (int)(8 * es)));
        gpt_buffer_to(ctx, ka, dka, na * es), gpt_buffer_to(ctx, kb, dkb, nb * es);
    } else {
        make_side(d, desc, dist, ka, na), make_side(d, desc, dist, kb, nb);
        dka = gpt_buffer_from(ctx, ka, na * es), dkb = gpt_buffer_from(ctx, kb, nb * es);
    }
    gpt_fill_random(GP_UINT64, va, na, 0), gpt_fill_random(GP_UINT64, vb, nb, 0);
    assert_int_equal(gpi_cpu_merge(&a), GP_SUCCESS);
    dko = gpt_poisoned_buffer(ctx, n * es + 64);
    snprintf(what, sizeof what, "merge %s %s %s na=%zu nb=%zu values %zu [%s]", gpt_dtype_name(d),
             gpk_dist_name(dist), desc ? "desc" : "asc", na, nb, vs, gpt_backend_name(ctx));
    if (vs) {
        dva = gpt_buffer_from(ctx, va, na * vs), dvb = gpt_buffer_from(ctx, vb, nb * vs);
        dvo = gpt_poisoned_buffer(ctx, n * vs + 64);
        GPT_OK(ctx, gp_merge_pairs(ctx, d, order, dka, dva, na, dkb, dvb, nb, vs, dko, dvo));
    } else {
        GPT_OK(ctx, gp_merge_keys(ctx, d, order, dka, na, dkb, nb, dko));
    }
    gpt_buffer_to(ctx, got, dko, n * es + 64);
    if (memcmp(got, want_k, n * es)) fail_msg("%s: keys differ from the reference", what);
    gpt_expect_poison(got, n * es, n * es + 64, what);
    if (vs) {
        gpt_buffer_to(ctx, got, dvo, n * vs + 64);
        if (memcmp(got, want_v, n * vs)) fail_msg("%s: values differ from the reference", what);
        gpt_expect_poison(got, n * vs, n * vs + 64, what);
        gpt_buffer_free(ctx, dva), gpt_buffer_free(ctx, dvb), gpt_buffer_free(ctx, dvo);
    }
    gpt_buffer_free(ctx, dka), gpt_buffer_free(ctx, dkb), gpt_buffer_free(ctx, dko);
    free(ka), free(kb), free(va), free(vb), free(want_k), free(want_v), free(got);
}

static void merge_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    static const size_t others[] = {0, 1, 33, 2047, 2049};
    size_t di, si, oi;
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            const gp_dtype d = gpk_dtypes[di];
            const size_t n = sizes[si];
            int dist;
            if (n > 4097 && !gpt_on_cuda(ctx)) continue;
            if (n > 4097) {
                run_merge(ctx, d, n, n / 3 + 1, GPK_RANDOM, 0, 0);
                run_merge(ctx, d, n / 2, n, GPK_FEW_DISTINCT, 1, 8);
                run_merge(ctx, d, n, 7, GPK_SPECIAL, 0, 4);
                continue;
            }
            for (dist = 0; dist < GPK_NDISTS; dist++)
                for (oi = 0; oi < COUNT(others); oi++) {
                    run_merge(ctx, d, n, others[oi], dist, (int)(oi & 1), 0);
                    run_merge(ctx, d, others[oi], n, dist, (int)(~oi & 1), oi & 2 ? 8 : 4);
                }
        }
}

/* Given sorted (ascending) sides against the reference, 8-byte values. */
static void run_merge_given(gp_context *ctx, gp_dtype d, const void *ka, size_t na, const void *kb, size_t nb,
                            const char *shape)
{
    const size_t es = gp_dtype_size(d), n = na + nb;
    uint64_t *va = gpt_malloc(na * 8 + 8), *vb = gpt_malloc(nb * 8 + 8), *want_v = gpt_malloc(n * 8);
    char *want_k = gpt_malloc(n * es), *got = gpt_malloc(n * 8 + 64);
    gpi_merge_args a = {d, 0, ka, va, na, kb, vb, nb, 8, want_k, want_v};
    void *dka = gpt_buffer_from(ctx, ka, na * es), *dkb = gpt_buffer_from(ctx, kb, nb * es);
    void *dva, *dvb, *dko = gpt_poisoned_buffer(ctx, n * es + 64), *dvo = gpt_poisoned_buffer(ctx, n * 8 + 64);
    size_t i;
    char what[128];
    for (i = 0; i < na; i++) va[i] = i;
    for (i = 0; i < nb; i++) vb[i] = na + i;
    dva = gpt_buffer_from(ctx, va, na * 8), dvb = gpt_buffer_from(ctx, vb, nb * 8);
    assert_int_equal(gpi_cpu_merge(&a), GP_SUCCESS);
    snprintf(what, sizeof what, "merge %s %s na=%zu nb=%zu [%s]", gpt_dtype_name(d), shape, na, nb,
             gpt_backend_name(ctx));
    GPT_OK(ctx, gp_merge_pairs(ctx, d, GP_SORT_ASCENDING, dka, dva, na, dkb, dvb, nb, 8, dko, dvo));
    gpt_buffer_to(ctx, got, dko, n * es + 64);
    if (memcmp(got, want_k, n * es)) fail_msg("%s: keys differ from the reference", what);
    gpt_expect_poison(got, n * es, n * es + 64, what);
    gpt_buffer_to(ctx, got, dvo, n * 8 + 64);
    if (memcmp(got, want_v, n * 8)) fail_msg("%s: values differ from the reference", what);
    gpt_expect_poison(got, n * 8, n * 8 + 64, what);
    gpt_buffer_free(ctx, dko);
    dko = gpt_poisoned_buffer(ctx, n * es + 64); /* the pairs' keys must not answer for the keys-only merge */
    GPT_OK(ctx, gp_merge_keys(ctx, d, GP_SORT_ASCENDING, dka, na, dkb, nb, dko));
    gpt_buffer_to(ctx, got, dko, n * es + 64);
    if (memcmp(got, want_k, n * es)) fail_msg("%s: keys-only merge differs from the reference", what);
    gpt_expect_poison(got, n * es, n * es + 64, what);
    gpt_buffer_free(ctx, dka), gpt_buffer_free(ctx, dkb), gpt_buffer_free(ctx, dva), gpt_buffer_free(ctx, dvb);
    gpt_buffer_free(ctx, dko), gpt_buffer_free(ctx, dvo);
    free(va), free(vb), free(want_v), free(want_k), free(got);
}

/* The CUDA merge's tile (outputs a block merges at once;
 * lib/cuda/policy/merge.cuh): four-byte keys 256 x 11 keys only, 256 x 15
 * in pairs; eight-byte keys 256 x 7 both. */
static size_t merge_tile(gp_dtype d, int pairs)
{
    return gp_dtype_size(d) == 4 ? 256 * (pairs ? 15 : 11) : 256 * 7;
}

enum { SHAPE_A_FIRST, SHAPE_B_FIRST, SHAPE_ALL_EQUAL, SHAPE_ALTERNATING, NSHAPES };
static const char *const shape_names[NSHAPES] = {"a before b", "b before a", "all equal", "alternating"};

/* Ascending sides of a shape: one side wholly before the other (every
 * split at an end), all keys equal across both (every split decided by the
 * tie rule: a's first), or strictly alternating keys (a even, b odd). */
static void fill_shape(gp_dtype d, int shape, void *ka, size_t na, void *kb, size_t nb)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    for (i = 0; i < na + nb; i++) {
        const int in_a = i < na;
        const size_t j = in_a ? i : i - na;
        uint64_t x;
        switch (shape) {
        case SHAPE_A_FIRST: x = in_a ? j : na + j; break;
        case SHAPE_B_FIRST: x = in_a ? nb + j : j; break;
        case SHAPE_ALL_EQUAL: x = 7; break;
        default: x = in_a ? 2 * j : 2 * j + 1; break;
        }
        if (es == 4) ((uint32_t *)(in_a ? ka : kb))[j] = (uint32_t)x;
        else ((uint64_t *)(in_a ? ka : kb))[j] = x;
    }
}

/* Each side a tile - 1, a tile, a tile + 1 (and empty, one key, a few
 * tiles, many tiles) against every size of the other side,
 * in every shape, pairs and keys only; on CUDA for the tile of the keys-only
 * merge and, where it differs, of pairs. */
static void merge_tile_shapes(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype dts[] = {GP_UINT32, GP_UINT64};
    size_t di, ai, bi;
    for (di = 0; di < COUNT(dts) * 2; di++) {
        const gp_dtype d = dts[di / 2];
        const int pairs = (int)(di % 2);
        const size_t t = merge_tile(d, pairs), es = gp_dtype_size(d);
        const size_t sizes[] = {0, 1, t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 3 * t, 5 * t + 3, 70001};
        if (pairs && (!gpt_on_cuda(ctx) || t == merge_tile(d, 0))) continue;
        for (ai = 0; ai < COUNT(sizes); ai++)
            for (bi = 0; bi < COUNT(sizes); bi++) {
                const size_t na = sizes[ai], nb = sizes[bi];
                char *ka = gpt_malloc(na * es + 8), *kb = gpt_malloc(nb * es + 8);
                int shape;
                if (na + nb == 0 || (!gpt_on_cuda(ctx) && na + nb > 9000)) goto next;
                for (shape = 0; shape < NSHAPES; shape++) {
                    fill_shape(d, shape, ka, na, kb, nb);
                    run_merge_given(ctx, d, ka, na, kb, nb, shape_names[shape]);
                }
            next:
                free(ka), free(kb);
            }
    }
}

/* CUDA only (the CPU reference is what it is compared with). Millions of
 * outputs: thousands of tiles and merge-path splits, the last tile
 * partial or not, both sides or mostly one. */
static void merge_many_tiles(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype dts[] = {GP_UINT32, GP_UINT64};
    const size_t na = 5000011, nb = 4999999;
    size_t di;
    int shape;
    for (di = 0; di < COUNT(dts); di++) {
        const gp_dtype d = dts[di];
        const size_t es = gp_dtype_size(d);
        char *ka = gpt_malloc(na * es), *kb = gpt_malloc(nb * es);
        for (shape = 0; shape < NSHAPES; shape++) {
            fill_shape(d, shape, ka, na, kb, nb);
            run_merge_given(ctx, d, ka, na, kb, nb, shape_names[shape]);
        }
        free(ka), free(kb);
        run_merge(ctx, d, na, nb, GPK_RANDOM, 0, 0);
        run_merge(ctx, d, nb, na, GPK_FEW_DISTINCT, 1, 0);
        run_merge(ctx, d, na, 0, GPK_RANDOM, 1, 0);
        run_merge(ctx, d, 5, nb, GPK_SPECIAL, 0, 0);
        /* a tile count that is a multiple of the partition's coarse step
         * (every 32nd boundary), and one element past it */
        run_merge(ctx, d, 32 * merge_tile(d, 0), 32 * merge_tile(d, 0), GPK_RANDOM, 0, 0);
        run_merge(ctx, d, 32 * merge_tile(d, 0) + 1, 32 * merge_tile(d, 0), GPK_FEW_DISTINCT, 1, 0);
        run_merge(ctx, d, 32 * merge_tile(d, 1), 32 * merge_tile(d, 1) + 1, GPK_RANDOM, 0, 8);
    }
    for (di = 0; di < COUNT(gpk_dtypes); di++) /* every key kind, both orders */
        run_merge(ctx, gpk_dtypes[di], nb, na, di % 2 ? GPK_SPECIAL : GPK_RANDOM, (int)(di / 2 % 2), 0);
}

static void merge_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t na = 32, nb = 16;
    char *k = gpt_poisoned_buffer(ctx, 4096), *v = gpt_poisoned_buffer(ctx, 4096), *o = gpt_poisoned_buffer(ctx, 1024);
    char *ov = gpt_poisoned_buffer(ctx, 1024);
    const gp_sort_order up = GP_SORT_ASCENDING;

    assert_int_equal(gp_merge_keys(NULL, GP_UINT32, up, k, na, k + 512, nb, o), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, (gp_dtype)0, up, k, na, k + 512, nb, o), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, (gp_sort_order)0, k, na, k + 512, nb, o),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, NULL, na, k + 512, nb, o), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k, na, NULL, nb, o), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k, na, k + 512, nb, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k, SIZE_MAX, k + 512, 2, o), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT64, up, k, SIZE_MAX / 16, k + 512, SIZE_MAX / 16, o),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k, na, k + 512, nb, k + 100), GP_ERROR_OVERLAP);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k, na, k + 512, nb, k + 480), GP_ERROR_OVERLAP);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, k + 1, na, k + 512, nb, o), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_keys(ctx, GP_UINT64, up, k, na, k + 512, nb, o + 4), GP_ERROR_INVALID_ARGUMENT);
    /* pairs */
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 0, o, ov),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 16, o, ov),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, NULL, na, k + 512, v + 512, nb, 8, o, ov),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 8, o, NULL),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 8, o, v + 8),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 8, o, o + 64),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 8, o, k + 256),
                     GP_ERROR_OVERLAP);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v + 4, na, k + 512, v + 512, nb, 8, o, ov),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, SIZE_MAX / 8, 8, o, ov),
                     GP_ERROR_SIZE_OVERFLOW);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_merge_keys(ctx, GP_UINT32, up, host, na, k + 512, nb, o), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_merge_pairs(ctx, GP_UINT32, up, k, v, na, k + 512, v + 512, nb, 4, o, host),
                         GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, k, 4096), gpt_expect_untouched(ctx, v, 4096);
    gpt_expect_untouched(ctx, o, 1024), gpt_expect_untouched(ctx, ov, 1024);
    /* empty inputs need no buffers */
    GPT_OK(ctx, gp_merge_keys(ctx, GP_FLOAT32, up, NULL, 0, NULL, 0, NULL));
    GPT_OK(ctx, gp_merge_pairs(ctx, GP_INT64, GP_SORT_DESCENDING, NULL, NULL, 0, NULL, NULL, 0, 8, NULL, NULL));
    gpt_buffer_free(ctx, k), gpt_buffer_free(ctx, v), gpt_buffer_free(ctx, o), gpt_buffer_free(ctx, ov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_stable_sort),
        GPT_TEST_BOTH(merge_matches_reference),
        GPT_TEST_BOTH(merge_tile_shapes),
        GPT_TEST_CUDA(merge_many_tiles),
        GPT_TEST_BOTH(merge_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
