/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_threads_bins.c - histograms and partitions on the CPU backend's
 * threads: with 2, 3 and 7 threads (an even and two uneven splits), on sizes
 * around the point where a call starts using threads (64K elements) and
 * odd large ones, every dtype, both count dtypes / flag types, the outputs
 * (poisoned first, with a poisoned guard past them) equal bit for bit
 * those of the sequential references gpi_cpu_histogram_even / _range /
 * gpi_cpu_partition, and so do the counts. Histograms: few bins (each
 * thread its own counts) and many (more bins than samples per thread),
 * every form of the even-bin formula, NaN, -0.0 and samples out of range,
 * all samples equal, skewed, none in range; unsorted boundaries (a broken
 * promise: still the reference's counts). Partitions: two and three parts,
 * none / few / half / all selected, runs of many lengths, flags that
 * alias each other and the input. */
#include "test_util.h"
#include "cpu_threads_grid.h"

#include "histogram_internal.h" /* the references and gpi_hist_even_setup */
#include "permute_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_dtype count_dtypes[] = {GP_UINT32, GP_UINT64};

static int is_float(gp_dtype d) { return d == GP_FLOAT32 || d == GP_FLOAT64; }

static void put_f(gp_dtype d, void *buf, size_t i, double v)
{
    if (d == GP_FLOAT32) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
}

/* Integers are made as signed values of the dtype's width; an unsigned
 * dtype stores them with the sign bit flipped (the same order). */
static void put_i(gp_dtype d, void *buf, size_t i, int64_t v)
{
    switch (d) {
    case GP_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case GP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v ^ 0x80000000u; break;
    case GP_INT64: ((int64_t *)buf)[i] = v; break;
    default: ((uint64_t *)buf)[i] = (uint64_t)v ^ ((uint64_t)1 << 63); break;
    }
}

static int64_t type_min(gp_dtype d) { return gp_dtype_size(d) == 4 ? INT32_MIN : INT64_MIN; }
static int64_t type_max(gp_dtype d) { return gp_dtype_size(d) == 4 ? INT32_MAX : INT64_MAX; }

static int64_t clamp_to(gp_dtype d, int64_t v) { return v < type_min(d) ? type_min(d) : v > type_max(d) ? type_max(d) : v; }

static uint64_t count_at(gp_dtype cd, const void *counts, size_t i)
{
    return cd == GP_UINT32 ? ((const uint32_t *)counts)[i] : ((const uint64_t *)counts)[i];
}

/* Fail naming the first differing bin, unless the counts match. */
static void expect_counts(gp_dtype cd, const void *want, const void *got, size_t bins, const char *what, int t)
{
    size_t i;
    if (memcmp(want, got, bins * gp_dtype_size(cd)) == 0) return;
    for (i = 0; i < bins && count_at(cd, want, i) == count_at(cd, got, i); i++) {}
    fail_msg("%s, %d threads: bin %zu holds %llu, want %llu", what, t, i, (unsigned long long)count_at(cd, got, i),
             (unsigned long long)count_at(cd, want, i));
}

/* Sample shapes. */
enum { SHAPE_RANDOM, SHAPE_EQUAL, SHAPE_SKEWED, SHAPE_OUTSIDE, NSHAPES };
static const char *shape_name(int s)
{
    static const char *names[] = {"random", "all-equal", "skewed", "none-in-range"};
    return names[s];
}

/* ---- even bins ----------------------------------------------------------------------- */

/* Integer bounds [ilo, ihi) (clamped to a 32-bit dtype's range; full: the
 * dtype's whole range) pick the formula's form: by shift, by division,
 * multiply-divide, 128-bit. Float bounds [flo, fhi); f64_only: bounds a
 * float cannot hold (a width that overflows: halving; a tiny width). */
struct even_case {
    size_t bins;
    int64_t ilo, ihi;
    int full;
    double flo, fhi;
    int f64_only;
};

static const struct even_case even_cases[] = {
    {1, -1000, 1000, 0, -1000, 1000, 0},        /* one bin; integers by division */
    {7, -7, 1000, 0, -1.5, 3.25, 0},            /* multiply-divide */
    {256, -4096, 4096, 0, 0, 1, 0},             /* shift */
    {1000, 0, 0, 1, -1e30, 1e30, 0},            /* 64-bit: 128-bit form */
    {1000, 0, 0, 1, -0.9 * DBL_MAX, 0.9 * DBL_MAX, 1}, /* the width overflows */
    {1000, -5000, 5000, 0, 0, 5e-307, 1},       /* the scale overflows */
    {200003, -300000, 300000, 0, -2, 2, 0},     /* many bins */
    {(size_t)1 << 20, 0, (int64_t)1 << 22, 0, -1, 1, 0}, /* more bins than samples */
};

static void fill_even_samples(gp_dtype d, const struct even_case *c, int shape, void *s, size_t n)
{
    const int64_t lo = c->full ? type_min(d) : clamp_to(d, c->ilo), hi = c->full ? type_max(d) : clamp_to(d, c->ihi);
    const double span = (double)hi - (double)lo, w = c->fhi - c->flo;
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        const double u = gpt_uniform();
        int kind = shape == SHAPE_RANDOM ? (int)(r % 64) : 63;
        if (shape == SHAPE_SKEWED && (r & 3) == 0) kind = (int)(r % 64); /* a quarter as random */
        if (is_float(d)) {
            double v = c->flo - 0.1 * w + 1.2 * w * u;
            if (shape == SHAPE_EQUAL || shape == SHAPE_SKEWED) v = c->flo + w * 0.3;
            if (shape == SHAPE_OUTSIDE) v = c->flo - w * u - 1.0;
            switch (kind) {
            case 0: v = NAN; break;
            case 1: v = -0.0; break;
            case 2: v = c->fhi; break;
            case 3: v = c->flo; break;
            case 4: v = -INFINITY; break;
            default: break;
            }
            put_f(d, s, i, v);
        } else {
            int64_t v;
            if (c->full) v = (int64_t)r;
            else v = clamp_to(d, lo - (int64_t)(span / 10) + (int64_t)(u * 1.2 * span));
            if (shape == SHAPE_EQUAL || shape == SHAPE_SKEWED) v = lo + (int64_t)(span / 3);
            if (shape == SHAPE_OUTSIDE) v = c->full ? hi : lo - 1 - (int64_t)(u * 100);
            switch (kind) {
            case 2: v = hi; break;
            case 3: v = lo; break;
            case 4: v = hi - 1; break;
            default: break;
            }
            put_i(d, s, i, clamp_to(d, v));
        }
    }
}

