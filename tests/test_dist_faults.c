/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_faults.c - the distributed protocol under faults: a rank whose
 * arguments or check fail, ranks that make different calls or pass
 * arguments that must agree and do not, a rank that leaves (destroys its
 * communicator) and one that never comes. Every rank returns an error
 * (promptly, where the fault can be seen: well under the timeout), no
 * output is touched, and the communicator stays usable after every fault
 * but a timeout or a departure.
 *
 * Fault injection: gpi_comm_inject_fault(comm, status) (lib/comm/
 * comm_internal.h, testing only) makes the next distributed call on that
 * rank fail its check with `status`, as an allocation failing there would.
 * CPU ranks 1..4 on every machine; CUDA ranks at 1 and every GPU. */
#include "dist_world.h"

#include "comm/comm_internal.h" /* gpi_comm_inject_fault */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A timeout long enough that an error seen within PROMPT_MS was not the
 * timeout's. */
#define LONG_TIMEOUT_MS 20000
#define PROMPT_MS 2000.0

/* The rank counts of the fault tests: CPU 1..4, CUDA 1 and every GPU. */
static int fault_counts(gp_backend b, int *counts)
{
    int k;
    if (b == GP_BACKEND_CUDA) return rank_counts(b, counts);
    for (k = 0; k < 4; k++) counts[k] = k + 1;
    return 4;
}

/* ---- failures: every rank errs, nothing is written, nothing hangs ------------------------ */
/* The last rank passes a bad argument: NULL output, an output overlapping its
 * input, a size whose byte count overflows. It gets the one-context status,
 * every other rank GP_ERROR_COMM naming it, and no output changes. */
static void bad_argument_on_one_rank(void **state)
{
    static const gp_status want[] = {GP_ERROR_INVALID_ARGUMENT, GP_ERROR_OVERLAP, GP_ERROR_SIZE_OVERFLOW};
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r, k;
    for (ci = 0; ci < nc; ci++) {
        world w;
        job j;
        int32_t vals[64];
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        memset(&j, 0, sizeof j);
        j.w = &w;
        j.dtype = GP_INT32;
        j.op = GP_OP_SUM;
        j.kind = GP_SCAN_INCLUSIVE;
        for (r = 0; r < w.n; r++) j.n[r] = 8;
        gpt_fill_random(GP_INT32, vals, 64, 0);
        scatter(&j, j.in, vals, 4);
        poisoned(&j, j.out, 4, 0);
        for (k = 0; k < 3; k++) {
            const int last = w.n - 1;
            void *good_out = j.out[last], *good_in = j.in[last];
            if (k == 0) j.out[last] = NULL;
            if (k == 1) { /* out starts inside in: overlapping, not equal */
                j.in[last] = good_out;
                j.out[last] = (char *)good_out + 4;
                j.n[last] = 4;
            }
            if (k == 2) j.n[last] = SIZE_MAX / 2;
            assert_int_not_equal(gp_comm_run(w.comm, w.n, scan_rank, &j), GP_SUCCESS);
            assert_non_null(strstr(gp_context_last_error(w.ctx[0]), "rank"));
            j.out[last] = good_out;
            j.in[last] = good_in;
            j.n[last] = 8;
            for (r = 0; r < w.n; r++) {
                assert_int_equal(j.st[r], r == last ? want[k] : GP_ERROR_COMM);
                gpt_expect_untouched(w.ctx[r], j.out[r], 32);
            }
        }
        /* the communicator is still usable afterwards */
        run(&j, scan_rank);
        free_bufs(&j, j.in);
        free_bufs(&j, j.out);
        free_world(&w);
    }
}

/* ---- an injected fault on one rank --------------------------------------------------- */
enum { CALL_SCAN, CALL_REDUCE, CALL_COMPACT, CALL_INDICES, CALL_REPEATS, CALL_STENCIL, CALL_COUNT };
static const char *const call_names[CALL_COUNT] = {"gp_dist_scan", "gp_dist_reduce", "gp_dist_compact",
                                                   "gp_dist_compact_indices", "gp_dist_find_repeats",
                                                   "gp_dist_stencil_2d"};

