/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_sort.c - gp_dist_sort_keys / gp_dist_sort_pairs against
 * gp_sort_keys / gp_sort_pairs on one CPU context over the concatenated
 * shards, bit for bit: CPU ranks at 1, 2, 3, 4 and 8 ranks (CUDA ranks at 1
 * and every GPU), every dtype, both orders, keys, pairs of 4- and 8-byte
 * values and global indices, full and partial bit ranges; shards even,
 * random, all on one rank, empty at both ends; keys random, few distinct,
 * all equal, special floats, 90% one value, sorted, reverse sorted. The
 * values are the global positions, so stability is checked with every
 * pair. Then the failures: a rank rejecting its arguments, ranks that
 * disagree, a missing rank. */
#include "dist_world.h"
#include "dist_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FORM_KEYS, FORM_PAIRS4, FORM_PAIRS8, FORM_INDICES, NFORMS };

typedef struct sort_job {
    world *w;
    gp_dtype dtype;
    gp_sort_order order;
    int begin_bit, end_bit;
    int form;
    int bad_rank;     /* passes a NULL keys_in with n > 0, or -1 */
    int other_order;  /* a rank that sorts in the other order, or -1 */
    int skip_rank;    /* a rank that does not call, or -1 */
    void *keys_in[MAX_RANKS], *keys_out[MAX_RANKS], *vals_in[MAX_RANKS], *vals_out[MAX_RANKS];
    size_t n[MAX_RANKS];
    gp_status st[MAX_RANKS];
} sort_job;

static size_t value_size_of(int form) { return form == FORM_KEYS ? 0 : form == FORM_PAIRS4 ? 4 : 8; }

static gp_status sort_rank(gp_comm *c, void *p)
{
    sort_job *j = (sort_job *)p;
    int r = rank_of(c);
    const void *kin = r == j->bad_rank ? NULL : j->keys_in[r];
    gp_sort_order order = r == j->other_order ? (j->order == GP_SORT_ASCENDING ? GP_SORT_DESCENDING : GP_SORT_ASCENDING)
                                              : j->order;
    if (r == j->skip_rank) return j->st[r] = GP_SUCCESS;
    if (j->form == FORM_KEYS)
        return j->st[r] = gp_dist_sort_keys(c, j->dtype, order, kin, j->keys_out[r], j->n[r], j->begin_bit, j->end_bit);
    return j->st[r] = gp_dist_sort_pairs(c, j->dtype, order, kin, j->keys_out[r], value_size_of(j->form),
                                         j->form == FORM_INDICES ? NULL : j->vals_in[r], j->vals_out[r], j->n[r],
                                         j->begin_bit, j->end_bit);
}

static void fill_keys(gp_dtype d, void *k, size_t n, int dist)
{
    fill_keys_ranged(d, k, n, dist, dist == DIST_NINETY ? 0 : 1000);
}

/* One distributed sort of `total` keys into poisoned outputs, compared with
 * the one-context sort. */
