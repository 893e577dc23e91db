/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/comm.c - communicators: creation, the exchanges every distributed
 * call is built from (dispatched to the NCCL or the host-memory transport),
 * and gp_comm_run. The protocol on top of them is protocol.c's. */
#include "comm_internal.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int default_timeout_ms(int asked)
{
    const char *env;
    long v;
    if (asked > 0) return asked;
    env = getenv("GP_COMM_TIMEOUT_MS");
    if (env && (v = strtol(env, NULL, 10)) > 0 && v <= 0x7fffffff) return (int)v;
    return GP_COMM_DEFAULT_TIMEOUT_MS;
}

static gp_comm *new_comm(gp_context *ctx, int rank, int size, int timeout_ms)
{
    gp_comm *c = (gp_comm *)calloc(1, sizeof *c);
    if (!c) return NULL;
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->timeout_ms = default_timeout_ms(timeout_ms);
    /* What every distributed call exchanges, made now so that no call can
     * fail for want of it between its check and its exchange. */
    c->recs = (gpi_dist_rec *)calloc((size_t)size, sizeof *c->recs);
    c->parts = (unsigned char *)calloc((size_t)size, 8);
    if (!c->recs || !c->parts) {
        free(c->recs);
        free(c->parts);
        free(c);
        return NULL;
    }
    return c;
}

static void free_comm(gp_comm *c)
{
    if (!c) return;
    if (c->scratch) gp_free(c->ctx, c->scratch);
    if (c->stage_dev) cudaFree(c->stage_dev);
    if (c->stage_host) cudaFreeHost(c->stage_host);
    if (c->fork_ev) cudaEventDestroy((cudaEvent_t)c->fork_ev);
    if (c->join_ev) cudaEventDestroy((cudaEvent_t)c->join_ev);
    if (c->side) cudaStreamDestroy((cudaStream_t)c->side);
    free(c->recs);
    free(c->parts);
    free(c);
}

gp_status gp_comm_id_create(gp_comm_id *id)
{
    if (!id) return GP_ERROR_INVALID_ARGUMENT;
    return gpi_nccl_id_create(id);
}

gp_status gp_comm_init_all(gp_comm **comms, gp_context *const *ctxs, int nranks, int timeout_ms)
{
    gp_comm **made;
    gp_status s = GP_SUCCESS;
    int r, q;
    if (!comms || !ctxs || nranks < 1 || timeout_ms < 0) return GP_ERROR_INVALID_ARGUMENT;
    for (r = 0; r < nranks; r++) {
        if (gpi_check_context(ctxs[r])) return GP_ERROR_INVALID_ARGUMENT;
        gpi_begin(ctxs[r], "gp_comm_init_all");
        if (ctxs[r]->backend != ctxs[0]->backend)
            return gpi_error(ctxs[r], GP_ERROR_INVALID_ARGUMENT, "gp_comm_init_all: CPU and CUDA contexts mixed");
        for (q = 0; q < r; q++) {
            if (ctxs[q] == ctxs[r])
                return gpi_error(ctxs[r], GP_ERROR_INVALID_ARGUMENT, "gp_comm_init_all: ranks %d and %d share a context", q, r);
            if (ctxs[r]->backend == GP_BACKEND_CUDA && ctxs[q]->device == ctxs[r]->device)
                return gpi_error(ctxs[r], GP_ERROR_INVALID_ARGUMENT,
                                 "gp_comm_init_all: ranks %d and %d on the same device %d (NCCL needs one rank a device)",
                                 q, r, ctxs[r]->device);
        }
    }
    made = (gp_comm **)calloc((size_t)nranks, sizeof *made);
    if (!made) return GP_ERROR_OUT_OF_MEMORY;
    for (r = 0; r < nranks && !s; r++)
        if (!(made[r] = new_comm(ctxs[r], r, nranks, timeout_ms))) s = GP_ERROR_OUT_OF_MEMORY;
    if (!s) {
        /* Ranks of one process trade their small records through host
         * memory (CUDA ranks too: no NCCL launch, no stream drain); CUDA
         * ranks move array data with NCCL. */
        gpi_hub *hub = NULL;
        s = gpi_hub_create(nranks, &hub);
        for (r = 0; r < nranks && !s; r++) made[r]->hub = hub;
        if (!s && ctxs[0]->backend == GP_BACKEND_CUDA) s = gpi_nccl_init_all(made, nranks);
    }
    if (s) {
        for (r = 0; r < nranks; r++) {
            if (made[r] && made[r]->hub) gpi_hub_release(made[r]->hub, -1);
            if (made[r]) made[r]->hub = NULL;
            free_comm(made[r]);
        }
        free(made);
        return s;
    }
    memcpy(comms, made, (size_t)nranks * sizeof *made);
    free(made);
    return GP_SUCCESS;
}

