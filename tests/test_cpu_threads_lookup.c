/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_threads_lookup.c - gather, scatter, the index check, sorted
 * search and arg-min / arg-max on the CPU backend give the sequential
 * reference's bits (called directly) with 2, 3 and 7 threads (an even and
 * two uneven splits), on sizes around the point where a call starts using
 * threads (64K elements) and odd large ones. Outputs are poisoned first:
 * what the reference leaves alone must stay poisoned. Index shapes include
 * duplicates (the last one wins a scatter), out-of-range indices and
 * first bad indices at the parts' boundaries; extreme values are planted
 * at and next to the boundaries (the first one must win). */
#include "test_util.h"
#include "cpu_threads_grid.h"

#include "cpu/pool.h"
#include "permute_internal.h"
#include "search_internal.h"
#include "segmented_internal.h"

#include <gpuprim/argminmax.h>
#include <gpuprim/permute.h>
#include <gpuprim/search.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};

/* The start of every part but the first, for 2, 3 and 7 parts where n is
 * cut that many ways (as the calls cut it, align 1), into at[]; returns
 * how many. */
static size_t part_starts(size_t n, size_t *at)
{
    static const int parts[] = {2, 3, 7};
    size_t k = 0, pi;
    for (pi = 0; pi < COUNT(parts); pi++) {
        const int np = gpi_pool_parts(n, parts[pi]);
        int p;
        for (p = 1; p < np; p++) {
            size_t lo, hi;
            gpi_pool_range(n, p, np, 1, &lo, &hi);
            at[k++] = lo;
        }
    }
    return k;
}

/* ---- gather, scatter --------------------------------------------------------------- */

enum { kShapes = 9 };

/* Indices into an array of `limit` elements: 0 random, 1 ascending (from 0
 * again past limit - 1), 2 descending, 3 all equal, 4 skewed (most in the
 * first 16), 5 some out of range (UINT64_MAX among them), 6 ascending with
 * repeats, running past limit at the end, 7 the same with a few steps
 * down, 8 ascending, each value twice (repeats straddle part boundaries).
 * limit 0: every index is out of range. */
static void make_indices(int shape, uint64_t *idx, size_t n, size_t limit)
{
    size_t i;
    if (shape >= 6 && limit) {
        uint64_t v = 0;
        for (i = 0; i < n; i++) {
            if (shape == 8) v = i / 2;
            else v += gpt_rand64() % 3 == 0;
            idx[i] = v;
            if (shape == 7 && gpt_rand64() % 100000 == 0) idx[i] = gpt_rand64() % limit;
        }
        return;
    }
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        uint64_t v;
        if (limit == 0) v = r;
        else if (shape == 0) v = r % limit;
        else if (shape == 1) v = i % limit;
        else if (shape == 2) v = limit - 1 - i % limit;
        else if (shape == 3) v = limit / 2;
        else if (shape == 4) v = r % 10 ? r % (limit < 16 ? limit : 16) : (r >> 8) % limit;
        else v = r % 8 == 0 ? UINT64_MAX - (r >> 60) : r % (limit + limit / 4 + 1);
        idx[i] = v;
    }
}

static void gather_and_scatter(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t elem_sizes[] = {4, 8, 16};
    size_t si, ei, li, ti;
    int shape;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        /* the other array's length: as long, shorter, longer */
        const size_t lens[] = {n, n / 3 + 1, 2 * n + 5};
        for (li = 0; li < COUNT(lens); li++) {
            const size_t len = lens[li], most = (n > len ? n : len) * 16 + 16;
            unsigned char *in = gpt_malloc(most), *want = gpt_malloc(most), *got = gpt_malloc(most);
            uint64_t *idx = gpt_malloc(n * 8 + 8);
            gpt_fill_random(GP_UINT64, in, most / 8, 0);
            for (shape = 0; shape < kShapes; shape++) {
                make_indices(shape, idx, n, len);
                for (ei = 0; ei < COUNT(elem_sizes); ei++) {
                    const size_t es = elem_sizes[ei];
                    /* gather: in holds len elements, out n */
                    gpt_poison(want, n * es);
                    GPT_OK(ctx, gpi_cpu_gather(es, in, len, idx, want, n));
                    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                        set_threads(ctx, thread_counts[ti]);
                        gpt_poison(got, n * es + 16);
                        GPT_OK(ctx, gp_gather(ctx, es, in, len, idx, got, n, GP_INDEX_SKIP));
                        if (memcmp(want, got, n * es))
                            fail_msg("gather (n=%zu, in_n=%zu, es=%zu, shape %d, %d threads)", n, len, es, shape,
                                     thread_counts[ti]);
                        gpt_expect_poison(got, n * es, n * es + 16, "gather past out");
                    }
                    /* scatter: in holds n elements, out len */
                    gpt_poison(want, len * es);
                    GPT_OK(ctx, gpi_cpu_scatter(es, in, idx, n, want, len));
                    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                        set_threads(ctx, thread_counts[ti]);
                        gpt_poison(got, len * es + 16);
                        GPT_OK(ctx, gp_scatter(ctx, es, in, idx, n, got, len, GP_INDEX_SKIP));
                        if (memcmp(want, got, len * es))
                            fail_msg("scatter (n=%zu, out_n=%zu, es=%zu, shape %d, %d threads)", n, len, es, shape,
                                     thread_counts[ti]);
                        gpt_expect_poison(got, len * es, len * es + 16, "scatter past out");
                    }
                }
            }
            free(in), free(want), free(got), free(idx);
        }
    }
    set_threads(ctx, 0);
}

