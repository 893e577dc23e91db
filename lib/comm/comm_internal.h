/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_internal.h - what the distributed files share: the communicator's
 * layout and the few exchanges every distributed primitive is built from.
 * Never installed. Two transports sit behind the same calls: NCCL for CUDA
 * contexts (nccl.c), and a hub in host memory for CPU ranks of one process
 * (hub.c). */
#ifndef GPUPRIM_COMM_INTERNAL_H
#define GPUPRIM_COMM_INTERNAL_H

#include "internal.h"

#include <gpuprim/dist.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpi_hub gpi_hub;

struct gp_comm {
    gp_context *ctx;
    int rank, size;
    int timeout_ms;
    int failed;          /* aborted after a timeout or transport error: later calls fail */
    gpi_hub *hub;        /* ranks of one process: the small exchanges (and CPU ranks' transfers) */
    void *nccl;          /* ncclComm_t, CUDA ranks */
    void *side;          /* CUDA: high-priority stream for transfers that overlap the context's stream */
    void *fork_ev, *join_ev; /* CUDA: events ordering the side stream against the context's */
    void *stage_dev;     /* CUDA: device staging for small exchanges */
    void *stage_host;    /* CUDA: page-locked host staging */
    size_t stage_bytes;
    void *scratch;       /* backend memory for halos and image bands */
    size_t scratch_bytes;
    struct gpi_dist_rec *recs; /* size records: what gpi_dist_call exchanges, made with the communicator */
    unsigned char *parts;      /* size * 8 bytes: the ranks' partial results, combined in rank order */
    gp_status fault;           /* testing: the next distributed call fails its check with this (gpi_comm_inject_fault) */
};

/* One point-to-point transfer of a group: `bytes` from (send) or into
 * (recv) backend memory `buf`, to or from `peer` (which may be this rank).
 * Within a group, the k-th receive from q matches the k-th send from q to
 * this rank. */
typedef struct gpi_p2p {
    int peer;
    int send; /* 1: send buf, 0: receive into buf */
    void *buf;
    size_t bytes;
} gpi_p2p;

/* The send that receive ops[i] takes, by the matching rule above: the k-th
 * send to `me` in the peer's group (peer_ops), k counting the receives from
 * that peer before ops[i]. NULL when there is none or its size differs. */
const gpi_p2p *gpi_p2p_match(const gpi_p2p *ops, int i, int me, const gpi_p2p *peer_ops, int peer_nops);

/* Check the communicator (not NULL, not failed) and enter its context for
 * the public call fn. */
gp_status gpi_comm_enter(gp_comm *comm, const char *fn);

/* Part of a rank's contribution that is still in backend memory (a
 * partial result a kernel just wrote): `bytes` from `src` replace bytes
 * [offset, offset + bytes) of the host part, without a host round trip. */
typedef struct gpi_backend_part {
    const void *src;
    size_t offset, bytes;
} gpi_backend_part;

/* Every rank contributes `bytes` of host memory (patched by `part` when
 * not NULL); all[q * bytes ...] receives rank q's. Synchronizes. */
gp_status gpi_comm_allgather(gp_comm *comm, const void *mine, const gpi_backend_part *part, size_t bytes, void *all);

/* How gpi_comm_p2p hands its transfers back (the CPU hub always completes them). */
typedef enum gpi_p2p_mode {
    GPI_P2P_WAIT,  /* complete on return */
    GPI_P2P_QUEUE, /* queued on the context's stream: later work there sees the data */
    GPI_P2P_SIDE   /* queued on the side stream, between gpi_comm_fork and gpi_comm_join */
} gpi_p2p_mode;

/* A group of point-to-point transfers. */
gp_status gpi_comm_p2p(gp_comm *comm, const gpi_p2p *ops, int nops, gpi_p2p_mode mode);

/* CUDA ranks: the side stream starts after the work queued so far on the
 * context's stream (fork); the context's stream continues only after the
 * side stream's work (join). Transfers queued in between overlap the
 * kernels the context's stream runs meanwhile. No-ops for CPU ranks. */
gp_status gpi_comm_fork(gp_comm *comm);
gp_status gpi_comm_join(gp_comm *comm);

/* Backend scratch of the communicator, at least `bytes`, kept across calls
 * (the context's workspace is the primitives' own). */
