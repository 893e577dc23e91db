/* SPDX-License-Identifier: BSD-3-Clause */
/* example_util.h - what the examples share: the backend they run on and
 * error reporting. Public API only, as an outside program would use it. */
#ifndef GPUPRIM_EXAMPLE_UTIL_H
#define GPUPRIM_EXAMPLE_UTIL_H

#include <gpuprim/dist.h>
#include <gpuprim/gpuprim.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run a call; on failure print it with the context's detail and leave main
 * with 1 (needs a gp_context *ctx in scope). */
#define CHECK(call)                                                                     \
    do {                                                                                \
        gp_status s_ = (call);                                                          \
        if (s_ != GP_SUCCESS) {                                                         \
            fprintf(stderr, "%s failed: %s %s\n", #call, gp_status_string(s_),          \
                    gp_context_last_error(ctx));                                        \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

/* GP_BACKEND=cpu or cuda picks the backend; else the GPU when present. */
static inline gp_backend backend_from_env(void)
{
    const char *b = getenv("GP_BACKEND");
    if (b && strcmp(b, "cpu") == 0) return GP_BACKEND_CPU;
    if (b && strcmp(b, "cuda") == 0) return GP_BACKEND_CUDA;
    return GP_BACKEND_AUTO;
}

/* The distributed examples: one rank per GPU (at most max_ranks), or 4 CPU
 * ranks with GP_BACKEND=cpu or no GPU. Sets *ranks. */
static inline gp_backend dist_backend(int max_ranks, int *ranks)
{
    const char *env = getenv("GP_BACKEND");
    gp_backend backend = env && !strcmp(env, "cpu") ? GP_BACKEND_CPU : GP_BACKEND_CUDA;
    int ndev = 0;
    gp_cuda_device_count(&ndev);
    if (backend == GP_BACKEND_CUDA && ndev == 0) backend = GP_BACKEND_CPU;
    *ranks = backend == GP_BACKEND_CUDA ? (ndev < max_ranks ? ndev : max_ranks) : 4;
    return backend;
}

/* Uneven shards of total elements: rank r gets r+1 parts, the last rank the
 * rest. first[r]: its first element's global index. */
static inline void uneven_shards(int ranks, size_t total, size_t first[], size_t n[])
{
    const size_t parts = (size_t)ranks * (ranks + 1) / 2;
    size_t next = 0;
    int r;
    for (r = 0; r < ranks; r++) {
        first[r] = next;
        n[r] = r == ranks - 1 ? total - next : total / parts * (r + 1);
        next += n[r];
    }
}

/* A context per rank (a GPU each on CUDA) and their communicators, then fn on
 * every rank. dist_release frees what dist_run made (ctx and comm start
 * NULL-filled). */
static inline gp_status dist_run(gp_backend backend, int ranks, gp_context *ctx[], gp_comm *comm[], gp_comm_fn fn,
                                 void *arg)
{
    gp_status s = GP_SUCCESS;
    int r;
    for (r = 0; r < ranks && !s; r++) s = gp_context_create(&ctx[r], backend, backend == GP_BACKEND_CUDA ? r : 0);
    if (!s) s = gp_comm_init_all(comm, ctx, ranks, 0);
    if (!s) s = gp_comm_run(comm, ranks, fn, arg);
    return s;
}

static inline void dist_release(int ranks, gp_context *ctx[], gp_comm *comm[])
{
    int r;
    for (r = 0; r < ranks; r++) gp_comm_destroy(comm[r]);
    for (r = 0; r < ranks; r++) gp_context_destroy(ctx[r]);
}

/* The end of a distributed example's main: its verdict line (what it did,
 * printf-style, then "ok" unless s failed or `failed`), the failed call's
 * status under the example's name, then dist_release. Gives main's exit
 * code. */
static inline int dist_finish(const char *name, gp_backend backend, int ranks, gp_context *ctx[], gp_comm *comm[],
                              gp_status s, int failed, const char *what, ...)
{
    va_list ap;
    printf("%s: %d %s rank(s), ", gp_version_string(), ranks, backend == GP_BACKEND_CUDA ? "CUDA" : "CPU");
    va_start(ap, what);
    vprintf(what, ap);
    va_end(ap);
    printf(": %s\n", s || failed ? "FAILED" : "ok");
    if (s) fprintf(stderr, "%s: %s\n", name, gp_status_string(s));
    dist_release(ranks, ctx, comm);
    return s || failed ? 1 : 0;
}

#endif
