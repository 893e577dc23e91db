/* SPDX-License-Identifier: BSD-3-Clause */
/* test_histogram.c - gp_histogram_even and gp_histogram_range: the CPU
 * reference against tiny references written differently (and against the
 * bin functions the CUDA kernels evaluate, compiled here on the host), exact
 * expectations at bin edges, then each backend against the reference for
 * every dtype x count dtype at awkward sizes and bin counts (1 .. 65,536,
 * skewed, NaN, -0.0, out-of-range samples), bad arguments. */
#include "test_util.h"

#include "histogram_internal.h" /* the reference and the kernels' bin formulas */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_dtype count_dtypes[] = {GP_UINT32, GP_UINT64};

static int is_float(gp_dtype d) { return d == GP_FLOAT32 || d == GP_FLOAT64; }
static int is_signed(gp_dtype d) { return d == GP_INT32 || d == GP_INT64; }

/* Store v (a double for floats, an int64/uint64 bit pattern for integers). */
static void put_f(gp_dtype d, void *buf, size_t i, double v)
{
    if (d == GP_FLOAT32) ((float *)buf)[i] = (float)v;
    else ((double *)buf)[i] = v;
}
static void put_i(gp_dtype d, void *buf, size_t i, uint64_t bits)
{
    switch (d) {
    case GP_INT32:
    case GP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)bits; break;
    default: ((uint64_t *)buf)[i] = bits; break;
    }
}
static double get_f(gp_dtype d, const void *buf, size_t i)
{
    return d == GP_FLOAT32 ? ((const float *)buf)[i] : ((const double *)buf)[i];
}
/* Integers widened to int64 (signed) or uint64 (unsigned), as bits. */
static uint64_t get_i(gp_dtype d, const void *buf, size_t i)
{
    switch (d) {
    case GP_INT32: return (uint64_t)(int64_t)((const int32_t *)buf)[i];
    case GP_UINT32: return ((const uint32_t *)buf)[i];
    default: return ((const uint64_t *)buf)[i];
    }
}

static uint64_t count_at(gp_dtype cd, const void *counts, size_t i)
{
    return cd == GP_UINT32 ? ((const uint32_t *)counts)[i] : ((const uint64_t *)counts)[i];
}

/* ---- tiny references, written differently ------------------------------------------ */
/* Integers: bin i starts at the first offset d with d * bins >= i * range,
 * i.e. edge(i) = ceil(i * range / bins); the bin is the last i whose edge is
 * <= d (a search over edges instead of a division of d). */