gp_status gpi_comm_scratch(gp_comm *comm, size_t bytes, void **ptr);

/* Mark the communicator failed (after an error in a transport), record the
 * detail on its context and return status. */
gp_status gpi_comm_fail(gp_comm *comm, gp_status status, const char *fmt, ...);

/* What a distributed call is. Every rank's record carries it, so ranks that
 * make different calls (or the same call with arguments that must agree and
 * do not) all fail instead of trading records that mean different things.
 * GPI_DIST_OTHER: an exchange made directly with gpi_dist_exchange. */
typedef enum gpi_dist_op {
    GPI_DIST_OTHER = 0,
    GPI_DIST_SCAN,
    GPI_DIST_REDUCE,
    GPI_DIST_COMPACT,
    GPI_DIST_COMPACT_INDICES,
    GPI_DIST_FIND_REPEATS,
    GPI_DIST_STENCIL_2D,
    GPI_DIST_RENDER_GATHER,
    GPI_DIST_SHUFFLE,
    GPI_DIST_SHUFFLE_COUNTS,
    GPI_DIST_SORT,
    GPI_DIST_HISTOGRAM_EVEN,
    GPI_DIST_HISTOGRAM_RANGE,
    GPI_DIST_REDUCE_BY_KEY,
    GPI_DIST_UNIQUE,
    GPI_DIST_TOP_K,
    GPI_DIST_OP_COUNT
} gpi_dist_op;

/* Added to a call's op in the records of its second exchange (the
 * outcomes, after the run): a rank still in the first exchange of its next
 * call does not take them for its peers' verdicts. */
#define GPI_DIST_OUTCOME 0x100

/* The record every distributed call exchanges once or twice: each rank's
 * verdict on its own arguments, what the call is, and the few numbers the
 * others need. 80 bytes. */
typedef struct gpi_dist_rec {
    int32_t status;    /* GP_SUCCESS, or why this rank failed */
    int32_t op;        /* gpi_dist_op (+ GPI_DIST_OUTCOME): must agree */
    int32_t args[3];   /* arguments that must agree across ranks (dtype, op, ...) */
    uint64_t n;        /* this rank's elements (or rows) */
    uint64_t cols;     /* must agree (stencils) */
    uint64_t digest;   /* must agree: a hash of further arguments (stencil weights) */
    uint64_t count;    /* this rank's result count */
    unsigned char v[3][8]; /* values: a partial result, a first and a last element */
} gpi_dist_rec;

/* Exchange `mine` (all: size records) and agree: when any rank failed or
 * the op/args/cols/digest differ, every rank returns an error (its own
 * status if it failed itself, else GP_ERROR_COMM naming the first failing
 * rank, or GP_ERROR_INVALID_ARGUMENT naming the disagreement). `fn` names
 * the call in messages. */
gp_status gpi_dist_exchange(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, gpi_dist_rec *all);
/* The same with part of `mine` still in backend memory (see gpi_comm_allgather). */
gp_status gpi_dist_exchange_part(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, const gpi_backend_part *part,
                                 gpi_dist_rec *all);

/* ---- the protocol of every gp_dist_* call ---------------------------------------
 * gpi_dist_call runs one distributed call: this rank checks its arguments
 * (and does the local work the others need first), the ranks exchange
 * their verdicts in the communicator's own record array (made with it, so
 * nothing can fail between the check and the exchange), and only when every
 * rank's verdict is good and the calls agree does each run. Every rank then
 * returns an error, or none touched its outputs. With `count` set, a second
 * exchange after the run trades the ranks' outcomes and result counts. */
typedef struct gpi_dist_call {
    const char *fn;    /* the public name, for messages */
    gpi_dist_op op;
    int32_t args[3];   /* must agree across ranks */
    uint64_t cols;     /* must agree */
    uint64_t digest;   /* must agree (gpi_dist_digest of further arguments) */
    /* This rank's verdict (the one-context checks, and any local work the
     * peers need: a partial result, boundary elements); fills mine->n, v.
     * May point *part at bytes of the record still in backend memory. */
    gp_status (*check)(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part);
    /* The work, once every rank agreed: all = every rank's record. *found:
     * this rank's result count (used when count is set). */
    gp_status (*run)(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found);
    gp_dist_count *count; /* not NULL: the second exchange fills it */
} gpi_dist_call;

