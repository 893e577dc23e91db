/* SPDX-License-Identifier: BSD-3-Clause */
/* test_concurrency.c - several contexts on several host threads at once
 * (gpuprim.h: separate contexts may be used from separate threads): 8
 * threads, each with its own gp_context (and, on CUDA, its own non-blocking
 * stream), run a mix of scan / reduce / compact / compact-indices /
 * find-repeats / transpose on their own random data at a few sizes, several
 * rounds over, and every result must equal bit for bit the same computation
 * done beforehand on one thread (the fixture's context, the same backend).
 * Float sums are included on purpose: the header promises that they are the
 * same run to run on one device, which must also hold when other streams
 * compete for the device.
 *
 * Worker threads never call cmocka (its asserts are not thread-safe): each
 * records its first mismatch, and the main thread fails after the join. */
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8

typedef enum { J_SCAN, J_REDUCE, J_COMPACT, J_COMPACT_INDICES, J_REPEATS, J_TRANSPOSE } job_kind;

typedef struct job {
    job_kind kind;
    gp_dtype dtype;
    gp_op op;
    gp_scan_kind scan_kind;
    int in_place;
    gp_flag_type flag_type;
    size_t n, rows, cols, es; /* es: element size (transpose: elem_size) */
    void *in, *flags;         /* host copies of the inputs */
    void *want;               /* expected output bytes (from the single-threaded run) */
    size_t want_bytes, want_count;
} job;

typedef struct result {
    void *bytes;
    size_t nbytes, count;
} result;

static const char *kind_name(job_kind k)
{
    static const char *const names[] = {"scan", "reduce", "compact", "compact_indices", "find_repeats",
                                        "transpose"};
    return names[k];
}

static void describe(const job *j, char *buf, size_t len)
{
    if (j->kind == J_TRANSPOSE)
        snprintf(buf, len, "transpose %zux%zu of %zu-byte elements", j->rows, j->cols, j->es);
    else
        snprintf(buf, len, "%s %s op %d kind %d%s n=%zu", kind_name(j->kind), gpt_dtype_name(j->dtype), (int)j->op,
                 (int)j->scan_kind, j->in_place ? " in place" : "", j->n);
}

/* Run one job on ctx through the public API: upload, run, download. The
 * output bytes (and count) go to *r. Returns the first failing status, with
 * the context's detail in err. Touches no cmocka state (runs on workers). */
static gp_status run_job(gp_context *ctx, const job *j, result *r, char *err, size_t errlen)
{
    size_t in_bytes = j->kind == J_TRANSPOSE ? j->rows * j->cols * j->es : j->n * j->es;
    size_t fs = j->flag_type == GP_INT32_FLAGS ? 4 : 1;
    size_t out_bytes = 0, count = 0;
    void *d_in = NULL, *d_flags = NULL, *d_out = NULL;
    gp_status s = GP_SUCCESS;
    const char *step = "";

    memset(r, 0, sizeof *r);
    switch (j->kind) {
    case J_SCAN: out_bytes = in_bytes; break;
    case J_REDUCE: out_bytes = 0; break;
    case J_COMPACT: out_bytes = in_bytes; break;
    case J_COMPACT_INDICES: out_bytes = j->n * 8; break;
    case J_REPEATS: out_bytes = j->n > 1 ? (j->n - 1) * 8 : 0; break;
    case J_TRANSPOSE: out_bytes = in_bytes; break;
    }
    r->bytes = malloc(out_bytes > 8 ? out_bytes : 8);
    if (!r->bytes) {
        snprintf(err, errlen, "host malloc failed");
        return GP_ERROR_OUT_OF_MEMORY;
    }
#define STEP(name, expr)                                                                             \
    do {                                                                                             \
        step = name;                                                                                 \
        if ((s = (expr)) != GP_SUCCESS) goto out;                                                    \
    } while (0)
    if (j->kind != J_COMPACT_INDICES) {
        STEP("gp_malloc(in)", gp_malloc(ctx, &d_in, in_bytes));
        STEP("gp_upload(in)", gp_upload(ctx, d_in, j->in, in_bytes));
    }
    if (j->kind == J_COMPACT || j->kind == J_COMPACT_INDICES) {
        STEP("gp_malloc(flags)", gp_malloc(ctx, &d_flags, j->n * fs));
        STEP("gp_upload(flags)", gp_upload(ctx, d_flags, j->flags, j->n * fs));
    }
    if (j->kind == J_SCAN && j->in_place) d_out = d_in;
    else if (out_bytes) STEP("gp_malloc(out)", gp_malloc(ctx, &d_out, out_bytes));

    switch (j->kind) {
    case J_SCAN:
        STEP("gp_scan", gp_scan(ctx, j->dtype, j->op, j->scan_kind, d_in, d_out, j->n));
        r->nbytes = out_bytes;
        break;
    case J_REDUCE:
        STEP("gp_reduce", gp_reduce(ctx, j->dtype, j->op, d_in, j->n, r->bytes));
        r->nbytes = j->es;
        break;
    case J_COMPACT:
        STEP("gp_compact", gp_compact(ctx, j->dtype, d_in, d_flags, j->flag_type, d_out, j->n, &count));
        r->nbytes = count * j->es;
        break;
    case J_COMPACT_INDICES:
        STEP("gp_compact_indices",
             gp_compact_indices(ctx, d_flags, j->flag_type, (uint64_t *)d_out, j->n, &count));
        r->nbytes = count * 8;
        break;
    case J_REPEATS:
        STEP("gp_find_repeats", gp_find_repeats(ctx, j->dtype, d_in, j->n, (uint64_t *)d_out, &count));
        r->nbytes = count * 8;
        break;
    case J_TRANSPOSE:
        STEP("gp_transpose", gp_transpose(ctx, j->es, d_in, d_out, j->rows, j->cols));
        r->nbytes = out_bytes;
        break;
    }
    r->count = count;
    if (r->nbytes && j->kind != J_REDUCE) STEP("gp_download(out)", gp_download(ctx, r->bytes, d_out, r->nbytes));
#undef STEP
out:
    if (s != GP_SUCCESS) snprintf(err, errlen, "%s -> %s [%s]", step, gp_status_string(s), gp_context_last_error(ctx));
    if (d_out != d_in) gp_free(ctx, d_out);
    gp_free(ctx, d_in);
    gp_free(ctx, d_flags);
    return s;
}

