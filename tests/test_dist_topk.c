/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_topk.c - gp_dist_top_k against gp_top_k on one CPU context over
 * the concatenated shards, bit for bit, on every rank: CPU ranks at 1, 2,
 * 3, 4 and 8 ranks (CUDA ranks at 1 and every GPU), every key dtype, both
 * orders, keys only, 4- and 8-byte values, global indices as uint32 and
 * uint64; k from 1 to the global n; shards even, random, all on one rank,
 * empty at both ends; keys random, few distinct, all equal, special floats,
 * 90% one value, sorted, reverse sorted (ties decided by global index).
 * Then a rank rejecting its arguments, k above the global n, and ranks
 * disagreeing on k: every rank fails with its outputs untouched.
 * One rank (its shortcut): gp_top_k on the SAME context (CUDA against
 * CUDA), every form, bit for bit; k above n refused with outputs untouched. */
#include "dist_world.h"
#include "dist_keys.h"

#include <gpuprim/search.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FORM_KEYS, FORM_VALUES4, FORM_VALUES8, FORM_INDICES4, FORM_INDICES8, NFORMS };

typedef struct topk_job {
    world *w;
    gp_dtype kd;
    gp_sort_order order;
    int form;
    size_t k;
    int bad_rank, other_k;
    void *kin[MAX_RANKS], *vin[MAX_RANKS], *kout[MAX_RANKS], *vout[MAX_RANKS];
    size_t n[MAX_RANKS];
    gp_status st[MAX_RANKS];
} topk_job;

static size_t vs_of(int form) { return form == FORM_KEYS ? 0 : form == FORM_VALUES4 || form == FORM_INDICES4 ? 4 : 8; }

static gp_status topk_rank(gp_comm *c, void *p)
{
    topk_job *j = (topk_job *)p;
    int r = rank_of(c);
    const int indices = j->form == FORM_INDICES4 || j->form == FORM_INDICES8;
    return j->st[r] = gp_dist_top_k(c, j->kd, j->order, r == j->bad_rank ? NULL : j->kin[r], j->n[r],
                                    r == j->other_k ? j->k + 1 : j->k, j->kout[r], vs_of(j->form),
                                    indices ? NULL : j->vin[r], j->vout[r]);
}

static void fill_keys(gp_dtype d, void *k, size_t n, int dist)
{
    fill_keys_ranged(d, k, n, dist, 30);
}

static void check_topk(world *w, gp_dtype d, gp_sort_order order, int form, int dist, int pattern, size_t total,
                       size_t k)
{
    const size_t ks = gp_dtype_size(d), vs = vs_of(form);
    const int indices = form == FORM_INDICES4 || form == FORM_INDICES8;
    unsigned char *keys = gpt_malloc(total * ks + 8), *vals = gpt_malloc(total * 8 + 8);
    unsigned char *want_k = gpt_malloc(k * ks), *want_v = gpt_malloc(k * 8 + 8), *got = gpt_malloc(k * 8 + 8);
    gp_context *c = cpu_ref();
    topk_job j;
    job view;
    size_t i;
    int r;
    memset(&j, 0, sizeof j);
    memset(&view, 0, sizeof view);
    j.w = view.w = w;
    j.kd = d;
    j.order = order;
    j.form = form;
    j.k = k;
    j.bad_rank = j.other_k = -1;
    split(total, w->n, pattern, j.n);
    memcpy(view.n, j.n, sizeof j.n);
    fill_keys(d, keys, total, dist);
    for (i = 0; i < total; i++) {
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i * 2654435761u;
        else ((uint64_t *)vals)[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
    }
    scatter(&view, j.kin, keys, ks);
    if (vs && !indices) scatter(&view, j.vin, vals, vs);
    for (r = 0; r < w->n; r++) {
        j.kout[r] = gpt_poisoned_buffer(w->ctx[r], k * ks);
        j.vout[r] = vs ? gpt_poisoned_buffer(w->ctx[r], k * vs) : NULL;
    }
    {
        gp_status s = gp_comm_run(w->comm, w->n, topk_rank, &j);
        for (r = 0; r < w->n; r++)
            if (j.st[r])
                fail_msg("%d ranks %s k %zu of %zu: rank %d: %s [%s]", w->n, gpt_dtype_name(d), k, total, r,
                         gp_status_string(j.st[r]), gp_context_last_error(w->ctx[r]));
        assert_int_equal(s, GP_SUCCESS);
    }
    GPT_OK(c, gp_top_k(c, d, order, keys, total, k, want_k, vs, indices ? NULL : vals, want_v));
    for (r = 0; r < w->n; r++) {
        gpt_buffer_to(w->ctx[r], got, j.kout[r], k * ks);
        if (memcmp(got, want_k, k * ks))
            fail_msg("keys differ: %d ranks, rank %d, %s %s form %d dist %d split %d n %zu k %zu", w->n, r,
                     gpt_dtype_name(d), order == GP_SORT_ASCENDING ? "asc" : "desc", form, dist, pattern, total, k);
        if (vs) {
            gpt_buffer_to(w->ctx[r], got, j.vout[r], k * vs);
            if (memcmp(got, want_v, k * vs))
                fail_msg("values differ: %d ranks, rank %d, %s form %d dist %d split %d n %zu k %zu", w->n, r,
                         gpt_dtype_name(d), form, dist, pattern, total, k);
        }
    }
    for (r = 0; r < w->n; r++) {
        gpt_buffer_free(w->ctx[r], j.kin[r]);
        gpt_buffer_free(w->ctx[r], j.vin[r]);
        gpt_buffer_free(w->ctx[r], j.kout[r]);
        gpt_buffer_free(w->ctx[r], j.vout[r]);
    }
    free(keys), free(vals), free(want_k), free(want_v), free(got);
}

static void topk_matches_one_context(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {1, 37, 2001};
    int counts[8], nc = rank_counts(b, counts), ci, di, oi, dist, ti;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (di = 0; di < (int)COUNT(gpk_dtypes); di++)
            for (oi = 0; oi < 2; oi++)
                for (dist = 0; dist < NDISTS; dist++)
                    for (ti = 0; ti < (int)COUNT(totals); ti++) {
                        const size_t total = totals[ti];
                        const int pick = di + oi + dist + ti + ci;
                        const size_t ks[4] = {1, total < 5 ? total : 5, total / 2 + 1, total};
                        check_topk(&w, gpk_dtypes[di], oi ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, pick % NFORMS,
                                   dist, pick % 4, total, ks[(pick / 2) % 4]);
                    }
        free_world(&w);
    }
}

