/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * runs.h - runs of equal consecutive keys: reduce-by-key, unique,
 * unique-by-key, run-length encoding.
 *
 * This header is the manual for these calls; it is C99, also usable from
 * C++, and follows gpuprim.h's model (contexts, buffers, statuses, outputs
 * untouched on error, size_t sizes).
 *
 * Runs
 *   A run is a maximal stretch of consecutive elements whose keys are equal.
 *   Equality is gp_find_repeats': integers compare all their bits; floats
 *   compare with ==, so -0.0 and +0.0 are equal (one run) and a NaN equals
 *   nothing, not even the same NaN bits (every NaN key is a run of its own).
 *   A run is represented by its FIRST key, written bit for bit (when a run
 *   holds -0.0 then +0.0, the key out is -0.0).
 *
 * Common rules
 *   - n is the number of input elements; the outputs receive one entry per
 *     run, in input order, and *count_host receives the number of runs
 *     (0 for n == 0, else between 1 and n). Every output buffer must have
 *     room for n entries: only the first *count_host are written, nothing
 *     past them.
 *   - Keys and values are buffers (memory of the context's backend) aligned
 *     to their element size; run lengths are uint64.
 *   - In place: keys_out == keys_in and values_out == values_in are allowed
 *     (each output entry lands at or before the input entry it comes from).
 *     Any other overlap between an output and an input or another output is
 *     GP_ERROR_OVERLAP; inputs may overlap each other (they are only read).
 *   - n == 0 writes a count of 0 and touches no buffer (they may be NULL).
 *   - CUDA backend: one pass over the input; scratch comes from the
 *     context's workspace (a few dozen bytes per 2048 elements). Every call
 *     here synchronizes the stream, to return the count.
 *   - Counts past 2^32 are supported.
 */
#ifndef GPUPRIM_RUNS_H
#define GPUPRIM_RUNS_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reduce-by-key -------------------------------------------------------------
 * For each run of equal consecutive keys in keys_in[0, n): its first key
 * into keys_out, the reduction of its values (values_in, n elements of
 * value_dtype, which may differ from key_dtype) into values_out, and, when
 * lengths_out is not NULL, its length into lengths_out (uint64).
 *
 * The reduction of a run of values v0, v1, ..., vm:
 *   GP_OP_SUM  (((v0 + v1) + v2) + ... + vm): left to right, starting from
 *              the run's first value (a run of one value gives that value,
 *              bits and all, -0.0 included). Integers wrap (two's
 *              complement). Float sums are this sequential sum on BOTH
 *              backends, so the CPU and CUDA results are the same bits
 *              (except a NaN sum's payload and sign, which are the
 *              processor's); the bits depend on the run's values alone
 *              (not on n, the run's position, the device or the run). The price on CUDA: the time
 *              of a float sum grows with its longest run (a run of 10^6
 *              values costs a few milliseconds); integer sums, min and max
 *              do not have this cost.
 *   GP_OP_MIN, GP_OP_MAX  starting from the identity (see gp_scan), NaN
 *              values skipped, so a run whose values are all NaN gives the
 *              identity (+inf for MIN, -inf for MAX). Of equal values the
 *              earliest wins: a run of -0.0 then +0.0 gives -0.0. Exact,
 *              the same bits on both backends.
 *
 * keys_out, values_out: room for n entries; lengths_out: room for n uint64
 * or NULL. keys_out == keys_in and values_out == values_in are allowed.
 * Synchronizes the stream. Every key dtype with every value dtype and op. */
GP_API gp_status gp_reduce_by_key(gp_context *ctx, gp_dtype key_dtype, gp_dtype value_dtype, gp_op op,
                                  const void *keys_in, const void *values_in, size_t n,
                                  void *keys_out, void *values_out, uint64_t *lengths_out,
                                  size_t *count_host);

/* ---- unique ----------------------------------------------------------------------
 * The first element of each run of equal consecutive elements of in[0, n)
 * into out (room for n); *count_host how many. On sorted input: the
 * distinct values. out == in (in place) is allowed. Synchronizes. */
GP_API gp_status gp_unique(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, void *out,
                           size_t *count_host);

/* Keys with their values: for each run of equal consecutive keys, its first
 * key into keys_out and the value at that same position (the run's first
 * value, copied bit for bit) into values_out. value_dtype may differ from
 * key_dtype. keys_out == keys_in and values_out == values_in are allowed.
 * Synchronizes. */
GP_API gp_status gp_unique_by_key(gp_context *ctx, gp_dtype key_dtype, gp_dtype value_dtype,
                                  const void *keys_in, const void *values_in, size_t n,
                                  void *keys_out, void *values_out, size_t *count_host);

/* ---- run-length encoding -----------------------------------------------------------
 * For each run of equal consecutive elements of in[0, n): its first element
 * into values_out and its length into lengths_out (uint64, not NULL for
 * n > 0); both have room for n entries. The lengths add up to n.
 * values_out == in is allowed. Synchronizes. */
GP_API gp_status gp_run_length_encode(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                                      void *values_out, uint64_t *lengths_out, size_t *count_host);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_RUNS_H */