/* ---- the jobs of one thread ---------------------------------------------------- */

typedef struct spec {
    job_kind kind;
    gp_dtype dtype;
    gp_op op;
    gp_scan_kind scan_kind;
    int in_place;
    gp_flag_type flag_type;
    size_t es; /* transpose only */
} spec;

static const spec specs[] = {
    {J_SCAN, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, 0, 0, 0},
    {J_SCAN, GP_FLOAT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, 0, 0, 0},
    {J_SCAN, GP_FLOAT64, GP_OP_SUM, GP_SCAN_EXCLUSIVE, 1, 0, 0},
    {J_SCAN, GP_UINT64, GP_OP_MAX, GP_SCAN_INCLUSIVE, 0, 0, 0},
    {J_SCAN, GP_INT64, GP_OP_MIN, GP_SCAN_EXCLUSIVE, 1, 0, 0},
    {J_REDUCE, GP_INT64, GP_OP_SUM, 0, 0, 0, 0},
    {J_REDUCE, GP_FLOAT64, GP_OP_SUM, 0, 0, 0, 0},
    {J_REDUCE, GP_FLOAT32, GP_OP_SUM, 0, 0, 0, 0},
    {J_REDUCE, GP_UINT32, GP_OP_MIN, 0, 0, 0, 0},
    {J_COMPACT, GP_UINT32, 0, 0, 0, GP_UINT8_FLAGS, 0},
    {J_COMPACT, GP_FLOAT64, 0, 0, 0, GP_INT32_FLAGS, 0},
    {J_COMPACT_INDICES, 0, 0, 0, 0, GP_UINT8_FLAGS, 0},
    {J_REPEATS, GP_INT32, 0, 0, 0, 0, 0},
    {J_REPEATS, GP_FLOAT32, 0, 0, 0, 0, 0},
    {J_REPEATS, GP_UINT64, 0, 0, 0, 0, 0},
    {J_TRANSPOSE, 0, 0, 0, 0, 0, 4},
    {J_TRANSPOSE, 0, 0, 0, 0, 0, 8},
    {J_TRANSPOSE, 0, 0, 0, 0, 0, 16},
};
#define NSPECS (sizeof specs / sizeof specs[0])
#define NSIZES 3
#define NJOBS (NSPECS * NSIZES)

/* Sizes differ a little from thread to thread, so that no two threads run
 * the same shapes: one element, a few blocks, many tiles. */
static size_t size_of(int thread, int k)
{
    if (k == 0) return 1 + (size_t)thread;
    if (k == 1) return 4097 + 31 * (size_t)thread;
    return (gpt_quick() ? 65537 : 300007) - 1001 * (size_t)thread;
}