static uint64_t tiny_int_bin(uint64_t d, uint64_t range, uint64_t bins)
{
    uint64_t lo = 0, hi = bins - 1; /* answer in [lo, hi] */
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        const u128 edge = ((u128)mid * range + bins - 1) / bins;
        if (edge <= d) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Floats: histogram.h's formula, worked out from scratch per sample. */
static uint64_t tiny_float_bin(double lower, double upper, uint64_t bins, double x)
{
    double width = upper - lower, u, scale, t;
    if (width == INFINITY) {
        u = x / 2 - lower / 2;
        width = upper / 2 - lower / 2;
    } else {
        u = x - lower;
    }
    scale = (double)bins / width;
    if (scale == INFINITY) t = (u * (double)bins) / width;
    else if (fpclassify(scale) != FP_NORMAL) t = u / (width / (double)bins);
    else t = u * scale;
    return t >= (double)bins ? bins - 1 : (uint64_t)floor(t);
}

#define NONE UINT64_MAX

/* The reference's bin of one sample: a one-sample histogram. */
static uint64_t reference_bin(const gpi_hist_even *p, gp_dtype d, const void *sample)
{
    uint64_t *counts = gpt_malloc(p->bins * 8), bin = NONE, i;
    gpi_cpu_histogram_even(p, sample, 1, GP_UINT64, counts);
    for (i = 0; i < p->bins; i++)
        if (counts[i]) {
            assert_true(bin == NONE && counts[i] == 1);
            bin = i;
        }
    free(counts);
    (void)d;
    return bin;
}

/* The CUDA kernels' form of the bin, evaluated on the host. */
static uint64_t kernel_bin(const gpi_hist_even *p, gp_dtype d, const void *sample)
{
    uint32_t b;
    if (is_float(d)) b = gpi_hist_float_bin(p, get_f(d, sample, 0));
    else if (is_signed(d)) b = gpi_hist_signed_bin(p, (int64_t)get_i(d, sample, 0));
    else b = gpi_hist_unsigned_bin(p, get_i(d, sample, 0));
    return b == GPI_HIST_NONE ? NONE : b;
}

static uint64_t tiny_bin(gp_dtype d, const void *lower, const void *upper, uint64_t bins, const void *sample)
{
    if (is_float(d)) {
        const double lo = get_f(d, lower, 0), hi = get_f(d, upper, 0), x = get_f(d, sample, 0);
        if (!(x >= lo && x < hi)) return NONE;
        return tiny_float_bin(lo, hi, bins, x);
    }
    {
        const uint64_t lo = get_i(d, lower, 0), hi = get_i(d, upper, 0), x = get_i(d, sample, 0);
        const int in = is_signed(d) ? (int64_t)x >= (int64_t)lo && (int64_t)x < (int64_t)hi : x >= lo && x < hi;
        if (!in) return NONE;
        return tiny_int_bin(x - lo, hi - lo, bins);
    }
}

/* One (dtype, lower, upper, bins) case: every probe sample binned by the
 * reference, the tiny reference and the kernels' form; all three agree. */
static void probe_even(gp_dtype d, const void *lower, const void *upper, uint64_t bins, const void *samples, size_t n)
{
    gpi_hist_even p;
    size_t i, es = gp_dtype_size(d);
    gpi_hist_even_setup(d, bins, lower, upper, &p);
    for (i = 0; i < n; i++) {
        const void *x = (const char *)samples + i * es;
        const uint64_t want = tiny_bin(d, lower, upper, bins, x), got = reference_bin(&p, d, x);
        const uint64_t kern = kernel_bin(&p, d, x);
        if (got != want || kern != want)
            fail_msg("%s, %llu bins, sample %zu (%.17g / %llx): reference %lld, tiny %lld, kernel form %lld",
                     gpt_dtype_name(d), (unsigned long long)bins, i, is_float(d) ? get_f(d, x, 0) : 0.0,
                     (unsigned long long)get_i(d == GP_FLOAT32 ? GP_UINT32 : d == GP_FLOAT64 ? GP_UINT64 : d, x, 0),
                     (long long)got, (long long)want, (long long)kern);
    }
}

/* Integer probes: the bounds, their neighbours, every bin edge and its
 * neighbours (for few bins), the type's extremes, random values. */
static void even_integer_reference(void **state)
{
    struct { gp_dtype d; int64_t lo, hi; uint64_t bins; } cases[] = {
        {GP_INT32, -100, 156, 256},                  /* shift form */
        {GP_INT32, -7, 1000, 7},                     /* muldiv form */
        {GP_INT32, INT32_MIN, INT32_MAX, 1000},      /* the whole type */
        {GP_INT32, 5, 6, 1},                         /* one value, one bin */
        {GP_UINT32, 0, 3 * 65536, 65536},            /* div form */
        {GP_UINT32, 0, (int64_t)UINT32_MAX, 65536},  /* muldiv, 65,536 bins */
        {GP_INT64, INT64_MIN, INT64_MAX, 1000},      /* 128-bit form */
        {GP_INT64, INT64_MIN, INT64_MAX, 1},
        {GP_INT64, -1000000007, 3000000000LL, 33},
        {GP_UINT64, 0, -1, 65535},                   /* 0 .. 2^64 - 1: 128-bit form */
        {GP_UINT64, (int64_t)(1ull << 63), -2, 3},   /* high unsigned values */
    };
    size_t c, k;
    (void)state;
    gpt_seed_once();
    for (c = 0; c < COUNT(cases); c++) {
        const gp_dtype d = cases[c].d;
        const size_t es = gp_dtype_size(d);
        unsigned char lower[8], upper[8];
        const size_t cap = 4096;
        unsigned char *s = gpt_malloc(cap * es);
        const uint64_t lo = (uint64_t)cases[c].lo, hi = (uint64_t)cases[c].hi, bins = cases[c].bins;
        const uint64_t range = hi - lo;
        const uint64_t mask = es == 4 ? 0xffffffffull : ~0ull;
        size_t n = 0;
        put_i(d, lower, 0, lo);
        put_i(d, upper, 0, hi);
        {
            const uint64_t fixed[] = {lo, lo + 1, lo - 1, hi, hi - 1, hi + 1, 0, 1, ~0ull, 1ull << 31, 1ull << 63,
                                      (1ull << 63) - 1, 0x7fffffff, 0x80000000ull, 0xffffffffull};
            for (k = 0; k < COUNT(fixed); k++) put_i(d, s, n++, fixed[k]);
        }
        for (k = 1; k < bins && k < 300; k++) { /* bin edges, below and on */
            const uint64_t edge = lo + (uint64_t)(((u128)k * range + bins - 1) / bins);
            put_i(d, s, n++, edge - 1);
            put_i(d, s, n++, edge);
        }
        while (n < cap) { /* random in range, and random anywhere */
            const uint64_t r = gpt_rand64();
            put_i(d, s, n, (n & 1) ? lo + (uint64_t)((u128)r * range >> 64) : r & mask);
            n++;
        }
        probe_even(d, lower, upper, bins, s, n);
        free(s);
    }
}

static void even_float_reference(void **state)
{
    struct { double lo, hi; uint64_t bins; int f64_only; } cases[] = {
        {0, 1, 4, 0},          {0, 1, 10, 0},   {-1000, 1000, 7, 0}, {0, 1, 1, 0},     {-1, 3, 65536, 0},
        {-0.0, 1, 3, 0},       {1e-30, 2e-30, 3, 0}, {-3e38, 3e38, 1000, 0},
        {-DBL_MAX, DBL_MAX, 1000, 1}, /* width overflows: halved */
        {0, 4.9406564584124654e-324 * 20, 65536, 1}, /* tiny width: bins / width overflows */
        {-DBL_MAX, 0, 5, 1},  {5e-324, 1e-323, 2, 1},
        {0, DBL_MAX, 3, 1}, {-DBL_MAX, DBL_MAX, 2, 1}, /* bins / width subnormal: divide by the bin width */
    };
    const gp_dtype fd[] = {GP_FLOAT32, GP_FLOAT64};
    size_t c, f, k;
    (void)state;
    gpt_seed_once();
    for (f = 0; f < COUNT(fd); f++)
        for (c = 0; c < COUNT(cases); c++) {
            const gp_dtype d = fd[f];
            const size_t cap = 4096;
            double lo, hi, *v;
            unsigned char lower[8], upper[8], *s;
            const uint64_t bins = cases[c].bins;
            size_t n = 0;
            if (d == GP_FLOAT32 && cases[c].f64_only) continue;
            lo = cases[c].lo, hi = cases[c].hi;
            v = gpt_malloc(cap * 8), s = gpt_malloc(cap * 8);
            if (d == GP_FLOAT32) {
                lo = (float)lo;
                hi = (float)hi;
            }
            put_f(d, lower, 0, lo);
            put_f(d, upper, 0, hi);
            {
                const double fixed[] = {lo, hi, nextafter(hi, -INFINITY), nextafter(lo, INFINITY),
                                        nextafter(lo, -INFINITY), nextafter(hi, INFINITY), 0.0, -0.0, NAN, -NAN,
                                        INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 5e-324, -5e-324, 1.0, -1.0, 0.5};
                for (k = 0; k < COUNT(fixed); k++) v[n++] = fixed[k];
            }
            for (k = 1; k < bins && k < 400; k++) { /* near each interior edge */
                const double edge = lo + (hi - lo) / (double)bins * (double)k;
                if (!isfinite(edge)) break;
                v[n++] = edge;
                v[n++] = nextafter(edge, -INFINITY);
                v[n++] = nextafter(edge, INFINITY);
            }
            while (n < cap) v[n++] = isfinite(hi - lo) ? lo + (hi - lo) * gpt_uniform() * 1.25 - (hi - lo) * 0.1
                                                       : (gpt_uniform() * 2 - 1) * DBL_MAX;
            for (k = 0; k < n; k++) put_f(d, s, k, v[k]);
            probe_even(d, lower, upper, bins, s, n);
            free(v);
            free(s);
        }
}

/* Exact answers a reader can check by hand. */
static void even_edges_exact(void **state)
{
    const float lo = 0, hi = 1;
    const float xs[] = {0.0f, -0.0f, 0.25f, 0.5f, 0.75f, 0.99999994f, 1.0f, -1e-30f, NAN, INFINITY};
    const uint64_t want[] = {0, 0, 1, 2, 3, 3, NONE, NONE, NONE, NONE};
    const int32_t ilo = -10, ihi = 10;
    const int32_t is[] = {-10, -9, -6, -5, 4, 5, 9, 10, -11, INT32_MIN};
    const uint64_t iwant[] = {0, 0, 0, 1, 2, 3, 3, NONE, NONE, NONE}; /* 4 bins of 5 */
    gpi_hist_even p;
    size_t i;
    (void)state;
    gpi_hist_even_setup(GP_FLOAT32, 4, &lo, &hi, &p);
    for (i = 0; i < COUNT(xs); i++) {
        assert_int_equal(reference_bin(&p, GP_FLOAT32, &xs[i]), want[i]);
        assert_int_equal(kernel_bin(&p, GP_FLOAT32, &xs[i]), want[i]);
    }
    gpi_hist_even_setup(GP_INT32, 4, &ilo, &ihi, &p);
    for (i = 0; i < COUNT(is); i++) {
        assert_int_equal(reference_bin(&p, GP_INT32, &is[i]), iwant[i]);
        assert_int_equal(kernel_bin(&p, GP_INT32, &is[i]), iwant[i]);
    }
    { /* the largest double range: both ends counted, in the first and last bins */
        const double dlo = -DBL_MAX, dhi = DBL_MAX, a = -DBL_MAX, b = nextafter(DBL_MAX, 0), z = 0;
        gpi_hist_even_setup(GP_FLOAT64, 2, &dlo, &dhi, &p);
        assert_int_equal(reference_bin(&p, GP_FLOAT64, &a), 0);
        assert_int_equal(reference_bin(&p, GP_FLOAT64, &b), 1);
        assert_int_equal(reference_bin(&p, GP_FLOAT64, &z), 1);
    }
}

/* ---- range bins: the reference against a linear scan -------------------------------- */
static int less_at(gp_dtype d, const void *a, size_t i, const void *b, size_t j)
{
    if (is_float(d)) return get_f(d, a, i) < get_f(d, b, j);
    if (is_signed(d)) return (int64_t)get_i(d, a, i) < (int64_t)get_i(d, b, j);
    return get_i(d, a, i) < get_i(d, b, j);
}

/* bin i holds x iff b[i] <= x < b[i+1]: the first such i scanning upwards
 * from the end (equal boundaries make empty bins). */
static uint64_t scan_range_bin(gp_dtype d, const void *b, size_t bins, const void *x)
{
    size_t i;
    for (i = bins; i-- > 0;)
        if (!less_at(d, x, 0, b, i) && less_at(d, x, 0, b, i + 1)) return i;
    return NONE;
}

/* Boundaries: ascending with repeats; samples: on every boundary, between,
 * outside, NaN, -0.0. */
static void make_range_case(gp_dtype d, size_t bins, void *b, void *s, size_t n)
{
    size_t i;
    const int fl = is_float(d);
    int64_t cur = is_signed(d) || fl ? -(int64_t)bins * 2 : 5;
    for (i = 0; i <= bins; i++) {
        if (fl) put_f(d, b, i, (double)cur * 0.5);
        else put_i(d, b, i, (uint64_t)cur);
        cur += (int64_t)(gpt_rand64() % 4); /* 0: an empty bin */
    }
    if (fl) put_f(d, b, bins / 2, get_f(d, b, bins / 2) == 0 ? -0.0 : get_f(d, b, bins / 2));
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        const size_t j = (size_t)(r % (bins + 1));
        switch (r >> 60) {
        case 0: /* exactly a boundary */
            if (fl) put_f(d, s, i, get_f(d, b, j));
            else put_i(d, s, i, get_i(d, b, j));
            break;
        case 1: if (fl) put_f(d, s, i, NAN); else put_i(d, s, i, r); break;
        case 2: if (fl) put_f(d, s, i, -0.0); else put_i(d, s, i, 0); break;
        default: /* around the boundaries' span */
            if (fl) put_f(d, s, i, ((double)(int64_t)(r % (8 * bins + 8)) - 6.0 * (double)bins) * 0.5 + 0.25 * (double)(r >> 62));
            else put_i(d, s, i, get_i(d, b, 0) + (r % (4 * bins + 8)) - 4);
        }
    }
}

