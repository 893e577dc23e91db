/* SPDX-License-Identifier: BSD-3-Clause */
/* large_fixture.h - what the past-2^31 suites (test_large,
 * test_large_families, test_large_moves) share: tracked device and host
 * buffers and a second context (freed by the teardown even when a check
 * fails), the context of a large case (a skip, saying why, without
 * GP_TEST_LARGE=1 or without enough device memory), inputs made in chunks
 * on the host, periodic inputs and poison spread on the device by copies of
 * one uploaded chunk, and chunked downloads for the checks. Host memory
 * stays at a few chunks (a few hundred MB).
 *
 * GP_TEST_LARGE_N=n runs the cases at another size (the 2^31 boundary then
 * becomes n / 2); GP_TEST_LARGE_BACKEND=cpu runs them on the CPU backend,
 * to try the checks on a machine without a GPU, e.g.
 *     GP_TEST_LARGE=1 GP_TEST_LARGE_BACKEND=cpu GP_TEST_LARGE_N=16777233 test_large_families */
#ifndef GPUPRIM_TESTS_LARGE_FIXTURE_H
#define GPUPRIM_TESTS_LARGE_FIXTURE_H

#include "test_util.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK ((size_t)1 << 25) /* elements per generated/checked chunk; every period divides it */
#define B31 ((size_t)1 << 31)
#define B32 ((size_t)1 << 32)
#define NBUF 10
#define NHOST 6

static gp_context *own_ctx;    /* the CPU context of GP_TEST_LARGE_BACKEND=cpu */
static gp_context *second_ctx; /* a further context a case makes (destroyed by the teardown) */
static gp_context *buf_ctx;    /* the context the tracked buffers belong to */
static void *bufs[NBUF];
static void *host_bufs[NHOST];
static double case_t0;
static double mark_t; /* end of the last timed call or check: what the next check's time counts from */

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *dev_alloc(gp_context *ctx, size_t bytes)
{
    void *p = NULL;
    int k;
    gp_status s = gp_malloc(ctx, &p, bytes);
    if (s != GP_SUCCESS)
        fail_msg("gp_malloc of %.2f GB: %s [%s]", (double)bytes / 1e9, gp_status_string(s), gp_context_last_error(ctx));
    buf_ctx = ctx;
    for (k = 0; k < NBUF; k++)
        if (!bufs[k]) return bufs[k] = p;
    fail_msg("too many buffers");
    return NULL;
}

static inline void dev_release(void *p)
{
    int k;
    for (k = 0; k < NBUF; k++)
        if (bufs[k] == p && p) {
            GPT_OK(buf_ctx, gp_free(buf_ctx, p));
            bufs[k] = NULL;
        }
}

static void *host_alloc(size_t bytes)
{
    int k;
    for (k = 0; k < NHOST; k++)
        if (!host_bufs[k]) return host_bufs[k] = gpt_malloc(bytes);
    fail_msg("too many host buffers");
    return NULL;
}

static int large_teardown(void **state)
{
    int k;
    if (case_t0 > 0) print_message("  case time: %.1f s\n", now_s() - case_t0);
    case_t0 = 0;
    for (k = 0; k < NBUF; k++) {
        if (bufs[k]) gp_free(buf_ctx, bufs[k]);
        bufs[k] = NULL;
    }
    for (k = 0; k < NHOST; k++) {
        free(host_bufs[k]);
        host_bufs[k] = NULL;
    }
    gp_context_destroy(second_ctx);
    second_ctx = NULL;
    gp_context_destroy(own_ctx);
    own_ctx = NULL;
    buf_ctx = NULL;
    return gpt_teardown_context(state);
}

#define GPT_TEST_LARGE(f) { #f " [cuda-large]", f, gpt_setup_context, large_teardown, &gpt_cuda }

/* n of the large cases: 2^31 + 17 unless GP_TEST_LARGE_N says otherwise,
 * which must lie in [lo, hi]. */
static inline size_t large_n_within(size_t lo, size_t hi)
{
    const char *v = getenv("GP_TEST_LARGE_N");
    if (v && *v) {
        unsigned long long n = strtoull(v, NULL, 0);
        if (n < lo || n > hi) fail_msg("GP_TEST_LARGE_N=%s: want %zu <= n <= %zu", v, lo, hi);
        return (size_t)n;
    }
    return B31 + 17;
}

