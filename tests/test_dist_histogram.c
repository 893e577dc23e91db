/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_histogram.c - gp_dist_histogram_even / gp_dist_histogram_range
 * against the one-context call on the concatenated shards, on every rank:
 * CPU ranks at 1, 2, 3, 4 and 8 ranks (CUDA ranks at 1 and every GPU),
 * every sample dtype, both count dtypes, bin counts below, at and above
 * the rank count; shards even, random, all on one rank, empty at both
 * ends; samples random, all equal, 90% one value, sorted, reverse, with
 * NaNs and out-of-range ones. counts is poisoned first (every bin must be
 * written). Then a rank rejecting its arguments and ranks disagreeing on
 * the bounds: every rank fails, counts untouched. */
#include "dist_world.h"

#include <gpuprim/histogram.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SAMPLES_RANDOM, SAMPLES_EQUAL, SAMPLES_NINETY, SAMPLES_SORTED, SAMPLES_REVERSED, NSAMPLES };

typedef struct hist_job {
    world *w;
    int even;
    gp_dtype dtype, cd;
    size_t bins;
    unsigned char lower[8], upper[8], other_upper[8];
    void *samples[MAX_RANKS], *bounds[MAX_RANKS], *counts[MAX_RANKS];
    size_t n[MAX_RANKS];
    int bad_rank, other_rank;
    gp_status st[MAX_RANKS];
} hist_job;

static gp_status hist_rank(gp_comm *c, void *p)
{
    hist_job *j = (hist_job *)p;
    int r = rank_of(c);
    const void *samples = r == j->bad_rank ? NULL : j->samples[r];
    if (j->even)
        return j->st[r] = gp_dist_histogram_even(c, j->dtype, samples, j->n[r], j->lower,
                                                 r == j->other_rank ? j->other_upper : j->upper, j->bins, j->cd,
                                                 j->counts[r]);
    return j->st[r] = gp_dist_histogram_range(c, j->dtype, samples, j->n[r], j->bounds[r], j->bins, j->cd,
                                              j->counts[r]);
}

static gp_context *ref;

static gp_context *cpu_ref(void)
{
    if (!ref && gp_context_create(&ref, GP_BACKEND_CPU, 0)) fail_msg("CPU reference context");
    return ref;
}

static void put(gp_dtype d, void *p, size_t i, double x)
{
    switch (d) {
    case GP_UINT32: ((uint32_t *)p)[i] = (uint32_t)x; break;
    case GP_INT32: ((int32_t *)p)[i] = (int32_t)x; break;
    case GP_UINT64: ((uint64_t *)p)[i] = (uint64_t)x; break;
    case GP_INT64: ((int64_t *)p)[i] = (int64_t)x; break;
    case GP_FLOAT32: ((float *)p)[i] = (float)x; break;
    default: ((double *)p)[i] = x; break;
    }
}

/* Samples in [0, 1100) (the range is [50, 1050)), some NaNs for floats. */
static void fill_samples(gp_dtype d, void *s, size_t n, int kind)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    for (i = 0; i < n; i++) put(d, s, i, (double)(gpt_rand64() % 1100));
    if (kind == SAMPLES_EQUAL || kind == SAMPLES_NINETY)
        for (i = 1; i < n; i++)
            if (kind == SAMPLES_EQUAL || gpt_uniform() < 0.9) memcpy((char *)s + i * es, s, es);
    if (kind == SAMPLES_SORTED || kind == SAMPLES_REVERSED)
        for (i = 0; i < n; i++) put(d, s, i, (double)(kind == SAMPLES_SORTED ? i % 1100 : (n - i) % 1100));
    if (d == GP_FLOAT32 && n > 3) ((uint32_t *)s)[n / 3] = 0x7fc00000u;
    if (d == GP_FLOAT64 && n > 3) ((uint64_t *)s)[n / 3] = 0x7ff8000000000000ull;
}

