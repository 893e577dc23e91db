/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_bench_families.c - the CPU backend's newer calls on one thread and on
 * many: what the threads buy.
 *
 *   cpu_bench_families [log2_n] [threads] [reps]   defaults: 24, 0 (one per processor), 5
 *
 * Each call runs on n int32 / uint32 elements (search: n / 4 needles in n / 2
 * sorted keys; merge: two sorted halves; segmented calls: segments of 0 to
 * 512 elements; runs: runs of 1 to 10 equal keys) with the context set to
 * one thread and to `threads` in turn, rep by rep, after one untimed
 * round per setting whose outputs must agree byte for byte (the threads
 * promise the same bits). Reported: the median time of each setting and
 * their ratio. Needs no GPU. */
#include <gpuprim/gpuprim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kGather, kScatter, kLowerBound, kArgmin, kHistogram, kPartition, kMerge, kTopK, kReduceByKey, kUnique,
       kScanByKey, kSegReduce, kSegSort, kCalls };
static const char *names[kCalls] = {"gather 4 B, random indices", "scatter 4 B, a permutation",
                                    "lower_bound, n/4 in n/2 keys", "argmin int32", "histogram_even 256 bins",
                                    "partition int32, half", "merge_keys two halves", "top_k k = 1000",
                                    "reduce_by_key sum", "unique", "scan_by_key sum", "segmented_reduce sum",
                                    "segmented_sort_keys"};

typedef struct {
    size_t n, m, segs;
    uint32_t *keys, *sorted, *runs, *flags, *out, *out2;
    uint64_t *idx, *perm, *offsets, *pos;
} data;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int k)
{
    int i, j;
    for (i = 1; i < k; i++)
        for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
            const double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static void check(gp_context *ctx, gp_status s, const char *what)
{
    if (s == GP_SUCCESS) return;
    fprintf(stderr, "cpu_bench_families: %s: %s (%s)\n", what, gp_status_string(s), ctx ? gp_context_last_error(ctx) : "");
    exit(1);
}

/* Runs call c; what it writes goes to d->out / d->out2 / d->pos. Returns
 * the bytes of output to compare between thread settings. */
static size_t run_call(int c, gp_context *ctx, data *d)
{
    const size_t n = d->n;
    size_t count = 0;
    uint64_t at = 0;
    uint32_t lo = 0, hi = 65536;
    switch (c) {
    case kGather: check(ctx, gp_gather(ctx, 4, d->keys, n, d->idx, d->out, n, GP_INDEX_SKIP), names[c]); return 4 * n;
    case kScatter: check(ctx, gp_scatter(ctx, 4, d->keys, d->perm, n, d->out, n, GP_INDEX_SKIP), names[c]); return 4 * n;
    case kLowerBound:
        check(ctx, gp_lower_bound(ctx, GP_UINT32, GP_SORT_ASCENDING, d->sorted, n / 2, d->keys, d->m, d->pos), names[c]);
        return 8 * d->m;
    case kArgmin:
        check(ctx, gp_argmin(ctx, GP_INT32, d->keys, n, d->out, &at), names[c]);
        d->pos[0] = at;
        return 8;
    case kHistogram:
        check(ctx, gp_histogram_even(ctx, GP_UINT32, d->runs, n, &lo, &hi, 256, GP_UINT32, d->out), names[c]);
        return 4 * 256;
    case kPartition:
        check(ctx, gp_partition(ctx, GP_INT32, d->keys, d->flags, GP_INT32_FLAGS, d->out, n, &count), names[c]);
        return 4 * n;
    case kMerge:
        check(ctx, gp_merge_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, d->sorted, n / 2, d->sorted + n / 2, n - n / 2, d->out),
              names[c]);
        return 4 * n;
    case kTopK:
        check(ctx, gp_top_k(ctx, GP_UINT32, GP_SORT_DESCENDING, d->keys, n, 1000, d->out, 8, NULL, d->pos), names[c]);
        return 4 * 1000;
    case kReduceByKey:
        check(ctx, gp_reduce_by_key(ctx, GP_UINT32, GP_INT32, GP_OP_SUM, d->runs, d->keys, n, d->out, d->out2, NULL, &count),
              names[c]);
        return 4 * count;
    case kUnique: check(ctx, gp_unique(ctx, GP_UINT32, d->runs, n, d->out, &count), names[c]); return 4 * count;
    case kScanByKey:
        check(ctx, gp_scan_by_key(ctx, GP_UINT32, d->runs, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d->keys, d->out, n),
              names[c]);
        return 4 * n;
    case kSegReduce:
        check(ctx, gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, d->keys, n, d->offsets, d->segs, d->out), names[c]);
        return 4 * d->segs;
    default:
        check(ctx, gp_segmented_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, d->keys, d->out, n, d->offsets, d->segs, 0, 32),
              names[c]);
        return 4 * n;
    }
}

/* The bytes call c wrote, copied aside (out, then pos or out2 where it
 * wrote there too); returns how many. */
