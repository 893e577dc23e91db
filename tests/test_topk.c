/* SPDX-License-Identifier: BSD-3-Clause */
/* test_topk.c - gp_top_k: (1) the CPU reference against a full stable
 * sort (an independent merge sort by the suite's own comparator) cut to k,
 * every dtype, both orders, k = 1, k = n, k inside runs of ties, all keys
 * equal, NaNs of both signs and signed zeros; (2) each backend against the
 * reference, keys only / values / 4- and 8-byte indices, poisoned outputs
 * (nothing past k written), the large sizes on CUDA; (3) bad arguments leave
 * the outputs untouched. */
#include "keys_util.h"

#include "search_internal.h" /* gpi_cpu_topk: the reference */

#include <stdio.h>

/* The k values to try for n keys: 1, 2, a few inside, n - 1, n. */
static size_t pick_k(size_t n, int which)
{
    switch (which) {
    case 0: return 1;
    case 1: return n > 1 ? 2 : 1;
    case 2: return n / 3 + 1;
    case 3: return n / 2 + 1;
    case 4: return n > 1 ? n - 1 : 1;
    default: return n;
    }
}

static void reference_matches_sorted_prefix(void **state)
{
    static const size_t sizes[] = {1, 2, 3, 31, 32, 33, 257, 1000, 4099};
    size_t di, si, i;
    int dist, desc, which;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(gpk_dtypes); di++)
        for (si = 0; si < COUNT(sizes); si++)
            for (dist = 0; dist < GPK_NDISTS; dist++)
                for (desc = 0; desc < 2; desc++) {
                    const gp_dtype d = gpk_dtypes[di];
                    const size_t n = sizes[si], es = gp_dtype_size(d);
                    char *keys = gpt_malloc(n * es), *got = gpt_malloc(n * es);
                    uint64_t *pos = gpt_malloc(n * 8), *idx = gpt_malloc(n * 8);
                    gpk_fill(d, keys, n, dist);
                    gpk_stable_order(d, desc, keys, pos, n);
                    for (which = 0; which < 6; which++) {
                        const size_t k = pick_k(n, which);
                        gpi_topk_args a = {d, desc, keys, n, k, got, 8, NULL, idx};
                        gpt_poison(got, n * es), gpt_poison(idx, n * 8);
                        assert_int_equal(gpi_cpu_topk(&a), GP_SUCCESS);
                        for (i = 0; i < k; i++)
                            if (idx[i] != pos[i] || memcmp(got + i * es, keys + pos[i] * es, es))
                                fail_msg("reference top-k %s %s %s n=%zu k=%zu: entry %zu differs from the sort",
                                         gpt_dtype_name(d), gpk_dist_name(dist), desc ? "desc" : "asc", n, k, i);
                        gpt_expect_poison(got, k * es, n * es, "reference top-k keys");
                        gpt_expect_poison(idx, k * 8, n * 8, "reference top-k indices");
                    }
                    free(keys), free(got), free(pos), free(idx);
                }
}

/* NaNs last for the smallest, first for the largest (negative ones first). */
static void reference_nans_rank(void **state)
{
    const double keys[] = {1.0, -NAN, NAN, -0.0, 0.0, -INFINITY, NAN};
    double got[4];
    uint64_t idx[4];
    gpi_topk_args a = {GP_FLOAT64, 0, keys, 7, 4, got, 8, NULL, idx};
    const uint64_t smallest[] = {5, 3, 4, 0}, largest[] = {1, 2, 6, 0};
    (void)state;
    assert_int_equal(gpi_cpu_topk(&a), GP_SUCCESS);
    assert_memory_equal(idx, smallest, sizeof smallest);
    a.descending = 1;
    assert_int_equal(gpi_cpu_topk(&a), GP_SUCCESS);
    assert_memory_equal(idx, largest, sizeof largest);
    assert_memory_equal(got, keys + 1, 8);
}

enum vals { KEYS_ONLY, VALUES4, VALUES8, INDICES4, INDICES8, NVALS };