static void range_reference(void **state)
{
    static const size_t bin_counts[] = {1, 2, 7, 256, 3000};
    size_t di, bi, i;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (bi = 0; bi < COUNT(bin_counts); bi++) {
            const gp_dtype d = dtypes[di];
            const size_t bins = bin_counts[bi], n = 3000, es = gp_dtype_size(d);
            void *b = gpt_malloc((bins + 1) * es), *s = gpt_malloc(n * es);
            uint64_t *counts = gpt_malloc(bins * 8), *want = calloc(bins, 8);
            make_range_case(d, bins, b, s, n);
            for (i = 0; i < n; i++) {
                const uint64_t bin = scan_range_bin(d, b, bins, (const char *)s + i * es);
                if (bin != NONE) want[bin]++;
            }
            gpt_poison(counts, bins * 8);
            assert_int_equal(gpi_cpu_histogram_range(d, s, n, b, bins, GP_UINT64, counts), GP_SUCCESS);
            if (memcmp(counts, want, bins * 8) != 0) fail_msg("range %s, %zu bins: counts differ", gpt_dtype_name(d), bins);
            free(b);
            free(s);
            free(counts);
            free(want);
        }
}

/* ---- the backends against the reference -------------------------------------------- */
struct even_case { double flo, fhi; int64_t ilo, ihi; uint64_t bins; int skewed; };