gp_status gp_comm_init_rank(gp_comm **comm, gp_context *ctx, int nranks, int rank, const gp_comm_id *id,
                            int timeout_ms)
{
    gp_comm *c;
    gp_status s;
    if (!comm || gpi_check_context(ctx) || !id || nranks < 1 || rank < 0 || rank >= nranks || timeout_ms < 0)
        return GP_ERROR_INVALID_ARGUMENT;
    if (ctx->backend != GP_BACKEND_CUDA) {
        gpi_begin(ctx, "gp_comm_init_rank");
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED,
                         "gp_comm_init_rank: CPU ranks live in one process (use gp_comm_init_all)");
    }
    if ((s = gpi_enter(ctx, "gp_comm_init_rank"))) return s;
    if (!(c = new_comm(ctx, rank, nranks, timeout_ms))) return GP_ERROR_OUT_OF_MEMORY;
    if ((s = gpi_nccl_init_rank(c, id))) {
        free_comm(c);
        return s;
    }
    *comm = c;
    return GP_SUCCESS;
}

void gp_comm_destroy(gp_comm *comm)
{
    if (!comm) return;
    if (comm->ctx->backend == GP_BACKEND_CUDA) cudaSetDevice(comm->ctx->device);
    if (comm->hub) gpi_hub_release(comm->hub, comm->rank);
    if (comm->nccl) gpi_nccl_destroy(comm);
    free_comm(comm);
}

gp_status gp_comm_rank(const gp_comm *comm, int *rank)
{
    if (!comm || !rank) return GP_ERROR_INVALID_ARGUMENT;
    *rank = comm->rank;
    return GP_SUCCESS;
}

gp_status gp_comm_size(const gp_comm *comm, int *size)
{
    if (!comm || !size) return GP_ERROR_INVALID_ARGUMENT;
    *size = comm->size;
    return GP_SUCCESS;
}

gp_status gp_comm_context(const gp_comm *comm, gp_context **ctx)
{
    if (!comm || !ctx) return GP_ERROR_INVALID_ARGUMENT;
    *ctx = comm->ctx;
    return GP_SUCCESS;
}

gp_status gp_comm_set_timeout(gp_comm *comm, int timeout_ms)
{
    if (!comm || timeout_ms <= 0) return GP_ERROR_INVALID_ARGUMENT;
    comm->timeout_ms = timeout_ms;
    return GP_SUCCESS;
}

/* ---- gp_comm_run ------------------------------------------------------------ */
typedef struct run_slot {
    gp_comm *comm;
    gp_comm_fn fn;
    void *arg;
    gp_status status;
} run_slot;

static void *run_one(void *p)
{
    run_slot *s = (run_slot *)p;
    s->status = s->fn(s->comm, s->arg);
    return NULL;
}

