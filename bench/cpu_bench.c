/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_bench.c - the CPU backend against the machine's own ceilings.
 *
 *   cpu_bench [log2_n] [threads] [reps]      defaults: 26, 0 (one per processor), 7
 *
 * At n int32 elements: gp_scan (inclusive sum), gp_reduce (sum) and
 * gp_compact (uint8 flags, half set at random) against a memcpy of the same
 * 4n bytes split over the same number of threads (each thread copies one
 * contiguous chunk): the anchor for a memory-bound pass. Bandwidth counts
 * the bytes a primitive must read and write at least (scan 4n + 4n,
 * reduce 4n, compact 4n + n flags + 4 * survivors; memcpy 4n + 4n).
 * gp_sort_keys of n random uint32 keys against std::sort on one thread
 * (cpu_bench_sort.cpp), and gp_sort_pairs of those keys with uint32 values
 * against std::sort of the pairs packed into 64-bit words; the two are timed
 * in turn, run by run. Prints the median of `reps` runs of each. Needs no
 * GPU. */
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

static void row(const char *name, double sec, double bytes, double memcpy_gbs)
{
    const double gbs = bytes / sec * 1e-9;
    if (memcpy_gbs > 0)
        printf("%-28s %10.2f ms %9.2f GB/s %8.0f%% of memcpy\n", name, sec * 1e3, gbs, 100.0 * gbs / memcpy_gbs);
    else
        printf("%-28s %10.2f ms %9.2f GB/s\n", name, sec * 1e3, gbs);
}

int main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 26;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    const int reps = argc > 3 ? atoi(argv[3]) : 7;
    const size_t n = (size_t)1 << log2n;
    int32_t *in, *out, *keys, *sorted, *values_out, *values_want;
    uint8_t *flags;
    double *t, *t2, memcpy_s, memcpy_gbs, std_s, sort_s;
    gp_context *ctx;
    size_t i, count = 0;
    int r;
    int32_t sum;

    if (log2n < 10 || log2n > 32 || reps < 1) {
        fprintf(stderr, "usage: cpu_bench [log2_n 10..32] [threads] [reps]\n");
        return 2;
    }
    if (threads <= 0) {
        long p = sysconf(_SC_NPROCESSORS_ONLN);
        threads = p < 1 ? 1 : p > 256 ? 256 : (int)p;
    }
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
    if (!in || !out || !keys || !sorted || !flags || !values_out || !values_want || !t || !t2) {
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
    printf("cpu_bench: n = 2^%d int32 (%.0f MiB), %d threads, median of %d\n", log2n, n * 4.0 / 1048576.0, threads,
           reps);

    for (r = 0; r < reps; r++) {
        const double t0 = now();
        threaded_memcpy((char *)out, (const char *)in, n * 4, threads);
        t[r] = now() - t0;
    }
    memcpy_s = median(t, reps);
    memcpy_gbs = 8.0 * (double)n / memcpy_s * 1e-9;
    row("memcpy (threaded, anchor)", memcpy_s, 8.0 * (double)n, memcpy_gbs);

    for (r = 0; r < reps; r++) {
        const double t0 = now();
        check(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), "gp_scan");
        t[r] = now() - t0;
    }
    row("gp_scan int32 sum", median(t, reps), 8.0 * (double)n, memcpy_gbs);

    for (r = 0; r < reps; r++) {
        const double t0 = now();
        check(gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, n, &sum), "gp_reduce");
        t[r] = now() - t0;
    }
    row("gp_reduce int32 sum", median(t, reps), 4.0 * (double)n, memcpy_gbs);

    for (r = 0; r < reps; r++) {
        const double t0 = now();
        check(gp_compact(ctx, GP_INT32, in, flags, GP_UINT8_FLAGS, out, n, &count), "gp_compact");
        t[r] = now() - t0;
    }
    row("gp_compact int32 (u8 flags)", median(t, reps), 5.0 * (double)n + 4.0 * (double)count, memcpy_gbs);

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
    gp_context_destroy(ctx);
    free(in), free(out), free(keys), free(sorted), free(flags), free(values_out), free(values_want), free(t), free(t2);
    return 0;
}
