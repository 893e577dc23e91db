/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_sort.c - a distributed sort with gpuprim/dist.h: every GPU of the
 * machine (GP_BACKEND=cuda, through NCCL), or 4 CPU ranks in this process
 * (GP_BACKEND=cpu, or no GPU). Each rank holds an uneven shard of keys
 * hash(i) for global positions i; gp_dist_sort_pairs sorts them across the
 * ranks, each value coming out as its key's global input position. Checked:
 * every rank keeps its element count, keys ascend within and across ranks,
 * equal keys keep their input order (stable), every value names its key. */
#include <gpuprim/dist.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

#define N 1000003
#define MAX_RANKS 8

struct job {
    size_t first[MAX_RANKS], n[MAX_RANKS];
    uint32_t lowest[MAX_RANKS], highest[MAX_RANKS];
    uint64_t value_sum[MAX_RANKS];
    int failed;
};

/* Keys with many repeats (2^16 distinct), so stability matters. */
static uint32_t key_of(uint64_t i) { return (uint32_t)((i * 0x9e3779b97f4a7c15ull) >> 48); }

static gp_status rank_main(gp_comm *comm, void *arg)
{
    struct job *job = (struct job *)arg;
    gp_context *ctx;
    int rank;
    size_t i, n;
    uint32_t *keys;
    uint64_t *vals;
    void *kbuf = NULL, *vbuf = NULL;
    gp_status s;
    gp_comm_rank(comm, &rank);
    gp_comm_context(comm, &ctx);
    n = job->n[rank];
    keys = (uint32_t *)malloc(n * sizeof *keys + 1);
    vals = (uint64_t *)malloc(n * sizeof *vals + 1);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) keys[i] = key_of(job->first[rank] + i);
    s = gp_malloc(ctx, &kbuf, n * sizeof *keys);
    if (!s) s = gp_malloc(ctx, &vbuf, n * sizeof *vals);
    if (!s) s = gp_upload(ctx, kbuf, keys, n * sizeof *keys);
    /* In place; values_in NULL: the values are the global input positions. */
    if (!s) s = gp_dist_sort_pairs(comm, GP_UINT32, GP_SORT_ASCENDING, kbuf, kbuf, 8, NULL, vbuf, n, 0, 32);
    if (!s) s = gp_download(ctx, keys, kbuf, n * sizeof *keys);
    if (!s) s = gp_download(ctx, vals, vbuf, n * sizeof *vals);
    for (i = 0; !s && i < n; i++) {
        int bad = keys[i] != key_of(vals[i]);
        if (i) bad |= keys[i] < keys[i - 1] || (keys[i] == keys[i - 1] && vals[i] <= vals[i - 1]);
        if (bad) {
            fprintf(stderr, "rank %d: element %zu (key %u, value %llu) out of order\n", rank, i, keys[i],
                    (unsigned long long)vals[i]);
            job->failed = 1;
            break;
        }
        job->value_sum[rank] += vals[i];
    }
    if (!s && n) job->lowest[rank] = keys[0], job->highest[rank] = keys[n - 1];
    if (s) fprintf(stderr, "rank %d: %s: %s\n", rank, gp_status_string(s), gp_context_last_error(ctx));
    gp_free(ctx, kbuf);
    gp_free(ctx, vbuf);
    free(keys);
    free(vals);
    return s;
}

int main(void)
{
    gp_context *ctx[MAX_RANKS] = {NULL};
    gp_comm *comm[MAX_RANKS] = {NULL};
    struct job job;
    int ranks, r, prev = -1;
    uint64_t sum = 0;
    gp_status s;
    const gp_backend backend = dist_backend(MAX_RANKS, &ranks);
    memset(&job, 0, sizeof job);
    uneven_shards(ranks, N, job.first, job.n);
    s = dist_run(backend, ranks, ctx, comm, rank_main, &job);
    for (r = 0; !s && r < ranks; r++) { /* across ranks: ascending, and a permutation */
        sum += job.value_sum[r];
        if (!job.n[r]) continue;
        if (prev >= 0 && job.lowest[r] < job.highest[prev]) job.failed = 1;
        prev = r;
    }
    if (!s && sum != (uint64_t)N * (N - 1) / 2) job.failed = 1;
    return dist_finish("dist_sort", backend, ranks, ctx, comm, s, job.failed, "sort of %d key-value pairs", N);
}
