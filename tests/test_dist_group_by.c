/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_group_by.c - gp_dist_reduce_by_key and gp_dist_unique against
 * the one-context result (gp_sort_pairs then gp_reduce_by_key, gp_sort_keys
 * then gp_unique on the concatenated shards), bit for bit: CPU ranks at 1,
 * 2, 3, 4 and 8 ranks (CUDA ranks at 1 and every GPU), every key dtype,
 * several value dtypes, every operator, with and without lengths; shards
 * even, random, all on one rank, empty at both ends; keys random, few
 * distinct, all equal, special floats (both zeros, NaNs), 90% one value,
 * sorted, reverse sorted. Float values are small integers, so their sums
 * are exact in any order and must match bit for bit. Outputs are poisoned
 * past each rank's count. Then the failures: a rank rejecting its
 * arguments, a capacity too small, ranks that disagree.
 * One rank (its shortcut): the single-context calls on the SAME context
 * (CUDA against CUDA), with float values whose sums round, bit for bit;
 * a capacity of exactly the groups passes, one short fails untouched. */
#include "dist_world.h"
#include "dist_keys.h"

#include <gpuprim/runs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct gb_job {
    world *w;
    int unique, lengths;
    gp_dtype kd, vd;
    gp_op op;
    int bad_rank;   /* passes a NULL keys_in with n > 0, or -1 */
    int other_op;   /* a rank that passes another operator, or -1 */
    void *kin[MAX_RANKS], *vin[MAX_RANKS], *kout[MAX_RANKS], *vout[MAX_RANKS], *lout[MAX_RANKS];
    size_t n[MAX_RANKS], cap[MAX_RANKS];
    gp_dist_count count[MAX_RANKS];
    gp_status st[MAX_RANKS];
} gb_job;

static gp_status gb_rank(gp_comm *c, void *p)
{
    gb_job *j = (gb_job *)p;
    int r = rank_of(c);
    const void *kin = r == j->bad_rank ? NULL : j->kin[r];
    if (j->unique) return j->st[r] = gp_dist_unique(c, j->kd, kin, j->n[r], j->kout[r], j->cap[r], &j->count[r]);
    return j->st[r] = gp_dist_reduce_by_key(c, j->kd, j->vd, r == j->other_op ? GP_OP_MAX : j->op, kin, j->vin[r],
                                            j->n[r], j->kout[r], j->vout[r],
                                            j->lengths ? (uint64_t *)j->lout[r] : NULL, j->cap[r], &j->count[r]);
}

static void fill_keys(gp_dtype d, void *k, size_t n, int dist)
{
    fill_keys_ranged(d, k, n, dist, 50);
}

/* Small integers in any value dtype: sums are exact in every order. */
static void fill_values(gp_dtype d, void *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const int x = (int)(gpt_rand64() % 201) - 100;
        switch (d) {
        case GP_UINT32: ((uint32_t *)v)[i] = (uint32_t)x; break;
        case GP_INT32: ((int32_t *)v)[i] = x; break;
        case GP_UINT64: ((uint64_t *)v)[i] = (uint64_t)(int64_t)x; break;
        case GP_INT64: ((int64_t *)v)[i] = x; break;
        case GP_FLOAT32: ((float *)v)[i] = (float)x; break;
        default: ((double *)v)[i] = (double)x; break;
        }
    }
}

typedef struct want {
    unsigned char *k, *v;
    uint64_t *l;
    size_t groups;
} want;