static void run_topk(gp_context *ctx, gp_dtype d, size_t n, size_t k, int dist, int desc, int vals)
{
    const size_t es = gp_dtype_size(d);
    const size_t vs = vals == KEYS_ONLY ? 0 : (vals == VALUES4 || vals == INDICES4) ? 4 : 8;
    const int indices = vals == INDICES4 || vals == INDICES8;
    char *keys_h = gpt_malloc(n * es), *vals_h = gpt_malloc(n * 8);
    char *want_k = gpt_malloc(k * es), *want_v = gpt_malloc(k * 8), *got = gpt_malloc(k * 8 + 64);
    void *dk, *dv = NULL, *dko, *dvo = NULL;
    gpi_topk_args a = {d, desc, keys_h, n, k, want_k, vs, indices ? NULL : vals_h, want_v};
    char what[160];
    gpk_fill(d, keys_h, n, dist);
    gpt_fill_random(GP_UINT64, vals_h, n, 0);
    assert_int_equal(gpi_cpu_topk(&a), GP_SUCCESS);
    dk = gpt_buffer_from(ctx, keys_h, n * es);
    dko = gpt_poisoned_buffer(ctx, k * es + 64);
    if (vs) {
        dv = indices ? NULL : gpt_buffer_from(ctx, vals_h, n * vs);
        dvo = gpt_poisoned_buffer(ctx, k * vs + 64);
    }
    snprintf(what, sizeof what, "top-k %s %s %s n=%zu k=%zu %s [%s]", gpt_dtype_name(d), gpk_dist_name(dist),
             desc ? "largest" : "smallest", n, k,
             vals == KEYS_ONLY ? "keys" : vals == VALUES4 ? "values4" : vals == VALUES8 ? "values8"
                                                 : vals == INDICES4 ? "indices4" : "indices8",
             gpt_backend_name(ctx));
    GPT_OK(ctx, gp_top_k(ctx, d, desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, dk, n, k, dko, vs, dv, dvo));
    gpt_buffer_to(ctx, got, dko, k * es + 64);
    if (memcmp(got, want_k, k * es)) fail_msg("%s: keys differ from the reference", what);
    gpt_expect_poison(got, k * es, k * es + 64, what);
    if (vs) {
        gpt_buffer_to(ctx, got, dvo, k * vs + 64);
        if (memcmp(got, want_v, k * vs)) fail_msg("%s: values differ from the reference", what);
        gpt_expect_poison(got, k * vs, k * vs + 64, what);
        if (dv) gpt_buffer_free(ctx, dv);
        gpt_buffer_free(ctx, dvo);
    }
    gpt_buffer_free(ctx, dk), gpt_buffer_free(ctx, dko);
    free(keys_h), free(vals_h), free(want_k), free(want_v), free(got);
}

static void topk_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, si;
    for (di = 0; di < COUNT(gpk_dtypes); di += gpt_dtype_step(COUNT(gpk_dtypes)))
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            const gp_dtype d = gpk_dtypes[di];
            const size_t n = sizes[si];
            int dist, which, vals;
            if (n == 0) continue; /* k >= 1 > n: an argument error, tested below */
            if (n > 4097 && !gpt_on_cuda(ctx)) continue;
            if (n > 4097) {
                run_topk(ctx, d, n, 1, GPK_RANDOM, 0, INDICES8);
                run_topk(ctx, d, n, 1000, GPK_RANDOM, 1, VALUES8);
                run_topk(ctx, d, n, n / 7 + 1, GPK_FEW_DISTINCT, 0, INDICES4);
                run_topk(ctx, d, n, 4099, GPK_SPECIAL, 1, VALUES4);
                run_topk(ctx, d, n, n, GPK_ALL_EQUAL, 0, KEYS_ONLY);
                continue;
            }
            for (dist = 0; dist < GPK_NDISTS; dist++)
                for (which = 0; which < 6; which++)
                    run_topk(ctx, d, n, pick_k(n, which), dist, which & 1, (which + dist) % NVALS);
            for (vals = 0; vals < NVALS; vals++) run_topk(ctx, d, n, pick_k(n, 2), GPK_FEW_DISTINCT, 1, vals);
        }
}

/* The CUDA paths: a sampled threshold (n well past 2k + 2^18), the tie cut
 * inside it (few distinct keys), the exact multi-pass select when the
 * candidates overflow (all keys equal). */
