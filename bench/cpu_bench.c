/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_bench.c - the CPU backend against the machine's own ceilings.
 *
 *   cpu_bench [log2_n] [threads] [reps] [sorts]   defaults: 26, 0 (one per processor), 7, 1
 *
 * At n int32 elements: gp_scan (inclusive sum), gp_reduce (sum) and
 * gp_compact (uint8 flags, half set at random) against a memcpy of the same
 * 4n bytes split over the same number of threads (each thread copies one
 * contiguous chunk): the anchor for a memory-bound pass. Bandwidth counts
 * the bytes a primitive must read and write at least (scan 4n + 4n,
 * reduce 4n, compact 4n + n flags + 4 * survivors; memcpy 4n + 4n).
 * The anchor and the calls are interleaved rep by rep (memcpy, scan,
 * memcpy, reduce, memcpy, compact, ...), after one untimed round that
 * touches every page (no first-touch fault in a timed rep) and starts the
 * library's threads. Each call is reported as the median of its times and
 * two ratios to the anchor: of the medians, and the median over reps of
 * its bandwidth over the bandwidth of the memcpy timed just before it (the
 * figure that survives a machine whose speed drifts run to run).
 * With sorts != 0: gp_sort_keys of n random uint32 keys against std::sort
 * on one thread (cpu_bench_sort.cpp), and gp_sort_pairs of those keys with
 * uint32 values against std::sort of the pairs packed into 64-bit words;
 * the two are timed in turn, run by run. Needs no GPU. */
#include <gpuprim/gpuprim.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* std::sort of n keys ascending, and of n (key, value) pairs packed as
 * key << 32 | value into keys_out / values_out (cpu_bench_sort.cpp). */
void cpu_bench_std_sort(uint32_t *keys, size_t n);
void cpu_bench_std_sort_pairs(const uint32_t *keys, const uint32_t *values, uint32_t *keys_out, uint32_t *values_out,
                              size_t n);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int reps)
{
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

static void check(gp_status s, const char *what)
{
    if (s != GP_SUCCESS) {
        fprintf(stderr, "cpu_bench: %s: %s\n", what, gp_status_string(s));
        exit(1);
    }
}

typedef struct { char *dst; const char *src; size_t bytes; } copy_part;

static void *copy_chunk(void *arg)
{
    copy_part *p = (copy_part *)arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* memcpy of bytes split into `threads` contiguous chunks, one a thread. */
static void threaded_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
    pthread_t th[256];
    copy_part parts[256];
    const size_t chunk = (bytes / (size_t)threads + 63) / 64 * 64;
    int i;
    for (i = 0; i < threads; i++) {
        const size_t lo = chunk * (size_t)i < bytes ? chunk * (size_t)i : bytes;
        const size_t hi = lo + chunk < bytes ? lo + chunk : bytes;
        parts[i].dst = dst + lo;
        parts[i].src = src + lo;
        parts[i].bytes = hi - lo;
        if (i && pthread_create(&th[i], NULL, copy_chunk, &parts[i]) != 0) {
            fprintf(stderr, "cpu_bench: pthread_create failed\n");
            exit(1);
        }
    }
    copy_chunk(&parts[0]);
    for (i = 1; i < threads; i++) pthread_join(th[i], NULL);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* "model name" of /proc/cpuinfo and whether its flags list AVX2 and AVX-512F. */
static void describe_cpu(char *name, size_t size, int *avx2, int *avx512)
{
    char line[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(name, size, "unknown CPU");
    *avx2 = *avx512 = -1;
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v) continue;
        v += v[1] == ' ' ? 2 : 1;
        v[strcspn(v, "\n")] = 0;
        if (!strncmp(line, "model name", 10) && !strcmp(name, "unknown CPU")) snprintf(name, size, "%s", v);
        if (!strncmp(line, "flags", 5) && *avx2 < 0) {
            *avx2 = strstr(v, " avx2") != NULL;
            *avx512 = strstr(v, " avx512f") != NULL;
        }
    }
    fclose(f);
}

enum { kScan, kReduce, kCompact, kCalls };

/* Run call c once (its result checked against the plain loop's once). */
static void run_call(int c, gp_context *ctx, const int32_t *in, const uint8_t *flags, int32_t *out, size_t n,
                     size_t *count, int32_t *sum)
{
    if (c == kScan) check(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), "gp_scan");
    else if (c == kReduce) check(gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, n, sum), "gp_reduce");
    else check(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, count), "gp_compact");
}