/* The one-context result over the concatenated shards. */
static void reference(const gb_job *j, const void *keys, const void *vals, size_t total, want *w)
{
    const size_t ks = gp_dtype_size(j->kd), vs = j->unique ? 0 : gp_dtype_size(j->vd);
    gp_context *c = cpu_ref();
    w->k = gpt_malloc(total * ks + 8);
    w->v = gpt_malloc(total * 8 + 8);
    w->l = (uint64_t *)gpt_malloc(total * 8 + 8);
    w->groups = 0;
    if (!total) return;
    if (j->unique) {
        GPT_OK(c, gp_sort_keys(c, j->kd, GP_SORT_ASCENDING, keys, w->k, total, 0, (int)(8 * ks)));
        GPT_OK(c, gp_unique(c, j->kd, w->k, total, w->k, &w->groups));
        return;
    }
    GPT_OK(c, gp_sort_pairs(c, j->kd, GP_SORT_ASCENDING, keys, w->k, vs, vals, w->v, total, 0, (int)(8 * ks)));
    GPT_OK(c, gp_reduce_by_key(c, j->kd, j->vd, j->op, w->k, w->v, total, w->k, w->v, w->l, &w->groups));
}

static void free_want(want *w) { free(w->k), free(w->v), free(w->l); }

static void alloc_outputs(gb_job *j, size_t extra)
{
    const size_t ks = gp_dtype_size(j->kd), vs = j->unique ? 0 : gp_dtype_size(j->vd);
    int r;
    for (r = 0; r < j->w->n; r++) {
        j->cap[r] = j->n[r] + extra;
        j->kout[r] = j->cap[r] ? gpt_poisoned_buffer(j->w->ctx[r], j->cap[r] * ks) : NULL;
        j->vout[r] = vs && j->cap[r] ? gpt_poisoned_buffer(j->w->ctx[r], j->cap[r] * vs) : NULL;
        j->lout[r] = j->lengths && j->cap[r] ? gpt_poisoned_buffer(j->w->ctx[r], j->cap[r] * 8) : NULL;
    }
}

static void free_job(gb_job *j)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        gpt_buffer_free(j->w->ctx[r], j->kin[r]);
        gpt_buffer_free(j->w->ctx[r], j->vin[r]);
        gpt_buffer_free(j->w->ctx[r], j->kout[r]);
        gpt_buffer_free(j->w->ctx[r], j->vout[r]);
        gpt_buffer_free(j->w->ctx[r], j->lout[r]);
    }
}

/* Compare rank r's result (and the poison past it) with want's entries. */
static void expect_rank(gb_job *j, int r, const want *w, const char *what)
{
    const size_t ks = gp_dtype_size(j->kd), vs = j->unique ? 0 : gp_dtype_size(j->vd), c = j->count[r].local;
    const size_t off = (size_t)j->count[r].offset, cap = j->cap[r];
    unsigned char *got = gpt_malloc(cap * 8 + 8);
    if (j->count[r].total != w->groups || off + c > w->groups)
        fail_msg("%s: rank %d: count %zu at %zu of %llu, want %zu groups", what, r, c, off,
                 (unsigned long long)j->count[r].total, w->groups);
    if (cap) {
        gpt_buffer_to(j->w->ctx[r], got, j->kout[r], cap * ks);
        if (memcmp(got, w->k + off * ks, c * ks)) fail_msg("%s: rank %d: keys differ", what, r);
        gpt_expect_poison(got, c * ks, cap * ks, what);
        if (vs) {
            gpt_buffer_to(j->w->ctx[r], got, j->vout[r], cap * vs);
            if (memcmp(got, w->v + off * vs, c * vs)) fail_msg("%s: rank %d: values differ", what, r);
            gpt_expect_poison(got, c * vs, cap * vs, what);
        }
        if (j->lengths) {
            gpt_buffer_to(j->w->ctx[r], got, j->lout[r], cap * 8);
            if (memcmp(got, w->l + off, c * 8)) fail_msg("%s: rank %d: lengths differ", what, r);
            gpt_expect_poison(got, c * 8, cap * 8, what);
        }
    }
    free(got);
}