typedef struct fault_job {
    job j;          /* first: the wrappers of dist_world.h take it */
    int call;       /* CALL_*: what every rank calls */
    int fault_rank; /* the rank whose check is made to fail, or -1 */
} fault_job;

static gp_status call_rank(gp_comm *c, void *p)
{
    fault_job *f = (fault_job *)p;
    if (rank_of(c) == f->fault_rank) gpi_comm_inject_fault(c, GP_ERROR_OUT_OF_MEMORY);
    switch (f->call) {
    case CALL_SCAN: return scan_rank(c, &f->j);
    case CALL_REDUCE: return reduce_rank(c, &f->j);
    case CALL_COMPACT: return compact_rank(c, &f->j);
    case CALL_INDICES: return compact_indices_rank(c, &f->j);
    case CALL_REPEATS: return repeats_rank(c, &f->j);
    default: return stencil_rank(c, &f->j);
    }
}

/* Upload every rank's shard of `in` (in_unit bytes an element) and of the
 * flags `fl`, poison every output (out with room for n + 1 units of
 * out_unit bytes, the host result, the counts), then run fn on every rank:
 * the run must fail. Gives how long it took, in ms. */
static double run_failing(job *j, const void *in, size_t in_unit, const unsigned char *fl, size_t out_unit,
                          gp_comm_fn fn, void *arg)
{
    int r;
    double t0;
    scatter(j, j->in, in, in_unit);
    scatter(j, j->flags, fl, 1);
    poisoned(j, j->out, out_unit, 1);
    for (r = 0; r < j->w->n; r++) {
        gpt_poison(j->result[r], sizeof j->result[r]);
        gpt_poison(&j->count[r], sizeof j->count[r]);
    }
    t0 = now_ms();
    assert_int_not_equal(gp_comm_run(j->w->comm, j->w->n, fn, arg), GP_SUCCESS);
    return now_ms() - t0;
}

/* Rank r's outputs (out, the host result, the counts) still poisoned. */
static void expect_rank_untouched(job *j, int r, size_t out_bytes_per_unit, size_t extra)
{
    gpt_expect_untouched(j->w->ctx[r], j->out[r], (j->n[r] + extra) * out_bytes_per_unit);
    gpt_expect_poison(j->result[r], 0, sizeof j->result[r], "result_host");
    gpt_expect_poison(&j->count[r], 0, sizeof j->count[r], "count");
}

/* Every rank's outputs still poisoned. */
static void expect_outputs_untouched(fault_job *f, size_t out_bytes_per_unit, size_t extra)
{
    int r;
    for (r = 0; r < f->j.w->n; r++) expect_rank_untouched(&f->j, r, out_bytes_per_unit, extra);
}

