/* test_dist.c - the distributed primitives (gpuprim/dist.h) against the CPU
 * reference run on the whole array, with all ranks in this process: CPU
 * ranks (the host-memory transport) at 1, 2, 3, 4 and 8 ranks on every
 * machine, CUDA ranks (NCCL) at 1 and every GPU of the machine. Shards are
 * split evenly, at random, all in one rank, and with empty first and last
 * ranks; outputs are poisoned first. Also: argument checks that fail every
 * rank without touching outputs, disagreeing arguments, a rank that never
 * joins (timeout, then an aborted communicator), and the renderer's bands. */
#include "test_util.h"
#include "test_values.h"

#include "internal.h" /* the CPU reference: gpi_cpu_* */

#include <gpuprim/dist.h>
#include <gpuprim/render.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RANKS 8

typedef struct world {
    int n;
    gp_backend backend;
    gp_context *ctx[MAX_RANKS];
    gp_comm *comm[MAX_RANKS];
} world;

/* The rank counts a backend is tested with. */
static int rank_counts(gp_backend b, int *counts)
{
    int ndev = 0, k = 0;
    if (b == GP_BACKEND_CPU) {
        static const int cpu[] = {1, 2, 3, 4, 8};
        memcpy(counts, cpu, sizeof cpu);
        return 5;
    }
    gp_cuda_device_count(&ndev);
    if (ndev > MAX_RANKS) ndev = MAX_RANKS;
    counts[k++] = 1;
    if (ndev > 1) counts[k++] = ndev;
    return k;
}

static void make_world(world *w, gp_backend b, int n, int timeout_ms)
{
    int r;
    gp_status s;
    memset(w, 0, sizeof *w);
    w->n = n;
    w->backend = b;
    for (r = 0; r < n; r++) {
        s = gp_context_create(&w->ctx[r], b, b == GP_BACKEND_CUDA ? r : 0);
        if (s) fail_msg("gp_context_create (rank %d): %s", r, gp_status_string(s));
    }
    s = gp_comm_init_all(w->comm, w->ctx, n, timeout_ms);
    if (s) fail_msg("gp_comm_init_all (%d ranks): %s [%s]", n, gp_status_string(s), gp_context_last_error(w->ctx[0]));
}

static void free_world(world *w)
{
    int r;
    for (r = 0; r < w->n; r++) gp_comm_destroy(w->comm[r]);
    for (r = 0; r < w->n; r++) gp_context_destroy(w->ctx[r]);
}

static gp_backend backend_of(gp_context *ctx)
{
    gp_backend b;
    gp_context_get_backend(ctx, &b);
    return b;
}

/* Split `total` into n shard sizes: 0 even, 1 random, 2 all on the last
 * rank, 3 empty first and last ranks (when n > 2). */
static void split(size_t total, int n, int pattern, size_t *sizes)
{
    int r, lo = 0, hi = n;
    size_t left = total;
    memset(sizes, 0, (size_t)n * sizeof *sizes);
    if (pattern == 2) {
        sizes[n - 1] = total;
        return;
    }
    if (pattern == 3 && n > 2) lo = 1, hi = n - 1;
    for (r = lo; r < hi; r++) {
        size_t take = r == hi - 1 ? left : pattern == 1 ? (size_t)(gpt_uniform() * (double)(left + 1)) : total / (size_t)(hi - lo);
        if (take > left) take = left;
        sizes[r] = take;
        left -= take;
    }
}

/* ---- a job: every rank's buffers and statuses -------------------------------- */
typedef struct job {
    world *w;
    gp_dtype dtype;
    gp_op op;
    gp_scan_kind kind;
    gp_flag_type flag_type;
    gp_boundary boundary;
    size_t cols;
    void *in[MAX_RANKS], *out[MAX_RANKS], *flags[MAX_RANKS];
    size_t n[MAX_RANKS];
    unsigned char result[MAX_RANKS][8];
    gp_dist_count count[MAX_RANKS];
    gp_status st[MAX_RANKS];
    int skip_rank; /* a rank that does not call (timeout test), or -1 */
} job;

static int rank_of(gp_comm *c)
{
    int r = -1;
    gp_comm_rank(c, &r);
    return r;
}