gp_status gpi_dist_call_run(gp_comm *comm, const gpi_dist_call *call, void *arg);

/* A communicator of one rank. There a distributed call is its
 * single-context call plus the verdict exchange: the calls that would
 * trade more (the shuffle, the group-by and unique, top-k, the sort) take
 * a shortcut on this test, with the same checks and results bit for bit. */
static inline int gpi_dist_one_rank(const gp_comm *comm) { return comm->size == 1; }

/* A 64-bit hash (FNV-1a) of `bytes` bytes: arguments that must agree and do
 * not fit args[] (stencil weights) travel as this. */
uint64_t gpi_dist_digest(const void *p, size_t bytes);

/* Testing only: the next distributed call on this rank fails its check with
 * `status` (as an allocation there failing would), once. Fault-injection
 * tests use it to show that every rank then errs at once with its outputs
 * untouched, and that the communicator stays usable. */
void gpi_comm_inject_fault(gp_comm *comm, gp_status status);

/* ---- transports ------------------------------------------------------------- */
gp_status gpi_hub_create(int size, gpi_hub **hub);
/* rank: the rank leaving (its peers' later rounds fail at once, naming
 * it), or -1 while a communicator is being unmade. */
void gpi_hub_release(gpi_hub *hub, int rank);
gp_status gpi_hub_allgather(gp_comm *comm, const void *mine, size_t bytes, void *all);
gp_status gpi_hub_p2p(gp_comm *comm, const gpi_p2p *ops, int nops);

gp_status gpi_nccl_id_create(gp_comm_id *id);
gp_status gpi_nccl_init_all(gp_comm **comms, int nranks);  /* comms[] filled but for nccl */
gp_status gpi_nccl_init_rank(gp_comm *comm, const gp_comm_id *id);
void gpi_nccl_destroy(gp_comm *comm);
gp_status gpi_nccl_allgather(gp_comm *comm, const void *mine, const gpi_backend_part *part, size_t bytes, void *all);
gp_status gpi_nccl_p2p(gp_comm *comm, const gpi_p2p *ops, int nops, gpi_p2p_mode mode);

/* ---- shared by the histogram, group-by, unique and top-k (dist_util.c) ---------- */
/* Like gpi_comm_scratch, but the first `keep` bytes survive a growth (moved
 * to the new block): a call that learns its receive size only after the
 * verdicts grows the scratch behind what it already holds there. */
gp_status gpi_comm_scratch_keep(gp_comm *comm, size_t keep, size_t bytes, void **ptr);

/* A verdict round inside a call, after the first exchange: every rank
 * passes its status so far; GP_SUCCESS on every rank when all passed
 * GP_SUCCESS, else every rank fails (its own status, or GP_ERROR_COMM
 * naming the first rank that failed, `what` saying where). `row`: host
 * room for comm->size uint64. */
gp_status gpi_dist_agree_step(gp_comm *comm, const char *fn, const char *what, gp_status mine, uint64_t *row);

/* Round up to 256 bytes: the scratch regions' alignment. */
static inline size_t gpi_round256(size_t x) { return (x + 255) & ~(size_t)255; }

/* ---- splitters by bisection on key images (splitters.c) ---------------------------
 * Every rank holds n search images, ascending (backend memory); `total`
 * in all. For boundaries b = 1 .. p-1 (bound[b], non-decreasing, set by
 * the caller), v_b is the smallest image with more than bound[b] of all
 * the ranks' images at or below it. A multiway bisection on image values
 * finds every v_b at once (16-way, at most ceil(w / 4) rounds for w-bit
 * images, one small all-gather each); the caller's last round
 * (gpi_key_split_count) then counts every rank's images around each v_b,
 * and from those counts every rank computes the same count matrix.
 *   - The sort (split by count): bound[b] = the elements of ranks before b;
 *     rank q's range b starts below v_b plus its share of v_b's copies, in
 *     source-rank order (sort.c).
 *   - The group-by and unique (every copy of a key to ONE rank,
 *     gpi_key_split_run): bound[b] = floor(b * total / p); range b starts
 *     at v_b, so a rank receives at most total / p + (the copies of one
 *     image) + 1 elements. */