static const struct even_case even_cases[] = {
    {0, 1, 0, 256, 256, 0},        /* small: privatized, several copies */
    {-1000, 1000, -7, 1000, 7, 0}, /* odd bin count */
    {-1000, 1000, -1000, 1000, 1, 0},
    {-1, 3, -30000, 100000, 65536, 0}, /* chunks of bins */
    {0, 1, 0, 256, 256, 1},        /* half the samples in one bin */
    {-2, 2, -400000, 400000, 600000, 0}, /* more chunks than privatization takes: global atomics */
    {-4096, 4096, -4096, 4096, 256, 1},  /* integer bins by shift (step 32), skewed */
    {-1, 1, 0, 257 * 4, 257, 0},         /* one bin past the per-lane counter copies */
    {-5, 5, -100000, 100000, 40000, 0},  /* one chunk, one block an SM */
    {-1, 3, 0, 1 << 17, 65536, 1},       /* two chunks, skewed, integer shift */
    {-1, 3, -30000, 100000, 57345, 0},   /* chunks of unequal size */
};

static void fill_even_samples(gp_dtype d, const struct even_case *c, void *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        const double u = gpt_uniform();
        if (is_float(d)) {
            const double w = c->fhi - c->flo;
            double v = c->flo - 0.1 * w + 1.2 * w * u;
            if (c->skewed && (r & 1)) v = c->flo + w * 0.3;
            if ((r >> 8) % 97 == 0) v = NAN;
            if ((r >> 8) % 89 == 0) v = -0.0;
            if ((r >> 8) % 83 == 0) v = c->fhi;
            put_f(d, s, i, v);
        } else {
            const int64_t lo = is_signed(d) ? c->ilo : c->ilo < 0 ? 0 : c->ilo;
            const uint64_t span = (uint64_t)(c->ihi - lo);
            uint64_t v = (uint64_t)lo - span / 10 + (uint64_t)(u * 1.2 * (double)span);
            if (c->skewed && (r & 1)) v = (uint64_t)lo + span / 3;
            if ((r >> 8) % 83 == 0) v = (uint64_t)c->ihi;
            put_i(d, s, i, v);
        }
    }
}

