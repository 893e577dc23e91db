/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_shuffle.c - gp_dist_shuffle_counts and gp_dist_shuffle against
 * a host reference (each rank's received elements: every source's elements
 * for it, in source order, stable): CPU ranks at 1, 2, 3, 4 and 8 ranks
 * (CUDA ranks at 1 and every GPU), 4-, 8- and 16-byte elements, no values
 * and 4- or 8-byte values, routing per element (dest) and grouped (counts),
 * mixed across ranks; uneven and empty shards, everything to one rank.
 * Outputs are poisoned: nothing past the received count may be written.
 * Failures: capacity too small, a destination outside the communicator, a
 * missing rank; every rank fails with every output untouched.
 * One rank (its shortcut): the result is gp_copy of the inputs on the same
 * context, bit for bit, for both routings; a bad destination, a short
 * capacity and a bad argument are refused with the outputs untouched. */
#include "dist_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shuffle_job {
    world *w;
    size_t es, vs;
    int grouped[MAX_RANKS]; /* routing of each rank: 1 grouped, 0 per element */
    int counts_only, skip_rank;
    void *in[MAX_RANKS], *vin[MAX_RANKS], *out[MAX_RANKS], *vout[MAX_RANKS];
    uint32_t *dest[MAX_RANKS];
    size_t n[MAX_RANKS], send[MAX_RANKS][MAX_RANKS], cap[MAX_RANKS];
    size_t got[MAX_RANKS], from[MAX_RANKS][MAX_RANKS];
    gp_status st[MAX_RANKS];
} shuffle_job;

static gp_status shuffle_rank(gp_comm *c, void *p)
{
    shuffle_job *j = (shuffle_job *)p;
    int r = rank_of(c);
    const uint32_t *dest = j->grouped[r] ? NULL : j->dest[r];
    const size_t *send = j->grouped[r] ? j->send[r] : NULL;
    if (r == j->skip_rank) return j->st[r] = GP_SUCCESS;
    if (j->counts_only) return j->st[r] = gp_dist_shuffle_counts(c, dest, send, j->n[r], &j->got[r], j->from[r]);
    return j->st[r] = gp_dist_shuffle(c, j->es, j->in[r], j->vs, j->vin[r], j->n[r], dest, send, j->out[r],
                                      j->vout[r], j->cap[r], &j->got[r], j->from[r]);
}

/* Host data of one rank: elements (es bytes) tagged with their source and
 * position, values likewise, destinations by `pattern` (0 random, 1 all to
 * the last rank, 2 to the rank itself, 3 reversed). Grouped ranks' data is
 * laid out by destination, stably, with counts. */
typedef struct shard {
    unsigned char *e, *v;
    uint32_t *d;
} shard;

/* Every rank's buffers of the job. */
static void free_job_buffers(world *w, shuffle_job *j)
{
    int r;
    for (r = 0; r < w->n; r++) {
        gpt_buffer_free(w->ctx[r], j->in[r]);
        gpt_buffer_free(w->ctx[r], j->vin[r]);
        gpt_buffer_free(w->ctx[r], j->dest[r]);
        gpt_buffer_free(w->ctx[r], j->out[r]);
        gpt_buffer_free(w->ctx[r], j->vout[r]);
    }
}

