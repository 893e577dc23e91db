/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argminmax.h - arg-min and arg-max: the extreme value and where it first
 * occurs. Part of the gpuprim manual (see gpuprim.h). C99, also C++.
 */
#ifndef GPUPRIM_ARGMINMAX_H
#define GPUPRIM_ARGMINMAX_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *index_host receives the lowest index i with in[i] the smallest
 * (gp_argmin) or largest (gp_argmax) of the n elements of `in`, as uint64;
 * *value_host (host memory, one element of `dtype`; may be NULL when only
 * the index is wanted) receives in[i], bits and all.
 * NaNs are skipped, as in gp_reduce. -0.0 and +0.0 compare equal, so the
 * first of them wins a tie. When there is no candidate (n == 0, or every
 * element is NaN) the call succeeds with *index_host = n and *value_host =
 * the identity of MIN (the type's largest value, +inf for floats) or of MAX
 * (its lowest, -inf): an index of n means "none", as an end iterator does.
 * `in` is a buffer of n elements. Synchronizes the stream (the result comes
 * back to the host). All dtypes. */
GP_API gp_status gp_argmin(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host,
                           uint64_t *index_host);
GP_API gp_status gp_argmax(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *value_host,
                           uint64_t *index_host);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_ARGMINMAX_H */
