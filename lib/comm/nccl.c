/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/nccl.c - the transport of CUDA ranks: NCCL, loaded with dlopen the
 * first time it is needed, so that libgpuprim.so carries no dependency on
 * it. Communicators are made non-blocking (config.blocking = 0): every NCCL
 * call returns at once and is completed by polling ncclCommGetAsyncError,
 * and stream work is waited for by polling cudaStreamQuery, both against
 * the communicator's deadline; past it, ncclCommAbort ends the
 * communicator instead of a hang. */
#include "comm_internal.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if GPUPRIM_HAVE_NCCL
#include <nccl.h>

/* The NCCL entry points gpuprim uses, resolved from the loaded library. */
typedef struct nccl_api {
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    const char *(*GetErrorString)(ncclResult_t);
    const char *(*GetLastError)(ncclComm_t);
} nccl_api;

static nccl_api g_nccl;
static int g_nccl_ok;
static char g_nccl_why[512];
static pthread_once_t g_nccl_once = PTHREAD_ONCE_INIT;

static void *open_nccl(void)
{
    const char *env = getenv("GP_NCCL_LIBRARY");
    void *h;
    char tried[320] = ""; /* with the text below, fits g_nccl_why */
    if (env && *env) {
        if ((h = dlopen(env, RTLD_NOW | RTLD_LOCAL))) return h;
        snprintf(tried, sizeof tried, "GP_NCCL_LIBRARY=%s: %s; ", env, dlerror());
    }
    if ((h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL))) return h;
#ifdef GPUPRIM_NCCL_LIBRARY_HINT
    if ((h = dlopen(GPUPRIM_NCCL_LIBRARY_HINT, RTLD_NOW | RTLD_LOCAL))) return h;
#endif
    snprintf(g_nccl_why, sizeof g_nccl_why,
             "%slibnccl.so.2 not found by the dynamic loader: set GP_NCCL_LIBRARY to its path or add its folder to "
             "LD_LIBRARY_PATH",
             tried);
    return NULL;
}

static void load_nccl(void)
{
    void *h = open_nccl();
    int version = 0;
    if (!h) return;
#define GET(field, name)                                                                  \
    if (!(*(void **)&g_nccl.field = dlsym(h, name))) {                                   \
        snprintf(g_nccl_why, sizeof g_nccl_why, "the NCCL library lacks %s (too old?)", name); \
        return;                                                                           \
    }
    GET(GetVersion, "ncclGetVersion")
    GET(GetUniqueId, "ncclGetUniqueId")
    GET(CommInitRankConfig, "ncclCommInitRankConfig")
    GET(CommDestroy, "ncclCommDestroy")
    GET(CommAbort, "ncclCommAbort")
    GET(CommGetAsyncError, "ncclCommGetAsyncError")
    GET(AllGather, "ncclAllGather")
    GET(Send, "ncclSend")
    GET(Recv, "ncclRecv")
    GET(GroupStart, "ncclGroupStart")
    GET(GroupEnd, "ncclGroupEnd")
    GET(GetErrorString, "ncclGetErrorString")
    GET(GetLastError, "ncclGetLastError")
#undef GET
    g_nccl.GetVersion(&version);
    /* Non-blocking communicators (config.blocking) arrived in 2.14. */
    if (version < 21400) {
        snprintf(g_nccl_why, sizeof g_nccl_why, "NCCL %d is too old: gpuprim needs 2.14 or newer", version);
        return;
    }
    g_nccl_ok = 1;
}