static void failing_job(topk_job *j, world *w)
{
    int r;
    memset(j, 0, sizeof *j);
    j->w = w;
    j->kd = GP_INT32;
    j->order = GP_SORT_ASCENDING;
    j->form = FORM_INDICES8;
    j->k = 3;
    j->bad_rank = j->other_k = -1;
    for (r = 0; r < w->n; r++) {
        int32_t s[16];
        j->n[r] = 4 + (size_t)r;
        gpt_fill_random(GP_INT32, s, j->n[r], 100);
        j->kin[r] = gpt_buffer_from(w->ctx[r], s, j->n[r] * 4);
        j->kout[r] = gpt_poisoned_buffer(w->ctx[r], 64 * 4);
        j->vout[r] = gpt_poisoned_buffer(w->ctx[r], 64 * 8);
    }
}

static void free_failing(topk_job *j)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        gpt_buffer_free(j->w->ctx[r], j->kin[r]);
        gpt_buffer_free(j->w->ctx[r], j->kout[r]);
        gpt_buffer_free(j->w->ctx[r], j->vout[r]);
    }
}

static void expect_failed_untouched(topk_job *j, int first_rank, gp_status first)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        assert_int_equal(j->st[r], first_rank < 0 || r == first_rank ? first : GP_ERROR_COMM);
        gpt_expect_untouched(j->w->ctx[r], j->kout[r], 64 * 4);
        gpt_expect_untouched(j->w->ctx[r], j->vout[r], 64 * 8);
    }
}

static void a_rank_rejects_its_arguments(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        topk_job j;
        make_world(&w, b, counts[ci], 0);
        failing_job(&j, &w);
        j.bad_rank = w.n - 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, topk_rank, &j), GP_SUCCESS);
        expect_detail(w.ctx[w.n - 1], "keys_in");
        expect_failed_untouched(&j, j.bad_rank, GP_ERROR_INVALID_ARGUMENT);
        j.bad_rank = -1; /* the communicator stays usable */
        assert_int_equal(gp_comm_run(w.comm, w.n, topk_rank, &j), GP_SUCCESS);
        free_failing(&j);
        free_world(&w);
    }
}

static void k_above_the_global_n(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        topk_job j;
        size_t total = 0;
        make_world(&w, b, counts[ci], 0);
        failing_job(&j, &w);
        for (r = 0; r < w.n; r++) total += j.n[r];
        j.k = total + 1; /* at most 61: within the outputs' room of 64 */
        assert_int_not_equal(gp_comm_run(w.comm, w.n, topk_rank, &j), GP_SUCCESS);
        expect_detail(w.ctx[0], "global n");
        expect_failed_untouched(&j, -1, GP_ERROR_INVALID_ARGUMENT);
        free_failing(&j);
        free_world(&w);
    }
}