/* The same for cases that put the element index in uint32 values: n stays
 * below 2^32 - 2^26 (some take a little more than n elements), and at
 * least 2^20. */
static inline size_t large_n(void) { return large_n_within((size_t)1 << 20, B32 - ((size_t)1 << 26)); }

/* Where the 2^31 boundary is (the middle, for a smaller GP_TEST_LARGE_N). */
static size_t boundary(size_t n) { return n > B31 + 2 ? B31 : n / 2; }

/* The context of a large case, or a skip: without GP_TEST_LARGE=1, without
 * a GPU (gpt_ctx skips, or fails under GP_TEST_REQUIRE_GPU=1), or with less
 * free device memory than `device_bytes` + 1 GB (the case's buffers and the
 * workspace its calls take); with fail_short, too little memory fails the
 * case instead. Nothing large is allocated before this. */
static gp_context *large_ctx_with(void **state, const char *what, size_t device_bytes, int fail_short)
{
    gp_context *ctx;
    if (!env_on("GP_TEST_LARGE")) {
        print_message("SKIPPED (GP_TEST_LARGE is not set): %s needs %.1f GB of GPU memory and runs only with "
                      "GP_TEST_LARGE=1 (run this program on its own)\n", what, (double)device_bytes / 1e9);
        skip();
    }
    if (getenv("GP_TEST_LARGE_BACKEND") && !strcmp(getenv("GP_TEST_LARGE_BACKEND"), "cpu")) {
        GPT_OK(NULL, gp_context_create(&own_ctx, GP_BACKEND_CPU, 0));
        ctx = own_ctx;
    } else {
        size_t free_b = 0, total_b = 0;
        cudaError_t e;
        ctx = gpt_ctx(state);
        e = cudaMemGetInfo(&free_b, &total_b);
        if (e != cudaSuccess) fail_msg("cudaMemGetInfo: %s", cudaGetErrorName(e));
        if (free_b < device_bytes + ((size_t)1 << 30)) {
            if (fail_short)
                fail_msg("%s needs %.1f GB of device memory (+1 GB of slack); %.1f GB of %.1f GB are free", what,
                         (double)device_bytes / 1e9, (double)free_b / 1e9, (double)total_b / 1e9);
            print_message("SKIPPED (not enough device memory): %s needs %.1f GB (+1 GB of slack); %.1f GB of "
                          "%.1f GB are free\n", what, (double)device_bytes / 1e9, (double)free_b / 1e9,
                          (double)total_b / 1e9);
            skip();
        }
    }
    print_message("%s on %s, %.1f GB of device memory\n", what, gpt_backend_name(ctx), (double)device_bytes / 1e9);
    case_t0 = now_s();
    return ctx;
}

/* A large case that skips on a device with too little free memory. */
static inline gp_context *large_ctx(void **state, const char *what, size_t device_bytes)
{
    return large_ctx_with(state, what, device_bytes, 0);
}

/* A large case that fails on a device with too little free memory (test_large: a GPU it runs on must fit it). */
static inline gp_context *large_ctx_or_fail(void **state, const char *what, size_t device_bytes)
{
    return large_ctx_with(state, what, device_bytes, 1);
}

/* ---- inputs ------------------------------------------------------------------ */

/* Writes elements [first, first + count) of an input into chunk. */
typedef void gen_fn(void *chunk, size_t first, size_t count, const void *arg);

/* A device buffer of n elements of es bytes, generated on the host and
 * uploaded chunk by chunk. */
static void *make_input(gp_context *ctx, gen_fn *gen, const void *arg, size_t n, size_t es, void *chunk)
{
    char *d = (char *)dev_alloc(ctx, n * es);
    size_t off;
    double t0 = now_s();
    for (off = 0; off < n; off += CHUNK) {
        size_t count = n - off < CHUNK ? n - off : CHUNK;
        gen(chunk, off, count, arg);
        GPT_OK(ctx, gp_upload(ctx, d + off * es, chunk, count * es));
    }
    print_message("  input: %zu elements of %zu bytes made in %.1f s\n", n, es, now_s() - t0);
    return d;
}

/* Fills d (n elements of es bytes) with an input whose period divides
 * CHUNK: one chunk generated and uploaded, the rest device copies of it. */
