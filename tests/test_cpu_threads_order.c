/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_threads_order.c - merge and top-k on the CPU backend's threads:
 * with 2, 3 and 7 threads (an even and two uneven splits), on sizes around the
 * point where a call starts using threads (64K elements) and odd large
 * ones, every dtype, both orders, keys and values of 4 and 8 bytes, the
 * outputs (poisoned first) equal bit for bit those of the sequential
 * references gpi_cpu_merge / gpi_cpu_topk, and nothing is written past
 * them. Unsorted merge inputs: every output is a key of the inputs with
 * its own value, and nothing outside the outputs is written. */
#include "keys_util.h"
#include "cpu_threads_grid.h"

#include "search_internal.h" /* gpi_cpu_merge, gpi_cpu_topk: the references */

#include <stdio.h>


/* Key shapes: random (mostly distinct), few distinct values (long runs of
 * ties), all equal, runs of many lengths (1 to 70000), special floats and
 * extremes. */
enum { SHAPE_RANDOM, SHAPE_FEW, SHAPE_EQUAL, SHAPE_RUNS, SHAPE_SPECIAL, NSHAPES };
/* Top-k only: random keys sorted best first or best last (the whole
 * answer in the first or the last part); the least keys at every
 * (n / 4096)-th position, where a sample of the keys with that stride
 * would see nothing else (ascending: the sample misleads). */
enum { SHAPE_BEST_FIRST = NSHAPES, SHAPE_BEST_LAST, SHAPE_STRIDED, NTOPK_SHAPES };
static const char *shape_name(int s)
{
    static const char *names[] = {"random",    "few-distinct", "all-equal", "runs",
                                  "special",   "best-first",   "best-last", "strided"};
    return names[s];
}

/* Key i of dtype d set to the small number v (the same order in every dtype). */
static void set_small(gp_dtype d, void *keys, size_t i, uint64_t v)
{
    switch (d) {
    case GP_UINT32: case GP_INT32: ((uint32_t *)keys)[i] = (uint32_t)v; break;
    case GP_UINT64: case GP_INT64: ((uint64_t *)keys)[i] = v; break;
    case GP_FLOAT32: ((float *)keys)[i] = (float)v; break;
    default: ((double *)keys)[i] = (double)v; break;
    }
}

static void fill_shape(gp_dtype d, void *keys, size_t n, int shape)
{
    static const size_t run_lengths[] = {1, 2, 7, 100, 5000, 70000, 3};
    size_t i = 0, r, run = 0;
    switch (shape) {
    case SHAPE_RANDOM: gpk_fill(d, keys, n, GPK_RANDOM); break;
    case SHAPE_FEW: gpk_fill(d, keys, n, GPK_FEW_DISTINCT); break;
    case SHAPE_EQUAL: gpk_fill(d, keys, n, GPK_ALL_EQUAL); break;
    case SHAPE_STRIDED:
        run = n / 4096 ? n / 4096 : 1; /* the stride */
        for (i = 0; i < n; i++) set_small(d, keys, i, i % run ? 2 + gpt_rand64() % 1000 : 1);
        break;
    case SHAPE_RUNS:
        for (run = 0; i < n; run++) {
            const size_t len = run_lengths[gpt_rand64() % COUNT(run_lengths)];
            for (r = 0; r < len && i < n; r++, i++) set_small(d, keys, i, 1000 - run % 1000);
        }
        break;
    default: gpk_fill(d, keys, n, GPK_SPECIAL); break;
    }
}

static gp_sort_order order_of(int desc) { return desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING; }

/* keys[0, n) sorted in place in the order (by the library's sort). */
static void sort_keys(gp_context *ctx, gp_dtype d, int desc, void *keys, size_t n)
{
    const size_t es = gp_dtype_size(d);
    void *copy;
    if (n < 2) return;
    copy = gpt_malloc(n * es);
    memcpy(copy, keys, n * es);
    GPT_OK(ctx, gp_sort_keys(ctx, d, order_of(desc), copy, keys, n, 0, (int)(8 * es)));
    free(copy);
}