/* Upload each rank's shard of host array `all` (elements of es bytes). */
static void scatter(job *j, void **bufs, const void *all, size_t es)
{
    size_t off = 0;
    int r;
    for (r = 0; r < j->w->n; r++) {
        bufs[r] = j->n[r] ? gpt_buffer_from(j->w->ctx[r], (const char *)all + off * es, j->n[r] * es) : NULL;
        off += j->n[r];
    }
}

static void poisoned(job *j, void **bufs, size_t es, size_t extra)
{
    int r;
    for (r = 0; r < j->w->n; r++)
        bufs[r] = j->n[r] + extra ? gpt_poisoned_buffer(j->w->ctx[r], (j->n[r] + extra) * es) : NULL;
}

static void free_bufs(job *j, void **bufs)
{
    int r;
    for (r = 0; r < j->w->n; r++) gpt_buffer_free(j->w->ctx[r], bufs[r]);
}

/* Download every rank's first n[r] units (of unit bytes) of bufs into
 * `all`, in rank order. */
static void gather(job *j, void **bufs, void *all, size_t unit)
{
    size_t off = 0;
    int r;
    for (r = 0; r < j->w->n; r++) {
        if (j->n[r]) gpt_buffer_to(j->w->ctx[r], (char *)all + off * unit, bufs[r], j->n[r] * unit);
        off += j->n[r];
    }
}

static void run(job *j, gp_comm_fn fn)
{
    gp_status s = gp_comm_run(j->w->comm, j->w->n, fn, j);
    int r;
    for (r = 0; r < j->w->n; r++)
        if (j->st[r]) fail_msg("rank %d of %d: %s [%s]", r, j->w->n, gp_status_string(j->st[r]),
                               gp_context_last_error(j->w->ctx[r]));
    assert_int_equal(s, GP_SUCCESS);
}

/* ---- scan and reduce -------------------------------------------------------------- */
static gp_status scan_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_scan(c, j->dtype, j->op, j->kind, j->in[r], j->out[r], j->n[r]);
}

static gp_status reduce_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_reduce(c, j->dtype, j->op, j->in[r], j->n[r], j->result[r]);
}

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
static gp_status compact_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_compact(c, j->dtype, j->in[r], j->flags[r], j->flag_type, j->out[r], j->n[r],
                                      &j->count[r]);
}

static gp_status compact_indices_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_compact_indices(c, j->flags[r], j->flag_type, (uint64_t *)j->out[r], j->n[r],
                                              &j->count[r]);
}

static gp_status repeats_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_find_repeats(c, j->dtype, j->in[r], j->n[r], (uint64_t *)j->out[r], &j->count[r]);
}

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
static gp_status stencil_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    static const gp_stencil5 w5 = {-3.5, 1.25, 0.75, 1.5, 0.5};
    return j->st[r] = gp_dist_stencil_2d(c, j->dtype, &w5, j->boundary, j->in[r], j->out[r], j->n[r], j->cols);
}

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

/* ---- the renderer's bands -------------------------------------------------------------- */
typedef struct render_job {
    world *w;
    const gp_scene *scene;
    int width, height;
    unsigned char *rgb;
    gp_status st[MAX_RANKS];
} render_job;

static gp_status render_rank(gp_comm *c, void *p)
{
    render_job *j = (render_job *)p;
    int r = rank_of(c);
    gp_dist_renderer *dr = NULL;
    gp_status s = gp_dist_renderer_create(&dr, c, j->width, j->height);
    if (!s) s = gp_dist_renderer_set_scene(dr, j->scene);
    if (!s) s = gp_dist_renderer_render(dr);
    if (r == 0 && !s) {
        void *buf = NULL;
        const size_t bytes = (size_t)j->width * (size_t)j->height * 3;
        gp_context *ctx;
        gp_comm_context(c, &ctx);
        s = gp_malloc(ctx, &buf, bytes);
        if (!s) s = gp_upload(ctx, buf, j->rgb, bytes); /* poisoned */
        if (!s) s = gp_dist_renderer_gather(dr, 0, buf);
        if (!s) s = gp_download(ctx, j->rgb, buf, bytes);
        gp_free(ctx, buf);
    } else if (!s) {
        s = gp_dist_renderer_gather(dr, 0, NULL);
    }
    gp_dist_renderer_destroy(dr);
    return j->st[r] = s;
}