static void check_sort(world *w, gp_dtype d, gp_sort_order order, int form, int dist, int pattern, size_t total,
                       int begin_bit, int end_bit)
{
    const size_t ks = gp_dtype_size(d), vs = value_size_of(form);
    unsigned char *keys = gpt_malloc(total * ks + 1), *want_k = gpt_malloc(total * ks + 1);
    unsigned char *got_k = gpt_malloc(total * ks + 1), *got_v = gpt_malloc(total * 8 + 1);
    unsigned char *vals = gpt_malloc(total * 8 + 1), *want_v = gpt_malloc(total * 8 + 1);
    gp_context *ref = cpu_ref();
    sort_job j;
    job view; /* dist_world's buffer helpers take a job */
    size_t i;
    int r;
    memset(&j, 0, sizeof j);
    memset(&view, 0, sizeof view);
    j.w = view.w = w;
    j.dtype = d;
    j.order = order;
    j.form = form;
    j.begin_bit = begin_bit;
    j.end_bit = end_bit;
    j.bad_rank = j.other_order = j.skip_rank = -1;
    split(total, w->n, pattern, j.n);
    memcpy(view.n, j.n, sizeof j.n);
    fill_keys(d, keys, total, dist);
    /* values: the global positions, as 4 or 8 bytes, so stability shows */
    for (i = 0; i < total; i++) {
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i * 2654435761u;
        else ((uint64_t *)vals)[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull;
    }
    scatter(&view, j.keys_in, keys, ks);
    poisoned(&view, j.keys_out, ks, 0);
    if (vs) {
        scatter(&view, j.vals_in, vals, vs);
        poisoned(&view, j.vals_out, vs, 0);
    }
    {
        gp_status s = gp_comm_run(w->comm, w->n, sort_rank, &j);
        for (r = 0; r < w->n; r++)
            if (j.st[r])
                fail_msg("%d ranks, %s %s form %d dist %d split %d n %zu bits [%d,%d): rank %d: %s [%s]", w->n,
                         gpt_dtype_name(d), order == GP_SORT_ASCENDING ? "asc" : "desc", form, dist, pattern, total,
                         begin_bit, end_bit, r, gp_status_string(j.st[r]), gp_context_last_error(w->ctx[r]));
        assert_int_equal(s, GP_SUCCESS);
    }
    if (form == FORM_KEYS) GPT_OK(ref, gp_sort_keys(ref, d, order, keys, want_k, total, begin_bit, end_bit));
    else
        GPT_OK(ref, gp_sort_pairs(ref, d, order, keys, want_k, vs, form == FORM_INDICES ? NULL : vals, want_v, total,
                                  begin_bit, end_bit));
    gather(&view, j.keys_out, got_k, ks);
    if (memcmp(want_k, got_k, total * ks))
        fail_msg("keys differ: %d ranks, %s %s form %d dist %d split %d n %zu bits [%d,%d)", w->n, gpt_dtype_name(d),
                 order == GP_SORT_ASCENDING ? "asc" : "desc", form, dist, pattern, total, begin_bit, end_bit);
    if (vs) {
        gather(&view, j.vals_out, got_v, vs);
        if (memcmp(want_v, got_v, total * vs))
            fail_msg("values differ (stability): %d ranks, %s form %d dist %d split %d n %zu", w->n,
                     gpt_dtype_name(d), form, dist, pattern, total);
        free_bufs(&view, j.vals_in);
        free_bufs(&view, j.vals_out);
    }
    free_bufs(&view, j.keys_in);
    free_bufs(&view, j.keys_out);
    free(keys), free(want_k), free(got_k), free(got_v), free(vals), free(want_v);
}

static void sort_matches_one_context(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 37, 2001};
    int counts[8], nc = rank_counts(b, counts), ci, di, oi, ti, dist;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (di = 0; di < (int)COUNT(gpk_dtypes); di++)
            for (oi = 0; oi < 2; oi++)
                for (dist = 0; dist < NDISTS; dist++)
                    for (ti = 0; ti < (int)COUNT(totals); ti++) {
                        const gp_dtype d = gpk_dtypes[di];
                        const int kb = (int)(8 * gp_dtype_size(d)), pick = dist + ti + oi + di;
                        /* full range, a middle range, a low one, none */
                        const int bits[4][2] = {{0, kb}, {kb / 4, kb - kb / 4}, {0, 5}, {7, 7}};
                        const int bi = pick % 5 < 3 ? 0 : 1 + (pick / 5) % 3;
                        check_sort(&w, d, oi ? GP_SORT_DESCENDING : GP_SORT_ASCENDING, pick % NFORMS, dist,
                                   (pick + ci) % 4, totals[ti], bits[bi][0], bits[bi][1]);
                    }
        free_world(&w);
    }
}

/* Larger shards: many bisection rounds on wide keys, every rank's boundary
 * inside runs of equal keys. */
static void larger_sorts(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        if (counts[ci] < 2 && nc > 1) continue;
        make_world(&w, b, counts[ci], 0);
        check_sort(&w, GP_UINT64, GP_SORT_ASCENDING, FORM_INDICES, GPK_RANDOM, 1, 100003, 0, 64);
        check_sort(&w, GP_FLOAT32, GP_SORT_DESCENDING, FORM_PAIRS4, GPK_SPECIAL, 0, 65537, 0, 32);
        check_sort(&w, GP_INT64, GP_SORT_ASCENDING, FORM_PAIRS8, DIST_NINETY, 2, 50001, 0, 64);
        check_sort(&w, GP_FLOAT64, GP_SORT_ASCENDING, FORM_KEYS, GPK_FEW_DISTINCT, 3, 40000, 0, 64);
        check_sort(&w, GP_UINT32, GP_SORT_DESCENDING, FORM_INDICES, GPK_ALL_EQUAL, 0, 30000, 0, 32);
        free_world(&w);
    }
}