/* Scatter with every index the same: the last element must win, whatever
 * the threads; with all distinct values a wrong winner shows. */
static void scatter_last_duplicate_wins(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 1000003, out_n = 300007;
    uint64_t *in = gpt_malloc(n * 8), *idx = gpt_malloc(n * 8), *out = gpt_malloc(out_n * 8);
    size_t i, ti;
    for (i = 0; i < n; i++) in[i] = i, idx[i] = (i * 7919) % out_n;
    for (ti = 0; ti < COUNT(thread_counts); ti++) {
        set_threads(ctx, thread_counts[ti]);
        gpt_poison(out, out_n * 8);
        GPT_OK(ctx, gp_scatter(ctx, 8, in, idx, n, out, out_n, GP_INDEX_CHECK));
        /* the last i with i * 7919 == j (mod out_n) is among the last out_n */
        for (i = n - out_n; i < n; i++)
            if (out[idx[i]] != in[i]) fail_msg("out[%zu]: not the last duplicate (%d threads)", (size_t)idx[i],
                                               thread_counts[ti]);
    }
    set_threads(ctx, 0);
    free(in), free(idx), free(out);
}

/* GP_INDEX_CHECK: the first bad index is found (it is named in the detail
 * message) and nothing is written, with bad indices at and next to the
 * parts' boundaries, at the ends, several of them, or none. */
static void index_check(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, ti, ci;
    for (si = 1; si < size_count(); si++) {
        const size_t n = sizes[si], limit = n / 2 + 1;
        uint64_t *idx = gpt_malloc(n * 8), *in = gpt_malloc(limit * 8), *out = gpt_malloc(n * 8);
        size_t cand[64], k = part_starts(n, cand), c = k, i;
        for (i = 0; i < k; i++) cand[c++] = cand[i] - 1; /* just before each boundary */
        cand[c++] = 0, cand[c++] = n - 1, cand[c++] = gpt_rand64() % n, cand[c++] = SIZE_MAX; /* SIZE_MAX: none */
        gpt_fill_random(GP_UINT64, in, limit, 0);
        for (ci = 0; ci < c; ci++) {
            const size_t first = cand[ci];
            size_t want, got;
            make_indices(0, idx, n, limit);
            if (first != SIZE_MAX) {
                idx[first] = ci % 2 ? limit : UINT64_MAX - ci;
                /* more bad ones after it */
                for (i = first + 1; i < n; i += 1 + gpt_rand64() % 100000) idx[i] = limit + i;
            }
            GPT_OK(ctx, gpi_cpu_check_indices(idx, n, limit, &want));
            assert_true(want == first);
            for (ti = 0; ti < COUNT(thread_counts); ti++) {
                char name[32];
                gp_status s;
                set_threads(ctx, thread_counts[ti]);
                GPT_OK(ctx, gpi_cpu_check_indices_threads(idx, n, limit, &got, thread_counts[ti]));
                if (got != want)
                    fail_msg("check: %zu, want %zu (n=%zu, %d threads)", got, want, n, thread_counts[ti]);
                gpt_poison(out, n * 8);
                s = gp_gather(ctx, 8, in, limit, idx, out, n, GP_INDEX_CHECK);
                if (first == SIZE_MAX) {
                    GPT_OK(ctx, s);
                    continue;
                }
                assert_int_equal(s, GP_ERROR_INVALID_ARGUMENT);
                snprintf(name, sizeof name, "indices[%zu]", first);
                if (!strstr(gp_context_last_error(ctx), name))
                    fail_msg("detail '%s' does not name %s (%d threads)", gp_context_last_error(ctx), name,
                             thread_counts[ti]);
                gpt_expect_poison(out, 0, n * 8, "gather refused");
            }
        }
        /* every index bad: the first is 0 */
        for (ti = 0; ti < COUNT(thread_counts); ti++) {
            size_t got;
            GPT_OK(ctx, gpi_cpu_check_indices_threads(idx, n, 0, &got, thread_counts[ti]));
            assert_true(got == 0);
        }
        free(idx), free(in), free(out);
    }
    set_threads(ctx, 0);
}