/* Random inputs (main thread only: gpt_rand64 is not thread-safe). */
static void make_job(job *j, const spec *sp, size_t n)
{
    size_t i;
    memset(j, 0, sizeof *j);
    j->kind = sp->kind;
    j->dtype = sp->dtype;
    j->op = sp->op;
    j->scan_kind = sp->scan_kind;
    j->in_place = sp->in_place;
    j->flag_type = sp->flag_type;
    j->n = n;
    if (j->kind == J_TRANSPOSE) {
        /* A shape of about n elements, neither side a tile multiple. */
        j->es = sp->es;
        j->rows = n < 64 ? n : 61 + n % 7;
        j->cols = n / j->rows;
        j->in = gpt_malloc(j->rows * j->cols * j->es);
        gpt_fill_random(GP_UINT32, j->in, j->rows * j->cols * j->es / 4, 0);
        return;
    }
    if (j->kind == J_COMPACT_INDICES) j->es = 8;
    else j->es = gp_dtype_size(j->dtype);
    if (j->kind != J_COMPACT_INDICES) {
        j->in = gpt_malloc(n * j->es);
        /* Repeats need a small range; everything else the full one. */
        gpt_fill_random(j->dtype, j->in, n, j->kind == J_REPEATS ? 3 : 0);
    }
    if (j->kind == J_COMPACT || j->kind == J_COMPACT_INDICES) {
        if (j->flag_type == GP_INT32_FLAGS) {
            int32_t *f = gpt_malloc(n * 4);
            for (i = 0; i < n; i++) {
                uint64_t r = gpt_rand64();
                f[i] = (r & 3) ? 0 : (int32_t)(r >> 32) | 1; /* any non-zero value selects */
            }
            j->flags = f;
        } else {
            uint8_t *f = gpt_malloc(n);
            for (i = 0; i < n; i++) f[i] = (gpt_rand64() % 3) == 0 ? (uint8_t)(1 + gpt_rand64() % 255) : 0;
            j->flags = f;
        }
    }
}

typedef struct worker {
    int id, rounds;
    gp_backend backend;
    job *jobs;
    pthread_barrier_t *start;
    int failed;
    char msg[512];
} worker;

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    gp_context *ctx = NULL;
    cudaStream_t stream = NULL;
    char err[300];
    int round;
    size_t k;
    gp_status s = gp_context_create(&ctx, w->backend, 0);
    if (s != GP_SUCCESS) {
        w->failed = 1;
        snprintf(w->msg, sizeof w->msg, "thread %d: gp_context_create -> %s", w->id, gp_status_string(s));
    } else if (w->backend == GP_BACKEND_CUDA) {
        cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            w->failed = 1;
            snprintf(w->msg, sizeof w->msg, "thread %d: cudaStreamCreate -> %s", w->id, cudaGetErrorName(e));
        } else if ((s = gp_context_set_stream(ctx, stream)) != GP_SUCCESS) {
            w->failed = 1;
            snprintf(w->msg, sizeof w->msg, "thread %d: gp_context_set_stream -> %s", w->id, gp_status_string(s));
        }
    }
    /* Everyone starts together (also after a failure, or the others wait forever). */
    pthread_barrier_wait(w->start);
    for (round = 0; round < w->rounds && !w->failed; round++) {
        for (k = 0; k < NJOBS && !w->failed; k++) {
            /* Each thread walks the jobs from its own starting point, so
             * different primitives run side by side. */
            const job *j = &w->jobs[(k + (size_t)w->id * 5 + (size_t)round * 3) % NJOBS];
            result r;
            char what[128];
            describe(j, what, sizeof what);
            s = run_job(ctx, j, &r, err, sizeof err);
            if (s != GP_SUCCESS) {
                w->failed = 1;
                snprintf(w->msg, sizeof w->msg, "thread %d round %d, %s: %s", w->id, round, what, err);
            } else if (r.count != j->want_count || r.nbytes != j->want_bytes ||
                       (r.nbytes && memcmp(r.bytes, j->want, r.nbytes) != 0)) {
                size_t b = 0;
                while (b < r.nbytes && b < j->want_bytes && ((char *)r.bytes)[b] == ((char *)j->want)[b]) b++;
                w->failed = 1;
                snprintf(w->msg, sizeof w->msg,
                         "thread %d round %d, %s: differs from the single-threaded run (count %zu vs %zu, "
                         "%zu vs %zu bytes, first differing byte %zu)",
                         w->id, round, what, r.count, j->want_count, r.nbytes, j->want_bytes, b);
            }
            free(r.bytes);
        }
    }
    if (ctx && (s = gp_context_synchronize(ctx)) != GP_SUCCESS && !w->failed) {
        w->failed = 1;
        snprintf(w->msg, sizeof w->msg, "thread %d: gp_context_synchronize -> %s", w->id, gp_status_string(s));
    }
    gp_context_destroy(ctx); /* waits for the stream's work: then the stream may go */
    if (stream) cudaStreamDestroy(stream);
    return NULL;
}

