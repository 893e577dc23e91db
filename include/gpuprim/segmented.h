/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * segmented.h - segmented reduce, scan and sort, and scan-by-key.
 *
 * Part of the gpuprim manual (see gpuprim.h for the model: contexts,
 * buffers, statuses, dtypes). C99, also usable from C++.
 *
 * Segments
 *   A segmented call takes n_segments + 1 ascending uint64 offsets (the
 *   CUB/CCCL convention): segment s is the elements [offsets[s],
 *   offsets[s+1]) of the array; empty segments are allowed. `offsets` is a
 *   buffer of the context's backend (8-byte aligned) holding n_segments + 1
 *   entries, also when n_segments == 0. Elements outside
 *   [offsets[0], offsets[n_segments]) belong to no segment: they are read by
 *   nothing and their outputs are not written.
 *   The offsets must be ascending (offsets[s] <= offsets[s+1]) and within
 *   the array (offsets[n_segments] <= n):
 *     - the CPU backend checks this before any work and returns
 *       GP_ERROR_INVALID_ARGUMENT (outputs untouched) when it does not hold;
 *     - the CUDA backend does not check (that would cost a pass over the
 *       offsets and a synchronization): it is the caller's promise. Broken
 *       offsets give unspecified results, but never a read or write out of
 *       bounds: each offset is clamped to n, and a segment whose end lies
 *       before its start is empty.
 *
 * Operators and identities are gp_scan's (gpuprim.h): integer sums wrap,
 * MIN/MAX skip NaN, an empty segment (or an all-NaN one for MIN/MAX) gives
 * the identity: 0 for SUM, the type's largest value (+inf) for MIN, its
 * lowest (-inf) for MAX. Which of -0.0 and +0.0 MIN/MAX return over equal
 * zeros is unspecified.
 */
#ifndef GPUPRIM_SEGMENTED_H
#define GPUPRIM_SEGMENTED_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- segmented reduce -----------------------------------------------------
 * out[s] = op over segment s of `in`, for s in [0, n_segments); the
 * identity for an empty segment. in holds n elements of `dtype`, out
 * n_segments; both are buffers, out may not overlap in or offsets
 * (GP_ERROR_OVERLAP). Asynchronous on the CUDA backend.
 * Float sums add each segment in gp_reduce's fixed tree (gpuprim.h) laid
 * over that segment alone: blocks of 4096 of the segment's elements, counted
 * from its start, each added as 256 strided threads, lane pairs 16..1 apart,
 * then ((w0+w4) + (w2+w6)) + ((w1+w5) + (w3+w7)); block sums again the same
 * way until one is left. Both backends follow this tree, so a segment's sum
 * has the same bits on the CPU and on CUDA, and the same bits as gp_reduce
 * over that segment on CUDA; the bits depend on the segment's values and
 * length only (a sum involving NaN is a NaN whose payload is unspecified).
 * An empty segment's sum is +0.0. */
GP_API gp_status gp_segmented_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                     const uint64_t *offsets, size_t n_segments, void *out);

/* ---- segmented scan -------------------------------------------------------
 * gp_scan applied to each segment on its own: within segment s,
 *   out[i] = in[off[s]] op ... op in[i]                     (INCLUSIVE)
 *   out[i] = identity op in[off[s]] op ... op in[i-1]       (EXCLUSIVE)
 * so the first element of every segment gets the identity (exclusive).
 * in and out are buffers of n elements; in == out (in place) is allowed,
 * any other overlap, and offsets overlapping out, is GP_ERROR_OVERLAP.
 * Elements outside every segment keep out's previous contents.
 * Float sums: the CPU backend adds left to right within each segment from
 * the identity; the CUDA backend adds in a fixed order that depends on n
 * and the segment boundaries only (tiles of 2048 elements combined in a
 * fixed tree), so its results are the same run to run but may differ from
 * the CPU's by rounding. Asynchronous on the CUDA backend; the CUDA backend
 * uses n bytes of workspace (the segment heads). */
GP_API gp_status gp_segmented_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                                   const void *in, void *out, size_t n,
                                   const uint64_t *offsets, size_t n_segments);

/* Scan by key: segments are the runs of equal consecutive keys (n keys of
 * key_dtype; equality as in gp_find_repeats: floats compare with ==, so a
 * NaN key is always a segment of its own and -0.0 equals +0.0). Otherwise as
 * gp_segmented_scan. keys is a buffer that may not overlap out (it may
 * overlap in). in == out is allowed. Asynchronous on the CUDA backend. */
GP_API gp_status gp_scan_by_key(gp_context *ctx, gp_dtype key_dtype, const void *keys, gp_dtype dtype, gp_op op,
                                gp_scan_kind kind, const void *in, void *out, size_t n);

/* ---- segmented sort -------------------------------------------------------
 * gp_sort_keys / gp_sort_pairs (gpuprim.h) applied to each segment on its
 * own: the same key orders (integers numerically; floats in IEEE total
 * order, NaNs last), bit ranges [begin_bit, end_bit) of the order image,
 * ascending or descending, stable (equal keys keep their input order).
 * Keys (and values) outside every segment are not written. keys_out ==
 * keys_in sorts in place (likewise values); any other overlap among keys,
 * values and offsets is GP_ERROR_OVERLAP.
 * Pairs: value_size 4 or 8; values_in == NULL sorts indices: values_out
 * receives each key's original position in the whole array (not within its
 * segment, so it can gather any per-element data), as uint32 (value_size 4,
 * n <= 2^32, else GP_ERROR_SIZE_OVERFLOW) or uint64.
 * The CUDA backend sorts each segment by a method that fits its length:
 * segments of up to 8192 items one block each, longer ones a device radix
 * sort each; it reads the number of segments of each length class back to
 * the host to size those launches, so the call synchronizes with the
 * context's stream once (after a pass over the offsets; the sorting itself
 * is queued asynchronously). When many segments are longer than 8192 items
 * it sorts every segment at once with two stable radix sorts of all n
 * items instead. Workspace: about 2 * n * (key size + value size) bytes
 * when some segment may be longer than 8192 items (less when keys are
 * unsigned, ascending and not in place), plus 4 bytes a segment; the
 * all-at-once sort takes about n * (2 * key size + 6 * index size) bytes,
 * plus n values when they are sorted in place (index size 4 while n and
 * n_segments fit 32 bits, else 8). */
GP_API gp_status gp_segmented_sort_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                                        const void *keys_in, void *keys_out, size_t n,
                                        const uint64_t *offsets, size_t n_segments, int begin_bit, int end_bit);

/* Pairs: each value travels with its key (value_size and values_in == NULL
 * as described above). */
GP_API gp_status gp_segmented_sort_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                                         const void *keys_in, void *keys_out,
                                         size_t value_size, const void *values_in, void *values_out, size_t n,
                                         const uint64_t *offsets, size_t n_segments, int begin_bit, int end_bit);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_SEGMENTED_H */