/* A sort job over small random shards (outputs poisoned) for the failures. */
static void make_failing_job(sort_job *j, job *view, world *w, int form)
{
    const size_t ks = 4;
    int r;
    memset(j, 0, sizeof *j);
    memset(view, 0, sizeof *view);
    j->w = view->w = w;
    j->dtype = GP_INT32;
    j->order = GP_SORT_ASCENDING;
    j->form = form;
    j->end_bit = 32;
    j->bad_rank = j->other_order = j->skip_rank = -1;
    for (r = 0; r < w->n; r++) j->n[r] = view->n[r] = 5 + (size_t)r;
    for (r = 0; r < w->n; r++) {
        int32_t host[16];
        gpt_fill_random(GP_INT32, host, j->n[r], 0);
        j->keys_in[r] = gpt_buffer_from(w->ctx[r], host, j->n[r] * ks);
    }
    poisoned(view, j->keys_out, ks, 0);
    poisoned(view, j->vals_out, 8, 0);
}

static void free_failing_job(sort_job *j, job *view)
{
    free_bufs(view, j->keys_in);
    free_bufs(view, j->keys_out);
    free_bufs(view, j->vals_out);
}

static void expect_all_failed_untouched(sort_job *j, job *view, gp_status first, int first_rank)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        if (r == first_rank) assert_int_equal(j->st[r], first);
        else if (first_rank >= 0) assert_int_equal(j->st[r], GP_ERROR_COMM);
        else assert_int_equal(j->st[r], first);
        gpt_expect_untouched(j->w->ctx[r], j->keys_out[r], j->n[r] * 4);
        gpt_expect_untouched(j->w->ctx[r], j->vals_out[r], j->n[r] * 8);
    }
    (void)view;
}

static void a_rank_rejects_its_arguments(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, form;
    for (ci = 0; ci < nc; ci++)
        for (form = 0; form < NFORMS; form += NFORMS - 1) {
            world w;
            sort_job j;
            job view;
            make_world(&w, b, counts[ci], 0);
            make_failing_job(&j, &view, &w, form);
            j.bad_rank = w.n - 1;
            assert_int_not_equal(gp_comm_run(w.comm, w.n, sort_rank, &j), GP_SUCCESS);
            expect_detail(w.ctx[w.n - 1], "keys_in");
            expect_all_failed_untouched(&j, &view, GP_ERROR_INVALID_ARGUMENT, j.bad_rank);
            /* the communicator stays usable */
            j.bad_rank = -1;
            assert_int_equal(gp_comm_run(w.comm, w.n, sort_rank, &j), GP_SUCCESS);
            free_failing_job(&j, &view);
            free_world(&w);
        }
}

static void ranks_disagree_on_the_order(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        sort_job j;
        job view;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        make_failing_job(&j, &view, &w, FORM_INDICES);
        j.other_order = 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, sort_rank, &j), GP_SUCCESS);
        expect_detail(w.ctx[0], "sort order");
        expect_all_failed_untouched(&j, &view, GP_ERROR_INVALID_ARGUMENT, -1);
        free_failing_job(&j, &view);
        free_world(&w);
    }
}

static void a_missing_rank_times_out(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        sort_job j;
        job view;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 300);
        make_failing_job(&j, &view, &w, FORM_PAIRS8);
        j.skip_rank = w.n - 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, sort_rank, &j), GP_SUCCESS);
        expect_timed_out(j.st, w.n);
        for (r = 0; r < w.n - 1; r++) gpt_expect_untouched(w.ctx[r], j.keys_out[r], j.n[r] * 4);
        free_failing_job(&j, &view);
        free_world(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(sort_matches_one_context),
        GPT_TEST_BOTH(larger_sorts),
        GPT_TEST_BOTH(a_rank_rejects_its_arguments),
        GPT_TEST_BOTH(ranks_disagree_on_the_order),
        GPT_TEST_BOTH(a_missing_rank_times_out),
    };
    int failed;
    gpt_seed_once();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    gp_context_destroy(ref);
    return failed;
}