static void run_even(gp_context *ctx, gp_dtype d, gp_dtype cd, const struct even_case *c, size_t n)
{
    const size_t es = gp_dtype_size(d), cs = gp_dtype_size(cd), bins = c->bins;
    unsigned char lower[8], upper[8];
    gpi_hist_even p;
    void *s = gpt_malloc(n * es + 1), *ref = gpt_malloc(bins * cs), *got = gpt_malloc(bins * cs);
    void *ds, *dc;
    char what[128];
    if (is_float(d)) {
        put_f(d, lower, 0, c->flo);
        put_f(d, upper, 0, c->fhi);
    } else {
        put_i(d, lower, 0, (uint64_t)(is_signed(d) || c->ilo >= 0 ? c->ilo : 0));
        put_i(d, upper, 0, (uint64_t)c->ihi);
    }
    fill_even_samples(d, c, s, n);
    gpi_hist_even_setup(d, bins, lower, upper, &p);
    gpi_cpu_histogram_even(&p, s, n, cd, ref);
    ds = gpt_buffer_from(ctx, s, n * es + 1);
    dc = gpt_poisoned_buffer(ctx, bins * cs);
    GPT_OK(ctx, gp_histogram_even(ctx, d, ds, n, lower, upper, bins, cd, dc));
    gpt_buffer_to(ctx, got, dc, bins * cs);
    snprintf(what, sizeof what, "histogram_even %s, %s counts, %zu bins%s, n=%zu [%s]", gpt_dtype_name(d),
             gpt_dtype_name(cd), bins, c->skewed ? " skewed" : "", n, gpt_backend_name(ctx));
    if (memcmp(ref, got, bins * cs) != 0) {
        size_t i;
        for (i = 0; i < bins && count_at(cd, ref, i) == count_at(cd, got, i); i++) {}
        fail_msg("%s: bin %zu holds %llu, want %llu", what, i, (unsigned long long)count_at(cd, got, i),
                 (unsigned long long)count_at(cd, ref, i));
    }
    { /* the counts add up to the samples in range */
        size_t i, inside = 0;
        uint64_t total = 0;
        for (i = 0; i < bins; i++) total += count_at(cd, ref, i);
        for (i = 0; i < n; i++) inside += kernel_bin(&p, d, (const char *)s + i * es) != NONE;
        if (total != inside) fail_msg("%s: counts add up to %llu, %zu in range", what, (unsigned long long)total, inside);
    }
    gpt_buffer_free(ctx, ds);
    gpt_buffer_free(ctx, dc);
    free(s);
    free(ref);
    free(got);
}