static void make_shard(shuffle_job *j, int r, int pattern, shard *sh)
{
    const size_t n = j->n[r], es = j->es, vs = j->vs ? j->vs : 1;
    const int p = j->w->n;
    size_t i, k = 0;
    int q;
    sh->e = gpt_malloc(n * es + 1);
    sh->v = gpt_malloc(n * vs + 1);
    sh->d = gpt_malloc(n * 4 + 4);
    for (i = 0; i < n; i++) {
        uint64_t tag = ((uint64_t)r << 28) | i, vtag = ~tag; /* fits 4 bytes */
        memset(sh->e + i * es, 0xa5, es);
        memcpy(sh->e + i * es, &tag, es < 8 ? es : 8);
        if (j->vs) memcpy(sh->v + i * j->vs, &vtag, j->vs);
        sh->d[i] = pattern == 0 ? (uint32_t)(gpt_rand64() % (uint64_t)p)
                   : pattern == 1 ? (uint32_t)(p - 1)
                   : pattern == 2 ? (uint32_t)r
                                  : (uint32_t)(p - 1 - (int)(i % (size_t)p));
    }
    memset(j->send[r], 0, sizeof j->send[r]);
    for (i = 0; i < n; i++) j->send[r][sh->d[i]]++;
    if (!j->grouped[r]) return;
    { /* group by destination, stably */
        unsigned char *e = gpt_malloc(n * es + 1), *v = gpt_malloc(n * vs + 1);
        uint32_t *d = gpt_malloc(n * 4 + 4);
        for (q = 0; q < p; q++)
            for (i = 0; i < n; i++)
                if (sh->d[i] == (uint32_t)q) {
                    memcpy(e + k * es, sh->e + i * es, es);
                    if (j->vs) memcpy(v + k * j->vs, sh->v + i * j->vs, j->vs);
                    d[k++] = (uint32_t)q;
                }
        free(sh->e), free(sh->v), free(sh->d);
        sh->e = e, sh->v = v, sh->d = d;
    }
}

static void check_shuffle(world *w, size_t es, size_t vs, int routing, int pattern, size_t total)
{
    const int p = w->n;
    shuffle_job j;
    shard sh[MAX_RANKS];
    int r, q;
    memset(&j, 0, sizeof j);
    j.w = w;
    j.es = es;
    j.vs = vs;
    j.skip_rank = -1;
    split(total, p, (routing + pattern) % 4, j.n);
    for (r = 0; r < p; r++) {
        j.grouped[r] = routing == 2 ? r % 2 : routing;
        make_shard(&j, r, pattern, &sh[r]);
        j.in[r] = j.n[r] ? gpt_buffer_from(w->ctx[r], sh[r].e, j.n[r] * es) : NULL;
        j.vin[r] = j.n[r] && vs ? gpt_buffer_from(w->ctx[r], sh[r].v, j.n[r] * vs) : NULL;
        j.dest[r] = j.n[r] ? gpt_buffer_from(w->ctx[r], sh[r].d, j.n[r] * 4) : NULL;
    }
    /* counts first */
    j.counts_only = 1;
    assert_int_equal(gp_comm_run(w->comm, p, shuffle_rank, &j), GP_SUCCESS);
    for (r = 0; r < p; r++) {
        size_t want = 0;
        for (q = 0; q < p; q++) {
            assert_int_equal(j.from[r][q], j.send[q][r]);
            want += j.send[q][r];
        }
        assert_int_equal(j.got[r], want);
        j.cap[r] = want + 3; /* room to spare: nothing past the count is written */
        j.out[r] = gpt_poisoned_buffer(w->ctx[r], j.cap[r] * es);
        j.vout[r] = vs ? gpt_poisoned_buffer(w->ctx[r], j.cap[r] * vs) : NULL;
    }
    j.counts_only = 0;
    memset(j.got, 0, sizeof j.got);
    {
        gp_status s = gp_comm_run(w->comm, p, shuffle_rank, &j);
        for (r = 0; r < p; r++)
            if (j.st[r]) fail_msg("rank %d: %s [%s]", r, gp_status_string(j.st[r]), gp_context_last_error(w->ctx[r]));
        assert_int_equal(s, GP_SUCCESS);
    }
    for (r = 0; r < p; r++) {
        const size_t cap = j.cap[r];
        unsigned char *got = gpt_malloc(cap * es), *gotv = gpt_malloc(cap * (vs ? vs : 1));
        size_t k = 0, i;
        assert_int_equal(j.got[r], cap - 3);
        gpt_buffer_to(w->ctx[r], got, j.out[r], cap * es);
        if (vs) gpt_buffer_to(w->ctx[r], gotv, j.vout[r], cap * vs);
        for (q = 0; q < p; q++) /* the reference: source order, stable */
            for (i = 0; i < j.n[q]; i++) {
                if (sh[q].d[i] != (uint32_t)r) continue;
                if (memcmp(got + k * es, sh[q].e + i * es, es))
                    fail_msg("%d ranks es %zu vs %zu routing %d pattern %d: rank %d element %zu (from %d, %zu) wrong",
                             p, es, vs, routing, pattern, r, k, q, i);
                if (vs && memcmp(gotv + k * vs, sh[q].v + i * vs, vs))
                    fail_msg("rank %d value %zu wrong", r, k);
                k++;
            }
        assert_int_equal(k, j.got[r]);
        gpt_expect_poison(got, k * es, cap * es, "past the received count");
        if (vs) gpt_expect_poison(gotv, k * vs, cap * vs, "values past the received count");
        free(got), free(gotv);
    }
    free_job_buffers(w, &j);
    for (r = 0; r < p; r++) free(sh[r].e), free(sh[r].v), free(sh[r].d);
}