static void injected_fault_on_one_rank(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = fault_counts(b, counts), ci, call, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], LONG_TIMEOUT_MS);
        for (call = 0; call < CALL_COUNT; call++) {
            fault_job f;
            const int stencil = call == CALL_STENCIL;
            const size_t cols = 3, unit = stencil ? cols * 4 : 8; /* out: rows of 3 floats, or room for uint64 */
            size_t total = 0;
            int32_t *all;
            unsigned char *fl;
            double took;
            memset(&f, 0, sizeof f);
            f.j.w = &w;
            f.j.dtype = stencil ? GP_FLOAT32 : GP_INT32;
            f.j.op = GP_OP_SUM;
            f.j.kind = GP_SCAN_INCLUSIVE;
            f.j.flag_type = GP_UINT8_FLAGS;
            f.j.boundary = GP_BOUNDARY_PERIODIC;
            f.j.cols = cols;
            f.call = call;
            f.fault_rank = (call + ci) % w.n; /* first, middle and last ranks over the loop */
            for (r = 0; r < w.n; r++) total += f.j.n[r] = 5 + (size_t)r * 3;
            all = gpt_malloc(total * cols * 4);
            fl = gpt_malloc(total);
            if (stencil) gpt_fill_random(GP_FLOAT32, all, total * cols, 0);
            else gpt_fill_random(GP_INT32, all, total, 3);
            for (r = 0; r < (int)total; r++) fl[r] = (unsigned char)(gpt_rand64() % 2);
            took = run_failing(&f.j, all, stencil ? cols * 4 : 4, fl, unit, call_rank, &f);
            if (took > PROMPT_MS) fail_msg("%s, %d ranks: the fault took %.0f ms to reach every rank", call_names[call], w.n, took);
            for (r = 0; r < w.n; r++) {
                const char *detail = gp_context_last_error(w.ctx[r]);
                char want[32];
                if (r == f.fault_rank) {
                    assert_int_equal(f.j.st[r], GP_ERROR_OUT_OF_MEMORY);
                    assert_non_null(strstr(detail, "injected"));
                } else {
                    assert_int_equal(f.j.st[r], GP_ERROR_COMM);
                    snprintf(want, sizeof want, "rank %d failed", f.fault_rank);
                    if (!strstr(detail, want)) fail_msg("rank %d's detail does not name rank %d: %s", r, f.fault_rank, detail);
                }
            }
            expect_outputs_untouched(&f, unit, 1);
            /* The communicator is still usable: the same call, no fault. */
            f.fault_rank = -1;
            run(&f.j, call_rank);
            if (call == CALL_REDUCE) {
                int64_t sum = 0;
                int32_t got;
                size_t i;
                for (i = 0; i < total; i++) sum += all[i];
                for (r = 0; r < w.n; r++) {
                    memcpy(&got, f.j.result[r], 4);
                    assert_int_equal(got, (int32_t)sum);
                }
            }
            free_bufs(&f.j, f.j.in);
            free_bufs(&f.j, f.j.flags);
            free_bufs(&f.j, f.j.out);
            free(all);
            free(fl);
        }
        free_world(&w);
    }
}

/* ---- mismatched calls --------------------------------------------------------------- */
typedef struct mix_job {
    job j;
    int first_call;   /* rank 0 calls this */
    int others_call;  /* every other rank this */
    gp_dtype first_dtype;
} mix_job;

static gp_status mixed_rank(gp_comm *c, void *p)
{
    mix_job *m = (mix_job *)p;
    int r = rank_of(c), call = r == 0 ? m->first_call : m->others_call;
    switch (call) {
    case CALL_REDUCE:
        return m->j.st[r] = gp_dist_reduce(c, r == 0 ? m->first_dtype : m->j.dtype, m->j.op, m->j.in[r], m->j.n[r],
                                           m->j.result[r]);
    case CALL_COMPACT: return compact_rank(c, &m->j);
    case CALL_STENCIL: return stencil_rank(c, &m->j);
    default: /* the Laplacian: the stencil with other weights */
        return m->j.st[r] = gp_dist_laplacian_2d(c, m->j.dtype, m->j.boundary, m->j.in[r], m->j.out[r], m->j.n[r],
                                                  m->j.cols);
    }
}

enum { CALL_LAPLACIAN = CALL_COUNT };

/* Rank 0 makes one call, the others another (or the same with another
 * dtype): every rank returns GP_ERROR_INVALID_ARGUMENT naming the mismatch
 * (`needle` in its detail), promptly, with nothing written; then the same
 * call on every rank succeeds. */
