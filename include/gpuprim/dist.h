/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dist.h - gpuprim on several GPUs (or several CPU ranks), through NCCL.
 *
 * Model
 *   - A communicator (gp_comm) binds one gpuprim context to one rank of a
 *     group of `size` ranks. The global array of a distributed call is the
 *     concatenation of the ranks' shards in rank order; each rank passes its
 *     own shard, of any size (0 allowed).
 *   - Every gp_dist_* call is collective: every rank of the communicator
 *     makes the same sequence of calls, with the same dtype, operator and
 *     (for stencils) column count. Each rank's calls come from its own
 *     thread (or its own process): a rank blocks until its peers join.
 *     gp_comm_run runs one function per rank on threads, for the
 *     one-process case.
 *   - CUDA contexts move array data through NCCL, CPU contexts of one
 *     process through host memory. The small records every call trades
 *     (verdicts, sizes, counts, partial results) go through host memory
 *     when the ranks share a process (gp_comm_init_all), through NCCL when
 *     they do not. The same code runs on CPU and CUDA ranks, so the
 *     distributed logic is tested on machines without a GPU.
 *   - Arguments are checked on every rank and the verdicts are exchanged
 *     before anything is written: when any rank rejects its arguments or
 *     cannot prepare the call (an allocation fails), every rank returns an
 *     error as soon as the verdicts meet, not after a timeout (the failing
 *     rank its own status, the others GP_ERROR_COMM naming that rank), no
 *     output is touched, and the communicator stays usable.
 *   - Mismatched calls are detected. Each rank's verdict says which call it
 *     is making and carries the arguments that must agree (dtype, operator,
 *     scan kind, flag type, boundary, column count, the stencil's weights):
 *     when the ranks make different calls (a reduce on one rank, a compact
 *     on another) or disagree on one of those, every rank returns
 *     GP_ERROR_INVALID_ARGUMENT with a detail naming the mismatch, no output
 *     is touched, and the communicator stays usable.
 *   - No call waits forever. A collective that does not complete within the
 *     communicator's timeout returns GP_ERROR_TIMEOUT; the communicator is
 *     then aborted (NCCL's ncclCommAbort) and every later call on it returns
 *     GP_ERROR_COMM: destroy it and make a new one.
 *   - A rank that destroys its communicator while its peers go on: on a
 *     communicator made by gp_comm_init_all (ranks of one process, CPU or
 *     CUDA), the peers' pending and later calls return GP_ERROR_COMM at
 *     once, naming that rank (the communicator cannot be used again); ranks
 *     in other processes (gp_comm_init_rank) see only the timeout.
 *   - Errors carry detail in gp_context_last_error of the rank's context.
 *
 * NCCL is loaded at run time (dlopen), the first time a CUDA communicator
 * is made: libgpuprim.so does not depend on it, and everything else works
 * where it is absent. Where it is looked for, in order: the file named by
 * the environment variable GP_NCCL_LIBRARY; "libnccl.so.2" through the
 * dynamic loader (LD_LIBRARY_PATH, the ld.so cache); the copy gpuprim was
 * built against. Not found: GP_ERROR_NO_NCCL. NCCL's own environment
 * variables apply (NCCL_DEBUG, NCCL_SOCKET_IFNAME, NCCL_NVLS_ENABLE, ...).
 */
#ifndef GPUPRIM_DIST_H
#define GPUPRIM_DIST_H

#include <gpuprim/gpuprim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A communicator: one rank of a group, bound to one context (see Model). */
typedef struct gp_comm gp_comm;

/* The unique id that joins the ranks of a multi-process communicator: made
 * on one rank (gp_comm_id_create), passed to the others by any means (a
 * file, a socket, MPI_Bcast), as these 128 bytes. It is NCCL's unique id. */
#define GP_COMM_ID_BYTES 128
typedef struct gp_comm_id {
    unsigned char bytes[GP_COMM_ID_BYTES];
} gp_comm_id;

/* Default for timeout_ms = 0 below: two minutes. The environment variable
 * GP_COMM_TIMEOUT_MS, when set to a positive number, replaces it. */
#define GP_COMM_DEFAULT_TIMEOUT_MS 120000

/* Make a new unique id (NCCL's ncclGetUniqueId; it starts NCCL's bootstrap
 * listener on this process). GP_ERROR_NO_NCCL where NCCL is absent. */
GP_API gp_status gp_comm_id_create(gp_comm_id *id);

/* All ranks in this process: comms[r] becomes rank r, bound to ctxs[r].
 * The contexts must all be CPU contexts, or all CUDA contexts on distinct
 * devices (GP_ERROR_INVALID_ARGUMENT otherwise). nranks >= 1. timeout_ms:
 * for set-up and, later, for each collective (0: the default above).
 * On error no communicator is made and comms[] is untouched. */
GP_API gp_status gp_comm_init_all(gp_comm **comms, gp_context *const *ctxs, int nranks, int timeout_ms);

/* One rank of a multi-process communicator (CUDA contexts only: CPU
 * contexts are GP_ERROR_UNSUPPORTED). Every rank calls it with the same id
 * and nranks and its own rank in [0, nranks); it returns once all have
 * joined, or GP_ERROR_TIMEOUT when they have not within timeout_ms. */
GP_API gp_status gp_comm_init_rank(gp_comm **comm, gp_context *ctx, int nranks, int rank, const gp_comm_id *id,
                                   int timeout_ms);

/* Release the communicator (not its context). NULL does nothing. Not
 * collective, but in-flight collectives should have completed. Peers in
 * this process learn of it at once (see Model). */
GP_API void gp_comm_destroy(gp_comm *comm);

/* This rank's number in [0, size), and the number of ranks. */
GP_API gp_status gp_comm_rank(const gp_comm *comm, int *rank);
GP_API gp_status gp_comm_size(const gp_comm *comm, int *size);
/* The context the communicator was made with. */
GP_API gp_status gp_comm_context(const gp_comm *comm, gp_context **ctx);
/* Change the timeout for later collectives (milliseconds, > 0). */
GP_API gp_status gp_comm_set_timeout(gp_comm *comm, int timeout_ms);

/* Run fn(comms[r], arg) for every rank r on its own thread and wait for all.
 * Returns GP_SUCCESS when every call did, else the status of the lowest
 * rank that failed. GP_ERROR_OUT_OF_MEMORY when threads cannot start (then
 * no fn ran). */
typedef gp_status (*gp_comm_fn)(gp_comm *comm, void *arg);
GP_API gp_status gp_comm_run(gp_comm *const *comms, int nranks, gp_comm_fn fn, void *arg);

/* ---- distributed primitives ----------------------------------------------
 * Buffers are memory of the rank's context, exactly as in gpuprim.h; the
 * same checks apply. Calls whose results stay in buffers are asynchronous
 * on the context's stream after their exchanges (which wait for the peer
 * ranks, not for the stream); results returned in host memory are complete
 * on return. */

/* Scan of the global array: out on rank r receives its part of the global
 * scan (in == out allowed). Every dtype, operator and kind of gp_scan.
 * Integer sums, min and max equal the one-context scan exactly; float sums
 * differ from it by rounding (a different combination order). Each rank
 * reads its shard twice (a local reduce, then the seeded scan) and writes it
 * once; one small exchange between. */
GP_API gp_status gp_dist_scan(gp_comm *comm, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out,
                              size_t n);

/* Reduction of the global array; every rank receives the result in
 * result_host (host memory, one element). The ranks' partial results are
 * combined in rank order, so the result is the same on every rank and run
 * to run. */
GP_API gp_status gp_dist_reduce(gp_comm *comm, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                void *result_host);

/* Counts a selecting call returns: this rank's `local` results were
 * written to its output; they sit at [offset, offset + local) of the
 * global result of `total` elements (offset: the results of the ranks
 * before). */
typedef struct gp_dist_count {
    size_t local;
    uint64_t offset;
    uint64_t total;
} gp_dist_count;

/* gp_compact on each shard: each rank keeps its own survivors. */
GP_API gp_status gp_dist_compact(gp_comm *comm, gp_dtype dtype, const void *in, const void *flags,
                                 gp_flag_type flag_type, void *out, size_t n, gp_dist_count *count);

/* gp_compact_indices with GLOBAL indices (the shard's position in the
 * global array added). indices_out has room for n. */
GP_API gp_status gp_dist_compact_indices(gp_comm *comm, const void *flags, gp_flag_type flag_type,
                                         uint64_t *indices_out, size_t n, gp_dist_count *count);

/* gp_find_repeats over the global array, with global indices, including
 * the pair that straddles this shard's last element and the next
 * non-empty shard's first (reported by this rank: it owns index i of the
 * pair (i, i+1)). indices_out has room for n entries (not n - 1: the
 * straddling pair may be one more). Indices stay ascending, per rank and
 * across ranks in rank order. */
GP_API gp_status gp_dist_find_repeats(gp_comm *comm, gp_dtype dtype, const void *in, size_t n,
                                      uint64_t *indices_out, gp_dist_count *count);

/* gp_stencil_2d on a matrix split by rows: rank r holds `rows` consecutive
 * rows (any number, 0 allowed) of a global matrix of `cols` columns (the
 * same on every rank). Halo rows are exchanged with the neighbouring
 * non-empty ranks; the boundary rule applies at the global edges (and to
 * columns) only, so the result equals gp_stencil_2d on the whole matrix bit
 * for bit. dtype, boundary, cols and weights must agree across ranks
 * (GP_ERROR_INVALID_ARGUMENT on every rank otherwise: a Laplacian on one
 * rank against another stencil on the next is a mismatch). */
GP_API gp_status gp_dist_stencil_2d(gp_comm *comm, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                                    const void *in, void *out, size_t rows, size_t cols);
GP_API gp_status gp_dist_laplacian_2d(gp_comm *comm, gp_dtype dtype, gp_boundary boundary, const void *in,
                                      void *out, size_t rows, size_t cols);

/* ---- all-to-all: shuffle -------------------------------------------------------
 * Each rank sends each of its n elements to one rank (itself included);
 * each rank receives what was sent to it, in source-rank order, and of one
 * source in the order the source gave them (stable). Elements are
 * elem_size bytes (4, 8 or 16, moved as they are), optionally with values
 * of value_size bytes (4 or 8; 0: no values, values_in and values_out are
 * ignored) that travel with them. Routing, each rank's own choice:
 *   - per element: dest, a buffer of n uint32 destination ranks (each in
 *     [0, size), else GP_ERROR_INVALID_ARGUMENT on that rank and
 *     GP_ERROR_COMM on the others), send_counts_host NULL. The rank groups
 *     its elements by destination first (a stable sort on dest into the
 *     communicator's scratch: n x (12 + elem_size + value_size) bytes);
 *   - grouped: the elements lie already grouped by destination, rank 0's
 *     first; send_counts_host (host memory, size entries summing to n)
 *     says how many go to each rank; dest NULL. Nothing is copied first.
 * Counts first: gp_dist_shuffle_counts (collective, same routing
 * arguments) returns in *recv_count_host how many elements this rank will
 * receive, and, when source_counts_host is not NULL, how many from each
 * rank (size entries, host memory); it moves no element. Synchronizes.
 * gp_dist_shuffle: out (and values_out) are buffers of `capacity` elements
 * (values) on the receiving rank, not overlapping any input; the counts
 * are exchanged first, and when what is sent to a rank exceeds its
 * capacity, every rank fails (that rank GP_ERROR_INVALID_ARGUMENT, the
 * others GP_ERROR_COMM naming it) before any element moves: no output is
 * touched. On success *recv_count_host (and source_counts_host) as above;
 * nothing of out past *recv_count_host is written. Buffers aligned to their
 * element sizes. The exchange is queued on the context's stream (CUDA:
 * grouped ncclSend/ncclRecv; CPU ranks copy through host memory).
 * Cost: one record exchange, one all-gather of p counts a rank, one group
 * of up to 2(p-1) transfers a rank; per element routing adds a local sort
 * pass over the destinations and a gather of elements and values. On one
 * rank: the record exchange and a copy; per element routing adds one pass
 * over dest (every destination must be 0), nothing is sorted. */
GP_API gp_status gp_dist_shuffle_counts(gp_comm *comm, const uint32_t *dest, const size_t *send_counts_host, size_t n,
                                        size_t *recv_count_host, size_t *source_counts_host);
GP_API gp_status gp_dist_shuffle(gp_comm *comm, size_t elem_size, const void *in, size_t value_size,
                                 const void *values_in, size_t n, const uint32_t *dest, const size_t *send_counts_host,
                                 void *out, void *values_out, size_t capacity, size_t *recv_count_host,
                                 size_t *source_counts_host);

/* ---- distributed sort ---------------------------------------------------------
 * gp_sort_keys / gp_sort_pairs (gpuprim.h) over the global array: every
 * dtype, both orders, bit ranges, gp_sort's key order (floats in IEEE total
 * order, NaNs last ascending), STABLE: keys equal on the sorted bits keep
 * their global input order. On return the ranks' keys_out, in rank order,
 * are the sorted global array, and every rank holds exactly as many
 * elements as it gave (n: its shard, any size, 0 allowed). The result
 * equals gp_sort_* on the concatenated shards bit for bit. keys_out ==
 * keys_in allowed (likewise values); other overlaps as gp_sort. Key dtype,
 * order, bit range and the values' form must agree across ranks.
 * Pairs: value_size 4 or 8; values_in NULL gives, in values_out, each
 * key's GLOBAL input position as uint64 (value_size 8 only).
 * How: a stable local sort, exact splitters by a distributed bisection on
 * key images (at most ceil(w/4) + 1 small all-gathers for keys of w sorted
 * bits, each of 15(p-1) + 2 counts a rank), one all-to-all exchange, and a
 * stable local sort of the p received runs. Exact splitters make skew (all
 * keys equal, one rank holding everything) harmless. Scratch kept by the
 * communicator: about n x (2 x (key + value size) + 8) bytes a rank.
 * Synchronizes (the splitter rounds bring counts to the host); the
 * exchange and the final local sort are queued on the context's stream.
 * Errors before the exchange began leave every output untouched on every
 * rank; a failure in the final local sort (out of memory) is reported by
 * every rank, with outputs unspecified. */
GP_API gp_status gp_dist_sort_keys(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                                   void *keys_out, size_t n, int begin_bit, int end_bit);
GP_API gp_status gp_dist_sort_pairs(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                                    void *keys_out, size_t value_size, const void *values_in, void *values_out,
                                    size_t n, int begin_bit, int end_bit);

/* ---- distributed histograms ------------------------------------------------------
 * gp_histogram_even / gp_histogram_range (histogram.h) over the global
 * array: each rank histograms its own samples (any n, 0 allowed) and every
 * rank ends with the GLOBAL counts in its `counts` (bins counters of
 * count_dtype, memory of its context). The same rules as the one-context
 * calls: the bin formula, samples outside the range and NaNs not counted,
 * counts OVERWRITTEN (every bin written, never read; to accumulate over
 * calls, histogram into separate counts), GP_UINT32 counts need the global
 * n <= 2^32 - 1 (else GP_ERROR_SIZE_OVERFLOW on every rank). Counts are
 * exact integers: equal to the one-context call on the concatenated shards
 * on every rank, CPU and CUDA alike. dtype, count_dtype and bins must
 * agree across ranks, and for even bins the bounds (their bits); for
 * range bins every rank passes the same boundaries (the caller's promise,
 * not checked: a check would cost a pass and a synchronization).
 * counts may not overlap samples (or boundaries).
 * How: the local histogram into the communicator's scratch, then an
 * all-reduce: a reduce-scatter of p slices of the bins (one group of
 * point-to-point transfers), each rank sums its slice's p partial counts,
 * and an all-gather of the sums (a second group) into counts. Each rank
 * sends and receives 2 (p - 1) / p x bins counters. Scratch kept by the
 * communicator: about 3 x bins counters. Synchronizes (the verdicts);
 * the last transfers into counts are queued on the context's stream. */
GP_API gp_status gp_dist_histogram_even(gp_comm *comm, gp_dtype dtype, const void *samples, size_t n,
                                        const void *lower_host, const void *upper_host, size_t bins,
                                        gp_dtype count_dtype, void *counts);
GP_API gp_status gp_dist_histogram_range(gp_comm *comm, gp_dtype dtype, const void *samples, size_t n,
                                         const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts);

/* ---- distributed group-by: reduce-by-key and unique --------------------------------
 * The keys need not be sorted anywhere. Equal keys of the WHOLE global
 * array form one group (equality as gp_reduce_by_key's: integers by bits,
 * floats with ==, so -0.0 and +0.0 are one group and every NaN key is a
 * group of its own). On return the ranks hold the groups in ascending key
 * order (gp_sort's order), rank after rank: rank r's results are entries
 * [count->offset, count->offset + count->local) of the global result of
 * count->total groups, and every group is on exactly one rank. Each
 * group's key is its smallest in gp_sort's order, bit for bit (-0.0 when
 * the group holds one). The result equals sorting the concatenated shards
 * (gp_sort_pairs, stable) then gp_reduce_by_key / gp_unique, except as
 * stated for float sums below.
 *
 * gp_dist_reduce_by_key: for each group, its key into keys_out, the
 * reduction by `op` of all its values into values_out (value_dtype may
 * differ from key_dtype), and, when lengths_out is not NULL, the number of
 * its elements (uint64) into lengths_out. Reductions:
 *   integer SUM (wrapping), MIN and MAX: exactly the one-context result
 *     (MIN and MAX skip NaN values; of a group whose values are all NaN:
 *     the identity). One exception: where a group mixes -0.0 and +0.0
 *     KEYS, which of equal -0.0 and +0.0 VALUES MIN or MAX returns may
 *     differ from the one-context call.
 *   float SUM: each rank first adds its own values of the group left to
 *     right in its input order (gp_reduce_by_key's sum); those partial sums
 *     are then added left to right in rank order. So the bits depend on
 *     the group's values, their order, and how the shard boundaries split
 *     them among ranks; not on the run, the backend, or where the group
 *     lands. A group whose values all lie on one rank has exactly the
 *     one-context bits (p = 1 always does).
 * gp_dist_unique: the distinct keys of `in` (each group's key once) into
 * out.
 * Capacity: keys_out, values_out, lengths_out (and out) have room for
 * `capacity` entries on their rank (any capacity, 0 allowed; ranks may
 * differ). A rank receives at most about U / p + p + 1 groups' partials for
 * U locally distinct keys in all (more only where one key image holds
 * many NaN groups), so a capacity of that suits balanced use; the result
 * counts are exchanged before anything is written, and when any rank's
 * count exceeds its capacity every rank fails (that rank
 * GP_ERROR_INVALID_ARGUMENT, the others GP_ERROR_COMM naming it) with no
 * output touched. Outputs may overlap no input and no other output.
 * *count (not NULL) receives this rank's count, offset and the total.
 * Key dtype, value dtype and operator must agree across ranks; whether
 * lengths are asked for is each rank's own choice.
 * How: a stable local sort by key and a local reduce-by-key (or unique) of
 * the shard; key-range splitters by a distributed bisection on key images
 * (at most ceil(w / 4) + 1 small all-gathers for w-bit keys, each of
 * 15(p-1) + 2 counts a rank), so every copy of a key goes to one rank; one
 * all-to-all exchange of the aggregated entries (a second one for the
 * lengths); a stable local sort of the p received runs and the final
 * reduce-by-key; one small exchange of the counts; a copy out. On one
 * rank the local sort and reduce-by-key (unique) are the result: the
 * record exchange, then the capacity check and the copy out. Skew is
 * harmless to the exchange: a key crosses the links at most once per rank
 * that holds it, however many times it occurs. Scratch kept by the
 * communicator: about n x (2 x key + value + 16) bytes plus, for the r
 * entries received, r x 2 x (key + value + 8) bytes. Synchronizes (the
 * counts come to the host); the final copy into the outputs is queued on
 * the context's stream. */
GP_API gp_status gp_dist_reduce_by_key(gp_comm *comm, gp_dtype key_dtype, gp_dtype value_dtype, gp_op op,
                                       const void *keys_in, const void *values_in, size_t n, void *keys_out,
                                       void *values_out, uint64_t *lengths_out, size_t capacity,
                                       gp_dist_count *count);
GP_API gp_status gp_dist_unique(gp_comm *comm, gp_dtype dtype, const void *in, size_t n, void *out,
                                size_t capacity, gp_dist_count *count);

/* ---- distributed top-k -----------------------------------------------------------
 * gp_top_k (search.h) over the global array: the first k keys of a stable
 * sort of the concatenated shards in `order` (ascending: the k smallest,
 * NaNs last; descending: the k largest, NaNs first; of equal keys the
 * lower GLOBAL index first). EVERY rank receives the same k keys in its
 * keys_out (room for k) and, with value_size 4 or 8, the same k values in
 * values_out: the chosen keys' values_in entries (each rank passes the
 * values of its own shard), or, with values_in NULL, their GLOBAL indices
 * as uint32 (value_size 4, the global n <= 2^32, else
 * GP_ERROR_SIZE_OVERFLOW on every rank) or uint64 (value_size 8). The
 * result equals gp_top_k on the concatenated shards bit for bit.
 * 1 <= k <= the global n (shards of any size, 0 allowed; k above the
 * global n is GP_ERROR_INVALID_ARGUMENT on every rank). Key dtype, order,
 * value_size and k must agree across ranks, and so must the values' form
 * on the ranks that hold keys (an empty shard's values_in is not looked
 * at). No output may overlap an input, nor keys_out values_out.
 * How: gp_top_k on each shard (min(k, n) candidates), an all-gather of the
 * candidates (one group of point-to-point transfers: each rank sends its
 * candidates to every rank), and gp_top_k over the at most p x k
 * candidates on every rank. Scratch kept by the communicator: about
 * (p + 1) x k x (key + 8) bytes. On one rank: the record exchange, then
 * gp_top_k on the shard into the outputs (no scratch). Synchronizes (the verdicts); a failure in
 * the final selection is reported by every rank, outputs then
 * unspecified. */
GP_API gp_status gp_dist_top_k(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                               size_t n, size_t k, void *keys_out, size_t value_size, const void *values_in,
                               void *values_out);

/* ---- building blocks for layered libraries ----------------------------------
 * Collective calls for a library that adds its own distributed operations
 * on gpuprim communicators (gpuprim's distributed renderer is one): they
 * keep the promise above, every rank fails together and no output is
 * touched when any rank fails. Rank, size and context: gp_comm_rank,
 * gp_comm_size, gp_comm_context. */

/* Agree on a verdict. Every rank passes its own: GP_SUCCESS, or the status
 * of a check or step that failed on it (with its detail recorded on its
 * context, e.g. by gp_context_set_error: the call keeps it). Returns
 * GP_SUCCESS on every rank when every rank passed GP_SUCCESS; else every
 * rank returns an error: a rank that failed its own status, the others
 * GP_ERROR_COMM naming the first rank that failed. Call it after the
 * checks and before writing any output. One small exchange; no stream
 * work. */
GP_API gp_status gp_dist_agree(gp_comm *comm, gp_status mine);

/* Gather variable-size byte blocks to rank `root`. Each rank sends
 * send_bytes (0 allowed, send may then be NULL) from `send`, a buffer of
 * its context, as the work queued on the context's stream leaves it. The
 * root receives the blocks one after the other in rank order at the start
 * of `recv` (a buffer of its context of recv_bytes, at least the blocks'
 * sum; not overlapping its send), and, when block_bytes_host is not NULL,
 * each rank's block size in block_bytes_host[0 .. size) (host memory).
 * Other ranks' recv, recv_bytes and block_bytes_host are ignored (pass
 * NULL, 0, NULL). The verdicts on every rank's arguments and all the sizes
 * are exchanged before any byte moves: when any rank fails its checks, the
 * ranks disagree on root, or the root's recv is too small, every rank
 * returns an error and the root's recv and block_bytes_host are untouched.
 * Returns once the blocks are in place (send may then be reused). */
GP_API gp_status gp_dist_gatherv(gp_comm *comm, int root, const void *send, size_t send_bytes, void *recv,
                                 size_t recv_bytes, size_t *block_bytes_host);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_DIST_H */