static void shuffle_matches_reference(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 29, 1000, 20011};
    static const size_t sizes[][2] = {{4, 0}, {8, 0}, {16, 0}, {4, 8}, {8, 4}, {16, 8}};
    int counts[8], nc = rank_counts(b, counts), ci, si, ti, routing, pattern;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (si = 0; si < (int)COUNT(sizes); si++)
            for (ti = 0; ti < (int)COUNT(totals); ti++)
                for (routing = 0; routing < 3; routing++) {
                    pattern = (si + ti + routing) % 4;
                    check_shuffle(&w, sizes[si][0], sizes[si][1], routing, pattern, totals[ti]);
                }
        free_world(&w);
    }
}

static char last_detail[256]; /* the last rank's, before the checks below clear it */

/* Every rank sends one element to every rank; `cap` is each rank's
 * capacity, bad_dest a destination rank 0 names (valid or not). */
static void failing_shuffle(world *w, size_t small_rank_cap, uint32_t bad_dest, int skip_rank, gp_status *st)
{
    const int p = w->n;
    shuffle_job j;
    int r, q;
    memset(&j, 0, sizeof j);
    j.w = w;
    j.es = 4;
    j.vs = 4;
    j.skip_rank = skip_rank;
    for (r = 0; r < p; r++) {
        uint32_t d[MAX_RANKS], e[MAX_RANKS];
        j.n[r] = (size_t)p;
        for (q = 0; q < p; q++) d[q] = (uint32_t)q, e[q] = (uint32_t)(r * 100 + q);
        if (r == 0) d[0] = bad_dest;
        j.in[r] = gpt_buffer_from(w->ctx[r], e, (size_t)p * 4);
        j.vin[r] = gpt_buffer_from(w->ctx[r], e, (size_t)p * 4);
        j.dest[r] = gpt_buffer_from(w->ctx[r], d, (size_t)p * 4);
        j.cap[r] = r == p - 1 ? small_rank_cap : (size_t)p + 1;
        j.out[r] = gpt_poisoned_buffer(w->ctx[r], j.cap[r] * 4 + 4);
        j.vout[r] = gpt_poisoned_buffer(w->ctx[r], j.cap[r] * 4 + 4);
        j.got[r] = 12345;
    }
    assert_int_not_equal(gp_comm_run(w->comm, p, shuffle_rank, &j), GP_SUCCESS);
    snprintf(last_detail, sizeof last_detail, "%s", gp_context_last_error(w->ctx[p - 1]));
    for (r = 0; r < p; r++) {
        st[r] = j.st[r];
        if (r == skip_rank) continue;
        assert_int_equal(j.got[r], 12345);
        gpt_expect_untouched(w->ctx[r], j.out[r], j.cap[r] * 4 + 4);
        gpt_expect_untouched(w->ctx[r], j.vout[r], j.cap[r] * 4 + 4);
    }
    free_job_buffers(w, &j);
}

/* On every world one rank refuses its shuffle and the others fail with
 * GP_ERROR_COMM: with short_capacity the last rank, which receives p
 * elements into room for p - 1 (its detail names "capacity"); else rank 0,
 * which sends an element to rank p. */
static void expect_one_refusal(void **state, int short_capacity)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        gp_status st[MAX_RANKS];
        int refuser;
        make_world(&w, b, counts[ci], 0);
        refuser = short_capacity ? w.n - 1 : 0;
        failing_shuffle(&w, short_capacity ? (size_t)w.n - 1 : (size_t)w.n + 1, short_capacity ? 0 : (uint32_t)w.n,
                        -1, st);
        for (r = 0; r < w.n; r++) assert_int_equal(st[r], r == refuser ? GP_ERROR_INVALID_ARGUMENT : GP_ERROR_COMM);
        if (short_capacity && !strstr(last_detail, "capacity")) fail_msg("detail: %s", last_detail);
        free_world(&w);
    }
}