static void eight_threads_match_one_thread(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_backend backend = GP_BACKEND_CPU;
    pthread_t tid[THREADS];
    pthread_barrier_t start;
    worker w[THREADS];
    job *jobs[THREADS];
    char err[300];
    int t, failures = 0;
    size_t k;
    GPT_OK(ctx, gp_context_get_backend(ctx, &backend));

    /* Inputs, then the expected outputs from one context on this thread. */
    for (t = 0; t < THREADS; t++) {
        jobs[t] = gpt_malloc(NJOBS * sizeof(job));
        for (k = 0; k < NJOBS; k++) {
            job *j = &jobs[t][k];
            result r;
            make_job(j, &specs[k % NSPECS], size_of(t, (int)(k / NSPECS)));
            if (run_job(ctx, j, &r, err, sizeof err) != GP_SUCCESS) fail_msg("single-threaded run: %s", err);
            j->want = r.bytes;
            j->want_bytes = r.nbytes;
            j->want_count = r.count;
        }
    }

    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].id = t;
        w[t].rounds = gpt_quick() ? 2 : 4;
        w[t].backend = backend;
        w[t].jobs = jobs[t];
        w[t].start = &start;
        assert_int_equal(pthread_create(&tid[t], NULL, work, &w[t]), 0);
    }
    for (t = 0; t < THREADS; t++) pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&start);

    for (t = 0; t < THREADS; t++) {
        if (w[t].failed) {
            print_error("%s\n", w[t].msg);
            failures++;
        }
        for (k = 0; k < NJOBS; k++) {
            free(jobs[t][k].in);
            free(jobs[t][k].flags);
            free(jobs[t][k].want);
        }
        free(jobs[t]);
    }
    if (failures) fail_msg("%d of %d threads met a failure or a result different from one thread's", failures,
                           THREADS);
    print_message("%s: %d threads x %d rounds x %zu jobs matched the single-threaded results\n",
                  gpt_backend_name(ctx), THREADS, gpt_quick() ? 2 : 4, (size_t)NJOBS);
}

/* Contexts created and destroyed on many threads at once, each running a
 * small scan in between: creation, destruction and the first call of a
 * context are where shared state (device selection, lazy initialisation)
 * would show up. */
typedef struct churn {
    gp_backend backend;
    int failed;
    char msg[256];
} churn;

static void *churn_work(void *arg)
{
    churn *c = (churn *)arg;
    int it;
    for (it = 0; it < 25 && !c->failed; it++) {
        gp_context *ctx = NULL;
        int32_t host[100], back[100];
        void *d = NULL;
        gp_status s;
        int i;
        for (i = 0; i < 100; i++) host[i] = i + it;
        if ((s = gp_context_create(&ctx, c->backend, 0)) == GP_SUCCESS && (s = gp_malloc(ctx, &d, sizeof host)) == GP_SUCCESS &&
            (s = gp_upload(ctx, d, host, sizeof host)) == GP_SUCCESS &&
            (s = gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d, d, 100)) == GP_SUCCESS &&
            (s = gp_download(ctx, back, d, sizeof back)) == GP_SUCCESS) {
            int32_t sum = 0;
            for (i = 0; i < 100; i++) {
                sum += host[i];
                if (back[i] != sum) {
                    c->failed = 1;
                    snprintf(c->msg, sizeof c->msg, "iteration %d: element %d is %d, want %d", it, i, back[i], sum);
                    break;
                }
            }
        } else {
            c->failed = 1;
            snprintf(c->msg, sizeof c->msg, "iteration %d: %s [%s]", it, gp_status_string(s),
                     gp_context_last_error(ctx));
        }
        if (ctx) gp_free(ctx, d);
        gp_context_destroy(ctx);
    }
    return NULL;
}

static void contexts_come_and_go_on_many_threads(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_backend backend = GP_BACKEND_CPU;
    pthread_t tid[THREADS];
    churn c[THREADS];
    int t;
    GPT_OK(ctx, gp_context_get_backend(ctx, &backend));
    for (t = 0; t < THREADS; t++) {
        memset(&c[t], 0, sizeof c[t]);
        c[t].backend = backend;
        assert_int_equal(pthread_create(&tid[t], NULL, churn_work, &c[t]), 0);
    }
    for (t = 0; t < THREADS; t++) pthread_join(tid[t], NULL);
    for (t = 0; t < THREADS; t++)
        if (c[t].failed) fail_msg("thread %d: %s", t, c[t].msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(eight_threads_match_one_thread),
        GPT_TEST_BOTH(contexts_come_and_go_on_many_threads),
    };
    return cmocka_run_group_tests_name("concurrency", tests, NULL, NULL);
}