static void ranks_disagree_on_k(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        topk_job j;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        failing_job(&j, &w);
        j.other_k = 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, topk_rank, &j), GP_SUCCESS);
        expect_failed_untouched(&j, -1, GP_ERROR_INVALID_ARGUMENT);
        free_failing(&j);
        free_world(&w);
    }
}

/* ---- one rank: the single-context call on the same context ---------------------- */

static void check_one_rank(world *w, gp_dtype d, gp_sort_order order, int form, int dist, size_t n, size_t k)
{
    gp_context *ctx = w->ctx[0];
    const size_t ks = gp_dtype_size(d), vs = vs_of(form), room = (k + 1) * 8 + 16;
    const int indices = form == FORM_INDICES4 || form == FORM_INDICES8;
    unsigned char *host = gpt_malloc(n * 8 + room), *want = gpt_malloc(room);
    void *kin, *vin, *kref, *vref, *kout, *vout;
    gp_status s;
    fill_keys(d, host, n, dist);
    kin = gpt_buffer_from(ctx, host, n * ks + 8);
    gpt_fill_random(GP_UINT64, host, n, 0);
    vin = indices ? NULL : gpt_buffer_from(ctx, host, n * 8 + 8);
    kref = gpt_buffer(ctx, room), vref = gpt_buffer(ctx, room);
    kout = gpt_poisoned_buffer(ctx, room), vout = gpt_poisoned_buffer(ctx, room);
    s = gp_dist_top_k(w->comm[0], d, order, kin, n, k, kout, vs, vin, vs ? vout : NULL);
    if (k > n) { /* refused, nothing written */
        assert_int_equal(s, GP_ERROR_INVALID_ARGUMENT);
        expect_detail(ctx, "global n");
        gpt_expect_untouched(ctx, kout, room);
        gpt_expect_untouched(ctx, vout, room);
    } else {
        if (s) fail_msg("one rank %s k %zu of %zu form %d: %s [%s]", gpt_dtype_name(d), k, n, form,
                        gp_status_string(s), gp_context_last_error(ctx));
        GPT_OK(ctx, gp_top_k(ctx, d, order, kin, n, k, kref, vs, vin, vs ? vref : NULL));
        gpt_buffer_to(ctx, want, kref, k * ks);
        gpt_buffer_to(ctx, host, kout, room);
        if (memcmp(host, want, k * ks))
            fail_msg("one rank: keys differ from gp_top_k: %s %s form %d dist %d n %zu k %zu", gpt_dtype_name(d),
                     order == GP_SORT_ASCENDING ? "asc" : "desc", form, dist, n, k);
        gpt_expect_poison(host, k * ks, room, "one rank: keys past k");
        gpt_buffer_to(ctx, want, vref, k * vs);
        gpt_buffer_to(ctx, host, vout, room);
        if (memcmp(host, want, k * vs))
            fail_msg("one rank: values differ from gp_top_k: %s form %d dist %d n %zu k %zu", gpt_dtype_name(d),
                     form, dist, n, k);
        gpt_expect_poison(host, k * vs, room, "one rank: values past k");
    }
    gpt_buffer_free(ctx, kin), gpt_buffer_free(ctx, vin), gpt_buffer_free(ctx, kref), gpt_buffer_free(ctx, vref);
    gpt_buffer_free(ctx, kout), gpt_buffer_free(ctx, vout);
    free(host), free(want);
}

static void one_rank_matches_the_context_itself(void **state)
{
    static const size_t totals[] = {1, 37, 5001};
    world w;
    int di, oi, dist, ti;
    make_world(&w, backend_of(gpt_ctx(state)), 1, 0);
    for (di = 0; di < (int)COUNT(gpk_dtypes); di++)
        for (oi = 0; oi < 2; oi++)
            for (dist = 0; dist < NDISTS; dist++)
                for (ti = 0; ti < (int)COUNT(totals); ti++) {
                    const size_t n = totals[ti], ks[4] = {1, n / 2 + 1, n, n + 1};
                    const int pick = di + oi + dist + ti;
                    check_one_rank(&w, gpk_dtypes[di], oi ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, pick % NFORMS,
                                   dist, n, ks[pick % 4]);
                    check_one_rank(&w, gpk_dtypes[di], oi ? GP_SORT_DESCENDING : GP_SORT_ASCENDING,
                                   (pick + 1) % NFORMS, dist, n, ks[(pick + 1) % 4]);
                }
    free_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(topk_matches_one_context),
        GPT_TEST_BOTH(a_rank_rejects_its_arguments),
        GPT_TEST_BOTH(k_above_the_global_n),
        GPT_TEST_BOTH(ranks_disagree_on_k),
        GPT_TEST_BOTH(one_rank_matches_the_context_itself),
    };
    int failed;
    gpt_seed_once();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    gp_context_destroy(ref);
    return failed;
}