static gp_status need_nccl(gp_context *ctx)
{
    pthread_once(&g_nccl_once, load_nccl);
    if (g_nccl_ok) return GP_SUCCESS;
    return gpi_error(ctx, GP_ERROR_NO_NCCL, "%s", g_nccl_why);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static gp_status abort_comm(gp_comm *c, gp_status s, const char *what, ncclResult_t r)
{
    ncclComm_t nc = (ncclComm_t)c->nccl;
    const char *detail = nc ? g_nccl.GetLastError(nc) : "";
    if (nc) g_nccl.CommAbort(nc);
    c->nccl = NULL;
    if (s == GP_ERROR_TIMEOUT)
        return gpi_comm_fail(c, s, "%s did not complete within %d ms; the communicator is aborted", what,
                             c->timeout_ms);
    return gpi_comm_fail(c, s, "%s: %s%s%s", what, g_nccl.GetErrorString(r), detail && *detail ? ": " : "",
                         detail ? detail : "");
}

/* Finish an NCCL call made on a non-blocking communicator. */
static gp_status settle(gp_comm *c, ncclResult_t r, double deadline, const char *what)
{
    while (r == ncclInProgress) {
        if (now_ms() > deadline) return abort_comm(c, GP_ERROR_TIMEOUT, what, r);
        sched_yield();
        g_nccl.CommGetAsyncError((ncclComm_t)c->nccl, &r);
    }
    if (r != ncclSuccess) return abort_comm(c, GP_ERROR_COMM, what, r);
    return GP_SUCCESS;
}

/* Wait for the stream, watching for NCCL errors and the deadline. */
static gp_status wait_stream(gp_comm *c, const char *what)
{
    double deadline = now_ms() + c->timeout_ms;
    cudaStream_t st = (cudaStream_t)c->ctx->stream;
    for (;;) {
        ncclResult_t r = ncclSuccess;
        cudaError_t e = cudaStreamQuery(st);
        if (e == cudaSuccess) return GP_SUCCESS;
        if (e != cudaErrorNotReady) return gpi_cuda_status(c->ctx, e, what);
        g_nccl.CommGetAsyncError((ncclComm_t)c->nccl, &r);
        if (r != ncclSuccess && r != ncclInProgress) return abort_comm(c, GP_ERROR_COMM, what, r);
        if (now_ms() > deadline) return abort_comm(c, GP_ERROR_TIMEOUT, what, r);
        sched_yield();
    }
}

/* Non-blocking unless GP_NCCL_BLOCKING=1 asks for NCCL's default (then a
 * set-up or a first collective whose peers never come can block inside
 * NCCL: the deadline then only covers the waits on the stream). */
static void nonblocking_config(ncclConfig_t *cfg)
{
    ncclConfig_t init = NCCL_CONFIG_INITIALIZER;
    const char *env = getenv("GP_NCCL_BLOCKING");
    *cfg = init;
    cfg->blocking = env && strcmp(env, "1") == 0;
}

gp_status gpi_nccl_id_create(gp_comm_id *id)
{
    ncclUniqueId u;
    ncclResult_t r;
    gp_status s = need_nccl(NULL);
    if (s) return s;
    if ((r = g_nccl.GetUniqueId(&u)) != ncclSuccess) return GP_ERROR_COMM;
    memcpy(id->bytes, u.internal, sizeof id->bytes);
    return GP_SUCCESS;
}

/* Wait for non-blocking initialisation of comms[0..n). */
static gp_status settle_init(gp_comm **comms, int n, double deadline)
{
    gp_status first = GP_SUCCESS;
    int r;
    for (r = 0; r < n; r++) {
        ncclResult_t res = ncclInProgress;
        gp_status s;
        if (!comms[r]->nccl) continue;
        g_nccl.CommGetAsyncError((ncclComm_t)comms[r]->nccl, &res);
        s = settle(comms[r], res, deadline, "NCCL communicator set-up");
        if (s && !first) first = s;
    }
    return first;
}

gp_status gpi_nccl_init_all(gp_comm **comms, int nranks)
{
    ncclUniqueId id;
    ncclResult_t r, end;
    gp_status s = need_nccl(comms[0]->ctx);
    double deadline = now_ms() + comms[0]->timeout_ms;
    int i;
    if (s) return s;
    if ((r = g_nccl.GetUniqueId(&id)) != ncclSuccess)
        return gpi_error(comms[0]->ctx, GP_ERROR_COMM, "ncclGetUniqueId: %s", g_nccl.GetErrorString(r));
    /* One thread starts every rank: NCCL requires a group for that. */
    g_nccl.GroupStart();
    for (i = 0; i < nranks; i++) {
        ncclConfig_t cfg;
        ncclComm_t nc = NULL;
        nonblocking_config(&cfg);
        cudaSetDevice(comms[i]->ctx->device);
        r = g_nccl.CommInitRankConfig(&nc, nranks, id, i, &cfg);
        comms[i]->nccl = nc;
        if (r != ncclSuccess && r != ncclInProgress) {
            s = gpi_error(comms[i]->ctx, GP_ERROR_COMM, "ncclCommInitRankConfig (rank %d): %s", i,
                          g_nccl.GetErrorString(r));
            break;
        }
    }
    end = g_nccl.GroupEnd();
    if (!s && end != ncclSuccess && end != ncclInProgress)
        s = gpi_error(comms[0]->ctx, GP_ERROR_COMM, "NCCL group of communicator set-ups: %s",
                      g_nccl.GetErrorString(end));
    if (!s) s = settle_init(comms, nranks, deadline);
    if (s) {
        for (i = 0; i < nranks; i++)
            if (comms[i]->nccl) {
                g_nccl.CommAbort((ncclComm_t)comms[i]->nccl);
                comms[i]->nccl = NULL;
            }
    }
    return s;
}

gp_status gpi_nccl_init_rank(gp_comm *c, const gp_comm_id *id)
{
    ncclUniqueId u;
    ncclConfig_t cfg;
    ncclComm_t nc = NULL;
    ncclResult_t r;
    gp_status s = need_nccl(c->ctx);
    if (s) return s;
    memcpy(u.internal, id->bytes, sizeof u.internal);
    nonblocking_config(&cfg);
    r = g_nccl.CommInitRankConfig(&nc, c->size, u, c->rank, &cfg);
    c->nccl = nc;
    if (r != ncclSuccess && r != ncclInProgress) {
        if (nc) g_nccl.CommAbort(nc);
        c->nccl = NULL;
        return gpi_error(c->ctx, GP_ERROR_COMM, "ncclCommInitRankConfig (rank %d of %d): %s", c->rank, c->size,
                         g_nccl.GetErrorString(r));
    }
    if ((s = settle(c, ncclInProgress, now_ms() + c->timeout_ms, "NCCL communicator set-up"))) return s;
    return GP_SUCCESS;
}

void gpi_nccl_destroy(gp_comm *c)
{
    ncclComm_t nc = (ncclComm_t)c->nccl;
    if (!nc) return;
    /* ncclCommDestroy flushes the communicator's outstanding work and frees
     * it (as NCCL's own examples do, one rank after another from one
     * thread); ncclCommFinalize is not used, as it waits for every rank to
     * finalize, which a thread destroying its ranks in turn never sees. */
    if (c->failed || g_nccl.CommDestroy(nc) != ncclSuccess) g_nccl.CommAbort(nc);
    c->nccl = NULL;
}

static gp_status stage(gp_comm *c, size_t bytes)
{
    cudaError_t e;
    if (bytes <= c->stage_bytes) return GP_SUCCESS;
    if (c->stage_dev) cudaFree(c->stage_dev);
    if (c->stage_host) cudaFreeHost(c->stage_host);
    c->stage_dev = c->stage_host = NULL;
    c->stage_bytes = 0;
    e = cudaMalloc(&c->stage_dev, bytes);
    if (e == cudaSuccess) e = cudaHostAlloc(&c->stage_host, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) return gpi_cuda_status(c->ctx, e, "communicator staging buffers");
    c->stage_bytes = bytes;
    return GP_SUCCESS;
}

gp_status gpi_nccl_allgather(gp_comm *c, const void *mine, const gpi_backend_part *part, size_t bytes, void *all)
{
    cudaStream_t st = (cudaStream_t)c->ctx->stream;
    size_t total = bytes * (size_t)c->size;
    char *dev, *host;
    gp_status s;
    cudaError_t e;
    if (!c->nccl) return gpi_error(c->ctx, GP_ERROR_COMM, "rank %d: communicator aborted", c->rank);
    if ((s = stage(c, total))) return s;
    dev = (char *)c->stage_dev;
    host = (char *)c->stage_host;
    memcpy(host + (size_t)c->rank * bytes, mine, bytes);
    e = cudaMemcpyAsync(dev + (size_t)c->rank * bytes, host + (size_t)c->rank * bytes, bytes, cudaMemcpyHostToDevice,
                        st);
    if (e == cudaSuccess && part)
        e = cudaMemcpyAsync(dev + (size_t)c->rank * bytes + part->offset, part->src, part->bytes,
                            cudaMemcpyDeviceToDevice, st);
    if (e != cudaSuccess) return gpi_cuda_status(c->ctx, e, "allgather staging");
    /* In place: rank r's part already sits at recvbuff + r * count. */
    s = settle(c, g_nccl.AllGather(dev + (size_t)c->rank * bytes, dev, bytes, ncclUint8, (ncclComm_t)c->nccl, st),
               now_ms() + c->timeout_ms, "ncclAllGather");
    if (s) return s;
    e = cudaMemcpyAsync(host, dev, total, cudaMemcpyDeviceToHost, st);
    if (e != cudaSuccess) return gpi_cuda_status(c->ctx, e, "allgather staging");
    if ((s = wait_stream(c, "ncclAllGather"))) return s;
    memcpy(all, host, total);
    return GP_SUCCESS;
}

gp_status gpi_nccl_p2p(gp_comm *c, const gpi_p2p *ops, int nops, gpi_p2p_mode mode)
{
    cudaStream_t st = (cudaStream_t)(mode == GPI_P2P_SIDE ? c->side : c->ctx->stream);
    ncclComm_t nc = (ncclComm_t)c->nccl;
    gp_status s = GP_SUCCESS;
    ncclResult_t r = ncclSuccess;
    int i;
    if (!nc) return gpi_error(c->ctx, GP_ERROR_COMM, "rank %d: communicator aborted", c->rank);
    /* Transfers to this rank itself are copies: the k-th receive from self
     * takes the k-th send to self. */
    for (i = 0; i < nops && !s; i++) {
        const gpi_p2p *send;
        if (ops[i].send || ops[i].peer != c->rank) continue;
        if (!(send = gpi_p2p_match(ops, i, c->rank, ops, nops)))
            s = gpi_error(c->ctx, GP_ERROR_INTERNAL, "unmatched receive from self");
        else
            s = gpi_cuda_status(c->ctx, cudaMemcpyAsync(ops[i].buf, send->buf, ops[i].bytes, cudaMemcpyDeviceToDevice, st),
                                "p2p copy to self");
    }
    if (s) return s;
    g_nccl.GroupStart();
    for (i = 0; i < nops && r == ncclSuccess; i++) {
        if (ops[i].peer == c->rank || ops[i].bytes == 0) continue;
        r = ops[i].send ? g_nccl.Send(ops[i].buf, ops[i].bytes, ncclUint8, ops[i].peer, nc, st)
                        : g_nccl.Recv(ops[i].buf, ops[i].bytes, ncclUint8, ops[i].peer, nc, st);
        if (r == ncclInProgress) r = ncclSuccess; /* settled with the group */
    }
    {
        ncclResult_t end = g_nccl.GroupEnd();
        if (r == ncclSuccess) r = end;
    }
    if ((s = settle(c, r, now_ms() + c->timeout_ms, "NCCL send/recv group"))) return s;
    return mode == GPI_P2P_WAIT ? wait_stream(c, "NCCL send/recv group") : GP_SUCCESS;
}

#else /* built without nccl.h: CUDA communicators are not available */

static gp_status no_nccl(gp_context *ctx)
{
    return gpi_error(ctx, GP_ERROR_NO_NCCL, "gpuprim was built without NCCL's header (nccl.h): rebuild with NCCL_ROOT set");
}
gp_status gpi_nccl_id_create(gp_comm_id *id)
{
    (void)id;
    return GP_ERROR_NO_NCCL;
}
gp_status gpi_nccl_init_all(gp_comm **comms, int nranks)
{
    (void)nranks;
    return no_nccl(comms[0]->ctx);
}
gp_status gpi_nccl_init_rank(gp_comm *c, const gp_comm_id *id)
{
    (void)id;
    return no_nccl(c->ctx);
}
void gpi_nccl_destroy(gp_comm *c) { (void)c; }
gp_status gpi_nccl_allgather(gp_comm *c, const void *mine, const gpi_backend_part *part, size_t bytes, void *all)
{
    (void)mine, (void)part, (void)bytes, (void)all;
    return no_nccl(c->ctx);
}
gp_status gpi_nccl_p2p(gp_comm *c, const gpi_p2p *ops, int nops, gpi_p2p_mode mode)
{
    (void)ops, (void)nops, (void)mode;
    return no_nccl(c->ctx);
}
#endif
