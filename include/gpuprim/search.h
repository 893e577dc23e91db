/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * search.h - primitives on sorted data: sorted search, merge and top-k.
 *
 * C99, also usable from C++. The model of gpuprim.h holds here too
 * (contexts, buffers, statuses, outputs untouched on error, size_t sizes).
 *
 * Key order: the order gp_sort defines (gpuprim.h), for every gp_dtype:
 * integers numerically; floats in IEEE total order, -inf < negative < -0.0
 * < +0.0 < positive < +inf < NaNs, positive NaNs (ascending by payload)
 * then negative NaNs (descending by payload). GP_SORT_DESCENDING is the
 * reverse order (NaNs first). Keys are compared through their order images
 * (bit patterns, never floating-point comparisons), so both backends give
 * the same results bit for bit, and keys keep their bits (-0.0 stays -0.0,
 * NaN payloads survive).
 */
#ifndef GPUPRIM_SEARCH_H
#define GPUPRIM_SEARCH_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sorted search ---------------------------------------------------------------
 * keys: a buffer of n keys of key_dtype, sorted in `order` (the caller's
 * promise). needles: a buffer of m keys of the same dtype, in any order.
 * positions_out[i] receives, as uint64:
 *   gp_lower_bound: the first position p in [0, n] whose key is not before
 *                   needles[i] in `order` (keys[p] >= needle ascending,
 *                   <= descending); n when there is none;
 *   gp_upper_bound: the first position p whose key is after needles[i]
 *                   (keys[p] > needle ascending, < descending).
 * So [lower, upper) is the run of keys equal to the needle in the order
 * (-0.0 and +0.0 are distinct keys; a NaN equals only the same bits).
 * If keys are not sorted, each position is still some value in [0, n] and
 * nothing outside the buffers is read or written, but which one is
 * unspecified. m == 0 does nothing; n == 0 writes zeros. positions_out may
 * not overlap keys or needles (keys and needles may overlap each other).
 * Asynchronous on the CUDA backend. For large inputs (keys of 64 MiB or
 * more, and many needles) the CUDA search first indexes the keys (one key
 * for every 128 bytes of keys) in the context's workspace; where
 * that scratch cannot be had it searches without the index. */
GP_API gp_status gp_lower_bound(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                                const void *keys, size_t n, const void *needles, size_t m,
                                uint64_t *positions_out);
GP_API gp_status gp_upper_bound(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                                const void *keys, size_t n, const void *needles, size_t m,
                                uint64_t *positions_out);

/* ---- merge ---------------------------------------------------------------------------
 * a_keys (na keys) and b_keys (nb keys), each sorted in `order` (the
 * caller's promise), are merged into keys_out (na + nb keys), sorted in
 * `order`. Stable: of equal keys, those of a come first, each array's in
 * their input order. If an input is not sorted, keys_out still receives
 * na + nb keys taken from the inputs, but which ones and in what order is
 * unspecified (the backends may differ); nothing outside the buffers is
 * read or written. keys_out may not overlap a_keys or b_keys (the
 * inputs may overlap each other). Asynchronous on the CUDA backend. */
GP_API gp_status gp_merge_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                               const void *a_keys, size_t na, const void *b_keys, size_t nb,
                               void *keys_out);

/* Key-value pairs: a_values (na values) travel with a_keys, b_values with
 * b_keys, into values_out. value_size is 4 or 8 (bytes, copied as they
 * are). No output may overlap any input, nor keys_out values_out. */
GP_API gp_status gp_merge_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                                const void *a_keys, const void *a_values, size_t na,
                                const void *b_keys, const void *b_values, size_t nb,
                                size_t value_size, void *keys_out, void *values_out);

/* ---- top-k ----------------------------------------------------------------------------
 * The first k of keys_in (n keys) in `order`, exactly as the first k
 * elements of a stable gp_sort_pairs in that order: GP_SORT_ASCENDING gives
 * the k smallest, ascending (NaNs rank last: they are taken only when
 * fewer than k keys are not NaN); GP_SORT_DESCENDING gives the k largest,
 * descending (NaNs rank first: the largest keys of all, negative NaNs
 * before positive ones, as in a descending sort). Of equal keys the one
 * with the lower index comes first, so the result is deterministic.
 * 1 <= k <= n, else GP_ERROR_INVALID_ARGUMENT (so n == 0 is always an error).
 * keys_out receives k keys. value_size 0: keys only (values_in and
 * values_out are ignored). value_size 4 or 8: values_out receives k
 * values, the values_in (n values) of the chosen keys, or with values_in
 * NULL their positions in keys_in as uint32 (value_size 4, n <= 2^32, else
 * GP_ERROR_SIZE_OVERFLOW) or uint64 (value_size 8). No output may overlap
 * any input, nor keys_out values_out.
 * CUDA: asynchronous (nothing comes back to the host); scratch of about
 * 2 x k x (key size + 8) bytes, plus up to 2^22 x (key size + 8) bytes of
 * candidates when k is below about 2^21, plus the sort's, from the
 * workspace. CPU: host scratch of 16 bytes a candidate (at most n, about
 * 4k a thread when k is small), allocated by the call;
 * GP_ERROR_OUT_OF_MEMORY when it cannot be had. */
GP_API gp_status gp_top_k(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                          const void *keys_in, size_t n, size_t k, void *keys_out,
                          size_t value_size, const void *values_in, void *values_out);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_SEARCH_H */