gp_status gp_comm_run(gp_comm *const *comms, int nranks, gp_comm_fn fn, void *arg)
{
    run_slot *slots;
    pthread_t *threads;
    int r, started = 0;
    gp_status s = GP_SUCCESS;
    if (!comms || nranks < 1 || !fn) return GP_ERROR_INVALID_ARGUMENT;
    for (r = 0; r < nranks; r++)
        if (!comms[r]) return GP_ERROR_INVALID_ARGUMENT;
    slots = (run_slot *)calloc((size_t)nranks, sizeof *slots);
    threads = (pthread_t *)calloc((size_t)nranks, sizeof *threads);
    if (!slots || !threads) {
        free(slots);
        free(threads);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (r = 0; r < nranks; r++) {
        slots[r].comm = comms[r];
        slots[r].fn = fn;
        slots[r].arg = arg;
    }
    /* All threads or none: a rank left out would make the others wait. */
    for (r = 0; r < nranks; r++) {
        if (pthread_create(&threads[r], NULL, run_one, &slots[r]) != 0) break;
        started++;
    }
    if (started < nranks) {
        /* The started ranks block in their first collective until their
         * timeout; they cannot be called back, so wait for them. */
        s = GP_ERROR_OUT_OF_MEMORY;
    }
    for (r = 0; r < started; r++) pthread_join(threads[r], NULL);
    if (!s)
        for (r = 0; r < nranks; r++)
            if (slots[r].status) {
                s = slots[r].status;
                break;
            }
    free(slots);
    free(threads);
    return s;
}

/* ---- the exchanges -------------------------------------------------------------- */

gp_status gpi_comm_fail(gp_comm *comm, gp_status status, const char *fmt, ...)
{
    va_list ap;
    char msg[256];
    comm->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gpi_error(comm->ctx, status, "rank %d: %s", comm->rank, msg);
}

gp_status gpi_comm_enter(gp_comm *comm, const char *fn)
{
    gp_status s;
    if (!comm) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = gpi_enter(comm->ctx, fn))) return s;
    if (comm->failed)
        return gpi_error(comm->ctx, GP_ERROR_COMM,
                         "rank %d: the communicator was aborted after an earlier failure; destroy it", comm->rank);
    return GP_SUCCESS;
}

gp_status gpi_comm_allgather(gp_comm *comm, const void *mine, const gpi_backend_part *part, size_t bytes, void *all)
{
    unsigned char patched[256];
    gp_status s;
    if (comm->failed) return gpi_error(comm->ctx, GP_ERROR_COMM, "rank %d: communicator aborted", comm->rank);
    if (!comm->hub) return gpi_nccl_allgather(comm, mine, part, bytes, all);
    if (part) { /* from backend memory: a synchronous copy for CUDA ranks */
        if (bytes > sizeof patched) return gpi_error(comm->ctx, GP_ERROR_INTERNAL, "allgather record too large");
        memcpy(patched, mine, bytes);
        if ((s = gpi_copy(comm->ctx, patched + part->offset, part->src, part->bytes, 1))) return s;
        mine = patched;
    }
    return gpi_hub_allgather(comm, mine, bytes, all);
}

gp_status gpi_comm_p2p(gp_comm *comm, const gpi_p2p *ops, int nops, gpi_p2p_mode mode)
{
    if (comm->failed) return gpi_error(comm->ctx, GP_ERROR_COMM, "rank %d: communicator aborted", comm->rank);
    if (comm->ctx->backend == GP_BACKEND_CPU) return gpi_hub_p2p(comm, ops, nops);
    return gpi_nccl_p2p(comm, ops, nops, mode);
}

gp_status gpi_comm_fork(gp_comm *comm)
{
    cudaError_t e = cudaSuccess;
    if (comm->ctx->backend != GP_BACKEND_CUDA) return GP_SUCCESS;
    if (!comm->side) { /* made on first use, all three or none */
        int least, greatest;
        cudaStream_t st = NULL;
        cudaEvent_t fork_ev = NULL, join_ev = NULL;
        e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
        if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, greatest);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            if (join_ev) cudaEventDestroy(join_ev);
            if (fork_ev) cudaEventDestroy(fork_ev);
            if (st) cudaStreamDestroy(st);
            return gpi_cuda_status(comm->ctx, e, "communicator side stream");
        }
        comm->side = st;
        comm->fork_ev = fork_ev;
        comm->join_ev = join_ev;
    }
    e = cudaEventRecord((cudaEvent_t)comm->fork_ev, (cudaStream_t)comm->ctx->stream);
    if (e == cudaSuccess) e = cudaStreamWaitEvent((cudaStream_t)comm->side, (cudaEvent_t)comm->fork_ev, 0);
    return gpi_cuda_status(comm->ctx, e, "communicator side stream (fork)");
}