static void verify(int c, const int32_t *in, const uint8_t *flags, const int32_t *out, size_t n, size_t count,
                   int32_t sum)
{
    uint32_t acc = 0;
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        acc += (uint32_t)in[i];
        if (c == kScan && (uint32_t)out[i] != acc) break;
        if (c == kCompact && flags[i] && (k >= count || out[k++] != in[i])) break;
    }
    if (i < n || (c == kReduce && (uint32_t)sum != acc) || (c == kCompact && k != count)) {
        fprintf(stderr, "cpu_bench: call %d gave a wrong result\n", c);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    static const char *names[kCalls] = {"gp_scan int32 sum", "gp_reduce int32 sum", "gp_compact int32 (u8 flags)"};
    const int log2n = argc > 1 ? atoi(argv[1]) : 26;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    const int reps = argc > 3 ? atoi(argv[3]) : 7;
    const int sorts = argc > 4 ? atoi(argv[4]) : 1;
    const size_t n = (size_t)1 << log2n;
    int32_t *in, *out, *keys, *sorted, *values_out, *values_want;
    uint8_t *flags;
    double *t, *t2, *tc[kCalls], *ratio[kCalls], *tm, bytes[kCalls], memcpy_s, std_s, sort_s;
    gp_context *ctx;
    size_t i, count = 0;
    int r, c, avx2, avx512;
    int32_t sum = 0;
    char cpu[256];

    if (log2n < 10 || log2n > 32 || reps < 1) {
        fprintf(stderr, "usage: cpu_bench [log2_n 10..32] [threads] [reps] [sorts 0|1]\n");
        return 2;
    }
    if (threads <= 0) {
        long p = sysconf(_SC_NPROCESSORS_ONLN);
        threads = p < 1 ? 1 : p > 256 ? 256 : (int)p;
    }
    if (threads > 256) threads = 256;
    check(gp_context_create(&ctx, GP_BACKEND_CPU, 0), "gp_context_create");
    check(gp_context_set_cpu_threads(ctx, threads), "gp_context_set_cpu_threads");
    in = (int32_t *)malloc(n * 4);
    out = (int32_t *)malloc(n * 4);
    keys = (int32_t *)malloc(n * 4);
    sorted = (int32_t *)malloc(n * 4);
    flags = (uint8_t *)malloc(n);
    values_out = (int32_t *)malloc(n * 4);
    values_want = (int32_t *)malloc(n * 4);
    t = (double *)malloc((size_t)reps * sizeof *t);
    t2 = (double *)malloc((size_t)reps * sizeof *t2);
    tm = (double *)malloc((size_t)reps * kCalls * sizeof *tm);
    for (c = 0; c < kCalls; c++) {
        tc[c] = (double *)malloc((size_t)reps * sizeof *tc[c]);
        ratio[c] = (double *)malloc((size_t)reps * sizeof *ratio[c]);
        if (!tc[c] || !ratio[c]) return fprintf(stderr, "cpu_bench: out of memory\n"), 1;
    }
    if (!in || !out || !keys || !sorted || !flags || !values_out || !values_want || !t || !t2 || !tm) {
        fprintf(stderr, "cpu_bench: out of memory\n");
        return 1;
    }
    for (i = 0; i < n; i++) { /* also faults every page in before timing */
        const uint64_t x = next_random();
        in[i] = (int32_t)(x & 0xffff);
        flags[i] = (uint8_t)((x >> 20) & 1);
        keys[i] = (int32_t)(x >> 32);
        out[i] = 0;
        sorted[i] = 0;
        values_out[i] = 0;
        values_want[i] = 0;
    }
    describe_cpu(cpu, sizeof cpu, &avx2, &avx512);
    printf("cpu_bench: %s (AVX2 %s, AVX-512F %s), %ld online processors\n", cpu,
           avx2 < 0 ? "?" : avx2 ? "yes" : "no", avx512 < 0 ? "?" : avx512 ? "yes" : "no",
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("n = 2^%d int32 (%.0f MiB), %d threads for the library and the memcpy, %d reps, each call timed "
           "right after a memcpy\n", log2n, n * 4.0 / 1048576.0, threads, reps);

    /* Untimed round: pages of every buffer touched, the pool started, and
     * each call's result checked once. */
    threaded_memcpy((char *)out, (const char *)in, n * 4, threads);
    for (c = 0; c < kCalls; c++) {
        run_call(c, ctx, in, flags, out, n, &count, &sum);
        verify(c, in, flags, out, n, count, sum);
    }
    bytes[kScan] = 8.0 * (double)n;
    bytes[kReduce] = 4.0 * (double)n;
    bytes[kCompact] = 5.0 * (double)n + 4.0 * (double)count;
    for (r = 0; r < reps; r++)
        for (c = 0; c < kCalls; c++) {
            double t0 = now(), tcopy;
            threaded_memcpy((char *)out, (const char *)in, n * 4, threads);
            tcopy = now() - t0;
            t0 = now();
            run_call(c, ctx, in, flags, out, n, &count, &sum);
            tc[c][r] = now() - t0;
            tm[r * kCalls + c] = tcopy;
            ratio[c][r] = (bytes[c] / tc[c][r]) / (8.0 * (double)n / tcopy);
        }
    memcpy_s = median(tm, reps * kCalls);
    printf("%-28s %9s %9s %12s %14s\n", "", "median", "GB/s", "% of memcpy", "per-rep ratio");
    printf("%-28s %6.2f ms %9.2f %11.0f%% %13s   (min %.2f, max %.2f ms)\n", "memcpy (threaded, anchor)",
           memcpy_s * 1e3, 8.0 * (double)n / memcpy_s * 1e-9, 100.0, "", tm[0] * 1e3,
           tm[reps * kCalls - 1] * 1e3);
    for (c = 0; c < kCalls; c++) {
        const double s = median(tc[c], reps), gbs = bytes[c] / s * 1e-9;
        printf("%-28s %6.2f ms %9.2f %11.0f%% %12.0f%%\n", names[c], s * 1e3, gbs,
               100.0 * gbs / (8.0 * (double)n / memcpy_s * 1e-9), 100.0 * median(ratio[c], reps));
    }
    if (!sorts) goto done;

    /* Sorts: std::sort and gp_sort runs interleaved, so that a change in the
     * machine's load reaches both. */
    for (r = 0; r < reps; r++) {
        double t0;
        memcpy(sorted, keys, n * 4);
        t0 = now();
        cpu_bench_std_sort((uint32_t *)sorted, n);
        t[r] = now() - t0;
        t0 = now();
        check(gp_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, out, n, 0, 32), "gp_sort_keys");
        t2[r] = now() - t0;
    }
    std_s = median(t, reps);
    sort_s = median(t2, reps);
    if (memcmp(out, sorted, n * 4) != 0) {
        fprintf(stderr, "cpu_bench: gp_sort_keys and std::sort disagree\n");
        return 1;
    }
    printf("%-28s %10.2f ms %9.1f Mkeys/s\n", "std::sort u32 (1 thread)", std_s * 1e3, (double)n / std_s * 1e-6);
    printf("%-28s %10.2f ms %9.1f Mkeys/s %7.2fx std::sort\n", "gp_sort_keys u32", sort_s * 1e3,
           (double)n / sort_s * 1e-6, std_s / sort_s);

    /* Pairs: u32 keys with u32 values (here the positions, so a sort of
     * key << 32 | position gives the stable order) against std::sort of
     * those packed words, packing and unpacking included. */
    for (i = 0; i < n; i++) in[i] = (int32_t)i;
    for (r = 0; r < reps; r++) {
        double t0 = now();
        cpu_bench_std_sort_pairs((const uint32_t *)keys, (const uint32_t *)in, (uint32_t *)sorted,
                                 (uint32_t *)values_want, n);
        t[r] = now() - t0;
        t0 = now();
        check(gp_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, keys, out, 4, in, values_out, n, 0, 32),
              "gp_sort_pairs");
        t2[r] = now() - t0;
    }
    std_s = median(t, reps);
    sort_s = median(t2, reps);
    if (memcmp(out, sorted, n * 4) != 0 || memcmp(values_out, values_want, n * 4) != 0) {
        fprintf(stderr, "cpu_bench: gp_sort_pairs and std::sort disagree\n");
        return 1;
    }
    printf("%-28s %10.2f ms %9.1f Mkeys/s\n", "std::sort u32 pairs (1 th.)", std_s * 1e3, (double)n / std_s * 1e-6);
    printf("%-28s %10.2f ms %9.1f Mkeys/s %7.2fx std::sort\n", "gp_sort_pairs u32/u32", sort_s * 1e3,
           (double)n / sort_s * 1e-6, std_s / sort_s);
done:
    gp_context_destroy(ctx);
    free(in), free(out), free(keys), free(sorted), free(flags), free(values_out), free(values_want), free(t), free(t2);
    free(tm);
    for (c = 0; c < kCalls; c++) free(tc[c]), free(ratio[c]);
    return 0;
}