static void even_bins(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t ci, di, ki, si, ti;
    int shape;
    for (ci = 0; ci < COUNT(even_cases); ci++)
        for (di = 0; di < COUNT(dtypes); di++)
            for (shape = 0; shape < NSHAPES; shape++)
                for (ki = 0; ki < COUNT(count_dtypes); ki++) {
                    const struct even_case *c = &even_cases[ci];
                    const gp_dtype d = dtypes[di], cd = count_dtypes[ki];
                    const size_t es = gp_dtype_size(d), cs = gp_dtype_size(cd), bins = c->bins;
                    const size_t most = sizes[COUNT(sizes) - 1];
                    unsigned char lower[8], upper[8], *s, *want, *got;
                    gpi_hist_even p;
                    if (c->f64_only && d != GP_FLOAT64) continue;
                    if (shape != SHAPE_RANDOM && ci % 3 != 0 && ci + 1 != COUNT(even_cases)) continue;
                    if (cd == GP_UINT64 && shape != SHAPE_RANDOM) continue;
                    if (is_float(d)) {
                        put_f(d, lower, 0, c->flo);
                        put_f(d, upper, 0, c->fhi);
                    } else {
                        put_i(d, lower, 0, c->full ? type_min(d) : clamp_to(d, c->ilo));
                        put_i(d, upper, 0, c->full ? type_max(d) : clamp_to(d, c->ihi));
                    }
                    gpi_hist_even_setup(d, bins, lower, upper, &p);
                    s = gpt_malloc(most * es + 1);
                    want = gpt_malloc(bins * cs);
                    got = gpt_malloc(bins * cs + kGuard);
                    fill_even_samples(d, c, shape, s, most);
                    for (si = 0; si < size_count(); si++) {
                        const size_t n = sizes[si];
                        char what[160];
                        snprintf(what, sizeof what, "histogram_even %s, %s counts, %zu bins (case %zu), %s, n=%zu",
                                 gpt_dtype_name(d), gpt_dtype_name(cd), bins, ci, shape_name(shape), n);
                        gpt_poison(want, bins * cs);
                        assert_int_equal(gpi_cpu_histogram_even(&p, s, n, cd, want), GP_SUCCESS);
                        for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                            set_threads(ctx, thread_counts[ti]);
                            gpt_poison(got, bins * cs + kGuard);
                            GPT_OK(ctx, gp_histogram_even(ctx, d, s, n, lower, upper, bins, cd, got));
                            expect_counts(cd, want, got, bins, what, thread_counts[ti]);
                            gpt_expect_poison(got, bins * cs, bins * cs + kGuard, what);
                        }
                    }
                    free(s);
                    free(want);
                    free(got);
                }
    set_threads(ctx, 0);
}