static void topk_select_paths(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 1000003;
    if (!gpt_on_cuda(ctx)) skip();
    run_topk(ctx, GP_UINT32, n, 10, GPK_RANDOM, 0, KEYS_ONLY);
    run_topk(ctx, GP_UINT32, n, 1000, GPK_RANDOM, 1, INDICES4);
    run_topk(ctx, GP_UINT32, n, 100000, GPK_RANDOM, 0, VALUES8);
    run_topk(ctx, GP_UINT32, n, 1000, GPK_FEW_DISTINCT, 0, INDICES8);
    run_topk(ctx, GP_INT32, n, 1000, GPK_FEW_DISTINCT, 1, VALUES4);
    run_topk(ctx, GP_UINT32, n, 5, GPK_ALL_EQUAL, 0, INDICES8);
    run_topk(ctx, GP_FLOAT32, n, 777, GPK_SPECIAL, 1, INDICES8);
    run_topk(ctx, GP_FLOAT64, n, 4321, GPK_RANDOM, 0, INDICES8);
    run_topk(ctx, GP_UINT64, 3 * ((size_t)1 << 20) + 1, 123457, GPK_RANDOM, 1, VALUES8);
    run_topk(ctx, GP_INT64, n, 1000, GPK_FEW_DISTINCT, 0, INDICES8);
    /* large k on the sampled path: its select passes over many blocks, the
     * index passes too when a fifth of the keys tie at the k-th */
    if (gpt_tiny()) return;
    run_topk(ctx, GP_UINT32, 3000017, 600000, GPK_RANDOM, 0, INDICES4);
    run_topk(ctx, GP_UINT32, 3000017, 250001, GPK_FEW_DISTINCT, 1, INDICES8);
    run_topk(ctx, GP_FLOAT64, 3000017, 400003, GPK_RANDOM, 1, VALUES8);
}

static void topk_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64;
    char *k = gpt_poisoned_buffer(ctx, 4096), *v = gpt_poisoned_buffer(ctx, 4096), *o = gpt_poisoned_buffer(ctx, 1024);
    char *ov = gpt_poisoned_buffer(ctx, 1024);
    const gp_sort_order up = GP_SORT_ASCENDING;

    assert_int_equal(gp_top_k(NULL, GP_UINT32, up, k, n, 5, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, (gp_dtype)0, up, k, n, 5, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, (gp_sort_order)0, k, n, 5, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 2, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 16, v, ov), GP_ERROR_INVALID_ARGUMENT);
    /* k outside [1, n] */
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 0, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, n + 1, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, 0, 1, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, 0, 0, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    /* NULL buffers */
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, NULL, n, 5, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, NULL, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, v, NULL), GP_ERROR_INVALID_ARGUMENT);
    /* overflow; 4-byte indices past 2^32 keys */
    assert_int_equal(gp_top_k(ctx, GP_UINT64, up, k, SIZE_MAX / 4, 5, o, 0, NULL, NULL), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, SIZE_MAX / 4, 5, o, 8, v, ov), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, (size_t)UINT32_MAX + 2, 5, o, 4, NULL, ov),
                     GP_ERROR_SIZE_OVERFLOW);
    /* overlaps */
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, k + 200, 8, v, ov), GP_ERROR_OVERLAP);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, v, v + 504), GP_ERROR_OVERLAP);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, v, o + 8), GP_ERROR_OVERLAP);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, v, k + 8), GP_ERROR_OVERLAP);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, v + 8, 8, v, ov), GP_ERROR_OVERLAP);
    /* alignment */
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k + 2, n, 5, o, 8, v, ov), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, v + 4, ov), GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[1024];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_top_k(ctx, GP_UINT32, up, host, n, 5, o, 8, v, ov), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_top_k(ctx, GP_UINT32, up, k, n, 5, o, 8, NULL, host), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, k, 4096), gpt_expect_untouched(ctx, v, 4096);
    gpt_expect_untouched(ctx, o, 1024), gpt_expect_untouched(ctx, ov, 1024);
    gpt_buffer_free(ctx, k), gpt_buffer_free(ctx, v), gpt_buffer_free(ctx, o), gpt_buffer_free(ctx, ov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_sorted_prefix),
        cmocka_unit_test(reference_nans_rank),
        GPT_TEST_BOTH(topk_matches_reference),
        GPT_TEST_BOTH(topk_select_paths),
        GPT_TEST_BOTH(topk_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
