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

/* Check the communicator (not NULL, not failed) and enter its context. */
gp_status gpi_comm_enter(gp_comm *comm);

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

/* The record every distributed call exchanges once or twice: each rank's
 * verdict on its own arguments and the few numbers the others need. */
typedef struct gpi_dist_rec {
    int32_t status;    /* GP_SUCCESS, or why this rank failed */
    int32_t args[3];   /* arguments that must agree across ranks (dtype, op, ...) */
    uint64_t n;        /* this rank's elements (or rows) */
    uint64_t cols;     /* must agree (stencils) */
    uint64_t count;    /* this rank's result count */
    unsigned char v[3][8]; /* values: a partial result, a first and a last element */
} gpi_dist_rec;

/* Exchange `mine` (all: size records) and agree: when any rank failed or
 * the args/cols differ, every rank returns an error (its own status if it
 * failed itself, else GP_ERROR_COMM naming the first failing rank, or
 * GP_ERROR_INVALID_ARGUMENT for disagreeing arguments). `fn` names the
 * call in messages. */
gp_status gpi_dist_exchange(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, gpi_dist_rec *all);
/* The same with part of `mine` still in backend memory (see gpi_comm_allgather). */
gp_status gpi_dist_exchange_part(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, const gpi_backend_part *part,
                                 gpi_dist_rec *all);

/* ---- transports ------------------------------------------------------------- */
gp_status gpi_hub_create(int size, gpi_hub **hub);
void gpi_hub_release(gpi_hub *hub);
gp_status gpi_hub_allgather(gp_comm *comm, const void *mine, size_t bytes, void *all);
gp_status gpi_hub_p2p(gp_comm *comm, const gpi_p2p *ops, int nops);

gp_status gpi_nccl_id_create(gp_comm_id *id);
gp_status gpi_nccl_init_all(gp_comm **comms, int nranks);  /* comms[] filled but for nccl */
gp_status gpi_nccl_init_rank(gp_comm *comm, const gp_comm_id *id);
void gpi_nccl_destroy(gp_comm *comm);
gp_status gpi_nccl_allgather(gp_comm *comm, const void *mine, const gpi_backend_part *part, size_t bytes, void *all);
gp_status gpi_nccl_p2p(gp_comm *comm, const gpi_p2p *ops, int nops, gpi_p2p_mode mode);

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