/* ---- merge -------------------------------------------------------------------------- */

/* How a and b are made from n keys: independent halves; a fifth and the
 * rest; all in a; all in b; a third of the keys wholly before the rest;
 * wholly after it. */
enum { SPLIT_HALVES, SPLIT_FIFTH, SPLIT_ALL_A, SPLIT_ALL_B, SPLIT_A_BEFORE, SPLIT_A_AFTER, NSPLITS };

/* cat: n keys, a = cat[0, na) and b = cat[na, n), each sorted. */
static size_t make_merge_inputs(gp_context *ctx, gp_dtype d, int desc, int shape, int split, char *cat, size_t n)
{
    const size_t es = gp_dtype_size(d);
    size_t na, i;
    fill_shape(d, cat, n, shape);
    switch (split) {
    case SPLIT_HALVES: na = n / 2; break;
    case SPLIT_FIFTH: na = n / 5; break;
    case SPLIT_ALL_A: na = n; break;
    case SPLIT_ALL_B: na = 0; break;
    default: na = n / 3; break;
    }
    if (split == SPLIT_A_BEFORE || split == SPLIT_A_AFTER) {
        sort_keys(ctx, d, desc, cat, n);
        if (split == SPLIT_A_AFTER) { /* rotate: the last na keys first */
            char *tmp = gpt_malloc(n * es + 1);
            memcpy(tmp, cat + (n - na) * es, na * es);
            memcpy(tmp + na * es, cat, (n - na) * es);
            memcpy(cat, tmp, n * es);
            free(tmp);
        }
    } else {
        sort_keys(ctx, d, desc, cat, na);
        sort_keys(ctx, d, desc, cat + na * es, n - na);
    }
    if (shape == SHAPE_EQUAL)
        for (i = 0; i < n; i++) memcpy(cat + i * es, cat, es); /* ties across a and b */
    return na;
}

static void merge_case(gp_context *ctx, gp_dtype d, int desc, int shape, int split, size_t vs, size_t n)
{
    const size_t es = gp_dtype_size(d), kbytes = n * es + kGuard, vbytes = n * (vs ? vs : 1) + kGuard;
    char *cat = gpt_malloc(n * es + 1), *vals = gpt_malloc(n * 8 + 8);
    char *want = gpt_malloc(kbytes), *wantv = gpt_malloc(vbytes), *got = gpt_malloc(kbytes), *gotv = gpt_malloc(vbytes);
    const size_t na = make_merge_inputs(ctx, d, desc, shape, split, cat, n), nb = n - na;
    gpi_merge_args a = {d, desc, cat, vals, na, cat + na * es, vals + na * vs, nb, vs, want, wantv};
    size_t i, ti;
    for (i = 0; i < n; i++) {
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i;
        else ((uint64_t *)vals)[i] = i;
    }
    gpt_poison(want, kbytes), gpt_poison(wantv, vbytes);
    if (n) assert_int_equal(gpi_cpu_merge(&a), GP_SUCCESS);
    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
        char what[160];
        snprintf(what, sizeof what, "merge %s %s %s split %d values %zu n=%zu (%d threads)", gpt_dtype_name(d),
                 shape_name(shape), desc ? "desc" : "asc", split, vs, n, thread_counts[ti]);
        set_threads(ctx, thread_counts[ti]);
        gpt_poison(got, kbytes), gpt_poison(gotv, vbytes);
        if (vs)
            GPT_OK(ctx, gp_merge_pairs(ctx, d, order_of(desc), a.a_keys, a.a_values, na, a.b_keys, a.b_values, nb,
                                       vs, got, gotv));
        else
            GPT_OK(ctx, gp_merge_keys(ctx, d, order_of(desc), a.a_keys, na, a.b_keys, nb, got));
        if (memcmp(got, want, n * es)) fail_msg("%s: keys differ from the reference", what);
        if (vs && memcmp(gotv, wantv, n * vs)) fail_msg("%s: values differ from the reference", what);
        gpt_expect_poison(got, n * es, kbytes, what);
        gpt_expect_poison(gotv, n * vs, vbytes, what);
    }
    free(cat), free(vals), free(want), free(wantv), free(got), free(gotv);
}