static void even_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, ci, ki, si;
    for (di = 0; di < COUNT(dtypes); di++)
        for (ci = 0; ci < COUNT(count_dtypes); ci++)
            for (ki = 0; ki < COUNT(even_cases); ki++)
                for (si = 0; sizes[si] != SIZE_MAX; si++) {
                    /* the big bin counts at a few sizes only (the reference is per bin too) */
                    if (even_cases[ki].bins > 256 && sizes[si] > 70000 && sizes[si] != 1000003) continue;
                    if (ci == 1 && sizes[si] > 70000 && ki != 0) continue;
                    run_even(ctx, dtypes[di], count_dtypes[ci], &even_cases[ki], sizes[si]);
                }
}

/* Samples one element past a 16-byte boundary (the kernels' scalar path). */
static void even_unaligned_samples(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {1, 3, 33, 4097, 100003};
    size_t di, si;
    for (di = 0; di < COUNT(dtypes); di++)
        for (si = 0; si < COUNT(sizes) - (gpt_tiny() ? 1 : 0); si++) {
            const gp_dtype d = dtypes[di];
            const size_t es = gp_dtype_size(d), n = sizes[si], bins = 100;
            const double flo = -10, fhi = 10;
            const int32_t lo32 = 0, hi32 = 1000;
            const int64_t lo64 = 0, hi64 = 1000;
            const float flo32 = (float)flo, fhi32 = (float)fhi;
            const void *lower = d == GP_FLOAT32 ? (const void *)&flo32 : d == GP_FLOAT64 ? (const void *)&flo
                               : es == 4 ? (const void *)&lo32 : (const void *)&lo64;
            const void *upper = d == GP_FLOAT32 ? (const void *)&fhi32 : d == GP_FLOAT64 ? (const void *)&fhi
                               : es == 4 ? (const void *)&hi32 : (const void *)&hi64;
            char *s = gpt_malloc((n + 1) * es), *ds;
            uint64_t *ref = gpt_malloc(bins * 8), *got = gpt_malloc(bins * 8);
            void *dc;
            gpi_hist_even p;
            gpt_fill_random(d, s, n + 1, is_float(d) ? 0 : 1100);
            gpi_hist_even_setup(d, bins, lower, upper, &p);
            gpi_cpu_histogram_even(&p, s + es, n, GP_UINT64, ref);
            ds = gpt_buffer_from(ctx, s, (n + 1) * es);
            dc = gpt_poisoned_buffer(ctx, bins * 8);
            GPT_OK(ctx, gp_histogram_even(ctx, d, ds + es, n, lower, upper, bins, GP_UINT64, dc));
            gpt_buffer_to(ctx, got, dc, bins * 8);
            if (memcmp(ref, got, bins * 8) != 0) fail_msg("unaligned %s n=%zu: counts differ", gpt_dtype_name(d), n);
            gpt_buffer_free(ctx, ds);
            gpt_buffer_free(ctx, dc);
            free(s);
            free(ref);
            free(got);
        }
}