static void expect_mismatch(gp_backend b, int first_call, int others_call, gp_dtype first_dtype, const char *needle)
{
    int counts[8], nc = fault_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        mix_job m;
        const int grid = first_call >= CALL_STENCIL;
        const size_t cols = 4, unit = grid ? cols * 4 : 8;
        size_t total = 0;
        float vals[4 * 64];
        unsigned char fl[64];
        double took;
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], LONG_TIMEOUT_MS);
        memset(&m, 0, sizeof m);
        m.j.w = &w;
        m.j.dtype = grid ? GP_FLOAT32 : GP_INT32;
        m.j.op = GP_OP_SUM;
        m.j.flag_type = GP_UINT8_FLAGS;
        m.j.boundary = GP_BOUNDARY_CLAMP;
        m.j.cols = cols;
        m.first_call = first_call;
        m.others_call = others_call;
        m.first_dtype = first_dtype;
        for (r = 0; r < w.n; r++) total += m.j.n[r] = 2 + (size_t)r;
        /* 8 bytes an element for the reduce, whichever dtype a rank names:
         * a rank's local work may read its shard before the exchange. */
        gpt_fill_random(grid ? GP_FLOAT32 : GP_INT32, vals, grid ? total * cols : total * 2, 100);
        memset(fl, 1, sizeof fl);
        took = run_failing(&m.j, vals, grid ? cols * 4 : 8, fl, unit, mixed_rank, &m);
        if (took > PROMPT_MS) fail_msg("the mismatch took %.0f ms to be seen", took);
        for (r = 0; r < w.n; r++) {
            const char *detail = gp_context_last_error(w.ctx[r]);
            if (m.j.st[r] != GP_ERROR_INVALID_ARGUMENT)
                fail_msg("rank %d of %d: %s [%s], not GP_ERROR_INVALID_ARGUMENT", r, w.n, gp_status_string(m.j.st[r]),
                         detail);
            if (!strstr(detail, needle)) fail_msg("rank %d's detail does not say \"%s\": %s", r, needle, detail);
            expect_rank_untouched(&m.j, r, unit, 1);
        }
        /* The ranks stayed in step: the same call everywhere now succeeds. */
        m.first_call = m.others_call;
        m.first_dtype = m.j.dtype;
        run(&m.j, mixed_rank);
        free_bufs(&m.j, m.j.in);
        free_bufs(&m.j, m.j.flags);
        free_bufs(&m.j, m.j.out);
        free_world(&w);
    }
}

/* Rank 0 reduces (int32, sum), the others compact. */
static void reduce_against_compact(void **state)
{
    expect_mismatch(backend_of(gpt_ctx(state)), CALL_REDUCE, CALL_COMPACT, GP_INT32, "mismatched calls");
}

/* The same reduce, rank 0 with int64, the others int32. */
static void reduce_dtypes_disagree(void **state)
{
    expect_mismatch(backend_of(gpt_ctx(state)), CALL_REDUCE, CALL_REDUCE, GP_INT64, "different dtype");
}

/* Rank 0 runs the Laplacian, the others a stencil of other weights. */
static void laplacian_against_stencil(void **state)
{
    expect_mismatch(backend_of(gpt_ctx(state)), CALL_LAPLACIAN, CALL_STENCIL, GP_FLOAT32, "stencil weights");
}

/* ---- a rank that leaves -------------------------------------------------------------- */
typedef struct leave_job {
    job j;
    int leaver;     /* destroys its communicator instead of calling */
    int delay_ms;   /* ... after this long: 0 before its peers call, > 0 while they wait */
    double took[MAX_RANKS];
} leave_job;

static gp_status leave_rank(gp_comm *c, void *p)
{
    leave_job *l = (leave_job *)p;
    int r = rank_of(c);
    double t0 = now_ms();
    if (r == l->leaver) {
        if (l->delay_ms) usleep((useconds_t)l->delay_ms * 1000);
        gp_comm_destroy(c);
        return l->j.st[r] = GP_SUCCESS;
    }
    if (!l->delay_ms) usleep(50 * 1000); /* let the leaver go first */
    t0 = now_ms();
    reduce_rank(c, &l->j);
    l->took[r] = now_ms() - t0;
    return l->j.st[r];
}

