/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_scan.c - a scan over several ranks with gpuprim/dist.h: every GPU of
 * the machine (GP_BACKEND=cuda, through NCCL), or 4 CPU ranks in this
 * process (GP_BACKEND=cpu, or no GPU). Each rank holds an uneven shard of
 * 1, 2, ..., N; after gp_dist_scan every element i holds (i+1)(i+2)/2. */
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
    int failed;
};

/* One rank's work: its shard in, its part of the global scan out. */
static gp_status rank_main(gp_comm *comm, void *arg)
{
    struct job *job = (struct job *)arg;
    gp_context *ctx;
    int rank;
    size_t i, n;
    int64_t *host;
    void *buf = NULL;
    gp_status s;
    gp_comm_rank(comm, &rank);
    gp_comm_context(comm, &ctx);
    n = job->n[rank];
    host = (int64_t *)malloc(n * sizeof *host + 1);
    if (!host) return GP_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) host[i] = (int64_t)(job->first[rank] + i + 1);
    s = gp_malloc(ctx, &buf, n * sizeof *host);
    if (!s) s = gp_upload(ctx, buf, host, n * sizeof *host);
    if (!s) s = gp_dist_scan(comm, GP_INT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, buf, buf, n);
    if (!s) s = gp_download(ctx, host, buf, n * sizeof *host);
    for (i = 0; !s && i < n; i++) {
        int64_t k = (int64_t)(job->first[rank] + i + 1);
        if (host[i] != k * (k + 1) / 2) {
            fprintf(stderr, "rank %d: element %zu is %lld\n", rank, job->first[rank] + i, (long long)host[i]);
            job->failed = 1;
            break;
        }
    }
    if (s) fprintf(stderr, "rank %d: %s: %s\n", rank, gp_status_string(s), gp_context_last_error(ctx));
    gp_free(ctx, buf);
    free(host);
    return s;
}

int main(void)
{
    gp_context *ctx[MAX_RANKS] = {NULL};
    gp_comm *comm[MAX_RANKS] = {NULL};
    struct job job;
    int ranks;
    gp_status s;
    const gp_backend backend = dist_backend(MAX_RANKS, &ranks);
    memset(&job, 0, sizeof job);
    uneven_shards(ranks, N, job.first, job.n);
    s = dist_run(backend, ranks, ctx, comm, rank_main, &job);
    return dist_finish("dist_scan", backend, ranks, ctx, comm, s, job.failed, "scan of %d elements", N);
}
