/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist.c - the distributed primitives (gpuprim/dist.h) against the CPU
 * reference run on the whole array, with all ranks in this process: CPU
 * ranks (the host-memory transport) at 1, 2, 3, 4 and 8 ranks on every
 * machine, CUDA ranks (NCCL) at 1 and every GPU of the machine. Shards are
 * split evenly, at random, all in one rank, and with empty first and last
 * ranks; outputs are poisoned first. Also the communicator API's own
 * argument checks. Failures: test_dist_faults.c; the renderer's bands:
 * test_dist_render.c. */
#include "dist_world.h"

#include "internal.h" /* the CPU reference: gpi_cpu_* */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scan and reduce -------------------------------------------------------------- */
static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

static void scan_and_reduce(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 33, 1000, 100003};
    int counts[8], nc = rank_counts(b, counts), ci, di, oi, ki, ti;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (ti = 0; ti < (int)COUNT(totals); ti++)
            for (di = 0; di < (int)COUNT(dtypes); di++)
                for (oi = 0; oi < (int)COUNT(ops); oi++) {
                    gp_dtype d = dtypes[di];
                    size_t total = totals[ti], es = gp_dtype_size(d);
                    unsigned char *all = gpt_malloc(total * es + 1), *want = gpt_malloc(total * es + 1);
                    unsigned char *got = gpt_malloc(total * es + 1), red[8];
                    job j;
                    int r;
                    memset(&j, 0, sizeof j);
                    j.w = &w;
                    j.dtype = d;
                    j.op = ops[oi];
                    split(total, w.n, (ti + di + oi) % 4, j.n);
                    fill_input(d, ops[oi], all, total);
                    scatter(&j, j.in, all, es);
                    /* reduce: every rank gets the whole array's result */
                    run(&j, reduce_rank);
                    gpi_cpu_reduce(d, ops[oi], all, total, red, 1);
                    for (r = 0; r < w.n; r++) expect_equal(red, j.result[r], d, 1, "gp_dist_reduce");
                    for (ki = 0; ki < 2; ki++) {
                        j.kind = ki ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
                        poisoned(&j, j.out, es, 0);
                        run(&j, scan_rank);
                        gpi_cpu_scan(d, ops[oi], j.kind, all, want, total, 1);
                        gather(&j, j.out, got, es);
                        /* exact: integer sums, min, max, and float sums of small integers */
                        expect_equal(want, got, d, total, "gp_dist_scan");
                        free_bufs(&j, j.out);
                    }
                    free_bufs(&j, j.in);
                    free(all);
                    free(want);
                    free(got);
                }
        free_world(&w);
    }
}

/* ---- compact, compact-indices, find-repeats ---------------------------------------- */
/* Gather the ranks' results (count[r].local elements each) into got and
 * check the offsets and totals. */
static size_t collect(job *j, void *got, size_t es, size_t want_total)
{
    size_t off = 0;
    int r;
    for (r = 0; r < j->w->n; r++) {
        assert_int_equal(j->count[r].offset, off);
        assert_int_equal(j->count[r].total, want_total);
        assert_true(j->count[r].local <= j->n[r] + 1);
        if (j->count[r].local) gpt_buffer_to(j->w->ctx[r], (char *)got + off * es, j->out[r], j->count[r].local * es);
        /* nothing past the count */
        if (j->n[r] + 1 > j->count[r].local && j->out[r]) {
            size_t room = j->n[r] + 1;
            unsigned char *tail = gpt_malloc(room * es);
            gpt_buffer_to(j->w->ctx[r], tail, j->out[r], room * es);
            gpt_expect_poison(tail, j->count[r].local * es, room * es, "past the count");
            free(tail);
        }
        off += j->count[r].local;
    }
    return off;
}

/* Run fn on every rank into poisoned outputs (elements of es bytes, room for
 * n + 1 a rank) and hold the gathered results against want[0, want_n). */
static void expect_selection(job *j, gp_comm_fn fn, size_t es, gp_dtype d, const void *want, size_t want_n,
                             const char *what)
{
    unsigned char *got = gpt_malloc(want_n * es + es);
    poisoned(j, j->out, es, 1);
    run(j, fn);
    assert_int_equal(collect(j, got, es, want_n), want_n);
    expect_equal(want, got, d, want_n, what);
    free_bufs(j, j->out);
    free(got);
}

