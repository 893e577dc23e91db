/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/pool.c - a tiny fork-join: `threads` workers run fn(arg); fn pulls its
 * work items from an atomic counter, so if a thread cannot be started the
 * others (at least the caller) still do everything. */
#include "tile.h"

#include <pthread.h>

static void *trampoline(void *p)
{
    void **fa = (void **)p;
    ((void (*)(void *))fa[0])(fa[1]);
    return NULL;
}

void gpr_run_parallel(int threads, void (*fn)(void *), void *arg)
{
    pthread_t tid[64];
    int started[64];
    void *fa[2];
    int t;
    union {
        void (*f)(void *);
        void *p;
    } u;
    if (threads > 64) threads = 64;
    u.f = fn;
    fa[0] = u.p;
    fa[1] = arg;
    for (t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, trampoline, fa) == 0;
    fn(arg);
    for (t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}