static void check_group_by(world *wd, int unique, gp_dtype kd, gp_dtype vd, gp_op op, int lengths, int dist,
                           int pattern, size_t total)
{
    const size_t ks = gp_dtype_size(kd), vs = unique ? 0 : gp_dtype_size(vd);
    unsigned char *keys = gpt_malloc(total * ks + 8), *vals = gpt_malloc(total * 8 + 8);
    char what[160];
    gb_job j;
    job view;
    want w;
    size_t off = 0;
    int r;
    memset(&j, 0, sizeof j);
    memset(&view, 0, sizeof view);
    j.w = view.w = wd;
    j.unique = unique;
    j.lengths = lengths;
    j.kd = kd;
    j.vd = vd;
    j.op = op;
    j.bad_rank = j.other_op = -1;
    split(total, wd->n, pattern, j.n);
    memcpy(view.n, j.n, sizeof j.n);
    fill_keys(kd, keys, total, dist);
    if (vs) fill_values(vd, vals, total);
    scatter(&view, j.kin, keys, ks);
    if (vs) scatter(&view, j.vin, vals, vs);
    /* room for every group a rank can get: its shard's, plus the straddle */
    alloc_outputs(&j, total + 2);
    snprintf(what, sizeof what, "%s %d ranks %s/%s op %d len %d dist %d split %d n %zu",
             unique ? "unique" : "reduce_by_key", wd->n, gpt_dtype_name(kd), unique ? "-" : gpt_dtype_name(vd), op,
             lengths, dist, pattern, total);
    {
        gp_status s = gp_comm_run(wd->comm, wd->n, gb_rank, &j);
        for (r = 0; r < wd->n; r++)
            if (j.st[r])
                fail_msg("%s: rank %d: %s [%s]", what, r, gp_status_string(j.st[r]), gp_context_last_error(wd->ctx[r]));
        assert_int_equal(s, GP_SUCCESS);
    }
    reference(&j, keys, vals, total, &w);
    for (r = 0; r < wd->n; r++) {
        if (j.count[r].offset != off) fail_msg("%s: rank %d offset %llu, want %zu", what, r,
                                               (unsigned long long)j.count[r].offset, off);
        off += j.count[r].local;
        expect_rank(&j, r, &w, what);
    }
    if (off != w.groups) fail_msg("%s: %zu groups in all, want %zu", what, off, w.groups);
    free_want(&w);
    free_job(&j);
    free(keys), free(vals);
}

static const gp_dtype value_dtypes[] = {GP_INT32, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

static void group_by_matches_one_context(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 37, 2001};
    int counts[8], nc = rank_counts(b, counts), ci, di, dist, ti;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (di = 0; di < (int)COUNT(gpk_dtypes); di++)
            for (dist = 0; dist < NDISTS; dist++)
                for (ti = 0; ti < (int)COUNT(totals); ti++) {
                    const int pick = di + dist + ti + ci;
                    check_group_by(&w, 0, gpk_dtypes[di], value_dtypes[pick % 4], ops[pick % 3], pick % 2, dist,
                                   pick % 4, totals[ti]);
                    check_group_by(&w, 1, gpk_dtypes[di], GP_INT32, GP_OP_SUM, 0, dist, (pick + 1) % 4, totals[ti]);
                }
        free_world(&w);
    }
}

/* Larger inputs: many bisection rounds, groups straddling every shard. */
static void larger_group_bys(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        if (counts[ci] < 2 && nc > 1) continue;
        make_world(&w, b, counts[ci], 0);
        check_group_by(&w, 0, GP_UINT64, GP_INT64, GP_OP_SUM, 1, GPK_RANDOM, 1, 100003);
        check_group_by(&w, 0, GP_FLOAT32, GP_FLOAT64, GP_OP_SUM, 1, GPK_SPECIAL, 0, 65537);
        check_group_by(&w, 0, GP_INT32, GP_FLOAT32, GP_OP_MIN, 0, DIST_NINETY, 2, 50001);
        check_group_by(&w, 1, GP_FLOAT64, GP_INT32, GP_OP_SUM, 0, GPK_FEW_DISTINCT, 3, 40000);
        check_group_by(&w, 1, GP_UINT32, GP_INT32, GP_OP_SUM, 0, GPK_ALL_EQUAL, 0, 30000);
        check_group_by(&w, 1, GP_INT64, GP_INT32, GP_OP_SUM, 0, DIST_REVERSED, 1, 30011);
        free_world(&w);
    }
}

