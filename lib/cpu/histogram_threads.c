/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/histogram_threads.c - histograms on the context's threads, giving
 * the counts of the references in cpu/histogram.c.
 *
 * The samples are binned by the even formula as histogram_internal.h gives
 * it, its form chosen once per loop, or by the reference's binary search
 * with the same probes (so even unsorted boundaries give the same bins),
 * several samples abreast. Counts are integers, so how the samples are
 * shared out never changes them. With few bins for the samples each thread
 * counts its piece of the samples into counts of its own (thread 0 into
 * the output) and the threads then add them up by bin ranges; with many
 * bins (private counts would cost more than the samples) each round of
 * samples is binned by all threads into a scratch array of bin numbers,
 * which each thread then reads whole, counting only its own range of bins
 * (and zeroing that range before the first round). Small inputs are
 * counted on the calling thread; where scratch cannot be allocated, the
 * reference counts. */
#include "histogram_internal.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 gpi_u128;

enum {
    kBlock = 1024,        /* samples binned at a time into a stack buffer */
    kRound = 1 << 22,     /* many bins: samples binned per round */
    kPrivateRatio = 1,    /* private counts while bins <= samples per thread / this */
    kMinCountBins = 4096  /* many bins: fewest bins per counting thread */
};

typedef struct hist_job {
    const gpi_hist_even *even; /* NULL: bins between boundaries */
    gp_dtype dtype;
    const void *samples, *boundaries;
    size_t n, bins;
    gp_dtype count_dtype;
    size_t cs;                 /* bytes of a count */
    void *counts;
    void *part_counts;         /* few bins: the counts of parts 1.., bins each */
    int parts;                 /* few bins: how many parts counted */
    uint32_t *sample_bins;     /* many bins: the bins of samples [round_lo, round_hi) */
    size_t round_lo, round_hi;
} hist_job;

/* The even formula with its form chosen once per loop (the same bins as
 * histogram_internal.h's gpi_hist_*_bin), each sample's bin handed to
 * EMIT(in, bin): in == 0 for a sample not counted (bin is then not
 * evaluated). Integers: d = x - lower modulo 2^64, which is below range =
 * upper - lower iff lower <= x < upper. Floats in the common form (no
 * halving, t = u * scale): t is at most about bins (< 2^63), so the
 * signed conversion truncates as the unsigned one would. The range test
 * is a branch, as in the reference: it predicts alike. */
#define INT_LOOP(T, W, LOWER, BIN, EMIT)                                                             \
    do {                                                                                             \
        const T *s = (const T *)samples;                                                             \
        const uint64_t lower = (uint64_t)(W)(LOWER), range = p->range;                               \
        for (i = lo; i < hi; i++) {                                                                  \
            const uint64_t d = (uint64_t)(W)s[i] - lower;                                            \
            EMIT(d < range, BIN);                                                                    \
        }                                                                                            \
    } while (0)

#define INT_FORMS(T, W, LOWER, EMIT)                                                                 \
    switch (p->int_form) {                                                                           \
    case GPI_HIST_INT_SHIFT: INT_LOOP(T, W, LOWER, d >> p->shift, EMIT); break;                      \
    case GPI_HIST_INT_DIV: INT_LOOP(T, W, LOWER, d / p->step, EMIT); break;                          \
    case GPI_HIST_INT_MULDIV: INT_LOOP(T, W, LOWER, d * p->bins / p->range, EMIT); break;            \
    default: INT_LOOP(T, W, LOWER, (gpi_u128)d * p->bins / p->range, EMIT); break;                   \
    }

#define FLOAT_LOOP(T, EMIT)                                                                          \
    do {                                                                                             \
        const T *s = (const T *)samples;                                                             \
        const double lower = p->lo, upper = p->hi, scale = p->scale;                                 \
        const uint64_t last = p->bins - 1;                                                           \
        if (!p->halve && p->float_form == GPI_HIST_FLOAT_SCALE) {                                    \
            for (i = lo; i < hi; i++) {                                                              \
                const double x = s[i];                                                               \
                uint64_t t;                                                                          \
                EMIT(x >= lower && x < upper,                                                        \
                     (t = (uint64_t)(int64_t)((x - lower) * scale), t < last ? t : last));           \
            }                                                                                        \
        } else {                                                                                     \
            for (i = lo; i < hi; i++) {                                                              \
                const uint32_t b = gpi_hist_float_bin(p, s[i]);                                      \
                EMIT(b != GPI_HIST_NONE, b);                                                         \
            }                                                                                        \
        }                                                                                            \
    } while (0)