/* Ranks of one process see a peer's gp_comm_destroy at once: GP_ERROR_COMM
 * naming it, well before the (short) timeout, whether it left before they
 * called or while they waited; and every later call fails at once. */
static void a_departed_rank_is_seen_at_once(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    const int timeout_ms = 4000;
    int counts[8], nc = fault_counts(b, counts), ci, r, k;
    for (ci = 0; ci < nc; ci++)
        for (k = 0; k < 2; k++) {
            world w;
            leave_job l;
            int32_t vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
            char want[48];
            if (counts[ci] < 2) continue;
            make_world(&w, b, counts[ci], timeout_ms);
            memset(&l, 0, sizeof l);
            l.j.w = &w;
            l.j.dtype = GP_INT32;
            l.j.op = GP_OP_SUM;
            l.leaver = k ? 0 : w.n - 1;
            l.delay_ms = k ? 200 : 0;
            for (r = 0; r < w.n; r++) l.j.n[r] = 1;
            scatter(&l.j, l.j.in, vals, 4);
            for (r = 0; r < w.n; r++) gpt_poison(l.j.result[r], sizeof l.j.result[r]);
            assert_int_not_equal(gp_comm_run(w.comm, w.n, leave_rank, &l), GP_SUCCESS);
            w.comm[l.leaver] = NULL; /* destroyed */
            snprintf(want, sizeof want, "rank %d destroyed", l.leaver);
            for (r = 0; r < w.n; r++) {
                if (r == l.leaver) continue;
                assert_int_equal(l.j.st[r], GP_ERROR_COMM);
                if (!strstr(gp_context_last_error(w.ctx[r]), want))
                    fail_msg("rank %d: %s", r, gp_context_last_error(w.ctx[r]));
                if (l.took[r] > l.delay_ms + timeout_ms / 4.0)
                    fail_msg("rank %d took %.0f ms to see the departure (timeout %d ms)", r, l.took[r], timeout_ms);
                gpt_expect_poison(l.j.result[r], 0, sizeof l.j.result[r], "result_host");
                /* later calls fail at once too */
                assert_int_equal(gp_dist_reduce(w.comm[r], GP_INT32, GP_OP_SUM, l.j.in[r], 1, l.j.result[r]),
                                 GP_ERROR_COMM);
            }
            free_bufs(&l.j, l.j.in);
            free_world(&w);
        }
}

static gp_status absent_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    if (r == j->skip_rank) return j->st[r] = GP_SUCCESS;
    return reduce_rank(c, p);
}

static void a_missing_rank_times_out(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        job j;
        int32_t vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 300);
        memset(&j, 0, sizeof j);
        j.w = &w;
        j.dtype = GP_INT32;
        j.op = GP_OP_SUM;
        j.skip_rank = w.n - 1;
        for (r = 0; r < w.n; r++) j.n[r] = 1;
        scatter(&j, j.in, vals, 4);
        assert_int_not_equal(gp_comm_run(w.comm, w.n, absent_rank, &j), GP_SUCCESS);
        expect_timed_out(j.st, w.n);
        /* aborted: later calls fail at once */
        assert_int_equal(gp_dist_reduce(w.comm[0], GP_INT32, GP_OP_SUM, j.in[0], 1, j.result[0]), GP_ERROR_COMM);
        free_bufs(&j, j.in);
        free_world(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(bad_argument_on_one_rank),
        GPT_TEST_BOTH(injected_fault_on_one_rank),
        GPT_TEST_BOTH(reduce_against_compact),
        GPT_TEST_BOTH(reduce_dtypes_disagree),
        GPT_TEST_BOTH(laplacian_against_stencil),
        GPT_TEST_BOTH(a_departed_rank_is_seen_at_once),
        GPT_TEST_BOTH(a_missing_rank_times_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