static void fill_periodic(gp_context *ctx, void *d, gen_fn *gen, const void *arg, size_t n, size_t es, void *chunk)
{
    size_t first = n < CHUNK ? n : CHUNK, off;
    gen(chunk, 0, first, arg);
    GPT_OK(ctx, gp_upload(ctx, d, chunk, first * es));
    for (off = CHUNK; off < n; off += CHUNK) {
        size_t count = n - off < CHUNK ? n - off : CHUNK;
        GPT_OK(ctx, gp_copy(ctx, (char *)d + off * es, d, count * es));
    }
}

static void gen_poison(void *chunk, size_t first, size_t count, const void *arg)
{
    (void)first;
    (void)arg;
    gpt_poison(chunk, count);
}

/* Every byte of a device buffer GPT_POISON (chunk: CHUNK bytes of host). */
static inline void dev_poison(gp_context *ctx, void *d, size_t bytes, void *chunk)
{
    fill_periodic(ctx, d, gen_poison, NULL, bytes, 1, chunk);
}

#define POISON32 0xA5A5A5A5u
#define POISON64 0xA5A5A5A5A5A5A5A5ull

static inline void gen_iota32(void *chunk, size_t first, size_t count, const void *arg)
{
    uint32_t *c = (uint32_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = (uint32_t)(first + k);
}

/* Downloads elements [first, first + count) of a device array of es-byte
 * elements into host; returns host. */
static inline void *fetch(gp_context *ctx, void *host, const void *d, size_t es, size_t first, size_t count)
{
    GPT_OK(ctx, gp_download(ctx, host, (const char *)d + first * es, count * es));
    return host;
}

/* Reads a device array of `total` elements of es bytes through a host
 * chunk (room for CHUNK elements), one element at a time: one download a
 * chunk when read front to back. */
typedef struct reader {
    gp_context *ctx;
    const char *d;
    size_t total, es, base, have;
    char *chunk;
} reader;

static inline reader reader_of(gp_context *ctx, const void *d, size_t total, size_t es, void *chunk)
{
    return (reader){ctx, (const char *)d, total, es, 0, 0, (char *)chunk};
}

static inline const void *read_at(reader *r, size_t k)
{
    if (k < r->base || k >= r->base + r->have) {
        r->base = k;
        r->have = r->total - k < CHUNK ? r->total - k : CHUNK;
        GPT_OK(r->ctx, gp_download(r->ctx, r->chunk, r->d + k * r->es, r->have * r->es));
    }
    return r->chunk + (k - r->base) * r->es;
}

static inline uint32_t read_u32(reader *r, size_t k) { return *(const uint32_t *)read_at(r, k); }

static inline void put_u32(gp_context *ctx, void *d, size_t i, uint32_t v)
{
    GPT_OK(ctx, gp_upload(ctx, (uint32_t *)d + i, &v, 4));
}

/* Milliseconds since t0, once the context's queue is done. */
static double timed(gp_context *ctx, double t0)
{
    GPT_OK(ctx, gp_context_synchronize(ctx));
    mark_t = now_s();
    return 1e3 * (mark_t - t0);
}

/* sum of k for k in [a, e), mod 2^32 (the uint32 sum of an iota range). */
static inline uint32_t range_sum32(uint64_t a, uint64_t e)
{
    uint64_t c = e - a, s = a + e - 1;
    if (a >= e) return 0;
    return (uint32_t)(c % 2 == 0 ? (c / 2) * s : c * (s / 2)); /* exact halving first, then mod 2^64 */
}

/* A failure report that counts the wrong elements and names the first. */
typedef struct mismatch {
    size_t bad, first;
    uint64_t got, want;
} mismatch;

static inline void note_bad(mismatch *m, size_t at, uint64_t got, uint64_t want)
{
    if (m->bad++ == 0) m->first = at, m->got = got, m->want = want;
}

static inline void expect_none(const mismatch *m, const char *what, size_t total)
{
    if (m->bad)
        fail_msg("%s: %zu of %zu wrong; the first at %zu: got %llu (0x%llx), want %llu", what, m->bad, total, m->first,
                 (unsigned long long)m->got, (unsigned long long)m->got, (unsigned long long)m->want);
    print_message("  %s: all %zu checked (%.1f s)\n", what, total, now_s() - mark_t);
    mark_t = now_s();
}

#endif