static size_t snapshot(int c, const data *d, size_t bytes, unsigned char *to)
{
    if (c == kLowerBound || c == kArgmin) memcpy(to, d->pos, bytes);
    else memcpy(to, d->out, bytes);
    if (c == kTopK) memcpy(to + bytes, d->pos, 8 * 1000), bytes += 8 * 1000;
    if (c == kReduceByKey) memcpy(to + bytes, d->out2, bytes), bytes *= 2; /* the keys, then as many sums */
    return bytes;
}

int main(int argc, char **argv)
{
    const int log2n = argc > 1 ? atoi(argv[1]) : 24;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    const int reps = argc > 3 ? atoi(argv[3]) : 5;
    const int settings[2] = {1, 0};
    gp_context *ctx;
    data d;
    size_t i, s;
    unsigned char *want, *got;
    double *t[2];
    int c, r, k;
    if (log2n < 12 || log2n > 30 || reps < 1) {
        fprintf(stderr, "usage: cpu_bench_families [log2_n 12..30] [threads] [reps]\n");
        return 2;
    }
    if (threads <= 0) {
        const long p = sysconf(_SC_NPROCESSORS_ONLN);
        threads = p < 1 ? 1 : p > 256 ? 256 : (int)p;
    }
    d.n = (size_t)1 << log2n;
    d.m = d.n / 4;
    d.keys = malloc(d.n * 4), d.sorted = malloc(d.n * 4), d.runs = malloc(d.n * 4), d.flags = malloc(d.n * 4);
    d.out = malloc(d.n * 4), d.out2 = malloc(d.n * 4);
    d.idx = malloc(d.n * 8), d.perm = malloc(d.n * 8), d.offsets = malloc((d.n + 1) * 8), d.pos = malloc(d.n * 8);
    want = malloc(d.n * 8 + 8000), got = malloc(d.n * 8 + 8000);
    t[0] = malloc(sizeof(double) * (size_t)reps), t[1] = malloc(sizeof(double) * (size_t)reps);
    if (!d.keys || !d.sorted || !d.runs || !d.flags || !d.out || !d.out2 || !d.idx || !d.perm || !d.offsets || !d.pos ||
        !want || !got || !t[0] || !t[1]) {
        fprintf(stderr, "cpu_bench_families: out of memory\n");
        return 1;
    }
    for (i = 0; i < d.n; i++) {
        const uint64_t x = next_random();
        d.keys[i] = (uint32_t)x;
        d.flags[i] = (uint32_t)(x >> 40) & 1;
        d.idx[i] = (x >> 32) % d.n;
        d.perm[i] = i;
    }
    for (i = d.n - 1; i > 0; i--) { /* a random permutation: every scatter target once */
        const size_t j = next_random() % (i + 1);
        const uint64_t x = d.perm[i];
        d.perm[i] = d.perm[j], d.perm[j] = x;
    }
    memcpy(d.sorted, d.keys, d.n * 4);
    qsort(d.sorted, d.n / 2, 4, cmp_u32);
    qsort(d.sorted + d.n / 2, d.n - d.n / 2, 4, cmp_u32);
    for (i = 0; i < d.n;) { /* runs of 1 to 10 equal keys, each key below 65536 */
        const size_t len = 1 + next_random() % 10;
        const uint32_t key = (uint32_t)(next_random() % 65536);
        for (k = 0; k < (int)len && i < d.n; k++) d.runs[i++] = key;
    }
    for (d.segs = 0, s = 0; s < d.n; d.segs++) { /* segments of 0 to 512 elements */
        d.offsets[d.segs] = s;
        s += next_random() % 513;
        if (s > d.n) s = d.n;
    }
    d.offsets[d.segs] = d.n;
    check(NULL, gp_context_create(&ctx, GP_BACKEND_CPU, 0), "gp_context_create");
    printf("cpu_bench_families: n = 2^%d, 1 thread against %d, %d reps, medians in ms\n", log2n, threads, reps);
    printf("%-30s %10s %10s %8s\n", "call", "1 thread", "threads", "ratio");
    for (c = 0; c < kCalls; c++) {
        size_t bytes[2];
        for (k = 0; k < 2; k++) { /* untimed: the outputs of both settings agree */
            check(ctx, gp_context_set_cpu_threads(ctx, settings[k] ? settings[k] : threads), "set threads");
            bytes[k] = snapshot(c, &d, run_call(c, ctx, &d), k ? got : want);
        }
        if (bytes[0] != bytes[1] || memcmp(want, got, bytes[0]) != 0) {
            fprintf(stderr, "cpu_bench_families: %s: 1 thread and %d threads disagree\n", names[c], threads);
            return 1;
        }
        for (r = 0; r < reps; r++)
            for (k = 0; k < 2; k++) {
                double t0;
                check(ctx, gp_context_set_cpu_threads(ctx, settings[k] ? settings[k] : threads), "set threads");
                t0 = now();
                run_call(c, ctx, &d);
                t[k][r] = now() - t0;
            }
        {
            const double a = median(t[0], reps), b = median(t[1], reps);
            printf("%-30s %10.2f %10.2f %7.2fx\n", names[c], a * 1e3, b * 1e3, a / b);
        }
    }
    gp_context_destroy(ctx);
    return 0;
}
