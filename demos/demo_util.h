/* SPDX-License-Identifier: BSD-3-Clause */
/* demo_util.h - what the demos share: the renderer's option spellings
 * (--backend auto|cuda|cpu, --size, --output, -n N), a wall clock, CPU
 * threads, CUDA error checks. Header-only; each demo is one .cu file built
 * against the installed-style library (include/gpuprim, libgpuprim). */
#ifndef GPUPRIM_DEMO_UTIL_H
#define GPUPRIM_DEMO_UTIL_H

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void demo_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

#define DEMO_CUDA(call)                                                                              \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) demo_die("%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
    } while (0)

static inline double demo_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* --backend: 0 auto, 1 cuda, 2 cpu. Resolves auto to CUDA when a device
 * answers, and refuses cuda without one. Returns 1 for CUDA. */
static inline int demo_use_cuda(const char *backend)
{
    int n = 0, have;
    if (!strcmp(backend, "cpu")) return 0; /* no CUDA start-up cost */
    have = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    if (!strcmp(backend, "cuda")) {
        if (!have) demo_die("--backend cuda: no CUDA device");
        return 1;
    }
    if (strcmp(backend, "auto")) demo_die("--backend must be auto, cuda or cpu (got %s)", backend);
    return have;
}

static inline int demo_cpu_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* Run fn(arg, part, parts) on `parts` threads (the caller runs part 0). */
typedef void (*demo_part_fn)(void *arg, int part, int parts);
typedef struct {
    demo_part_fn fn;
    void *arg;
    int part, parts;
} demo_part;
static inline void *demo_part_main(void *p)
{
    demo_part *d = (demo_part *)p;
    d->fn(d->arg, d->part, d->parts);
    return NULL;
}
static inline void demo_parallel(demo_part_fn fn, void *arg, int parts)
{
    pthread_t th[256];
    demo_part d[256];
    int i;
    if (parts > 256) parts = 256;
    for (i = 0; i < parts; i++) d[i] = (demo_part){fn, arg, i, parts};
    for (i = 1; i < parts; i++)
        if (pthread_create(&th[i], NULL, demo_part_main, &d[i])) demo_die("pthread_create failed");
    fn(arg, 0, parts);
    for (i = 1; i < parts; i++) pthread_join(th[i], NULL);
}

/* The next option of a demo's command line. Every option takes a value
 * except --help / -h, which prints `usage` and exits 0. Sets *opt and *val
 * and moves *i past both; returns 0 when argv is done. An option without
 * its value ends the program with a message. */
static inline int demo_option(int argc, char **argv, int *i, const char *usage, const char **opt, const char **val)
{
    if (*i >= argc) return 0;
    *opt = argv[*i];
    if (!strcmp(*opt, "--help") || !strcmp(*opt, "-h")) {
        puts(usage);
        exit(0);
    }
    if (*i + 1 >= argc) demo_die("%s needs a value (see --help)", *opt);
    *val = argv[*i + 1];
    *i += 2;
    return 1;
}

/* Parse a size with an optional K/M/G suffix (powers of 2). */
static inline size_t demo_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) demo_die("not a number: %s", s);
    if (*end == 'K' || *end == 'k') v <<= 10, end++;
    else if (*end == 'M' || *end == 'm') v <<= 20, end++;
    else if (*end == 'G' || *end == 'g') v <<= 30, end++;
    if (*end) demo_die("not a size: %s", s);
    return (size_t)v;
}

static inline int demo_median_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline double demo_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, demo_median_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median over reps of the device time of fn(arg) on `st` (events), after a warm-up. */
static inline double demo_time_device(void (*fn)(void *), void *arg, cudaStream_t st, int reps)
{
    cudaEvent_t a, b;
    double t[64];
    int r;
    if (reps > 64) reps = 64;
    DEMO_CUDA(cudaEventCreate(&a));
    DEMO_CUDA(cudaEventCreate(&b));
    fn(arg);
    DEMO_CUDA(cudaStreamSynchronize(st));
    for (r = 0; r < reps; r++) {
        float ms;
        DEMO_CUDA(cudaEventRecord(a, st));
        fn(arg);
        DEMO_CUDA(cudaEventRecord(b, st));
        DEMO_CUDA(cudaEventSynchronize(b));
        DEMO_CUDA(cudaEventElapsedTime(&ms, a, b));
        t[r] = ms * 1e-3;
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return demo_median(t, reps);
}

#endif