/* ---- sorted search ----------------------------------------------------------------- */

static gp_dtype sort_dtype;
static int sort_descending;

static int by_order(const void *a, const void *b)
{
    const uint64_t x = gpi_order_image(sort_dtype, sort_descending, a, 0);
    const uint64_t y = gpi_order_image(sort_dtype, sort_descending, b, 0);
    return x < y ? -1 : x > y;
}

/* Random keys in [0, range) (range 1: all equal); with range > 1 floats
 * also get NaNs (two payloads), -0.0, +0.0 and infinities. */
static void fill_keys(gp_dtype d, void *p, size_t n, uint64_t range)
{
    size_t i;
    gpt_fill_random(d, p, n, range);
    if ((d != GP_FLOAT32 && d != GP_FLOAT64) || range == 1) return;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64() % 64;
        double v;
        if (r >= 6) continue;
        v = r == 0 ? NAN : r == 1 ? -NAN : r == 2 ? -0.0 : r == 3 ? 0.0 : r == 4 ? INFINITY : -INFINITY;
        if (d == GP_FLOAT32) ((float *)p)[i] = (float)v;
        else ((double *)p)[i] = v;
    }
}

static void search(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    /* key sets: sorted with repeats, all equal, unsorted, empty, one */
    static const size_t key_counts[] = {5001, 3000, 4097, 0, 1};
    const size_t most = 300007;
    unsigned char *keys = gpt_malloc(5001 * 8), *needles = gpt_malloc(most * 8);
    uint64_t *want = gpt_malloc(most * 8 + 8), *got = gpt_malloc(most * 8 + 8);
    size_t si, di, ki, ti;
    int order, upper;
    for (di = 0; di < COUNT(dtypes); di++)
        for (order = 0; order < 2; order++) {
            const gp_dtype d = dtypes[di];
            const size_t ks = gp_dtype_size(d);
            for (ki = 0; ki < COUNT(key_counts); ki++) {
                const size_t nk = key_counts[ki];
                fill_keys(d, keys, nk, ki == 1 ? 1 : 2000);
                if (ki != 2) {
                    sort_dtype = d, sort_descending = order;
                    qsort(keys, nk, ks, by_order);
                }
                for (si = 0; si < size_count(); si++) {
                    const size_t m = sizes[si];
                    if (m == most && (di + (size_t)order + ki) % COUNT(key_counts) != 0) continue; /* time */
                    fill_keys(d, needles, m, 2200);
                    for (upper = 0; upper < 2; upper++) {
                        gpi_search_args a = {d, order, upper, keys, nk, needles, m, want};
                        if (m) GPT_OK(ctx, gpi_cpu_search(&a));
                        for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                            const gp_sort_order o = order ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
                            set_threads(ctx, thread_counts[ti]);
                            gpt_poison(got, m * 8 + 8);
                            if (upper) GPT_OK(ctx, gp_upper_bound(ctx, d, o, keys, nk, needles, m, got));
                            else GPT_OK(ctx, gp_lower_bound(ctx, d, o, keys, nk, needles, m, got));
                            if (memcmp(want, got, m * 8))
                                fail_msg("%s bound (dtype %d, %s, %zu keys, shape %zu, m=%zu, %d threads)",
                                         upper ? "upper" : "lower", (int)d, order ? "desc" : "asc", nk, ki, m,
                                         thread_counts[ti]);
                            gpt_expect_poison(got, m * 8, m * 8 + 8, "search past positions");
                        }
                    }
                }
            }
        }
    set_threads(ctx, 0);
    free(keys), free(needles), free(want), free(got);
}

/* ---- arg-min / arg-max ------------------------------------------------------------- */

/* Element i of dtype d set to v (exact for the small values used here). */
static void put(gp_dtype d, void *p, size_t i, double v)
{
    switch (d) {
    case GP_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case GP_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case GP_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case GP_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case GP_FLOAT32: ((float *)p)[i] = (float)v; break;
    default: ((double *)p)[i] = v; break;
    }
}

enum { kArgShapes = 7 };

