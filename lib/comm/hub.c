/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/hub.c - the transport of ranks in one process: each rank posts a
 * pointer to what it offers, all meet at a barrier, each copies what it
 * needs straight from its peers' memory, and all meet again before anyone
 * may reuse its buffers. A rank that does not arrive within the timeout
 * breaks the hub: every waiting and later call fails instead of hanging.
 * A rank that destroys its communicator leaves the hub: its peers' waiting
 * and later rounds fail at once, naming it, instead of waiting it out. */
#include "comm_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct hub_post {
    const void *data;     /* allgather: this rank's bytes */
    const gpi_p2p *ops;   /* p2p: this rank's operations */
    int nops;
} hub_post;

struct gpi_hub {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int size, refs, arrived, broken;
    int gone;             /* 1 + the first rank that left (destroyed its communicator), 0: none */
    unsigned long generation;
    hub_post *posts;
};

gp_status gpi_hub_create(int size, gpi_hub **out)
{
    gpi_hub *h = (gpi_hub *)calloc(1, sizeof *h);
    if (!h) return GP_ERROR_OUT_OF_MEMORY;
    h->posts = (hub_post *)calloc((size_t)size, sizeof *h->posts);
    if (!h->posts) {
        free(h);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    h->size = h->refs = size;
    *out = h;
    return GP_SUCCESS;
}

void gpi_hub_release(gpi_hub *h, int rank)
{
    int last;
    pthread_mutex_lock(&h->mu);
    last = --h->refs == 0;
    /* A rank that leaves ends every round that waits, or will wait, for it
     * (rank < 0: a communicator being unmade, nobody waits). */
    if (!last && rank >= 0) {
        if (!h->gone) __atomic_store_n(&h->gone, rank + 1, __ATOMIC_RELAXED);
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    if (!last) return;
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h->posts);
    free(h);
}

/* Spin this long for the last rank before sleeping: a round of a few
 * microseconds then costs no futex wake-up (tens of microseconds). */
#define HUB_SPIN_NS 50000L

static long elapsed_ns(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

/* Why a round cannot complete: gone = 1 + a rank that left, or 0. */
static gp_status left_or_broken(gp_comm *comm, int gone)
{
    if (gone)
        return gpi_comm_fail(comm, GP_ERROR_COMM, "rank %d destroyed its communicator; this one cannot be used again",
                             gone - 1);
    return gpi_comm_fail(comm, GP_ERROR_COMM, "another rank timed out; the communicator is broken");
}

/* All ranks arrive, or none returns success. */
static gp_status hub_barrier(gp_comm *comm)
{
    gpi_hub *h = comm->hub;
    struct timespec deadline, t0;
    unsigned long gen;
    int gone;
    gp_status s = GP_SUCCESS;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += comm->timeout_ms / 1000;
    deadline.tv_nsec += (long)(comm->timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&h->mu);
    if (h->gone || h->broken) {
        int gone = h->gone;
        pthread_mutex_unlock(&h->mu);
        return left_or_broken(comm, gone);
    }
    gen = h->generation;
    if (++h->arrived == h->size) {
        h->arrived = 0;
        __atomic_store_n(&h->generation, gen + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&h->cv);
    } else {
        pthread_mutex_unlock(&h->mu);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (__atomic_load_n(&h->generation, __ATOMIC_ACQUIRE) == gen && !__atomic_load_n(&h->broken, __ATOMIC_RELAXED) &&
               !__atomic_load_n(&h->gone, __ATOMIC_RELAXED) && elapsed_ns(&t0) < HUB_SPIN_NS)
            ;
        pthread_mutex_lock(&h->mu);
        while (h->generation == gen && !h->broken && !h->gone) {
            int rc = pthread_cond_timedwait(&h->cv, &h->mu, &deadline);
            if (rc == ETIMEDOUT && h->generation == gen) {
                __atomic_store_n(&h->broken, 1, __ATOMIC_RELAXED);
                pthread_cond_broadcast(&h->cv);
                s = GP_ERROR_TIMEOUT;
            }
        }
        if (!s && h->generation == gen) s = GP_ERROR_COMM;
    }
    gone = h->gone;
    pthread_mutex_unlock(&h->mu);
    if (s == GP_ERROR_TIMEOUT)
        return gpi_comm_fail(comm, s, "the other ranks did not join a collective within %d ms", comm->timeout_ms);
    if (s) return left_or_broken(comm, gone);
    return GP_SUCCESS;
}

gp_status gpi_hub_allgather(gp_comm *comm, const void *mine, size_t bytes, void *all)
{
    gpi_hub *h = comm->hub;
    gp_status s;
    int q;
    h->posts[comm->rank].data = mine;
    if ((s = hub_barrier(comm))) return s;
    for (q = 0; q < comm->size; q++) memcpy((char *)all + (size_t)q * bytes, h->posts[q].data, bytes);
    return hub_barrier(comm);
}

gp_status gpi_hub_p2p(gp_comm *comm, const gpi_p2p *ops, int nops)
{
    gpi_hub *h = comm->hub;
    gp_status s, bad = GP_SUCCESS;
    int i;
    h->posts[comm->rank].ops = ops;
    h->posts[comm->rank].nops = nops;
    if ((s = hub_barrier(comm))) return s;
    for (i = 0; i < nops; i++) {
        const hub_post *p;
        const gpi_p2p *send;
        if (ops[i].send) continue;
        p = &h->posts[ops[i].peer];
        if ((send = gpi_p2p_match(ops, i, comm->rank, p->ops, p->nops))) memcpy(ops[i].buf, send->buf, ops[i].bytes);
        else bad = GP_ERROR_INTERNAL;
    }
    s = hub_barrier(comm);
    if (bad) return gpi_error(comm->ctx, bad, "rank %d: unmatched point-to-point transfer", comm->rank);
    return s;
}
