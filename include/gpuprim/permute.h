/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * permute.h - moving elements: stable partition by flags, gather and
 * scatter by indices. C99, also usable from C++. The model (contexts,
 * buffers, statuses, asynchronous calls) is gpuprim.h's.
 */
#ifndef GPUPRIM_PERMUTE_H
#define GPUPRIM_PERMUTE_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- partition -------------------------------------------------------------------
 * Stable two-way partition: out receives every in[i] whose flags[i] is
 * non-zero, in input order, followed by every other in[i], also in input
 * order (not reversed); *selected_host receives how many were selected
 * (the first part's length). flags holds n elements of flag_type
 * (GP_UINT8_FLAGS or GP_INT32_FLAGS, as gp_compact takes them; a flag is
 * set when the whole byte or int32 is non-zero). in, flags and out are
 * buffers of n elements, aligned to their element size; out may not overlap
 * in or flags (GP_ERROR_OVERLAP). Elements move as raw words of the dtype's
 * size (float bits, NaN payloads included, are kept). All n elements of out
 * are written. Synchronizes the stream (to return the count). On CUDA: one
 * pass over the flags that counts the selected elements and keeps the flags
 * as a bit mask (n/8 bytes of workspace for 4-byte elements, n/4 for
 * 8-byte), then one pass that reads each element and its mask bit once and
 * writes each element once. */
GP_API gp_status gp_partition(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                              gp_flag_type flag_type, void *out, size_t n, size_t *selected_host);

/* Stable three-way partition by two flag arrays of the same flag_type:
 * element i goes to the first part if first_flags[i] is set, else to the
 * second if second_flags[i] is set, else to the third; each part keeps the
 * input order, and out holds the three parts one after the other.
 * counts_host (host memory, three size_t) receives the parts' lengths
 * (they add up to n). The flag arrays may be the same buffer and may
 * overlap in; out may overlap none of them. Synchronizes the stream. */
GP_API gp_status gp_partition3(gp_context *ctx, gp_dtype dtype, const void *in, const void *first_flags,
                               const void *second_flags, gp_flag_type flag_type, void *out, size_t n,
                               size_t counts_host[3]);

/* ---- gather and scatter ---------------------------------------------------------------
 *   gather:  out[i] = in[indices[i]]   for i in [0, n)   (in holds in_n elements)
 *   scatter: out[indices[i]] = in[i]   for i in [0, n)   (out holds out_n elements)
 * Elements are opaque words of elem_size bytes: 4, 8 or 16 (else
 * GP_ERROR_INVALID_ARGUMENT), as gp_transpose takes them. indices holds n
 * uint64. in, out and indices are buffers aligned to their element size
 * (16-byte elements: 16 bytes); out may not overlap in or indices (in and
 * indices may overlap: both are only read).
 *
 * An index outside the array it addresses (>= in_n for gather, >= out_n
 * for scatter) is handled as `check` says:
 *   GP_INDEX_CHECK  the call first checks every index; if one is out of
 *                   range it returns GP_ERROR_INVALID_ARGUMENT (the detail
 *                   names the first such position) and writes nothing.
 *                   Synchronizes the stream on CUDA (the check's result
 *                   must reach the host before the moving pass may start):
 *                   one extra read of the indices and a round trip.
 *   GP_INDEX_SKIP   no separate check: an out-of-range index's element is
 *                   skipped (gather leaves out[i] as it was; scatter drops
 *                   in[i]); the call succeeds. Asynchronous on CUDA; the
 *                   fast form, for indices the caller knows are valid,
 *                   still safe (nothing outside out is ever written) where
 *                   they are not.
 * Neither mode lets a wrong index read or write outside the buffers: the
 * library never trades memory safety for speed here.
 *
 * Scatter with duplicate indices: out[j] receives the element of one of the
 * i with indices[i] == j; which one is unspecified on CUDA (the writes
 * race; with 16-byte elements the two 8-byte halves may even come from
 * different candidates). The CPU backend writes in index order, so the last
 * one wins there. Give unique indices for a result defined everywhere.
 * Elements of out that no index names keep their bytes.
 *
 * Gather reads in where the indices point: indices that are ascending (or
 * nearly) read in as a stream, at about copy speed. n == 0 does nothing
 * (in and out may then be NULL). */
typedef enum gp_index_check {
    GP_INDEX_CHECK = 1,
    GP_INDEX_SKIP = 2
} gp_index_check;

/* out[i] = in[indices[i]] for i in [0, n), as described above. */
GP_API gp_status gp_gather(gp_context *ctx, size_t elem_size, const void *in, size_t in_n,
                           const uint64_t *indices, void *out, size_t n, gp_index_check check);

/* out[indices[i]] = in[i] for i in [0, n), as described above. */
GP_API gp_status gp_scatter(gp_context *ctx, size_t elem_size, const void *in, const uint64_t *indices,
                            size_t n, void *out, size_t out_n, gp_index_check check);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_PERMUTE_H */