/* ---- bins between boundaries ---------------------------------------------------------- */

enum { BOUNDS_SORTED, BOUNDS_UNSORTED };

/* Sorted boundaries ascend in steps of 0 to 3 (0: an empty bin), from
 * -2 * bins (floats: halved; unsigned dtypes: the flipped sign bit keeps
 * the order); unsorted ones are random (floats: NaN among them). */
static void fill_boundaries(gp_dtype d, size_t bins, int how, void *b)
{
    int64_t cur = -2 * (int64_t)bins;
    size_t i;
    for (i = 0; i <= bins; i++) {
        const uint64_t r = gpt_rand64();
        if (how == BOUNDS_UNSORTED) {
            const int64_t v = (int64_t)(r % (8 * bins + 8)) - 4 * (int64_t)bins;
            if (is_float(d)) put_f(d, b, i, r % 17 == 0 ? NAN : (double)v * 0.5);
            else put_i(d, b, i, v);
            continue;
        }
        if (is_float(d)) put_f(d, b, i, (double)cur * 0.5);
        else put_i(d, b, i, cur);
        cur += (int64_t)(r % 4);
    }
}

/* Samples around the boundaries' span (exactly on boundaries among them),
 * NaN and -0.0 for floats; shaped as in fill_even_samples. */
static void fill_range_samples(gp_dtype d, size_t bins, int shape, const void *b, void *s, size_t n)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        int kind = shape == SHAPE_RANDOM ? (int)(r % 16) : 15;
        int64_t v = (int64_t)(r % (8 * bins + 8)) - 5 * (int64_t)bins;
        if (shape == SHAPE_SKEWED && (r & 3) == 0) kind = (int)(r % 16);
        if (shape == SHAPE_EQUAL || shape == SHAPE_SKEWED) v = -(int64_t)bins;
        if (shape == SHAPE_OUTSIDE) v = -3 * (int64_t)bins - 1 - (int64_t)(r % 100);
        if (kind == 0) { /* exactly a boundary */
            memcpy((char *)s + i * es, (const char *)b + (r >> 32) % (bins + 1) * es, es);
            continue;
        }
        if (is_float(d)) put_f(d, s, i, kind == 1 ? NAN : kind == 2 ? -0.0 : (double)v * 0.5 + 0.25 * (double)(r >> 62));
        else put_i(d, s, i, v);
    }
}