static void range_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t bin_counts[] = {1, 7, 256, 5000, 65536};
    const size_t *sizes = gpt_sizes();
    size_t di, bi, si, ci;
    for (di = 0; di < COUNT(dtypes); di++)
        for (bi = 0; bi < COUNT(bin_counts); bi++)
            for (ci = 0; ci < COUNT(count_dtypes); ci++)
                for (si = 0; sizes[si] != SIZE_MAX; si++) {
                    const gp_dtype d = dtypes[di], cd = count_dtypes[ci];
                    const size_t bins = bin_counts[bi], n = sizes[si], es = gp_dtype_size(d), cs = gp_dtype_size(cd);
                    void *b, *s, *ref, *got, *db, *ds, *dc;
                    if (bins > 256 && n > 70000 && n != 1000003) continue;
                    if (ci == 1 && n > 70000) continue;
                    b = gpt_malloc((bins + 1) * es);
                    s = gpt_malloc(n * es + 1);
                    ref = gpt_malloc(bins * cs);
                    got = gpt_malloc(bins * cs);
                    make_range_case(d, bins, b, s, n);
                    gpi_cpu_histogram_range(d, s, n, b, bins, cd, ref);
                    db = gpt_buffer_from(ctx, b, (bins + 1) * es);
                    ds = gpt_buffer_from(ctx, s, n * es + 1);
                    dc = gpt_poisoned_buffer(ctx, bins * cs);
                    GPT_OK(ctx, gp_histogram_range(ctx, d, ds, n, db, bins, cd, dc));
                    gpt_buffer_to(ctx, got, dc, bins * cs);
                    if (memcmp(ref, got, bins * cs) != 0)
                        fail_msg("histogram_range %s, %s counts, %zu bins, n=%zu [%s]: counts differ", gpt_dtype_name(d),
                                 gpt_dtype_name(cd), bins, n, gpt_backend_name(ctx));
                    gpt_buffer_free(ctx, db);
                    gpt_buffer_free(ctx, ds);
                    gpt_buffer_free(ctx, dc);
                    free(b);
                    free(s);
                    free(ref);
                    free(got);
                }
}