typedef struct gpi_key_split {
    uint64_t *needles, *positions; /* backend: 15 (p - 1) uint64 each */
    void *host;                    /* one block for the host arrays below */
    uint64_t *row, *rows, *cand, *lo, *hi;
    uint64_t *bound;               /* p + 1 entries: the caller's boundaries */
    uint64_t *lower;               /* p x (p + 1): where rank q's range d begins, at [q * (p + 1) + d] */
    unsigned *m;
    gp_status local;               /* this rank's failure not yet reported */
} gpi_key_split;

/* Backend bytes the splitters need (256-byte multiples) for size ranks. */
size_t gpi_key_split_backend_bytes(int size);
/* Host arrays and the backend regions (from `backend`, of the size above). */
gp_status gpi_key_split_init(gp_comm *comm, const char *fn, gpi_key_split *sp, void *backend);
void gpi_key_split_free(gpi_key_split *sp);
/* The bisection: sp->lo[b] = v_b for every b with bound[b] < total. maxv:
 * the largest image. `local`: this rank's status so far, reported to
 * every rank at the first round (of the bisection, or when it needs none,
 * the caller's last). */
gp_status gpi_key_split_bisect(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                               uint64_t total, uint64_t maxv, gp_status local);
/* One round: every rank counts its images below the first `nlower` of
 * the `count` needles in sp->cand, and at or below the rest; every rank
 * fails when one did. */
gp_status gpi_key_split_count(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                              size_t count, size_t nlower);
/* Rank q's counts of the last round. */
const uint64_t *gpi_key_split_counts(const gp_comm *comm, const gpi_key_split *sp, int q);
/* matrix[q * p + d] = the elements rank q sends rank d, from sp->lower. */
void gpi_key_split_matrix(const gp_comm *comm, const gpi_key_split *sp, uint64_t *matrix);
/* The group-by's splitters: bisection and last round into matrix.
 * no_start: an image no range may start at (its elements then join the
 * range of the image just below, for keys that are equal with distinct
 * images: +0.0 after -0.0), 0 for none. */
gp_status gpi_key_split_run(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                            uint64_t total, uint64_t maxv, uint64_t no_start, gp_status local, uint64_t *matrix);

/* Search images of n keys in backend memory, as uint64 into `out`
 * (backend): gp_sort's key order restricted to bits [begin_bit, end_bit),
 * complemented when descending, so that they ascend along a sorted run.
 * Asynchronous. */
gp_status gpi_dist_key_images(gp_context *ctx, gp_dtype dtype, int descending, const void *keys, size_t n,
                              int begin_bit, int end_bit, uint64_t *out);

/* ---- the all-to-all exchange (shuffle.c), shared with the sort (sort.c) -------- */
/* Move grouped data: counts[q * size + d] elements go from rank q to rank
 * d (every rank holds the same matrix). This rank sends its row's groups,
 * which lie one after the other in `in` (elem_size bytes each) and, with
 * value_size != 0, in `values`; it receives column `rank` in source order
 * at the start of `out` / `values_out`. ops: room for 4 * size entries
 * (allocated before the verdicts, so nothing here allocates). Queued on
 * the context's stream (CUDA); complete on return (CPU). One rank: a copy. */
gp_status gpi_shuffle_move(gp_comm *comm, size_t elem_size, const void *in, size_t value_size, const void *values,
                           const uint64_t *counts, void *out, void *values_out, gpi_p2p *ops);

/* gpi_dist_key_images on a CUDA context (dist_image.cu). */
gp_status gpi_cuda_dist_images(gp_context *ctx, gp_dtype key_dtype, int descending, const void *keys, size_t n,
                               int begin_bit, int end_bit, uint64_t *out);

/* ---- local helpers on the rank's backend --------------------------------------- */
/* Add `base` to count uint64 values in backend memory (asynchronous). */
gp_status gpi_add_u64(gp_context *ctx, uint64_t *p, size_t count, uint64_t base);
gp_status gpi_cuda_add_u64(gp_context *ctx, uint64_t *p, size_t count, uint64_t base);
/* Copy between host and backend memory, or within the backend (kind: 0
 * host->backend, 1 backend->host, 2 backend->backend); synchronous for the
 * host kinds, asynchronous on the stream for 2. */
gp_status gpi_copy(gp_context *ctx, void *dst, const void *src, size_t bytes, int kind);
gp_status gpi_memset(gp_context *ctx, void *dst, int value, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
