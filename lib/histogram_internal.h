/* SPDX-License-Identifier: BSD-3-Clause */
/* histogram_internal.h - what lib/histogram.c, lib/cpu/histogram.c and
 * lib/cuda/histogram.cu share: the even-bin parameters worked out once on
 * the host from the checked arguments, the bin formula as host/device code
 * (the CUDA kernels' form; the CPU backend writes the same formula out
 * plainly), and the backend entry points. Never installed. */
#ifndef GPUPRIM_HISTOGRAM_INTERNAL_H
#define GPUPRIM_HISTOGRAM_INTERNAL_H

#include "internal.h"
#include <gpuprim/histogram.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How an integer sample's offset d = x - lower (0 <= d < range) becomes
 * floor(d * bins / range), exactly, in the cheapest form the arguments
 * allow (the device picks nothing per sample: the form is set once). */
enum {
    GPI_HIST_INT_SHIFT = 1,  /* range = bins * 2^shift: d >> shift */
    GPI_HIST_INT_DIV = 2,    /* range = bins * step: d / step */
    GPI_HIST_INT_MULDIV = 3, /* (range - 1) * bins fits 64 bits: d * bins / range */
    GPI_HIST_INT_WIDE = 4    /* otherwise: the same in 128 bits */
};

/* How a float sample's offset u becomes t (see histogram.h). */
enum {
    GPI_HIST_FLOAT_SCALE = 1,     /* scale = B / width is a normal number: t = u * scale */
    GPI_HIST_FLOAT_BIN_WIDTH = 2, /* scale below DBL_MIN (width near DBL_MAX): t = u / (width / B) */
    GPI_HIST_FLOAT_TINY = 3       /* scale overflows (width below about B / DBL_MAX): t = (u * B) / width */
};

typedef struct gpi_hist_even {
    gp_dtype dtype;
    uint64_t bins;      /* 1 .. 2^32 - 1 */
    /* integers: bounds as 64-bit words (signed types sign-extended) */
    int64_t lo_s, hi_s; /* signed dtypes */
    uint64_t lo_u, hi_u; /* unsigned dtypes; for signed ones, lo_s as bits */
    uint64_t range;     /* upper - lower, exact (1 .. 2^64 - 1) */
    int int_form;       /* GPI_HIST_INT_* */
    uint64_t step;
    unsigned shift;
    /* floats: see histogram.h */
    double lo, hi;      /* the bounds as doubles */
    int halve;          /* hi - lo overflowed: u = x*0.5 - lo*0.5 */
    double lo_term;     /* lo, or lo*0.5 when halving */
    double width;       /* hi - lo, or hi*0.5 - lo*0.5 */
    double bins_d;      /* (double)bins */
    int float_form;     /* GPI_HIST_FLOAT_* */
    double scale;       /* bins / width */
    double bin_width;   /* width / bins */
} gpi_hist_even;

/* Work out the parameters; the arguments are already checked (lower <
 * upper, finite for floats, 1 <= bins < 2^32). Host memory bounds. */
void gpi_hist_even_setup(gp_dtype dtype, size_t bins, const void *lower_host, const void *upper_host,
                         gpi_hist_even *p);

/* ---- the bin formula as the CUDA kernels evaluate it (also compiled on the
 * host, where the tests hold it against the CPU backend). Returns the bin,
 * or UINT32_MAX for a sample not counted. */
#ifdef __CUDA_ARCH__ /* device code: operations nvcc may not contract into FMAs */
#define GPI_DSUB(a, b) __dsub_rn((a), (b))
#define GPI_DMUL(a, b) __dmul_rn((a), (b))
#define GPI_DDIV(a, b) __ddiv_rn((a), (b))
#else /* host code: lib/ builds C with -ffp-contract=off */
#define GPI_DSUB(a, b) ((a) - (b))
#define GPI_DMUL(a, b) ((a) * (b))
#define GPI_DDIV(a, b) ((a) / (b))
#endif

#define GPI_HIST_NONE 0xffffffffu

/* d in [0, range): floor(d * bins / range). */
static inline GPI_HOSTDEV uint32_t gpi_hist_int_offset_bin(const gpi_hist_even *p, uint64_t d)
{
    switch (p->int_form) {
    case GPI_HIST_INT_SHIFT: return (uint32_t)(d >> p->shift);
    case GPI_HIST_INT_DIV: return (uint32_t)(d / p->step);
    case GPI_HIST_INT_MULDIV: return (uint32_t)(d * p->bins / p->range);
    default: {
        __extension__ typedef unsigned __int128 u128;
        return (uint32_t)((u128)d * p->bins / p->range);
    }
    }
}

static inline GPI_HOSTDEV uint32_t gpi_hist_signed_bin(const gpi_hist_even *p, int64_t x)
{
    if (x < p->lo_s || x >= p->hi_s) return GPI_HIST_NONE;
    return gpi_hist_int_offset_bin(p, (uint64_t)x - (uint64_t)p->lo_s);
}

static inline GPI_HOSTDEV uint32_t gpi_hist_unsigned_bin(const gpi_hist_even *p, uint64_t x)
{
    if (x < p->lo_u || x >= p->hi_u) return GPI_HIST_NONE;
    return gpi_hist_int_offset_bin(p, x - p->lo_u);
}

/* x: the sample as a double (float samples converted exactly); the range
 * test is done in double too, which for a float sample and float bounds
 * gives the float comparison's answer. */
static inline GPI_HOSTDEV uint32_t gpi_hist_float_bin(const gpi_hist_even *p, double x)
{
    double u, t;
    uint64_t b;
    if (!(x >= p->lo && x < p->hi)) return GPI_HIST_NONE; /* NaN fails both */
    u = p->halve ? GPI_DSUB(GPI_DMUL(x, 0.5), p->lo_term) : GPI_DSUB(x, p->lo_term);
    if (p->float_form == GPI_HIST_FLOAT_SCALE) t = GPI_DMUL(u, p->scale);
    else if (p->float_form == GPI_HIST_FLOAT_BIN_WIDTH) t = GPI_DDIV(u, p->bin_width);
    else t = GPI_DDIV(GPI_DMUL(u, p->bins_d), p->width);
    b = (uint64_t)t; /* t >= 0 and at most about bins: truncation is floor */
    return (uint32_t)(b < p->bins ? b : p->bins - 1);
}

/* ---- backends: arguments checked, counts a buffer of bins counters ------ */
gp_status gpi_cpu_histogram_even(const gpi_hist_even *p, const void *samples, size_t n, gp_dtype count_dtype,
                                 void *counts);
gp_status gpi_cpu_histogram_range(gp_dtype dtype, const void *samples, size_t n, const void *boundaries,
                                  size_t bins, gp_dtype count_dtype, void *counts);
/* The same on `threads` threads (gpi_cpu_threads): the same counts whatever
 * the count of threads. */
gp_status gpi_cpu_histogram_even_threads(const gpi_hist_even *p, const void *samples, size_t n,
                                         gp_dtype count_dtype, void *counts, int threads);
gp_status gpi_cpu_histogram_range_threads(gp_dtype dtype, const void *samples, size_t n, const void *boundaries,
                                          size_t bins, gp_dtype count_dtype, void *counts, int threads);
gp_status gpi_cuda_histogram_even(gp_context *ctx, const gpi_hist_even *p, const void *samples, size_t n,
                                  gp_dtype count_dtype, void *counts);
gp_status gpi_cuda_histogram_range(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                                   const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts);

#ifdef __cplusplus
}
#endif

#endif