/* NAME(p, samples, lo, hi, dst): EMIT each bin of samples [lo, hi). */
#define DEFINE_EVEN(NAME, D, EMIT)                                                                   \
    static void NAME(const gpi_hist_even *p, const void *samples, size_t lo, size_t hi, D *dst)      \
    {                                                                                                \
        size_t i;                                                                                    \
        switch (p->dtype) {                                                                          \
        case GP_INT32: INT_FORMS(int32_t, int64_t, p->lo_s, EMIT) break;                             \
        case GP_INT64: INT_FORMS(int64_t, int64_t, p->lo_s, EMIT) break;                             \
        case GP_UINT32: INT_FORMS(uint32_t, uint64_t, p->lo_u, EMIT) break;                          \
        case GP_UINT64: INT_FORMS(uint64_t, uint64_t, p->lo_u, EMIT) break;                          \
        case GP_FLOAT32: FLOAT_LOOP(float, EMIT); break;                                             \
        default: FLOAT_LOOP(double, EMIT); break;                                                    \
        }                                                                                            \
    }

/* dst[i - lo] = the bin of sample i, GPI_HIST_NONE where not counted. */
#define EMIT_STORE(in, bin) dst[i - lo] = (in) ? (uint32_t)(bin) : GPI_HIST_NONE
/* dst: counters; the sample's counter += 1. */
#define EMIT_COUNT(in, bin)                                                                          \
    do {                                                                                             \
        if (in) dst[bin]++;                                                                          \
    } while (0)

DEFINE_EVEN(even_bins, uint32_t, EMIT_STORE)
DEFINE_EVEN(even_count32, uint32_t, EMIT_COUNT)
DEFINE_EVEN(even_count64, uint64_t, EMIT_COUNT)

/* The reference's search (the number of boundaries <= x, less one), typed
 * and branch-free, kGroup samples abreast so that their probes overlap:
 * the same probes in the same order for each sample as the reference, so
 * even unsorted boundaries give its bins. A search ends with len == 0;
 * from there its steps change nothing. In range, the probes stay within
 * b[0, bins] and the search probes b[0], so at >= 1. */
enum { kGroup = 8 };

#define RANGE_LOOP(T)                                                                                \
    do {                                                                                             \
        const T *s = (const T *)samples, *b = (const T *)boundaries;                                 \
        const T first = b[0], end = b[bins];                                                         \
        for (g = lo; g < hi; g += kGroup) {                                                          \
            const size_t m = hi - g < kGroup ? hi - g : kGroup;                                      \
            T x[kGroup];                                                                             \
            size_t at[kGroup], len[kGroup], k;                                                       \
            unsigned step;                                                                           \
            for (k = 0; k < m; k++) {                                                                \
                x[k] = s[g + k];                                                                     \
                at[k] = 0;                                                                           \
                len[k] = !(x[k] < first) && x[k] < end ? bins + 1 : 0;                               \
            }                                                                                        \
            for (step = 0; step < steps; step++)                                                     \
                for (k = 0; k < m; k++) {                                                            \
                    const size_t half = len[k] / 2;                                                  \
                    const size_t up = (size_t)(len[k] != 0) & (size_t) !(x[k] < b[at[k] + half]);    \
                    at[k] += (half + 1) & (0 - up);                                                  \
                    len[k] = half - (up & ~len[k] & 1);                                              \
                }                                                                                    \
            for (k = 0; k < m; k++)                                                                  \
                out[g - lo + k] = !(x[k] < first) && x[k] < end ? (uint32_t)(at[k] - 1) : GPI_HIST_NONE; \
        }                                                                                            \
    } while (0)