gp_status gpi_comm_join(gp_comm *comm)
{
    cudaError_t e;
    if (comm->ctx->backend != GP_BACKEND_CUDA) return GP_SUCCESS;
    e = cudaEventRecord((cudaEvent_t)comm->join_ev, (cudaStream_t)comm->side);
    if (e == cudaSuccess) e = cudaStreamWaitEvent((cudaStream_t)comm->ctx->stream, (cudaEvent_t)comm->join_ev, 0);
    return gpi_cuda_status(comm->ctx, e, "communicator side stream (join)");
}

const gpi_p2p *gpi_p2p_match(const gpi_p2p *ops, int i, int me, const gpi_p2p *peer_ops, int peer_nops)
{
    int j, k = 0;
    for (j = 0; j < i; j++) k += !ops[j].send && ops[j].peer == ops[i].peer;
    for (j = 0; j < peer_nops; j++) {
        if (!peer_ops[j].send || peer_ops[j].peer != me || k-- > 0) continue;
        return peer_ops[j].bytes == ops[i].bytes ? &peer_ops[j] : NULL;
    }
    return NULL;
}

static gp_status comm_scratch(gp_comm *comm, size_t bytes, void **ptr)
{
    gp_status s;
    void *p = NULL;
    if (bytes <= comm->scratch_bytes) {
        *ptr = comm->scratch;
        return GP_SUCCESS;
    }
    if (comm->scratch) {
        if ((s = gp_context_synchronize(comm->ctx))) return s;
        gp_free(comm->ctx, comm->scratch);
        comm->scratch = NULL;
        comm->scratch_bytes = 0;
    }
    if ((s = gp_malloc(comm->ctx, &p, bytes))) return s;
    comm->scratch = p;
    comm->scratch_bytes = bytes;
    *ptr = p;
    return GP_SUCCESS;
}

gp_status gpi_comm_scratch(gp_comm *comm, size_t bytes, void **ptr)
{
    /* The calls it makes report under the distributed call's name. */
    const int held = comm->ctx->call_held;
    gp_status s;
    comm->ctx->call_held = 1;
    s = comm_scratch(comm, bytes, ptr);
    comm->ctx->call_held = held;
    return s;
}

/* ---- local helpers -------------------------------------------------------------- */

gp_status gpi_copy(gp_context *ctx, void *dst, const void *src, size_t bytes, int kind)
{
    static const enum cudaMemcpyKind kinds[3] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                                 cudaMemcpyDeviceToDevice};
    cudaError_t e;
    if (bytes == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CPU) {
        memmove(dst, src, bytes);
        return GP_SUCCESS;
    }
    e = cudaMemcpyAsync(dst, src, bytes, kinds[kind], (cudaStream_t)ctx->stream);
    if (e == cudaSuccess && kind != 2) e = cudaStreamSynchronize((cudaStream_t)ctx->stream);
    return gpi_cuda_status(ctx, e, "gpi_copy");
}

gp_status gpi_memset(gp_context *ctx, void *dst, int value, size_t bytes)
{
    if (bytes == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CPU) {
        memset(dst, value, bytes);
        return GP_SUCCESS;
    }
    return gpi_cuda_status(ctx, cudaMemsetAsync(dst, value, bytes, (cudaStream_t)ctx->stream), "cudaMemsetAsync");
}

gp_status gpi_add_u64(gp_context *ctx, uint64_t *p, size_t count, uint64_t base)
{
    size_t i;
    if (count == 0 || base == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_add_u64(ctx, p, count, base);
    for (i = 0; i < count; i++) p[i] += base;
    return GP_SUCCESS;
}