static void capacity_too_small(void **state) { expect_one_refusal(state, 1); }
static void a_destination_outside_the_ranks(void **state) { expect_one_refusal(state, 0); }

static void a_missing_rank_times_out(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        gp_status st[MAX_RANKS];
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 300);
        failing_shuffle(&w, (size_t)w.n + 1, 0, w.n - 1, st);
        expect_timed_out(st, w.n);
        free_world(&w);
    }
}

/* ---- one rank: the single-context call is a copy ------------------------------ */

typedef struct one_rank {
    world w;
    gp_context *ctx;
    size_t es, vs, n, cap;
    void *in, *vin, *out, *vout;
    uint32_t *dest; /* NULL: grouped routing, one send count */
    size_t got, from[1];
} one_rank;

/* n random elements (and values) on a one-rank world's context; dest all 0
 * when per_element, else NULL; outputs of room cap, poisoned. */
static void one_rank_buffers(one_rank *o, size_t es, size_t vs, size_t n, int per_element, size_t cap)
{
    unsigned char *host = gpt_malloc(n * 16 + 16);
    o->es = es, o->vs = vs, o->n = n, o->cap = cap;
    gpt_fill_random(GP_UINT32, host, n * 4 + 4, 0);
    o->in = n ? gpt_buffer_from(o->ctx, host, n * es) : NULL;
    gpt_fill_random(GP_UINT32, host, n * 4 + 4, 0);
    o->vin = n && vs ? gpt_buffer_from(o->ctx, host, n * vs) : NULL;
    memset(host, 0, n * 4 + 4);
    o->dest = n && per_element ? (uint32_t *)gpt_buffer_from(o->ctx, host, n * 4) : NULL;
    o->out = gpt_poisoned_buffer(o->ctx, cap * es + 16);
    o->vout = vs ? gpt_poisoned_buffer(o->ctx, cap * vs + 16) : NULL;
    o->got = o->from[0] = 12345;
    free(host);
}

static void one_rank_free(one_rank *o)
{
    gpt_buffer_free(o->ctx, o->in);
    gpt_buffer_free(o->ctx, o->vin);
    gpt_buffer_free(o->ctx, o->dest);
    gpt_buffer_free(o->ctx, o->out);
    gpt_buffer_free(o->ctx, o->vout);
}

static gp_status one_rank_shuffle(one_rank *o)
{
    const size_t counts[1] = {o->n};
    return gp_dist_shuffle(o->w.comm[0], o->es, o->in, o->vs, o->vin, o->n, o->dest, o->dest ? NULL : counts, o->out,
                           o->vout, o->cap, &o->got, o->from);
}

/* The first bytes of buffer `got` equal gp_copy of `in` on the same context,
 * and the rest of its `room` bytes are still poison. */
static void expect_copy_of(gp_context *ctx, const void *in, const void *got, size_t bytes, size_t room)
{
    unsigned char *a = gpt_malloc(room + 1), *b = gpt_malloc(bytes + 1);
    void *copy = gpt_buffer(ctx, bytes + 1);
    if (bytes) {
        GPT_OK(ctx, gp_copy(ctx, copy, in, bytes));
        gpt_buffer_to(ctx, b, copy, bytes);
    }
    gpt_buffer_to(ctx, a, got, room);
    if (memcmp(a, b, bytes)) fail_msg("one rank: the result is not the copy of the input (%zu bytes)", bytes);
    gpt_expect_poison(a, bytes, room, "one rank: past the received count");
    gpt_buffer_free(ctx, copy);
    free(a), free(b);
}

