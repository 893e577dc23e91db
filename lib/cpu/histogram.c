/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/histogram.c - reference histograms: one plain loop over the samples,
 * the bin formula of histogram.h written out as it reads there. The
 * threaded forms are in cpu/histogram_threads.c. */
#include "histogram_internal.h"

#include <string.h>

typedef unsigned __int128 gpi_u128;

static void count_one(gp_dtype count_dtype, void *counts, uint64_t bin)
{
    if (count_dtype == GP_UINT32) ((uint32_t *)counts)[bin]++;
    else ((uint64_t *)counts)[bin]++;
}

/* x - lower as an exact offset, then floor(offset * bins / range). */
static uint64_t int_bin(const gpi_hist_even *p, uint64_t offset)
{
    return (uint64_t)((gpi_u128)offset * p->bins / p->range);
}

static uint64_t float_bin(const gpi_hist_even *p, double x)
{
    const double u = p->halve ? x * 0.5 - p->lo * 0.5 : x - p->lo;
    const double t = p->float_form == GPI_HIST_FLOAT_SCALE       ? u * p->scale
                     : p->float_form == GPI_HIST_FLOAT_BIN_WIDTH ? u / (p->width / p->bins_d)
                                                                 : (u * p->bins_d) / p->width;
    const uint64_t b = (uint64_t)t;
    return b < p->bins ? b : p->bins - 1;
}

gp_status gpi_cpu_histogram_even(const gpi_hist_even *p, const void *samples, size_t n, gp_dtype count_dtype,
                                 void *counts)
{
    size_t i;
    memset(counts, 0, p->bins * gp_dtype_size(count_dtype));
    for (i = 0; i < n; i++) {
        switch (p->dtype) {
        case GP_INT32:
        case GP_INT64: {
            const int64_t x = p->dtype == GP_INT32 ? ((const int32_t *)samples)[i] : ((const int64_t *)samples)[i];
            if (x >= p->lo_s && x < p->hi_s) count_one(count_dtype, counts, int_bin(p, (uint64_t)x - (uint64_t)p->lo_s));
            break;
        }
        case GP_UINT32:
        case GP_UINT64: {
            const uint64_t x = p->dtype == GP_UINT32 ? ((const uint32_t *)samples)[i] : ((const uint64_t *)samples)[i];
            if (x >= p->lo_u && x < p->hi_u) count_one(count_dtype, counts, int_bin(p, x - p->lo_u));
            break;
        }
        default: {
            const double x = p->dtype == GP_FLOAT32 ? ((const float *)samples)[i] : ((const double *)samples)[i];
            if (x >= p->lo && x < p->hi) count_one(count_dtype, counts, float_bin(p, x));
            break;
        }
        }
    }
    return GP_SUCCESS;
}

/* a < b in the dtype, elements of two arrays. */
static int less(gp_dtype d, const void *a, size_t i, const void *b, size_t j)
{
    switch (d) {
    case GP_INT32: return ((const int32_t *)a)[i] < ((const int32_t *)b)[j];
    case GP_UINT32: return ((const uint32_t *)a)[i] < ((const uint32_t *)b)[j];
    case GP_INT64: return ((const int64_t *)a)[i] < ((const int64_t *)b)[j];
    case GP_UINT64: return ((const uint64_t *)a)[i] < ((const uint64_t *)b)[j];
    case GP_FLOAT32: return ((const float *)a)[i] < ((const float *)b)[j];
    default: return ((const double *)a)[i] < ((const double *)b)[j];
    }
}

gp_status gpi_cpu_histogram_range(gp_dtype dtype, const void *samples, size_t n, const void *boundaries,
                                  size_t bins, gp_dtype count_dtype, void *counts)
{
    size_t i;
    memset(counts, 0, bins * gp_dtype_size(count_dtype));
    for (i = 0; i < n; i++) {
        size_t lo = 0, len = bins + 1;
        /* counted iff b[0] <= x < b[bins]: !(x < b[0]) alone would let NaN in */
        if (less(dtype, samples, i, boundaries, 0) || !less(dtype, samples, i, boundaries, bins)) continue;
        /* upper bound: the number of boundaries <= x (at least 1, at most bins) */
        while (len > 0) {
            const size_t half = len / 2;
            if (!less(dtype, samples, i, boundaries, lo + half)) {
                lo += half + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        count_one(count_dtype, counts, lo - 1);
    }
    return GP_SUCCESS;
}