static void selections(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const size_t totals[] = {0, 1, 2, 31, 1000, 65537};
    int counts[8], nc = rank_counts(b, counts), ci, ti, pi;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (ti = 0; ti < (int)COUNT(totals); ti++)
            for (pi = 0; pi < 4; pi++) {
                size_t total = totals[ti], i, want_n;
                int32_t *all = gpt_malloc(total * 4 + 4), *want = gpt_malloc(total * 4 + 4);
                unsigned char *fl = gpt_malloc(total + 1);
                uint64_t *wi = gpt_malloc(total * 8 + 8);
                job j;
                memset(&j, 0, sizeof j);
                j.w = &w;
                j.dtype = GP_INT32;
                j.flag_type = GP_UINT8_FLAGS;
                split(total, w.n, pi, j.n);
                /* few distinct values: runs, so repeats straddle shards */
                gpt_fill_random(GP_INT32, all, total, 3);
                for (i = 0; i < total; i++) fl[i] = (unsigned char)(gpt_rand64() % 3 == 0 ? 0 : 1 + gpt_rand64() % 200);
                scatter(&j, j.in, all, 4);
                scatter(&j, j.flags, fl, 1);

                gpi_cpu_compact(GP_INT32, all, fl, GP_UINT8_FLAGS, want, total, &want_n, 1);
                expect_selection(&j, compact_rank, 4, GP_INT32, want, want_n, "gp_dist_compact");
                gpi_cpu_compact_indices(fl, GP_UINT8_FLAGS, wi, total, &want_n, 1);
                expect_selection(&j, compact_indices_rank, 8, GP_UINT64, wi, want_n, "gp_dist_compact_indices");
                gpi_cpu_find_repeats(GP_INT32, all, total, wi, &want_n, 1);
                expect_selection(&j, repeats_rank, 8, GP_UINT64, wi, want_n, "gp_dist_find_repeats");

                free_bufs(&j, j.in);
                free_bufs(&j, j.flags);
                free(all);
                free(want);
                free(fl);
                free(wi);
            }
        free_world(&w);
    }
}

/* Floats across shard edges: NaN never repeats, -0.0 equals +0.0. */
static void repeats_float_edges(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    const float nan = NAN;
    const float all[] = {1.f, nan, nan, -0.f, 0.f, 2.f, 2.f, 3.f};
    const size_t total = COUNT(all);
    uint64_t want[8];
    size_t want_n;
    int counts[8], nc = rank_counts(b, counts), ci;
    for (ci = 0; ci < nc; ci++) {
        world w;
        job j;
        make_world(&w, b, counts[ci], 0);
        memset(&j, 0, sizeof j);
        j.w = &w;
        j.dtype = GP_FLOAT32;
        split(total, w.n, 0, j.n);
        scatter(&j, j.in, all, 4);
        gpi_cpu_find_repeats(GP_FLOAT32, all, total, want, &want_n, 1);
        assert_int_equal(want_n, 2); /* (3, 4) and (5, 6) */
        expect_selection(&j, repeats_rank, 8, GP_UINT64, want, want_n, "float repeats");
        free_bufs(&j, j.in);
        free_world(&w);
    }
}

/* ---- stencil -------------------------------------------------------------------------- */
static void stencil_rows(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const gp_stencil5 w5 = {-3.5, 1.25, 0.75, 1.5, 0.5};
    static const size_t shapes[][2] = {{1, 1}, {1, 7}, {2, 5}, {3, 33}, {7, 1}, {50, 17}, {203, 129}};
    static const gp_boundary bounds[] = {GP_BOUNDARY_PERIODIC, GP_BOUNDARY_CLAMP, GP_BOUNDARY_ZERO};
    int counts[8], nc = rank_counts(b, counts), ci, si, bi, di, pi;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (si = 0; si < (int)COUNT(shapes); si++)
            for (bi = 0; bi < 3; bi++)
                for (di = 0; di < 2; di++) {
                    gp_dtype d = di ? GP_FLOAT64 : GP_FLOAT32;
                    size_t rows = shapes[si][0], cols = shapes[si][1], es = gp_dtype_size(d), row_b = cols * es;
                    unsigned char *all = gpt_malloc(rows * row_b), *want = gpt_malloc(rows * row_b);
                    unsigned char *got = gpt_malloc(rows * row_b);
                    job j;
                    pi = (si + bi + di) % 4;
                    memset(&j, 0, sizeof j);
                    j.w = &w;
                    j.dtype = d;
                    j.boundary = bounds[bi];
                    j.cols = cols;
                    split(rows, w.n, pi, j.n);
                    gpt_fill_random(d, all, rows * cols, 0);
                    scatter(&j, j.in, all, row_b);
                    poisoned(&j, j.out, row_b, 0);
                    run(&j, stencil_rank);
                    gpi_cpu_stencil_2d(d, &w5, bounds[bi], all, want, rows, cols, 1);
                    gather(&j, j.out, got, row_b);
                    if (memcmp(want, got, rows * row_b) != 0)
                        fail_msg("gp_dist_stencil_2d %zux%zu %s boundary %d, %d ranks split %d: differs", rows, cols,
                                 gpt_dtype_name(d), (int)bounds[bi], w.n, pi);
                    free_bufs(&j, j.in);
                    free_bufs(&j, j.out);
                    free(all);
                    free(want);
                    free(got);
                }
        free_world(&w);
    }
}

