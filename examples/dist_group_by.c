/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_group_by.c - a distributed group-by with gpuprim/dist.h: every GPU
 * of the machine (GP_BACKEND=cuda, through NCCL), or 4 CPU ranks in this
 * process (GP_BACKEND=cpu, or no GPU). Each rank holds an uneven shard of
 * (key, value) pairs, keys hash(i) mod 1000 in no order, values the weight
 * 1 + i % 3; gp_dist_reduce_by_key sums the weights of each key over the
 * whole global array and counts its occurrences. Checked: the ranks hold
 * ascending, disjoint key ranges, every key exactly once, each sum and
 * count equal to what a host loop over the global array gives. */
#include <gpuprim/dist.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

#define N 1000003
#define KEYS 1000
#define MAX_RANKS 8

struct job {
    size_t first[MAX_RANKS], n[MAX_RANKS];
    uint64_t want_sum[KEYS], want_count[KEYS];
    unsigned seen[KEYS];
    uint64_t groups[MAX_RANKS];
    int failed;
};

static uint32_t key_of(uint64_t i) { return (uint32_t)(((i * 0x9e3779b97f4a7c15ull) >> 40) % KEYS); }
static uint64_t weight_of(uint64_t i) { return 1 + i % 3; }

static gp_status rank_main(gp_comm *comm, void *arg)
{
    struct job *job = (struct job *)arg;
    gp_context *ctx;
    gp_dist_count count;
    int rank;
    size_t i, n;
    uint32_t *keys;
    uint64_t *vals, *lens;
    void *kin = NULL, *vin = NULL, *kout = NULL, *vout = NULL, *lout = NULL;
    gp_status s;
    gp_comm_rank(comm, &rank);
    gp_comm_context(comm, &ctx);
    n = job->n[rank];
    keys = (uint32_t *)malloc((n + KEYS) * sizeof *keys);
    vals = (uint64_t *)malloc((n + KEYS) * sizeof *vals);
    lens = (uint64_t *)malloc(KEYS * sizeof *lens);
    if (!keys || !vals || !lens) {
        free(keys), free(vals), free(lens);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) {
        keys[i] = key_of(job->first[rank] + i);
        vals[i] = weight_of(job->first[rank] + i);
    }
    /* No rank can receive more groups than there are keys. */
    s = gp_malloc(ctx, &kin, n * sizeof *keys);
    if (!s) s = gp_malloc(ctx, &vin, n * sizeof *vals);
    if (!s) s = gp_malloc(ctx, &kout, KEYS * sizeof *keys);
    if (!s) s = gp_malloc(ctx, &vout, KEYS * sizeof *vals);
    if (!s) s = gp_malloc(ctx, &lout, KEYS * sizeof *lens);
    if (!s) s = gp_upload(ctx, kin, keys, n * sizeof *keys);
    if (!s) s = gp_upload(ctx, vin, vals, n * sizeof *vals);
    if (!s)
        s = gp_dist_reduce_by_key(comm, GP_UINT32, GP_UINT64, GP_OP_SUM, kin, vin, n, kout, vout, (uint64_t *)lout,
                                  KEYS, &count);
    if (!s) s = gp_download(ctx, keys, kout, count.local * sizeof *keys);
    if (!s) s = gp_download(ctx, vals, vout, count.local * sizeof *vals);
    if (!s) s = gp_download(ctx, lens, lout, count.local * sizeof *lens);
    for (i = 0; !s && i < count.local; i++) {
        const uint32_t k = keys[i];
        int bad = k >= KEYS || (i && k <= keys[i - 1]);
        if (!bad) bad = vals[i] != job->want_sum[k] || lens[i] != job->want_count[k];
        if (bad) {
            fprintf(stderr, "rank %d: group %zu (key %u, sum %llu, count %llu) wrong\n", rank, i, k,
                    (unsigned long long)vals[i], (unsigned long long)lens[i]);
            job->failed = 1;
            break;
        }
        __atomic_add_fetch(&job->seen[k], 1, __ATOMIC_RELAXED);
    }
    if (!s) job->groups[rank] = count.local;
    if (s) fprintf(stderr, "rank %d: %s: %s\n", rank, gp_status_string(s), gp_context_last_error(ctx));
    gp_free(ctx, kin), gp_free(ctx, vin), gp_free(ctx, kout), gp_free(ctx, vout), gp_free(ctx, lout);
    free(keys), free(vals), free(lens);
    return s;
}

int main(void)
{
    gp_context *ctx[MAX_RANKS] = {NULL};
    gp_comm *comm[MAX_RANKS] = {NULL};
    struct job job;
    int ranks, r, k;
    uint64_t i, groups = 0, distinct = 0;
    gp_status s;
    const gp_backend backend = dist_backend(MAX_RANKS, &ranks);
    memset(&job, 0, sizeof job);
    uneven_shards(ranks, N, job.first, job.n);
    for (i = 0; i < N; i++) {
        job.want_sum[key_of(i)] += weight_of(i);
        job.want_count[key_of(i)]++;
    }
    s = dist_run(backend, ranks, ctx, comm, rank_main, &job);
    for (r = 0; r < ranks; r++) groups += job.groups[r];
    for (k = 0; k < KEYS; k++) { /* every key present once, on one rank */
        distinct += job.want_count[k] != 0;
        if (job.seen[k] != (job.want_count[k] != 0)) job.failed = 1;
    }
    if (!s && groups != distinct) job.failed = 1;
    printf("%s: %d %s rank(s), group-by of %d pairs into %llu groups: %s\n", gp_version_string(), ranks,
           backend == GP_BACKEND_CUDA ? "CUDA" : "CPU", N, (unsigned long long)groups,
           s || job.failed ? "FAILED" : "ok");
    if (s) fprintf(stderr, "dist_group_by: %s\n", gp_status_string(s));
    dist_release(ranks, ctx, comm);
    return s || job.failed ? 1 : 0;
}
