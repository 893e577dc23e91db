/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_world.h - what the distributed tests share: a world of ranks in this
 * process (contexts + communicators), a job (every rank's buffers,
 * arguments and statuses), shard splits, upload/download by rank, and one
 * wrapper a call for gp_comm_run. Header-only (static inline), so each test
 * program stays one file. */
#ifndef GPT_DIST_WORLD_H
#define GPT_DIST_WORLD_H

#include "test_util.h"
#include "test_values.h"

#include <gpuprim/dist.h>

#include <string.h>

#define MAX_RANKS 8

typedef struct world {
    int n;
    gp_backend backend;
    gp_context *ctx[MAX_RANKS];
    gp_comm *comm[MAX_RANKS];
} world;

/* The rank counts a backend is tested with (counts has room for
 * MAX_RANKS): CPU 1, 2, 3, 4 and 8; CUDA every count from 1 to the GPUs
 * found (one rank a GPU, at most MAX_RANKS), so 1, 2, 3 and 4 on four. */
static inline int rank_counts(gp_backend b, int *counts)
{
    int ndev = 0, k;
    if (b == GP_BACKEND_CPU) {
        static const int cpu[] = {1, 2, 3, 4, 8};
        memcpy(counts, cpu, sizeof cpu);
        return 5;
    }
    gp_cuda_device_count(&ndev);
    if (ndev > MAX_RANKS) ndev = MAX_RANKS;
    if (ndev < 1) ndev = 1;
    for (k = 0; k < ndev; k++) counts[k] = k + 1;
    return ndev;
}

static inline void make_world(world *w, gp_backend b, int n, int timeout_ms)
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

static inline void free_world(world *w)
{
    int r;
    for (r = 0; r < w->n; r++) gp_comm_destroy(w->comm[r]);
    for (r = 0; r < w->n; r++) gp_context_destroy(w->ctx[r]);
}

static inline gp_backend backend_of(gp_context *ctx)
{
    gp_backend b;
    gp_context_get_backend(ctx, &b);
    return b;
}

/* Split `total` into n shard sizes: 0 even, 1 random, 2 all on the last
 * rank, 3 empty first and last ranks (when n > 2). */
static inline void split(size_t total, int n, int pattern, size_t *sizes)
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

/* After a run in which the last of n ranks never called: the first rank to
 * give up says GP_ERROR_TIMEOUT, the others GP_ERROR_TIMEOUT or (seeing
 * the communicator broken) GP_ERROR_COMM. */
static inline void expect_timed_out(const gp_status *st, int n)
{
    int r, timeouts = 0;
    for (r = 0; r < n - 1; r++) {
        assert_true(st[r] == GP_ERROR_TIMEOUT || st[r] == GP_ERROR_COMM);
        timeouts += st[r] == GP_ERROR_TIMEOUT;
    }
    assert_true(timeouts >= 1);
}

/* The detail message a failed call left on ctx names `part`. */
static inline void expect_detail(gp_context *ctx, const char *part)
{
    const char *d = gp_context_last_error(ctx);
    if (!strstr(d, part)) fail_msg("detail: %s (wanted \"%s\" in it)", d, part);
}

static inline int rank_of(gp_comm *c)
{
    int r = -1;
    gp_comm_rank(c, &r);
    return r;
}

/* Upload each rank's shard of host array `all` (elements of es bytes). */
static inline void scatter(job *j, void **bufs, const void *all, size_t es)
{
    size_t off = 0;
    int r;
    for (r = 0; r < j->w->n; r++) {
        bufs[r] = j->n[r] ? gpt_buffer_from(j->w->ctx[r], (const char *)all + off * es, j->n[r] * es) : NULL;
        off += j->n[r];
    }
}

static inline void poisoned(job *j, void **bufs, size_t es, size_t extra)
{
    int r;
    for (r = 0; r < j->w->n; r++)
        bufs[r] = j->n[r] + extra ? gpt_poisoned_buffer(j->w->ctx[r], (j->n[r] + extra) * es) : NULL;
}

static inline void free_bufs(job *j, void **bufs)
{
    int r;
    for (r = 0; r < j->w->n; r++) gpt_buffer_free(j->w->ctx[r], bufs[r]);
}

/* Download every rank's first n[r] units (of unit bytes) of bufs into
 * `all`, in rank order. */
static inline void gather(job *j, void **bufs, void *all, size_t unit)
{
    size_t off = 0;
    int r;
    for (r = 0; r < j->w->n; r++) {
        if (j->n[r]) gpt_buffer_to(j->w->ctx[r], (char *)all + off * unit, bufs[r], j->n[r] * unit);
        off += j->n[r];
    }
}

static inline void run(job *j, gp_comm_fn fn)
{
    gp_status s = gp_comm_run(j->w->comm, j->w->n, fn, j);
    int r;
    for (r = 0; r < j->w->n; r++)
        if (j->st[r]) fail_msg("rank %d of %d: %s [%s]", r, j->w->n, gp_status_string(j->st[r]),
                               gp_context_last_error(j->w->ctx[r]));
    assert_int_equal(s, GP_SUCCESS);
}

/* ---- one call on every rank: job fields in, j->st[r] out ----------------------- */
static inline gp_status scan_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_scan(c, j->dtype, j->op, j->kind, j->in[r], j->out[r], j->n[r]);
}

static inline gp_status reduce_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_reduce(c, j->dtype, j->op, j->in[r], j->n[r], j->result[r]);
}

static inline gp_status compact_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_compact(c, j->dtype, j->in[r], j->flags[r], j->flag_type, j->out[r], j->n[r],
                                      &j->count[r]);
}

static inline gp_status compact_indices_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_compact_indices(c, j->flags[r], j->flag_type, (uint64_t *)j->out[r], j->n[r],
                                              &j->count[r]);
}

static inline gp_status repeats_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    return j->st[r] = gp_dist_find_repeats(c, j->dtype, j->in[r], j->n[r], (uint64_t *)j->out[r], &j->count[r]);
}

static inline gp_status stencil_rank(gp_comm *c, void *p)
{
    job *j = (job *)p;
    int r = rank_of(c);
    static const gp_stencil5 w5 = {-3.5, 1.25, 0.75, 1.5, 0.5};
    return j->st[r] = gp_dist_stencil_2d(c, j->dtype, &w5, j->boundary, j->in[r], j->out[r], j->n[r], j->cols);
}

#endif