/* Fill for arg-min (is_max 0) or arg-max; returns the planted winner's
 * index where the shape has one, else SIZE_MAX. Shapes: 0 random, 1 all
 * equal, 2 three values (ties everywhere), 3 ties planted at and next to
 * the parts' boundaries and at the end, 4 (floats) NaNs sprinkled, at the
 * start and on the boundaries, 5 (floats) all NaN, 6 -0.0 and +0.0
 * alternating as the planted winners. */
static size_t arg_fill(gp_dtype d, int is_max, int shape, void *p, size_t n)
{
    const int fl = d == GP_FLOAT32 || d == GP_FLOAT64;
    size_t at[64], k, i, first = SIZE_MAX;
    if (shape == 0) gpt_fill_random(d, p, n, 0);
    else if (shape == 1) gpt_fill_random(d, p, n, 1);
    else if (shape == 2) gpt_fill_random(d, p, n, 3);
    else if (shape == 5) {
        for (i = 0; i < n; i++) put(d, p, i, NAN);
        return SIZE_MAX;
    } else {
        const double sign = shape == 6 && is_max ? -1.0 : 1.0; /* shape 6 is for floats only */
        for (i = 0; i < n; i++) put(d, p, i, sign * (double)(10 + gpt_rand64() % 990));
        if (shape == 4 && fl) {
            for (i = 0; i < n; i += 1 + gpt_rand64() % 20) put(d, p, i, NAN);
            if (n) put(d, p, 0, NAN);
        }
        k = part_starts(n, at);
        if (n) at[k++] = n - 1;
        for (i = 0; i < k; i++) {
            size_t j;
            for (j = at[i] ? at[i] - 1 : 0; j <= at[i] + 1 && j < n; j++) {
                if (shape == 4 && fl) {
                    put(d, p, j, NAN);
                    continue;
                }
                if (shape == 6) put(d, p, j, j % 2 ? -0.0 : 0.0);
                else put(d, p, j, is_max ? 5000.0 : 1.0);
                if (j < first) first = j;
            }
        }
    }
    return shape == 3 || shape == 6 ? first : SIZE_MAX;
}

static void argminmax(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, ti;
    int is_max, shape;
    for (si = 0; si < size_count(); si++)
        for (di = 0; di < COUNT(dtypes); di++)
            for (is_max = 0; is_max < 2; is_max++)
                for (shape = 0; shape < kArgShapes; shape++) {
                    const gp_dtype d = dtypes[di];
                    const size_t n = sizes[si], es = gp_dtype_size(d);
                    unsigned char *in = gpt_malloc(n * es + 8), want_v[16], got_v[16];
                    size_t planted;
                    uint64_t want_i, got_i;
                    if (shape >= 4 && d != GP_FLOAT32 && d != GP_FLOAT64) { /* the float shapes */
                        free(in);
                        continue;
                    }
                    planted = arg_fill(d, is_max, shape, in, n);
                    gpt_poison(want_v, sizeof want_v);
                    GPT_OK(ctx, gpi_cpu_argminmax(d, is_max, in, n, want_v, &want_i));
                    if (planted != SIZE_MAX && want_i != planted)
                        fail_msg("reference found %llu, planted %zu", (unsigned long long)want_i, planted);
                    if (shape == 5 && want_i != n) fail_msg("all NaN: index %llu", (unsigned long long)want_i);
                    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                        uint64_t index_only;
                        set_threads(ctx, thread_counts[ti]);
                        gpt_poison(got_v, sizeof got_v);
                        got_i = 12345;
                        if (is_max) GPT_OK(ctx, gp_argmax(ctx, d, in, n, got_v, &got_i));
                        else GPT_OK(ctx, gp_argmin(ctx, d, in, n, got_v, &got_i));
                        if (got_i != want_i || memcmp(want_v, got_v, sizeof got_v))
                            fail_msg("arg%s: index %llu, want %llu, or value bits differ (dtype %d, n=%zu, "
                                     "shape %d, %d threads)", is_max ? "max" : "min", (unsigned long long)got_i,
                                     (unsigned long long)want_i, (int)d, n, shape, thread_counts[ti]);
                        gpt_expect_poison(got_v, es, sizeof got_v, "arg value past its element");
                        /* no value wanted */
                        if (is_max) GPT_OK(ctx, gp_argmax(ctx, d, in, n, NULL, &index_only));
                        else GPT_OK(ctx, gp_argmin(ctx, d, in, n, NULL, &index_only));
                        assert_true(index_only == want_i);
                    }
                    free(in);
                }
    set_threads(ctx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(gather_and_scatter),
        GPT_TEST_CPU(scatter_last_duplicate_wins),
        GPT_TEST_CPU(index_check),
        GPT_TEST_CPU(search),
        GPT_TEST_CPU(argminmax),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("cpu_threads_lookup", tests, NULL, NULL);
}