/* ---- bad arguments: each refused, nothing written ------------------------------------ */
static void histogram_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 64, bins = 16;
    void *s = gpt_poisoned_buffer(ctx, n * 8), *c = gpt_poisoned_buffer(ctx, bins * 8 + 8);
    void *b = gpt_poisoned_buffer(ctx, (bins + 1) * 8);
    char *cb = (char *)c, *sb = (char *)s;
    const float flo = 0, fhi = 1, fnan = NAN, finf = INFINITY;
    const int32_t ilo = 5, ihi = 5;
    const uint64_t ulo = 0, uhi = 10;

#define EVEN(...) gp_histogram_even(__VA_ARGS__)
    assert_int_equal(EVEN(NULL, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, (gp_dtype)0, s, n, &flo, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, (gp_dtype)77, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_INT32, c), GP_ERROR_UNSUPPORTED);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_FLOAT64, c), GP_ERROR_UNSUPPORTED);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, 0, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, (size_t)UINT32_MAX + 1, GP_UINT32, c),
                     GP_ERROR_UNSUPPORTED);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, NULL, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, NULL, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &fhi, &flo, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &flo, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &fnan, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &finf, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_INT32, s, n, &ilo, &ihi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_UINT64, s, n, &uhi, &ulo, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, NULL, n, &flo, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_UINT32, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT64, s, SIZE_MAX / 4, &flo, &fhi, bins, GP_UINT64, c), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, (size_t)UINT32_MAX + 1, &flo, &fhi, bins, GP_UINT32, c),
                     GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_UINT32, sb + 8), GP_ERROR_OVERLAP);
    assert_int_equal(EVEN(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_UINT64, cb + 4), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(EVEN(ctx, GP_FLOAT64, sb + 4, n - 1, &flo, &fhi, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
#undef EVEN
    assert_int_equal(gp_histogram_range(NULL, GP_INT32, s, n, b, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_histogram_range(ctx, (gp_dtype)9, s, n, b, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, NULL, bins, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, b, 0, GP_UINT32, c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, b, bins, GP_INT64, c), GP_ERROR_UNSUPPORTED);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, b, bins, GP_UINT32, b), GP_ERROR_OVERLAP);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, b, bins, GP_UINT32, s), GP_ERROR_OVERLAP);
    assert_int_equal(gp_histogram_range(ctx, GP_INT64, s, n, (char *)b + 4, bins - 1, GP_UINT32, c),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, b, (size_t)UINT32_MAX + 1, GP_UINT32, c),
                     GP_ERROR_UNSUPPORTED);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[512];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_histogram_even(ctx, GP_FLOAT32, host, n, &flo, &fhi, bins, GP_UINT32, c),
                         GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_histogram_even(ctx, GP_FLOAT32, s, n, &flo, &fhi, bins, GP_UINT32, host),
                         GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_histogram_range(ctx, GP_INT32, s, n, host, bins, GP_UINT32, c), GP_ERROR_WRONG_MEMORY);
        gpt_expect_poison(host, 0, sizeof host, "host memory given to CUDA");
    }
    gpt_expect_untouched(ctx, c, bins * 8 + 8);
    gpt_expect_untouched(ctx, s, n * 8);
    gpt_expect_untouched(ctx, b, (bins + 1) * 8);
    /* n == 0 overwrites every bin with zero, and needs no samples */
    {
        uint32_t got[16];
        GPT_OK(ctx, gp_histogram_even(ctx, GP_FLOAT32, NULL, 0, &flo, &fhi, bins, GP_UINT32, c));
        gpt_buffer_to(ctx, got, c, sizeof got);
        for (size_t i = 0; i < bins; i++) assert_int_equal(got[i], 0);
    }
    gpt_buffer_free(ctx, s);
    gpt_buffer_free(ctx, c);
    gpt_buffer_free(ctx, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(even_integer_reference),
        cmocka_unit_test(even_float_reference),
        cmocka_unit_test(even_edges_exact),
        cmocka_unit_test(range_reference),
        GPT_TEST_BOTH(even_matches_reference),
        GPT_TEST_BOTH(even_unaligned_samples),
        GPT_TEST_BOTH(range_matches_reference),
        GPT_TEST_BOTH(histogram_bad_arguments),
    };
    return cmocka_run_group_tests_name("histogram", tests, NULL, NULL);
}