static void merge_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di;
    int shape, split;
    for (si = 0; si < size_count(); si++)
        for (di = 0; di < COUNT(gpk_dtypes); di++)
            for (shape = 0; shape < NSHAPES; shape++)
                for (split = 0; split < NSPLITS; split++) {
                    /* every value size and order for each dtype, shape and split in turn */
                    static const size_t value_sizes[] = {0, 4, 8};
                    const int turn = shape + split + (int)di;
                    merge_case(ctx, gpk_dtypes[di], turn & 1, shape, split, value_sizes[turn % 3], sizes[si]);
                }
    set_threads(ctx, 0);
}

/* Unsorted a and b, each in a buffer of its own (the sanitizer sees a read
 * past either): na + nb keys, each one of the inputs' with its own value
 * (its position in a then b), nothing past the outputs. */
static void merge_unsorted_inputs(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, ti, i;
    for (si = 0; si < size_count(); si++)
        for (di = 0; di < COUNT(gpk_dtypes); di++)
            for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                const gp_dtype d = gpk_dtypes[di];
                const size_t n = sizes[si], es = gp_dtype_size(d), na = n ? n / 3 + 1 : 0, nb = n - na;
                const size_t kbytes = n * es + kGuard, vbytes = n * 8 + kGuard;
                char *ak = gpt_malloc(na * es + 1), *bk = gpt_malloc(nb * es + 1), *got = gpt_malloc(kbytes);
                uint64_t *av = gpt_malloc(na * 8 + 8), *bv = gpt_malloc(nb * 8 + 8), *gotv = gpt_malloc(vbytes);
                char what[128];
                snprintf(what, sizeof what, "unsorted merge %s n=%zu (%d threads)", gpt_dtype_name(d), n,
                         thread_counts[ti]);
                gpk_fill(d, ak, na, GPK_RANDOM), gpk_fill(d, bk, nb, GPK_RANDOM);
                for (i = 0; i < na; i++) av[i] = i;
                for (i = 0; i < nb; i++) bv[i] = na + i;
                set_threads(ctx, thread_counts[ti]);
                gpt_poison(got, kbytes), gpt_poison(gotv, vbytes);
                GPT_OK(ctx, gp_merge_pairs(ctx, d, order_of((int)(ti & 1)), ak, av, na, bk, bv, nb, 8, got, gotv));
                for (i = 0; i < n; i++) {
                    const uint64_t v = gotv[i];
                    const char *from = v < na ? ak + v * es : bk + (v - na) * es;
                    if (v >= n || memcmp(got + i * es, from, es)) fail_msg("%s: output %zu is no input pair", what, i);
                }
                gpt_expect_poison(got, n * es, kbytes, what);
                gpt_expect_poison(gotv, n * 8, vbytes, what);
                free(ak), free(bk), free(got), free(av), free(bv), free(gotv);
            }
    set_threads(ctx, 0);
}

/* ---- top-k -------------------------------------------------------------------------- */

/* What comes back besides the keys. */
enum { OUT_KEYS, OUT_VALUES4, OUT_VALUES8, OUT_INDICES4, OUT_INDICES8, NOUTS };