static void check_histogram(world *w, int even, gp_dtype d, gp_dtype cd, size_t bins, int kind, int pattern,
                            size_t total)
{
    const size_t es = gp_dtype_size(d), cs = gp_dtype_size(cd);
    unsigned char *samples = gpt_malloc(total * es + 8), *bounds = gpt_malloc((bins + 1) * es);
    unsigned char *want = gpt_malloc(bins * cs), *got = gpt_malloc(bins * cs);
    gp_context *c = cpu_ref();
    hist_job j;
    job view;
    size_t i;
    int r;
    memset(&j, 0, sizeof j);
    memset(&view, 0, sizeof view);
    j.w = view.w = w;
    j.even = even;
    j.dtype = d;
    j.cd = cd;
    j.bins = bins;
    j.bad_rank = j.other_rank = -1;
    put(d, j.lower, 0, 50);
    put(d, j.upper, 0, 1050);
    for (i = 0; i <= bins; i++) put(d, bounds, i, 50.0 + (double)(i * i * 1000 / (bins * bins)));
    split(total, w->n, pattern, j.n);
    memcpy(view.n, j.n, sizeof j.n);
    fill_samples(d, samples, total, kind);
    scatter(&view, j.samples, samples, es);
    for (r = 0; r < w->n; r++) {
        j.bounds[r] = gpt_buffer_from(w->ctx[r], bounds, (bins + 1) * es);
        j.counts[r] = gpt_poisoned_buffer(w->ctx[r], bins * cs);
    }
    {
        gp_status s = gp_comm_run(w->comm, w->n, hist_rank, &j);
        for (r = 0; r < w->n; r++)
            if (j.st[r])
                fail_msg("%d ranks %s %s bins %zu: rank %d: %s [%s]", w->n, even ? "even" : "range",
                         gpt_dtype_name(d), bins, r, gp_status_string(j.st[r]), gp_context_last_error(w->ctx[r]));
        assert_int_equal(s, GP_SUCCESS);
    }
    if (even) GPT_OK(c, gp_histogram_even(c, d, samples, total, j.lower, j.upper, bins, cd, want));
    else GPT_OK(c, gp_histogram_range(c, d, samples, total, bounds, bins, cd, want));
    for (r = 0; r < w->n; r++) {
        gpt_buffer_to(w->ctx[r], got, j.counts[r], bins * cs);
        if (memcmp(got, want, bins * cs))
            fail_msg("counts differ: %d ranks, rank %d, %s %s/%s bins %zu kind %d split %d n %zu", w->n, r,
                     even ? "even" : "range", gpt_dtype_name(d), gpt_dtype_name(cd), bins, kind, pattern, total);
    }
    for (r = 0; r < w->n; r++) {
        gpt_buffer_free(w->ctx[r], j.samples[r]);
        gpt_buffer_free(w->ctx[r], j.bounds[r]);
        gpt_buffer_free(w->ctx[r], j.counts[r]);
    }
    free(samples), free(bounds), free(want), free(got);
}

static const gp_dtype dtypes[] = {GP_UINT32, GP_INT32, GP_UINT64, GP_INT64, GP_FLOAT32, GP_FLOAT64};

static void histogram_matches_one_context(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 37, 5003};
    static const size_t bins[] = {1, 3, 8, 100, 1000};
    int counts[8], nc = rank_counts(b, counts), ci, di, ti, bi;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (di = 0; di < (int)COUNT(dtypes); di++)
            for (ti = 0; ti < (int)COUNT(totals); ti++)
                for (bi = 0; bi < (int)COUNT(bins); bi++) {
                    const int pick = di + ti + bi + ci;
                    check_histogram(&w, pick % 2, dtypes[di], pick % 3 ? GP_UINT64 : GP_UINT32, bins[bi],
                                    pick % NSAMPLES, pick % 4, totals[ti]);
                }
        free_world(&w);
    }
}

static void failing_job(hist_job *j, world *w)
{
    int r;
    memset(j, 0, sizeof *j);
    j->w = w;
    j->even = 1;
    j->dtype = GP_INT32;
    j->cd = GP_UINT64;
    j->bins = 10;
    j->bad_rank = j->other_rank = -1;
    put(GP_INT32, j->lower, 0, 0);
    put(GP_INT32, j->upper, 0, 100);
    put(GP_INT32, j->other_upper, 0, 101);
    for (r = 0; r < w->n; r++) {
        int32_t s[16];
        j->n[r] = 4 + (size_t)r;
        gpt_fill_random(GP_INT32, s, j->n[r], 100);
        j->samples[r] = gpt_buffer_from(w->ctx[r], s, j->n[r] * 4);
        j->counts[r] = gpt_poisoned_buffer(w->ctx[r], j->bins * 8);
    }
}

static void free_failing(hist_job *j)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        gpt_buffer_free(j->w->ctx[r], j->samples[r]);
        gpt_buffer_free(j->w->ctx[r], j->counts[r]);
    }
}

static void a_rank_rejects_its_arguments(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        hist_job j;
        make_world(&w, b, counts[ci], 0);
        failing_job(&j, &w);
        j.bad_rank = w.n - 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, hist_rank, &j), GP_SUCCESS);
        expect_detail(w.ctx[w.n - 1], "gp_dist_histogram_even");
        for (r = 0; r < w.n; r++) {
            assert_int_equal(j.st[r], r == j.bad_rank ? GP_ERROR_INVALID_ARGUMENT : GP_ERROR_COMM);
            gpt_expect_untouched(w.ctx[r], j.counts[r], j.bins * 8);
        }
        j.bad_rank = -1; /* the communicator stays usable */
        assert_int_equal(gp_comm_run(w.comm, w.n, hist_rank, &j), GP_SUCCESS);
        free_failing(&j);
        free_world(&w);
    }
}

static void ranks_disagree_on_the_bounds(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        hist_job j;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        failing_job(&j, &w);
        j.other_rank = 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, hist_rank, &j), GP_SUCCESS);
        for (r = 0; r < w.n; r++) {
            assert_int_equal(j.st[r], GP_ERROR_INVALID_ARGUMENT);
            gpt_expect_untouched(w.ctx[r], j.counts[r], j.bins * 8);
        }
        free_failing(&j);
        free_world(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(histogram_matches_one_context),
        GPT_TEST_BOTH(a_rank_rejects_its_arguments),
        GPT_TEST_BOTH(ranks_disagree_on_the_bounds),
    };
    int failed;
    gpt_seed_once();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    gp_context_destroy(ref);
    return failed;
}