/* Small random shards with room for everything, for the failures. */
static void make_failing_job(gb_job *j, world *w, int unique)
{
    int r;
    memset(j, 0, sizeof *j);
    j->w = w;
    j->unique = unique;
    j->lengths = 1;
    j->kd = GP_INT32;
    j->vd = GP_INT64;
    j->op = GP_OP_SUM;
    j->bad_rank = j->other_op = -1;
    for (r = 0; r < w->n; r++) {
        int32_t k[16];
        int64_t v[16];
        j->n[r] = 5 + (size_t)r;
        gpt_fill_random(GP_INT32, k, j->n[r], 1000000);
        gpt_fill_random(GP_INT64, v, j->n[r], 100);
        j->kin[r] = gpt_buffer_from(w->ctx[r], k, j->n[r] * 4);
        j->vin[r] = gpt_buffer_from(w->ctx[r], v, j->n[r] * 8);
    }
    alloc_outputs(j, 100);
}

static void expect_all_failed_untouched(gb_job *j, int first_rank, gp_status first)
{
    int r;
    for (r = 0; r < j->w->n; r++) {
        if (first_rank < 0 || r == first_rank) assert_int_equal(j->st[r], first);
        else assert_int_equal(j->st[r], GP_ERROR_COMM);
        gpt_expect_untouched(j->w->ctx[r], j->kout[r], j->cap[r] * 4);
        if (!j->unique) gpt_expect_untouched(j->w->ctx[r], j->vout[r], j->cap[r] * 8);
        gpt_expect_untouched(j->w->ctx[r], j->lout[r], j->cap[r] * 8);
    }
}

static void a_rank_rejects_its_arguments(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, unique;
    for (ci = 0; ci < nc; ci++)
        for (unique = 0; unique < 2; unique++) {
            world w;
            gb_job j;
            make_world(&w, b, counts[ci], 0);
            make_failing_job(&j, &w, unique);
            j.bad_rank = w.n - 1;
            assert_int_not_equal(gp_comm_run(w.comm, w.n, gb_rank, &j), GP_SUCCESS);
            expect_detail(w.ctx[w.n - 1], unique ? "in" : "keys_in");
            expect_all_failed_untouched(&j, j.bad_rank, GP_ERROR_INVALID_ARGUMENT);
            j.bad_rank = -1; /* the communicator stays usable */
            assert_int_equal(gp_comm_run(w.comm, w.n, gb_rank, &j), GP_SUCCESS);
            free_job(&j);
            free_world(&w);
        }
}

/* The rank with the most groups gets a capacity one short: every rank
 * fails before writing, that one with INVALID_ARGUMENT. */
static void a_capacity_too_small(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, unique;
    for (ci = 0; ci < nc; ci++)
        for (unique = 0; unique < 2; unique++) {
            world w;
            gb_job j;
            int r, most = 0;
            make_world(&w, b, counts[ci], 0);
            make_failing_job(&j, &w, unique);
            assert_int_equal(gp_comm_run(w.comm, w.n, gb_rank, &j), GP_SUCCESS);
            for (r = 0; r < w.n; r++)
                if (j.count[r].local > j.count[most].local) most = r;
            assert_true(j.count[most].local > 0);
            for (r = 0; r < w.n; r++) { /* fresh poison, the same buffers */
                gpt_buffer_free(w.ctx[r], j.kout[r]);
                gpt_buffer_free(w.ctx[r], j.vout[r]);
                gpt_buffer_free(w.ctx[r], j.lout[r]);
            }
            alloc_outputs(&j, 100);
            j.cap[most] = (size_t)j.count[most].local - 1;
            assert_int_not_equal(gp_comm_run(w.comm, w.n, gb_rank, &j), GP_SUCCESS);
            expect_detail(w.ctx[most], "capacity");
            expect_all_failed_untouched(&j, most, GP_ERROR_INVALID_ARGUMENT);
            free_job(&j);
            free_world(&w);
        }
}