static void topk_case(gp_context *ctx, gp_dtype d, int desc, int shape, size_t n)
{
    const size_t es = gp_dtype_size(d), kbytes = n * es + kGuard, vbytes = n * 8 + kGuard;
    /* k: 1, 2, inside the keys, n - 1, n; from 200003 keys on (for time)
     * 1, 65537 and one of n / 3 + 1 and n in turn */
    const int large = n >= 200003;
    const size_t ks[] = {1, large ? 65537 : 2, large && shape % 4 == 1 ? n : n / 3 + 1, large ? 1 : n - 1, large ? 1 : n};
    char *keys = gpt_malloc(n * es + 1), *got = gpt_malloc(kbytes), *gotv = gpt_malloc(vbytes);
    uint64_t *order = gpt_malloc(n * 8 + 8), *vals = gpt_malloc(n * 8 + 8);
    size_t ki, ti, i, last = 0;
    fill_shape(d, keys, n, shape == SHAPE_BEST_FIRST || shape == SHAPE_BEST_LAST ? SHAPE_RANDOM : shape);
    if (shape == SHAPE_BEST_FIRST || shape == SHAPE_BEST_LAST) sort_keys(ctx, d, desc ^ (shape == SHAPE_BEST_LAST), keys, n);
    gpt_fill_random(GP_UINT64, vals, n, 0);
    {
        /* the reference's whole order: its top k for every k is the first k of it */
        gpi_topk_args a = {d, desc, keys, n, n, got, 8, NULL, order};
        assert_int_equal(gpi_cpu_topk(&a), GP_SUCCESS);
    }
    for (ki = 0; ki < COUNT(ks); ki++) {
        const size_t k = ks[ki];
        if (k > n || k <= last) continue; /* a k past n, or one done */
        last = k;
        for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
            const int out = (int)((ki + ti + (size_t)shape) % NOUTS);
            const size_t vs = out == OUT_KEYS ? 0 : out == OUT_VALUES4 || out == OUT_INDICES4 ? 4 : 8;
            const void *values_in = out == OUT_VALUES4 || out == OUT_VALUES8 ? vals : NULL;
            char what[160];
            snprintf(what, sizeof what, "top-k %s %s %s n=%zu k=%zu output %d (%d threads)", gpt_dtype_name(d),
                     shape_name(shape), desc ? "desc" : "asc", n, k, out,
                     thread_counts[ti]);
            set_threads(ctx, thread_counts[ti]);
            gpt_poison(got, kbytes), gpt_poison(gotv, vbytes);
            GPT_OK(ctx, gp_top_k(ctx, d, order_of(desc), keys, n, k, got, vs, values_in, vs ? gotv : NULL));
            for (i = 0; i < k; i++) {
                const uint64_t from = order[i];
                int same = !memcmp(got + i * es, keys + from * es, es);
                if (vs == 4) same &= ((uint32_t *)gotv)[i] == (values_in ? ((uint32_t *)vals)[from] : (uint32_t)from);
                if (vs == 8) same &= ((uint64_t *)gotv)[i] == (values_in ? vals[from] : from);
                if (!same) fail_msg("%s: entry %zu differs from the reference", what, i);
            }
            gpt_expect_poison(got, k * es, kbytes, what);
            gpt_expect_poison(gotv, k * vs, vbytes, what);
        }
    }
    free(keys), free(got), free(gotv), free(order), free(vals);
}

static void topk_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di;
    int shape;
    for (si = 0; si < size_count(); si++)
        for (di = 0; di < COUNT(gpk_dtypes); di++)
            for (shape = 0; shape < NTOPK_SHAPES; shape++) {
                /* both orders for each dtype and shape, in turn over the sizes */
                const int desc = (int)((si + di + (size_t)shape) & 1);
                if (sizes[si] == 0) {
                    /* 1 <= k <= n cannot hold: an error, the outputs untouched */
                    char out[kGuard];
                    gpt_poison(out, sizeof out);
                    assert_int_equal(gp_top_k(ctx, gpk_dtypes[di], order_of(desc), out, 0, 1, out + 16, 0, NULL, NULL),
                                     GP_ERROR_INVALID_ARGUMENT);
                    gpt_expect_poison(out, 0, sizeof out, "top-k n = 0");
                    continue;
                }
                topk_case(ctx, gpk_dtypes[di], desc, shape, sizes[si]);
            }
    set_threads(ctx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(merge_matches_reference),
        GPT_TEST_CPU(merge_unsorted_inputs),
        GPT_TEST_CPU(topk_matches_reference),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("cpu_threads_order", tests, NULL, NULL);
}