static void range_bins(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t bin_counts[] = {1, 7, 1000, 200003, (size_t)1 << 20};
    size_t bi, di, ki, si, ti;
    int shape, how;
    for (bi = 0; bi < COUNT(bin_counts); bi++)
        for (di = 0; di < COUNT(dtypes); di++)
            for (how = 0; how < 2; how++)
                for (shape = 0; shape < NSHAPES; shape++)
                    for (ki = 0; ki < COUNT(count_dtypes); ki++) {
                        const gp_dtype d = dtypes[di], cd = count_dtypes[ki];
                        const size_t es = gp_dtype_size(d), cs = gp_dtype_size(cd), bins = bin_counts[bi];
                        const size_t most = sizes[COUNT(sizes) - 1];
                        unsigned char *b, *s, *want, *got;
                        const int big = bins > 100000; /* the reference searches: fewer cases */
                        if (shape != SHAPE_RANDOM && (how == BOUNDS_UNSORTED || bi % 2 != 0)) continue;
                        if (shape != SHAPE_RANDOM && big && d != GP_UINT64 && d != GP_FLOAT32) continue;
                        if (cd == GP_UINT64 && (shape != SHAPE_RANDOM || how == BOUNDS_UNSORTED)) continue;
                        if (cd == GP_UINT64 && big && es != 8) continue;
                        b = gpt_malloc((bins + 1) * es);
                        s = gpt_malloc(most * es + 1);
                        want = gpt_malloc(bins * cs);
                        got = gpt_malloc(bins * cs + kGuard);
                        fill_boundaries(d, bins, how, b);
                        fill_range_samples(d, bins, shape, b, s, most);
                        for (si = 0; si < size_count(); si++) {
                            const size_t n = sizes[si];
                            char what[160];
                            if (big && (n == 65535 || n == 65536 || n == 131073)) continue;
                            snprintf(what, sizeof what, "histogram_range %s, %s counts, %zu %s bins, %s, n=%zu",
                                     gpt_dtype_name(d), gpt_dtype_name(cd), bins, how ? "unsorted" : "sorted",
                                     shape_name(shape), n);
                            gpt_poison(want, bins * cs);
                            assert_int_equal(gpi_cpu_histogram_range(d, s, n, b, bins, cd, want), GP_SUCCESS);
                            for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                                set_threads(ctx, thread_counts[ti]);
                                gpt_poison(got, bins * cs + kGuard);
                                GPT_OK(ctx, gp_histogram_range(ctx, d, s, n, b, bins, cd, got));
                                expect_counts(cd, want, got, bins, what, thread_counts[ti]);
                                gpt_expect_poison(got, bins * cs, bins * cs + kGuard, what);
                            }
                        }
                        free(b);
                        free(s);
                        free(want);
                        free(got);
                    }
    set_threads(ctx, 0);
}

/* ---- partition ------------------------------------------------------------------------ */

enum { FLAGS_NONE, FLAGS_FEW, FLAGS_HALF, FLAGS_ALL, FLAGS_RUNS, NFLAGS };
static const char *flags_name(int f)
{
    static const char *names[] = {"none", "few", "half", "all", "runs"};
    return names[f];
}

/* Set flags take many values, int32 ones with a zero low byte among them.
 * Runs: stretches of 1 to 70000 equal flags. */
static void fill_flags(gp_flag_type t, void *flags, size_t n, int pattern)
{
    static const int32_t odd_set[] = {1, -1, 0x100, 0x10000, INT32_MIN, 7};
    static const size_t run_lengths[] = {1, 2, 7, 100, 5000, 70000, 3};
    size_t i, run_left = 0;
    int run_set = 0;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        int set;
        if (pattern == FLAGS_RUNS) {
            if (run_left == 0) {
                run_left = run_lengths[r % COUNT(run_lengths)];
                run_set = !run_set;
            }
            run_left--;
            set = run_set;
        } else {
            set = pattern == FLAGS_ALL ? 1 : pattern == FLAGS_NONE ? 0 : pattern == FLAGS_HALF ? (r & 1) != 0 : (r & 63) == 0;
        }
        if (t == GP_UINT8_FLAGS) ((uint8_t *)flags)[i] = set ? (uint8_t)(1 + (r >> 8) % 255) : 0;
        else ((int32_t *)flags)[i] = set ? odd_set[(r >> 8) % COUNT(odd_set)] : 0;
    }
}

/* How the second flags relate: their own pattern, or the first flags'
 * own buffer (then the second part is empty). */