static void one_rank_is_a_copy(void **state)
{
    static const size_t sizes[][2] = {{4, 0}, {8, 4}, {16, 8}, {4, 8}};
    static const size_t totals[] = {0, 1, 33, 4099};
    one_rank o;
    size_t si, ti;
    int per_element;
    make_world(&o.w, backend_of(gpt_ctx(state)), 1, 0);
    o.ctx = o.w.ctx[0];
    for (si = 0; si < COUNT(sizes); si++)
        for (ti = 0; ti < COUNT(totals); ti++)
            for (per_element = 0; per_element < 2; per_element++) {
                const size_t counts[1] = {totals[ti]};
                one_rank_buffers(&o, sizes[si][0], sizes[si][1], totals[ti], per_element, totals[ti] + 3);
                GPT_OK(o.ctx, gp_dist_shuffle_counts(o.w.comm[0], o.dest, o.dest ? NULL : counts, o.n, &o.got,
                                                     o.from));
                assert_int_equal(o.got, o.n);
                assert_int_equal(o.from[0], o.n);
                o.got = o.from[0] = 12345;
                GPT_OK(o.ctx, one_rank_shuffle(&o));
                assert_int_equal(o.got, o.n);
                assert_int_equal(o.from[0], o.n);
                expect_copy_of(o.ctx, o.in, o.out, o.n * o.es, o.cap * o.es + 16);
                if (o.vs) expect_copy_of(o.ctx, o.vin, o.vout, o.n * o.vs, o.cap * o.vs + 16);
                one_rank_free(&o);
            }
    free_world(&o.w);
}

/* The call failed with `want`, its detail naming `part`, nothing written. */
static void expect_one_rank_refusal(one_rank *o, gp_status want, const char *part)
{
    EXPECT_STATUS(want, one_rank_shuffle(o));
    expect_detail(o->ctx, part);
    assert_int_equal(o->got, 12345);
    assert_int_equal(o->from[0], 12345);
    gpt_expect_untouched(o->ctx, o->out, o->cap * o->es + 16);
    if (o->vs) gpt_expect_untouched(o->ctx, o->vout, o->cap * o->vs + 16);
}

static void one_rank_refuses(void **state)
{
    const size_t n = 1000;
    const uint32_t bad[2] = {1, 0xffffffffu};
    one_rank o;
    int per_element;
    make_world(&o.w, backend_of(gpt_ctx(state)), 1, 0);
    o.ctx = o.w.ctx[0];
    /* destinations outside the communicator: rank 1 last, and the largest */
    one_rank_buffers(&o, 8, 4, n, 1, n);
    GPT_OK(o.ctx, gp_upload(o.ctx, o.dest + n - 1, &bad[0], 4));
    GPT_OK(o.ctx, gp_upload(o.ctx, o.dest + n / 2, &bad[1], 4));
    expect_one_rank_refusal(&o, GP_ERROR_INVALID_ARGUMENT, "2 of the 1000 destinations in dest are not ranks");
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_dist_shuffle_counts(o.w.comm[0], o.dest, NULL, n, &o.got, o.from));
    expect_detail(o.ctx, "not ranks");
    one_rank_free(&o);
    for (per_element = 0; per_element < 2; per_element++) {
        /* a capacity one short */
        one_rank_buffers(&o, 4, 8, n, per_element, n - 1);
        expect_one_rank_refusal(&o, GP_ERROR_INVALID_ARGUMENT, "capacity");
        /* a bad argument: no input (refused before the capacity is looked at) */
        gpt_buffer_free(o.ctx, o.in);
        o.in = NULL;
        expect_one_rank_refusal(&o, GP_ERROR_INVALID_ARGUMENT, "in");
        one_rank_free(&o);
        /* the communicator stays usable */
        one_rank_buffers(&o, 4, 8, n, per_element, n);
        GPT_OK(o.ctx, one_rank_shuffle(&o));
        expect_copy_of(o.ctx, o.in, o.out, n * 4, n * 4 + 16);
        one_rank_free(&o);
    }
    free_world(&o.w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(shuffle_matches_reference),
        GPT_TEST_BOTH(capacity_too_small),
        GPT_TEST_BOTH(a_destination_outside_the_ranks),
        GPT_TEST_BOTH(a_missing_rank_times_out),
        GPT_TEST_BOTH(one_rank_is_a_copy),
        GPT_TEST_BOTH(one_rank_refuses),
    };
    gpt_seed_once();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