static void range_bins(gp_dtype dtype, const void *samples, const void *boundaries, size_t bins, size_t lo,
                       size_t hi, uint32_t *out)
{
    unsigned steps = 0; /* enough for len = bins + 1 to reach 0: its bit length */
    size_t g;
    while (steps < 64 && ((bins + 1) >> steps) != 0) steps++;
    switch (dtype) {
    case GP_INT32: RANGE_LOOP(int32_t); break;
    case GP_INT64: RANGE_LOOP(int64_t); break;
    case GP_UINT32: RANGE_LOOP(uint32_t); break;
    case GP_UINT64: RANGE_LOOP(uint64_t); break;
    case GP_FLOAT32: RANGE_LOOP(float); break;
    default: RANGE_LOOP(double); break;
    }
}

/* out[i - lo] = the bin of sample i, GPI_HIST_NONE where not counted. */
static void bins_of(const hist_job *j, size_t lo, size_t hi, uint32_t *out)
{
    if (j->even) even_bins(j->even, j->samples, lo, hi, out);
    else range_bins(j->dtype, j->samples, j->boundaries, j->bins, lo, hi, out);
}

/* Count the bins b[0, m) that fall in [first, first + nb); counts is the
 * counter of bin `first`. GPI_HIST_NONE is never in range (nb <= bins).
 * Branch-free: a bin out of range adds 0 to the first counter (a thread's
 * range of bins takes a random share of the samples: a branch would
 * mispredict). */
#define COUNT_RANGE_LOOP(C)                                                                          \
    do {                                                                                             \
        C *c = (C *)counts;                                                                          \
        for (k = 0; k < m; k++) {                                                                    \
            const uint32_t at = b[k] - first, in = at < nb;                                          \
            c[at & (0 - in)] += in;                                                                  \
        }                                                                                            \
    } while (0)

static void count_bins_in_range(const uint32_t *b, size_t m, uint32_t first, uint32_t nb, gp_dtype count_dtype,
                                void *counts)
{
    size_t k;
    if (count_dtype == GP_UINT32) COUNT_RANGE_LOOP(uint32_t);
    else COUNT_RANGE_LOOP(uint64_t);
}

/* Count every bin of b[0, m) but GPI_HIST_NONE. */
static void count_bins(const uint32_t *b, size_t m, gp_dtype count_dtype, void *counts)
{
    size_t k;
    if (count_dtype == GP_UINT32) {
        uint32_t *c = (uint32_t *)counts;
        for (k = 0; k < m; k++)
            if (b[k] != GPI_HIST_NONE) c[b[k]]++;
    } else {
        uint64_t *c = (uint64_t *)counts;
        for (k = 0; k < m; k++)
            if (b[k] != GPI_HIST_NONE) c[b[k]]++;
    }
}

/* Zero `counts` (bins counters) and count the samples [lo, hi) into it:
 * even bins in one pass, bins between boundaries a block at a time. */
static void count_samples(const hist_job *j, size_t lo, size_t hi, void *counts)
{
    uint32_t buf[kBlock];
    size_t b;
    memset(counts, 0, j->bins * j->cs);
    if (j->even && j->count_dtype == GP_UINT32) {
        even_count32(j->even, j->samples, lo, hi, (uint32_t *)counts);
        return;
    }
    if (j->even) {
        even_count64(j->even, j->samples, lo, hi, (uint64_t *)counts);
        return;
    }
    for (b = lo; b < hi; b += kBlock) {
        const size_t e = hi - b < kBlock ? hi : b + kBlock;
        range_bins(j->dtype, j->samples, j->boundaries, j->bins, b, e, buf);
        count_bins(buf, e - b, j->count_dtype, counts);
    }
}

static void *part_counts_of(const hist_job *j, int part)
{
    return part ? (char *)j->part_counts + (size_t)(part - 1) * j->bins * j->cs : j->counts;
}