static void renderer_bands(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const char *scenes[] = {"rgb", "rand10k", "pattern", "snow", "biglittle"};
    static const int sizes[][2] = {{64, 20}, {100, 77}, {256, 256}};
    int counts[8], nc = rank_counts(b, counts), ci, si, zi;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (si = 0; si < (int)COUNT(scenes); si++)
            for (zi = 0; zi < (int)COUNT(sizes); zi++) {
                render_job j;
                gp_scene *scene = NULL;
                const int W = sizes[zi][0], H = sizes[zi][1];
                float *ref = gpt_malloc((size_t)W * H * 16);
                unsigned char *want = gpt_malloc((size_t)W * H * 3);
                int r;
                memset(&j, 0, sizeof j);
                assert_int_equal(gp_scene_create(&scene, scenes[si], 0), GP_SUCCESS);
                j.w = &w;
                j.scene = scene;
                j.width = W;
                j.height = H;
                j.rgb = gpt_malloc((size_t)W * H * 3);
                gpt_poison(j.rgb, (size_t)W * H * 3);
                if (gp_comm_run(w.comm, w.n, render_rank, &j) != GP_SUCCESS)
                    for (r = 0; r < w.n; r++)
                        if (j.st[r]) fail_msg("rank %d: %s [%s]", r, gp_status_string(j.st[r]), gp_context_last_error(w.ctx[r]));
                assert_int_equal(gp_render_reference(scene, W, H, ref), GP_SUCCESS);
                assert_int_equal(gp_image_to_rgb8(ref, W, H, want), GP_SUCCESS);
                if (memcmp(want, j.rgb, (size_t)W * H * 3) != 0)
                    fail_msg("%s %dx%d on %d ranks differs from the reference", scenes[si], W, H, w.n);
                gp_scene_destroy(scene);
                free(ref);
                free(want);
                free(j.rgb);
            }
        free_world(&w);
    }
}

static gp_status bad_root_rank(gp_comm *c, void *p)
{
    render_job *j = (render_job *)p;
    int r = rank_of(c);
    gp_dist_renderer *dr = NULL;
    gp_status s = gp_dist_renderer_create(&dr, c, j->width, j->height);
    if (!s) s = gp_dist_renderer_set_scene(dr, j->scene);
    if (!s) s = gp_dist_renderer_render(dr);
    if (!s) s = gp_dist_renderer_gather(dr, 5, NULL); /* no rank 5 */
    gp_dist_renderer_destroy(dr);
    return j->st[r] = s;
}

