/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/scan.c - gp_dist_scan and gp_dist_reduce.
 *
 * Both: check locally and reduce the shard locally, exchange (verdict,
 * partial) once. Reduce then combines the partials in rank order; scan
 * combines those of the ranks before this one into a seed and scans its
 * shard from it (gpi_*_scan_seeded). A shard is read twice and written
 * once, against once and once on one GPU: the 2p/3 bound of a distributed
 * scan. */
#include "comm_internal.h"

#include <string.h>

typedef struct scan_args {
    gp_dtype dtype;
    gp_op op;
    gp_scan_kind kind;
    const void *in;
    void *out;
    size_t n;
    void *result_host;
    int is_scan;
} scan_args;

/* Combine the ranks' partial results v[0] of recs[0, to) in rank order
 * into *out (one element of dtype): the CPU reference over that short
 * array, in the communicator's own buffer (nothing to allocate). */
static gp_status combine(gp_comm *comm, gp_dtype dtype, gp_op op, const gpi_dist_rec *recs, int to, void *out)
{
    size_t es = gp_dtype_size(dtype);
    int q;
    for (q = 0; q < to; q++) memcpy(comm->parts + (size_t)q * es, recs[q].v[0], es);
    return gpi_cpu_reduce_in_order(dtype, op, comm->parts, (size_t)to, out);
}

/* The check, then the shard's partial result (not on the last rank of a
 * scan: its total is nobody's seed). */
static gp_status check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    scan_args *a = (scan_args *)arg;
    gp_status s;
    void *slot = NULL;
    s = a->is_scan ? gpi_scan_check(comm->ctx, "gp_dist_scan", a->dtype, a->op, a->kind, a->in, a->out, a->n)
                   : gpi_reduce_check(comm->ctx, "gp_dist_reduce", a->dtype, a->op, a->in, a->n, a->result_host);
    mine->n = a->n;
    if (s || (a->is_scan && comm->rank == comm->size - 1)) return s;
    if (comm->ctx->backend != GP_BACKEND_CUDA) return gpi_reduce_run(comm->ctx, a->dtype, a->op, a->in, a->n, mine->v[0]);
    /* The partial goes from the kernel into the exchange on the device:
     * one wait for both. */
    if ((s = gpi_comm_scratch(comm, 8, &slot))) return s;
    if ((s = gpi_cuda_reduce_device(comm->ctx, a->dtype, a->op, a->in, a->n, slot))) return s;
    part->src = slot;
    part->offset = offsetof(gpi_dist_rec, v);
    part->bytes = gp_dtype_size(a->dtype);
    return GP_SUCCESS;
}

static gp_status run_reduce(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    scan_args *a = (scan_args *)arg;
    (void)found;
    return combine(comm, a->dtype, a->op, all, comm->size, a->result_host);
}

static gp_status run_scan(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    scan_args *a = (scan_args *)arg;
    unsigned char seed[8];
    gp_status s = combine(comm, a->dtype, a->op, all, comm->rank, seed);
    (void)found;
    if (s || a->n == 0) return s;
    if (comm->ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_scan_seeded(comm->ctx, a->dtype, a->op, a->kind, a->in, a->out, a->n, seed);
    return gpi_cpu_scan_seeded(a->dtype, a->op, a->kind, a->in, a->out, a->n, seed,
                               gpi_cpu_threads(comm->ctx));
}

gp_status gp_dist_reduce(gp_comm *comm, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host)
{
    scan_args a = {dtype, op, GP_SCAN_INCLUSIVE, in, NULL, n, result_host, 0};
    gpi_dist_call call = {"gp_dist_reduce", GPI_DIST_REDUCE, {dtype, op, 0}, 0, 0, check, run_reduce, NULL};
    return gpi_dist_call_run(comm, &call, &a);
}

gp_status gp_dist_scan(gp_comm *comm, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n)
{
    scan_args a = {dtype, op, kind, in, out, n, NULL, 1};
    gpi_dist_call call = {"gp_dist_scan", GPI_DIST_SCAN, {dtype, op, kind}, 0, 0, check, run_scan, NULL};
    return gpi_dist_call_run(comm, &call, &a);
}