static void private_count_part(void *arg, int part, int parts)
{
    const hist_job *j = (const hist_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
    count_samples(j, lo, hi, part_counts_of(j, part));
}

/* counts += the other parts' counts, over this part's range of bins. */
static void private_sum_part(void *arg, int part, int parts)
{
    const hist_job *j = (const hist_job *)arg;
    size_t lo, hi, k;
    int q;
    gpi_pool_range(j->bins, part, parts, 16, &lo, &hi);
    for (q = 1; q < j->parts; q++) {
        if (j->count_dtype == GP_UINT32) {
            uint32_t *c = (uint32_t *)j->counts;
            const uint32_t *a = (const uint32_t *)part_counts_of(j, q);
            for (k = lo; k < hi; k++) c[k] += a[k];
        } else {
            uint64_t *c = (uint64_t *)j->counts;
            const uint64_t *a = (const uint64_t *)part_counts_of(j, q);
            for (k = lo; k < hi; k++) c[k] += a[k];
        }
    }
}

static void round_bins_part(void *arg, int part, int parts)
{
    const hist_job *j = (const hist_job *)arg;
    const size_t m = j->round_hi - j->round_lo;
    size_t lo, hi;
    gpi_pool_range(m, part, parts, 64, &lo, &hi);
    bins_of(j, j->round_lo + lo, j->round_lo + hi, j->sample_bins + lo);
}

static void round_count_part(void *arg, int part, int parts)
{
    const hist_job *j = (const hist_job *)arg;
    char *counts;
    size_t lo, hi;
    gpi_pool_range(j->bins, part, parts, 16, &lo, &hi);
    counts = (char *)j->counts + lo * j->cs;
    if (j->round_lo == 0) memset(counts, 0, (hi - lo) * j->cs);
    count_bins_in_range(j->sample_bins, j->round_hi - j->round_lo, (uint32_t)lo, (uint32_t)(hi - lo), j->count_dtype,
                        counts);
}

/* 0 when scratch could not be allocated (nothing written then). */
static int run(hist_job *j, int threads)
{
    const int parts = gpi_pool_parts(j->n, threads);
    j->cs = gp_dtype_size(j->count_dtype);
    if (parts == 1) {
        count_samples(j, 0, j->n, j->counts);
        return 1;
    }
    if (j->bins <= j->n / (size_t)parts / kPrivateRatio && (size_t)(parts - 1) * j->bins <= SIZE_MAX / j->cs) {
        j->part_counts = malloc((size_t)(parts - 1) * j->bins * j->cs);
        if (!j->part_counts) return 0;
        j->parts = parts;
        gpi_pool_run(parts, private_count_part, j);
        gpi_pool_run(gpi_pool_parts(j->bins * (size_t)parts, threads), private_sum_part, j);
        free(j->part_counts);
        return 1;
    } else {
        const size_t round = j->n < kRound ? j->n : kRound;
        const size_t most_count_parts = j->bins / kMinCountBins;
        const int count_parts = most_count_parts < 1 ? 1 : most_count_parts < (size_t)parts ? (int)most_count_parts : parts;
        j->sample_bins = (uint32_t *)malloc(round * sizeof *j->sample_bins);
        if (!j->sample_bins) return 0;
        for (j->round_lo = 0; j->round_lo < j->n; j->round_lo = j->round_hi) {
            j->round_hi = j->n - j->round_lo < round ? j->n : j->round_lo + round;
            gpi_pool_run(gpi_pool_parts(j->round_hi - j->round_lo, threads), round_bins_part, j);
            gpi_pool_run(count_parts, round_count_part, j);
        }
        free(j->sample_bins);
        return 1;
    }
}

gp_status gpi_cpu_histogram_even_threads(const gpi_hist_even *p, const void *samples, size_t n,
                                         gp_dtype count_dtype, void *counts, int threads)
{
    hist_job j;
    memset(&j, 0, sizeof j);
    j.even = p;
    j.dtype = p->dtype;
    j.samples = samples;
    j.n = n;
    j.bins = p->bins;
    j.count_dtype = count_dtype;
    j.counts = counts;
    if (!run(&j, threads)) return gpi_cpu_histogram_even(p, samples, n, count_dtype, counts);
    return GP_SUCCESS;
}

gp_status gpi_cpu_histogram_range_threads(gp_dtype dtype, const void *samples, size_t n, const void *boundaries,
                                          size_t bins, gp_dtype count_dtype, void *counts, int threads)
{
    hist_job j;
    memset(&j, 0, sizeof j);
    j.dtype = dtype;
    j.samples = samples;
    j.boundaries = boundaries;
    j.n = n;
    j.bins = bins;
    j.count_dtype = count_dtype;
    j.counts = counts;
    if (!run(&j, threads)) return gpi_cpu_histogram_range(dtype, samples, n, boundaries, bins, count_dtype, counts);
    return GP_SUCCESS;
}