static void renderer_bad_arguments(void **state)
{
    world w;
    render_job j;
    gp_scene *scene = NULL;
    gp_dist_renderer *dr = (gp_dist_renderer *)&j;
    int a, b, r;
    (void)state;
    make_world(&w, GP_BACKEND_CPU, 2, 0);
    assert_int_equal(gp_scene_create(&scene, "rgb", 0), GP_SUCCESS);
    assert_int_equal(gp_dist_renderer_create(NULL, w.comm[0], 8, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_create(&dr, NULL, 8, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_create(&dr, w.comm[0], 0, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(dr, (gp_dist_renderer *)&j); /* untouched */
    assert_int_equal(gp_dist_renderer_band(NULL, &a, &b), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_render(NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_gather(NULL, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    /* bands: 20 rows = 2 tile rows over 2 ranks */
    assert_int_equal(gp_dist_renderer_create(&dr, w.comm[1], 8, 20), GP_SUCCESS);
    assert_int_equal(gp_dist_renderer_band(dr, &a, &b), GP_SUCCESS);
    assert_int_equal(a, 16);
    assert_int_equal(b, 20);
    gp_dist_renderer_destroy(dr);
    /* a root that does not exist fails every rank */
    memset(&j, 0, sizeof j);
    j.w = &w;
    j.scene = scene;
    j.width = 32;
    j.height = 32;
    assert_int_not_equal(gp_comm_run(w.comm, w.n, bad_root_rank, &j), GP_SUCCESS);
    for (r = 0; r < w.n; r++) assert_int_equal(j.st[r], GP_ERROR_INVALID_ARGUMENT);
    gp_scene_destroy(scene);
    free_world(&w);
}

/* gp_image_to_rgb8 + gp_image_write_rgb8 write the very bytes gp_image_write does. */
static void rgb8_images(void **state)
{
    const int W = 37, H = 23;
    float *rgba = gpt_malloc((size_t)W * H * 16);
    unsigned char *rgb = gpt_malloc((size_t)W * H * 3);
    char dir[] = "/tmp/gp_rgb8_XXXXXX", a[64], b[64];
    size_t i;
    int k;
    (void)state;
    for (i = 0; i < (size_t)W * H * 4; i++) rgba[i] = (float)(gpt_uniform() * 1.4 - .2); /* some out of [0, 1] */
    rgba[0] = NAN;
    assert_int_equal(gp_image_to_rgb8(NULL, W, H, rgb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, W, H, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, 0, H, rgb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write_rgb8(NULL, rgb, W, H), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write_rgb8("x.bmp", rgb, W, H), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, W, H, rgb), GP_SUCCESS);
    assert_int_equal(rgb[0], 0); /* NaN */
    assert_non_null(mkdtemp(dir));
    for (k = 0; k < 2; k++) {
        const char *ext = k ? "png" : "ppm";
        FILE *fa, *fb;
        int ca, cb;
        snprintf(a, sizeof a, "%s/a.%s", dir, ext);
        snprintf(b, sizeof b, "%s/b.%s", dir, ext);
        assert_int_equal(gp_image_write(a, rgba, W, H), GP_SUCCESS);
        assert_int_equal(gp_image_write_rgb8(b, rgb, W, H), GP_SUCCESS);
        fa = fopen(a, "rb");
        fb = fopen(b, "rb");
        assert_non_null(fa);
        assert_non_null(fb);
        do {
            ca = fgetc(fa);
            cb = fgetc(fb);
            assert_int_equal(ca, cb);
        } while (ca != EOF);
        fclose(fa);
        fclose(fb);
        remove(a);
        remove(b);
    }
    rmdir(dir);
    free(rgba);
    free(rgb);
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

static gp_status mixed_dtype_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_reduce(c, r == 0 ? GP_INT64 : GP_INT32, GP_OP_SUM, j->in[r], j->n[r], j->result[r]);
}

static void ranks_disagree(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    int counts[8], nc = rank_counts(b, counts), ci, r;
    for (ci = 0; ci < nc; ci++) {
        world w;
        job j;
        int64_t vals[16] = {0};
        if (counts[ci] < 2) continue;
        make_world(&w, b, counts[ci], 0);
        memset(&j, 0, sizeof j);
        j.w = &w;
        for (r = 0; r < w.n; r++) j.n[r] = 1;
        scatter(&j, j.in, vals, 8);
        assert_int_not_equal(gp_comm_run(w.comm, w.n, mixed_dtype_rank, &j), GP_SUCCESS);
        for (r = 0; r < w.n; r++) assert_int_equal(j.st[r], GP_ERROR_INVALID_ARGUMENT);
        free_bufs(&j, j.in);
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
    int counts[8], nc = rank_counts(b, counts), ci, r, v;
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
        /* the first waiter to give up says TIMEOUT, the others see it broken */
        for (r = 0, v = 0; r < w.n - 1; r++) {
            assert_true(j.st[r] == GP_ERROR_TIMEOUT || j.st[r] == GP_ERROR_COMM);
            v += j.st[r] == GP_ERROR_TIMEOUT;
        }
        assert_true(v >= 1);
        /* aborted: later calls fail at once */
        assert_int_equal(gp_dist_reduce(w.comm[0], GP_INT32, GP_OP_SUM, j.in[0], 1, j.result[0]), GP_ERROR_COMM);
        free_bufs(&j, j.in);
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
        cmocka_unit_test(rgb8_images),
        cmocka_unit_test(renderer_bad_arguments),
        GPT_TEST_BOTH(scan_and_reduce),
        GPT_TEST_BOTH(selections),
        GPT_TEST_BOTH(repeats_float_edges),
        GPT_TEST_BOTH(stencil_rows),
        GPT_TEST_BOTH(renderer_bands),
        GPT_TEST_BOTH(bad_argument_on_one_rank),
        GPT_TEST_BOTH(ranks_disagree),
        GPT_TEST_BOTH(a_missing_rank_times_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
