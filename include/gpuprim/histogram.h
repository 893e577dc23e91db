/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * histogram.h - histograms of samples: bins of even width, or bins between
 * the caller's boundaries. C99, also usable from C++. The model (contexts,
 * buffers, statuses, asynchronous calls) is gpuprim.h's.
 *
 * Common rules
 *   - Samples are n elements of any gp_dtype, in a buffer, aligned to their
 *     size. A sample outside the histogram's range, and a NaN, is not
 *     counted.
 *   - counts is a buffer of `bins` counters of count_dtype: GP_UINT32 or
 *     GP_UINT64 (another known dtype: GP_ERROR_UNSUPPORTED), aligned to its
 *     size. The call OVERWRITES counts (every bin is written, zero where no
 *     sample fell): as every other output of the library, counts is never
 *     read, so there is nothing to clear first and no stale value can leak
 *     in. To accumulate over chunks, histogram each chunk into its own
 *     counts, or use 64-bit counts over the whole input at once.
 *   - GP_UINT32 counts need n <= 2^32 - 1 (else GP_ERROR_SIZE_OVERFLOW), so
 *     a counter can never wrap.
 *   - counts may not overlap samples (or boundaries): GP_ERROR_OVERLAP.
 *   - n == 0 writes zeros into every bin.
 *   - Asynchronous on the CUDA backend. Counts are exact integers: the CUDA
 *     and CPU backends give the same counts bit for bit.
 */
#ifndef GPUPRIM_HISTOGRAM_H
#define GPUPRIM_HISTOGRAM_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- even bins ----------------------------------------------------------------
 * `bins` bins of equal width over [lower, upper). lower_host and upper_host
 * point to ONE element each of the sample's dtype, in host memory: the
 * bounds are given in the sample's own type, so 64-bit integer bounds are
 * exact (a double cannot hold every int64), and a float sample's range test
 * is the comparison the caller would write. Require lower < upper, both
 * finite for floats (else GP_ERROR_INVALID_ARGUMENT); bins from 1 to
 * 2^32 - 1 (0: GP_ERROR_INVALID_ARGUMENT; more: GP_ERROR_UNSUPPORTED).
 *
 * A sample x is counted iff lower <= x < upper, compared in its dtype (NaN
 * never is; -0.0 equals +0.0). Its bin:
 *   integers: bin = floor((x - lower) * bins / (upper - lower)), evaluated
 *     exactly (as 128-bit integers): no rounding, every bin of an evenly
 *     divisible range holds the same number of values.
 *   floats (float samples are first converted to double, exactly): in
 *     double arithmetic, each operation rounded to nearest even, no fused
 *     multiply-add, with lo = (double)lower, hi = (double)upper, B =
 *     (double)bins:
 *       width = hi - lo. If it overflows to infinity (doubles only), then
 *         u = x*0.5 - lo*0.5 and width = hi*0.5 - lo*0.5; else u = x - lo.
 *       scale = B / width. If scale is a normal number: t = u * scale;
 *         if it is below DBL_MIN (width near DBL_MAX): t = u / (width / B);
 *         if it overflows (width below about B / DBL_MAX): t = (u * B) / width.
 *       (So no intermediate overflows or loses precision to subnormals.)
 *       bin = min(floor(t), bins - 1)   (t >= 0 always; rounding can push a
 *         sample just below upper to t >= bins: it joins the last bin).
 *     A sample exactly on an interior edge lower + i*(upper-lower)/bins
 *     may fall on either side of it by rounding; the formula decides, and
 *     both backends evaluate it identically.
 */
GP_API gp_status gp_histogram_even(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                                   const void *lower_host, const void *upper_host, size_t bins,
                                   gp_dtype count_dtype, void *counts);

/* ---- bins between boundaries ------------------------------------------------------
 * boundaries is a BUFFER of bins + 1 elements of the sample's dtype, aligned
 * to its size; bin i is [boundaries[i], boundaries[i+1]). bins from 1 to
 * 2^32 - 1, as for even bins. A sample x is counted iff boundaries[0] <= x <
 * boundaries[bins] (NaN never is); its bin is the largest i with
 * boundaries[i] <= x (a binary search), so an empty bin (two equal
 * boundaries) receives nothing.
 * The boundaries must be non-decreasing and, for floats, free of NaN: that
 * is the caller's promise, not checked (on CUDA a check would cost a pass
 * and a synchronization). Where it is broken the counts are unspecified,
 * but nothing outside counts is written and the call still succeeds. */
GP_API gp_status gp_histogram_range(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                                    const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_HISTOGRAM_H */