static void ranks_disagree_on_the_operator(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        gb_job j;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        make_failing_job(&j, &w, 0);
        j.other_op = 1;
        assert_int_not_equal(gp_comm_run(w.comm, w.n, gb_rank, &j), GP_SUCCESS);
        expect_detail(w.ctx[0], "operator");
        expect_all_failed_untouched(&j, -1, GP_ERROR_INVALID_ARGUMENT);
        free_job(&j);
        free_world(&w);
    }
}

/* ---- one rank: the single-context call on the same context ---------------------- */

/* Bytes [0, bytes) of backend buffers a and b on ctx are equal. */
static void expect_same(gp_context *ctx, const void *a, const void *b, size_t bytes, const char *what)
{
    unsigned char *x = gpt_malloc(bytes + 1), *y = gpt_malloc(bytes + 1);
    gpt_buffer_to(ctx, x, a, bytes);
    gpt_buffer_to(ctx, y, b, bytes);
    if (memcmp(x, y, bytes)) fail_msg("%s: one rank differs from the single-context call", what);
    free(x), free(y);
}

/* gp_dist_reduce_by_key (unique: gp_dist_unique) on a one-rank world against
 * gp_sort_pairs + gp_reduce_by_key (gp_sort_keys + gp_unique) on its own
 * context; capacity: the groups + extra (extra -1: one short, must fail). */
static void check_one_rank(world *w, int unique, gp_dtype kd, gp_dtype vd, gp_op op, int lengths, int dist, size_t n,
                           int extra)
{
    gp_context *ctx = w->ctx[0];
    const size_t ks = gp_dtype_size(kd), vs = unique ? 0 : gp_dtype_size(vd);
    unsigned char *host = gpt_malloc((n + 8) * 8 + 16); /* the outputs' room too */
    void *kin, *vin = NULL, *sk, *sv, *rk, *rv, *rl, *kout, *vout, *lout;
    size_t groups = 0, cap;
    gp_dist_count count = {777, 777, 777}; /* a failed call leaves it so */
    char what[160];
    gp_status s;
    snprintf(what, sizeof what, "one rank %s %s/%s op %d len %d dist %d n %zu", unique ? "unique" : "reduce_by_key",
             gpt_dtype_name(kd), unique ? "-" : gpt_dtype_name(vd), op, lengths, dist, n);
    fill_keys(kd, host, n, dist);
    kin = gpt_buffer_from(ctx, host, n * ks + 8);
    if (vs) {
        gpt_fill_random(vd, host, n, 0); /* floats in [-1000, 1000): sums round */
        vin = gpt_buffer_from(ctx, host, n * vs + 8);
    }
    sk = gpt_buffer(ctx, n * 8 + 8), sv = gpt_buffer(ctx, n * 8 + 8);
    rk = gpt_buffer(ctx, n * 8 + 8), rv = gpt_buffer(ctx, n * 8 + 8), rl = gpt_buffer(ctx, n * 8 + 8);
    if (n && unique) {
        GPT_OK(ctx, gp_sort_keys(ctx, kd, GP_SORT_ASCENDING, kin, sk, n, 0, (int)(8 * ks)));
        GPT_OK(ctx, gp_unique(ctx, kd, sk, n, rk, &groups));
    } else if (n) {
        GPT_OK(ctx, gp_sort_pairs(ctx, kd, GP_SORT_ASCENDING, kin, sk, vs, vin, sv, n, 0, (int)(8 * ks)));
        GPT_OK(ctx, gp_reduce_by_key(ctx, kd, vd, op, sk, sv, n, rk, rv, (uint64_t *)rl, &groups));
    }
    cap = extra >= 0 ? groups + (size_t)extra : groups ? groups - 1 : 0;
    kout = gpt_poisoned_buffer(ctx, cap * ks + 16);
    vout = gpt_poisoned_buffer(ctx, cap * 8 + 16);
    lout = gpt_poisoned_buffer(ctx, cap * 8 + 16);
    s = unique ? gp_dist_unique(w->comm[0], kd, kin, n, kout, cap, &count)
               : gp_dist_reduce_by_key(w->comm[0], kd, vd, op, kin, vin, n, kout, vout,
                                       lengths ? (uint64_t *)lout : NULL, cap, &count);
    if (extra < 0 && groups) {
        if (s != GP_ERROR_INVALID_ARGUMENT) fail_msg("%s: capacity one short: %s", what, gp_status_string(s));
        expect_detail(ctx, "capacity");
        if (count.local != 777 || count.offset != 777 || count.total != 777) fail_msg("%s: count written on failure", what);
        gpt_expect_untouched(ctx, kout, cap * ks + 16);
        gpt_expect_untouched(ctx, vout, cap * 8 + 16);
        gpt_expect_untouched(ctx, lout, cap * 8 + 16);
    } else {
        if (s) fail_msg("%s: %s [%s]", what, gp_status_string(s), gp_context_last_error(ctx));
        if (count.local != groups || count.offset != 0 || count.total != groups)
            fail_msg("%s: count %llu at %llu of %llu, want %zu", what, (unsigned long long)count.local,
                     (unsigned long long)count.offset, (unsigned long long)count.total, groups);
        expect_same(ctx, kout, rk, groups * ks, what);
        if (vs) expect_same(ctx, vout, rv, groups * vs, what);
        if (lengths && !unique) expect_same(ctx, lout, rl, groups * 8, what);
        gpt_buffer_to(ctx, host, kout, cap * ks + 16);
        gpt_expect_poison(host, groups * ks, cap * ks + 16, what);
    }
    gpt_buffer_free(ctx, kin), gpt_buffer_free(ctx, vin), gpt_buffer_free(ctx, sk), gpt_buffer_free(ctx, sv);
    gpt_buffer_free(ctx, rk), gpt_buffer_free(ctx, rv), gpt_buffer_free(ctx, rl);
    gpt_buffer_free(ctx, kout), gpt_buffer_free(ctx, vout), gpt_buffer_free(ctx, lout);
    free(host);
}

