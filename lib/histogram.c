/* SPDX-License-Identifier: BSD-3-Clause */
/* histogram.c - gp_histogram_even and gp_histogram_range: argument checks,
 * the even-bin parameters, then the backend. */
#include "histogram_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int is_float(gp_dtype d) { return d == GP_FLOAT32 || d == GP_FLOAT64; }
static int is_signed(gp_dtype d) { return d == GP_INT32 || d == GP_INT64; }

/* One element of dtype (host memory): as a double for the float dtypes, as
 * its 64 bits for the integer ones (GP_INT32 sign-extended, two's
 * complement). */
typedef union host_value {
    double d;
    uint64_t u;
} host_value;

static host_value load_value(gp_dtype d, const void *p)
{
    host_value v;
    float f;
    int32_t i;
    uint32_t u;
    switch (d) {
    case GP_FLOAT32: memcpy(&f, p, 4), v.d = f; break;
    case GP_FLOAT64: memcpy(&v.d, p, 8); break;
    case GP_INT32: memcpy(&i, p, 4), v.u = (uint64_t)(int64_t)i; break;
    case GP_UINT32: memcpy(&u, p, 4), v.u = u; break;
    default: memcpy(&v.u, p, 8); break;
    }
    return v;
}

static double as_double(gp_dtype d, const void *p) { return load_value(d, p).d; }
static uint64_t as_bits64(gp_dtype d, const void *p) { return load_value(d, p).u; }

void gpi_hist_even_setup(gp_dtype dtype, size_t bins, const void *lower_host, const void *upper_host,
                         gpi_hist_even *p)
{
    memset(p, 0, sizeof *p);
    p->dtype = dtype;
    p->bins = bins;
    p->bins_d = (double)bins;
    if (is_float(dtype)) {
        p->lo = as_double(dtype, lower_host);
        p->hi = as_double(dtype, upper_host);
        p->width = p->hi - p->lo;
        p->lo_term = p->lo;
        if (isinf(p->width)) {
            p->halve = 1;
            p->lo_term = p->lo * 0.5;
            p->width = p->hi * 0.5 - p->lo_term;
        }
        p->scale = p->bins_d / p->width;
        p->bin_width = p->width / p->bins_d;
        p->float_form = isinf(p->scale)        ? GPI_HIST_FLOAT_TINY
                        : p->scale < DBL_MIN ? GPI_HIST_FLOAT_BIN_WIDTH
                                             : GPI_HIST_FLOAT_SCALE;
        return;
    }
    p->lo_u = as_bits64(dtype, lower_host);
    p->hi_u = as_bits64(dtype, upper_host);
    if (is_signed(dtype)) { /* the same bits as int64 */
        memcpy(&p->lo_s, &p->lo_u, 8);
        memcpy(&p->hi_s, &p->hi_u, 8);
    }
    p->range = p->hi_u - p->lo_u; /* modulo 2^64: the exact difference, as upper > lower */
    if (p->range % p->bins == 0) {
        p->step = p->range / p->bins;
        if ((p->step & (p->step - 1)) == 0) {
            p->int_form = GPI_HIST_INT_SHIFT;
            while (((uint64_t)1 << p->shift) != p->step) p->shift++;
        } else {
            p->int_form = GPI_HIST_INT_DIV;
        }
    } else if (p->range - 1 <= UINT64_MAX / p->bins) {
        p->int_form = GPI_HIST_INT_MULDIV;
    } else {
        p->int_form = GPI_HIST_INT_WIDE;
    }
}

/* What both calls check about the samples and counts; gives their byte
 * counts. */
static gp_status check_common(gp_context *ctx, const char *fn, gp_dtype dtype, const void *samples, size_t n,
                              size_t bins, gp_dtype count_dtype, const void *counts, size_t *sample_bytes,
                              size_t *count_bytes)
{
    size_t es, cs;
    gp_status s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!gpi_valid_dtype(count_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown count dtype %d", fn, (int)count_dtype);
    if (count_dtype != GP_UINT32 && count_dtype != GP_UINT64)
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED, "%s: counts must be GP_UINT32 or GP_UINT64", fn);
    if (bins == 0) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: bins is 0", fn);
    if ((uint64_t)bins > UINT32_MAX)
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED, "%s: %zu bins (at most 2^32 - 1)", fn, bins);
    es = gp_dtype_size(dtype);
    cs = gp_dtype_size(count_dtype);
    if (gpi_mul_size(n, es, sample_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu samples overflow a byte count", fn, n);
    if (gpi_mul_size(bins, cs, count_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu bins overflow a byte count", fn, bins);
    if (count_dtype == GP_UINT32 && (uint64_t)n > UINT32_MAX)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu samples could overflow GP_UINT32 counts", fn, n);
    if ((s = gpi_check_buffer(ctx, samples, *sample_bytes, "samples"))) return s;
    if ((s = gpi_check_buffer(ctx, counts, *count_bytes, "counts"))) return s;
    if (gpi_overlap(counts, *count_bytes, samples, *sample_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: counts overlaps samples", fn);
    if ((n && (uintptr_t)samples % es) || (uintptr_t)counts % cs)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    return GP_SUCCESS;
}

gp_status gp_histogram_even(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n, const void *lower_host,
                            const void *upper_host, size_t bins, gp_dtype count_dtype, void *counts)
{
    static const char fn[] = "gp_histogram_even";
    size_t sample_bytes, count_bytes;
    gpi_hist_even p;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = check_common(ctx, fn, dtype, samples, n, bins, count_dtype, counts, &sample_bytes, &count_bytes)))
        return s;
    if (!lower_host || !upper_host)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, lower_host ? "upper" : "lower");
    if (is_float(dtype)) {
        const double lo = as_double(dtype, lower_host), hi = as_double(dtype, upper_host);
        if (!isfinite(lo) || !isfinite(hi))
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a bound is not finite", fn);
        if (!(lo < hi)) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: lower %g >= upper %g", fn, lo, hi);
    } else {
        const uint64_t flip = is_signed(dtype) ? (uint64_t)1 << 63 : 0; /* signed order as unsigned order */
        if ((as_bits64(dtype, lower_host) ^ flip) >= (as_bits64(dtype, upper_host) ^ flip))
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: lower >= upper", fn);
    }
    gpi_hist_even_setup(dtype, bins, lower_host, upper_host, &p);
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_histogram_even(ctx, &p, samples, n, count_dtype, counts);
    return gpi_cpu_histogram_even_threads(&p, samples, n, count_dtype, counts, gpi_cpu_threads(ctx));
}

gp_status gp_histogram_range(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                             const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts)
{
    static const char fn[] = "gp_histogram_range";
    size_t sample_bytes, count_bytes, bound_bytes;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = check_common(ctx, fn, dtype, samples, n, bins, count_dtype, counts, &sample_bytes, &count_bytes)))
        return s;
    if (gpi_mul_size(bins + 1, gp_dtype_size(dtype), &bound_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu bins overflow a byte count", fn, bins);
    if ((s = gpi_check_buffer(ctx, boundaries, bound_bytes, "boundaries"))) return s;
    if (gpi_overlap(counts, count_bytes, boundaries, bound_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: counts overlaps boundaries", fn);
    if ((uintptr_t)boundaries % gp_dtype_size(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: boundaries is not aligned to its element size", fn);
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_histogram_range(ctx, dtype, samples, n, boundaries, bins, count_dtype, counts);
    return gpi_cpu_histogram_range_threads(dtype, samples, n, boundaries, bins, count_dtype, counts,
                                           gpi_cpu_threads(ctx));
}