static void partition_case(gp_context *ctx, gp_dtype d, gp_flag_type t, int three, int pattern, int same_flags)
{
    const size_t es = gp_dtype_size(d), fs = t == GP_UINT8_FLAGS ? 1 : 4, most = sizes[COUNT(sizes) - 1];
    unsigned char *in = gpt_malloc(most * es + 1), *f1 = gpt_malloc(most * fs + 1), *f2 = gpt_malloc(most * fs + 1);
    unsigned char *want = gpt_malloc(most * es + 1), *got = gpt_malloc(most * es + kGuard);
    const unsigned char *second = same_flags ? f1 : f2;
    size_t si, ti;
    gpt_fill_random(d, in, most, 0);
    fill_flags(t, f1, most, pattern);
    fill_flags(t, f2, most, pattern == FLAGS_NONE || pattern == FLAGS_ALL ? FLAGS_HALF : (pattern + 1) % NFLAGS);
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        size_t want_counts[3], counts[3], selected;
        char what[160];
        snprintf(what, sizeof what, "partition%s %s, %s flags, %s%s, n=%zu", three ? "3" : "", gpt_dtype_name(d),
                 t == GP_UINT8_FLAGS ? "uint8" : "int32", flags_name(pattern), same_flags ? " (one flag buffer)" : "",
                 n);
        gpt_poison(want, most * es);
        assert_int_equal(gpi_cpu_partition(d, in, f1, three ? second : NULL, t, want, n, want_counts), GP_SUCCESS);
        for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
            set_threads(ctx, thread_counts[ti]);
            gpt_poison(got, n * es + kGuard);
            memset(counts, 0x5a, sizeof counts);
            selected = 12345;
            if (three) {
                GPT_OK(ctx, gp_partition3(ctx, d, in, f1, second, t, got, n, counts));
                if (memcmp(counts, want_counts, sizeof counts) != 0)
                    fail_msg("%s, %d threads: counts %zu %zu %zu, want %zu %zu %zu", what, thread_counts[ti], counts[0],
                             counts[1], counts[2], want_counts[0], want_counts[1], want_counts[2]);
            } else {
                GPT_OK(ctx, gp_partition(ctx, d, in, f1, t, got, n, &selected));
                if (selected != want_counts[0])
                    fail_msg("%s, %d threads: %zu selected, want %zu", what, thread_counts[ti], selected, want_counts[0]);
            }
            if (memcmp(want, got, n * es) != 0) {
                size_t i;
                for (i = 0; i < n && !memcmp(want + i * es, got + i * es, es); i++) {}
                fail_msg("%s, %d threads: element %zu differs", what, thread_counts[ti], i);
            }
            gpt_expect_poison(got, n * es, n * es + kGuard, what);
        }
    }
    free(in);
    free(f1);
    free(f2);
    free(want);
    free(got);
}

static void partition(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t di, fi;
    int three, pattern;
    for (di = 0; di < COUNT(dtypes); di++)
        for (fi = 0; fi < 2; fi++)
            for (three = 0; three < 2; three++)
                for (pattern = 0; pattern < NFLAGS; pattern++) {
                    const gp_flag_type t = fi ? GP_INT32_FLAGS : GP_UINT8_FLAGS;
                    partition_case(ctx, dtypes[di], t, three, pattern, 0);
                    if (three && pattern == FLAGS_HALF) partition_case(ctx, dtypes[di], t, three, pattern, 1);
                }
    set_threads(ctx, 0);
}

/* Flags that are the input itself (int32 flags read from 4-byte elements;
 * both flag arguments one buffer). */
static void partition_flags_alias_input(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 1000003;
    int32_t *in = gpt_malloc(n * 4), *want = gpt_malloc(n * 4), *got = gpt_malloc(n * 4 + kGuard);
    size_t i, ti, want_counts[3], counts[3];
    for (i = 0; i < n; i++) in[i] = (gpt_rand64() & 1) ? (int32_t)(gpt_rand64() | 1) : 0;
    gpi_cpu_partition(GP_INT32, in, in, in, GP_INT32_FLAGS, want, n, want_counts);
    for (ti = 0; ti < COUNT(thread_counts); ti++) {
        set_threads(ctx, thread_counts[ti]);
        gpt_poison(got, n * 4 + kGuard);
        GPT_OK(ctx, gp_partition3(ctx, GP_INT32, in, in, in, GP_INT32_FLAGS, got, n, counts));
        assert_memory_equal(counts, want_counts, sizeof counts);
        if (memcmp(got, want, n * 4)) fail_msg("aliased partition3, %d threads: elements differ", thread_counts[ti]);
        gpt_expect_poison(got, n * 4, n * 4 + kGuard, "aliased partition3");
    }
    set_threads(ctx, 0);
    free(in);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(even_bins),
        GPT_TEST_CPU(range_bins),
        GPT_TEST_CPU(partition),
        GPT_TEST_CPU(partition_flags_alias_input),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("cpu_threads_bins", tests, NULL, NULL);
}