static void one_rank_matches_the_context_itself(void **state)
{
    static const size_t totals[] = {0, 1, 37, 5001};
    world w;
    int di, dist, ti;
    make_world(&w, backend_of(gpt_ctx(state)), 1, 0);
    for (di = 0; di < (int)COUNT(gpk_dtypes); di++)
        for (dist = 0; dist < NDISTS; dist++)
            for (ti = 0; ti < (int)COUNT(totals); ti++) {
                const int pick = di + dist + ti;
                const int extra = pick % 3 == 0 ? -1 : pick % 3 == 1 ? 0 : 5; /* one short, exact, room */
                check_one_rank(&w, 0, gpk_dtypes[di], value_dtypes[pick % 4], ops[pick % 3], pick % 2, dist,
                               totals[ti], extra);
                check_one_rank(&w, 0, gpk_dtypes[di], GP_FLOAT32, GP_OP_SUM, 1, dist, totals[ti], 0);
                check_one_rank(&w, 1, gpk_dtypes[di], GP_INT32, GP_OP_SUM, 0, dist, totals[ti], extra);
            }
    free_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(group_by_matches_one_context),
        GPT_TEST_BOTH(larger_group_bys),
        GPT_TEST_BOTH(a_rank_rejects_its_arguments),
        GPT_TEST_BOTH(a_capacity_too_small),
        GPT_TEST_BOTH(ranks_disagree_on_the_operator),
        GPT_TEST_BOTH(one_rank_matches_the_context_itself),
    };
    int failed;
    gpt_seed_once();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    gp_context_destroy(ref);
    return failed;
}