/* ---- the communicator API itself ------------------------------------------------------- */
static void comm_arguments(void **state)
{
    gp_context *ctx[3] = {NULL, NULL, NULL}, *cuda = NULL, *got;
    gp_comm *comms[3] = {NULL, NULL, NULL};
    gp_comm_id id;
    int v;
    gp_status s;
    (void)state;
    assert_int_equal(gp_context_create(&ctx[0], GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_context_create(&ctx[1], GP_BACKEND_CPU, 0), GP_SUCCESS);
    ctx[2] = ctx[0];
    assert_int_equal(gp_comm_init_all(NULL, ctx, 2, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_init_all(comms, NULL, 2, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_init_all(comms, ctx, 0, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_init_all(comms, ctx, 2, -1), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_init_all(comms, ctx, 3, 0), GP_ERROR_INVALID_ARGUMENT); /* a context twice */
    assert_null(comms[0]);
    assert_int_equal(gp_comm_init_rank(&comms[0], ctx[0], 2, 0, &id, 0), GP_ERROR_UNSUPPORTED);
    assert_int_equal(gp_comm_init_rank(&comms[0], ctx[0], 2, 2, &id, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_init_rank(&comms[0], ctx[0], 2, 0, NULL, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_null(comms[0]);
    if (gp_context_create(&cuda, GP_BACKEND_CUDA, 0) == GP_SUCCESS) {
        gp_context *mixed[2] = {ctx[0], cuda};
        assert_int_equal(gp_comm_init_all(comms, mixed, 2, 0), GP_ERROR_INVALID_ARGUMENT);
        gp_context_destroy(cuda);
    }
    assert_int_equal(gp_comm_init_all(comms, ctx, 2, 0), GP_SUCCESS);
    assert_int_equal(gp_comm_rank(comms[1], &v), GP_SUCCESS);
    assert_int_equal(v, 1);
    assert_int_equal(gp_comm_size(comms[0], &v), GP_SUCCESS);
    assert_int_equal(v, 2);
    assert_int_equal(gp_comm_context(comms[1], &got), GP_SUCCESS);
    assert_ptr_equal(got, ctx[1]);
    assert_int_equal(gp_comm_rank(NULL, &v), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_size(comms[0], NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_set_timeout(comms[0], 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_comm_set_timeout(comms[0], 5000), GP_SUCCESS);
    assert_int_equal(gp_comm_run(comms, 2, NULL, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_reduce(NULL, GP_INT32, GP_OP_SUM, NULL, 0, &v), GP_ERROR_INVALID_ARGUMENT);
    gp_comm_destroy(comms[0]);
    gp_comm_destroy(comms[1]);
    gp_comm_destroy(NULL);
    /* NCCL's id: made where NCCL loads, else a clear status */
    s = gp_comm_id_create(&id);
    assert_true(s == GP_SUCCESS || s == GP_ERROR_NO_NCCL);
    assert_int_equal(gp_comm_id_create(NULL), GP_ERROR_INVALID_ARGUMENT);
    gp_context_destroy(ctx[0]);
    gp_context_destroy(ctx[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(comm_arguments),
        GPT_TEST_BOTH(scan_and_reduce),
        GPT_TEST_BOTH(selections),
        GPT_TEST_BOTH(repeats_float_edges),
        GPT_TEST_BOTH(stencil_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
