/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/pool.c - the process-wide worker pool of the CPU backend.
 *
 * Workers are started on first need (as many as the largest call so far
 * asked for, less the caller) and then sleep on a condition variable
 * between calls. One call uses the pool at a time: a call that finds it
 * busy (another thread of the application is running a primitive) runs
 * its parts in order on its own thread, which gives the same results.
 * After fork() the child has no workers: it starts its own on first use. */
#include "pool.h"

#include <pthread.h>

enum { kMaxWorkers = 255 };

static struct {
    pthread_mutex_t busy; /* held by the call that owns the pool */
    pthread_mutex_t m;    /* guards the fields below */
    pthread_cond_t wake, done;
    int workers;          /* started so far; worker w runs part w */
    int atfork_set;
    unsigned long generation;
    gpi_pool_fn fn;
    void *arg;
    int parts;            /* of the whole call */
    int active;           /* workers 1..active run a part of this call */
    int pending;          /* parts handed to workers and not yet finished */
    unsigned long born[kMaxWorkers + 1]; /* worker w: the generation when it was started */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
          0, 0, 0, NULL, NULL, 0, 0, 0, {0}};

static void *worker(void *arg)
{
    const int w = (int)(size_t)arg;
    unsigned long seen;
    pthread_mutex_lock(&pool.m);
    seen = pool.born[w]; /* calls after that one are for it, even if it starts late */
    for (;;) {
        gpi_pool_fn fn;
        void *fn_arg;
        int parts;
        while (pool.generation == seen) pthread_cond_wait(&pool.wake, &pool.m);
        seen = pool.generation;
        if (w > pool.active) continue;
        fn = pool.fn, fn_arg = pool.arg, parts = pool.parts;
        pthread_mutex_unlock(&pool.m);
        fn(fn_arg, w, parts);
        pthread_mutex_lock(&pool.m);
        if (--pool.pending == 0) pthread_cond_signal(&pool.done);
    }
    return NULL;
}

static void reset_in_child(void)
{
    pthread_mutex_init(&pool.busy, NULL);
    pthread_mutex_init(&pool.m, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.workers = 0;
    pool.pending = 0;
}

/* Start workers up to `want` (called with pool.busy held, pool.m not). */
static void grow(int want)
{
    if (want > kMaxWorkers) want = kMaxWorkers;
    if (!pool.atfork_set) pool.atfork_set = pthread_atfork(NULL, NULL, reset_in_child) == 0;
    while (pool.workers < want) {
        pthread_t t;
        pthread_attr_t attr;
        int ok;
        if (pthread_attr_init(&attr) != 0) return;
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_mutex_lock(&pool.m);
        pool.born[pool.workers + 1] = pool.generation;
        ok = pthread_create(&t, &attr, worker, (void *)(size_t)(pool.workers + 1)) == 0;
        if (ok) pool.workers++;
        pthread_mutex_unlock(&pool.m);
        pthread_attr_destroy(&attr);
        if (!ok) return;
    }
}

void gpi_pool_run(int parts, gpi_pool_fn fn, void *arg)
{
    int p, on_workers;
    if (parts < 1) parts = 1;
    if (parts == 1 || pthread_mutex_trylock(&pool.busy) != 0) {
        for (p = 0; p < parts; p++) fn(arg, p, parts);
        return;
    }
    grow(parts - 1);
    pthread_mutex_lock(&pool.m);
    on_workers = pool.workers < parts - 1 ? pool.workers : parts - 1;
    pool.fn = fn;
    pool.arg = arg;
    pool.parts = parts;
    pool.active = on_workers; /* workers take parts 1..on_workers */
    pool.pending = on_workers;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.m);
    fn(arg, 0, parts);
    for (p = on_workers + 1; p < parts; p++) fn(arg, p, parts); /* workers that could not start */
    pthread_mutex_lock(&pool.m);
    while (pool.pending > 0) pthread_cond_wait(&pool.done, &pool.m);
    pthread_mutex_unlock(&pool.m);
    pthread_mutex_unlock(&pool.busy);
}

int gpi_pool_parts(size_t n, int threads)
{
    size_t most = n / GPI_POOL_MIN_PART;
    if (threads < 1) threads = 1;
    if (threads > GPI_POOL_MAX_PARTS) threads = GPI_POOL_MAX_PARTS;
    if (most < 1) return 1;
    return most < (size_t)threads ? (int)most : threads;
}
