/* dist/scan.c - gp_dist_scan and gp_dist_reduce.
 *
 * Both: check locally, reduce the shard locally, exchange (verdict,
 * partial) once. Reduce then combines the partials in rank order; scan
 * combines those of the ranks before this one into a seed and scans its
 * shard from it (gpi_*_scan_seeded). A shard is read twice and written
 * once, against once and once on one GPU: the 2p/3 bound of DESIGN.md 5a. */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

/* Combine the ranks' partial results v[0] of recs[from, to) in rank order
 * into *out (one element of dtype): the CPU reference over that short array. */
static gp_status combine(gp_context *ctx, gp_dtype dtype, gp_op op, const gpi_dist_rec *recs, int from, int to,
                         void *out)
{
    size_t es = gp_dtype_size(dtype);
    unsigned char parts[64 * 8];
    unsigned char *buf = parts;
    int q;
    gp_status s;
    if ((size_t)(to - from) > sizeof parts / es && !(buf = (unsigned char *)malloc((size_t)(to - from) * es)))
        return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "combining %d partial results", to - from);
    for (q = from; q < to; q++) memcpy(buf + (size_t)(q - from) * es, recs[q].v[0], es);
    s = gpi_cpu_reduce_in_order(dtype, op, buf, (size_t)(to - from), out);
    if (buf != parts) free(buf);
    return s;
}

/* Check, reduce the shard locally (unless skip_reduce), exchange. recs:
 * comm->size entries. */
static gp_status reduce_and_exchange(gp_comm *comm, const char *fn, gp_status checked, int skip_reduce,
                                     gp_dtype dtype, gp_op op, int kind, const void *in, size_t n,
                                     gpi_dist_rec *recs)
{
    gpi_dist_rec mine;
    memset(&mine, 0, sizeof mine);
    mine.status = checked;
    mine.args[0] = dtype;
    mine.args[1] = op;
    mine.args[2] = kind;
    mine.n = n;
    if (checked || skip_reduce) return gpi_dist_exchange(comm, fn, &mine, recs);
    if (comm->ctx->backend == GP_BACKEND_CUDA) {
        /* The partial goes from the kernel into the exchange on the device:
         * one wait for both. */
        gpi_backend_part part = {NULL, offsetof(gpi_dist_rec, v), gp_dtype_size(dtype)};
        void *slot = NULL;
        mine.status = gpi_comm_scratch(comm, 8, &slot);
        if (!mine.status) mine.status = gpi_cuda_reduce_device(comm->ctx, dtype, op, in, n, slot);
        part.src = slot;
        return gpi_dist_exchange_part(comm, fn, &mine, mine.status ? NULL : &part, recs);
    }
    mine.status = gpi_reduce_run(comm->ctx, dtype, op, in, n, mine.v[0]);
    return gpi_dist_exchange(comm, fn, &mine, recs);
}

gp_status gp_dist_reduce(gp_comm *comm, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host)
{
    gpi_dist_rec *recs;
    gp_status s = gpi_comm_enter(comm), checked;
    if (s) return s;
    checked = gpi_reduce_check(comm->ctx, "gp_dist_reduce", dtype, op, in, n, result_host);
    if (!(recs = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *recs))) return GP_ERROR_OUT_OF_MEMORY;
    s = reduce_and_exchange(comm, "gp_dist_reduce", checked, 0, dtype, op, 0, in, n, recs);
    if (!s) s = combine(comm->ctx, dtype, op, recs, 0, comm->size, result_host);
    free(recs);
    return s;
}

gp_status gp_dist_scan(gp_comm *comm, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n)
{
    gpi_dist_rec *recs;
    unsigned char seed[8];
    gp_status s = gpi_comm_enter(comm), checked;
    if (s) return s;
    checked = gpi_scan_check(comm->ctx, "gp_dist_scan", dtype, op, kind, in, out, n);
    if (!(recs = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *recs))) return GP_ERROR_OUT_OF_MEMORY;
    /* The last rank's total is nobody's seed: it skips the local reduce. */
    s = reduce_and_exchange(comm, "gp_dist_scan", checked, comm->rank == comm->size - 1, dtype, op, kind, in, n,
                            recs);
    if (!s) s = combine(comm->ctx, dtype, op, recs, 0, comm->rank, seed);
    free(recs);
    if (s || n == 0) return s;
    if (comm->ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_scan_seeded(comm->ctx, dtype, op, kind, in, out, n, seed);
    return gpi_cpu_scan_seeded(dtype, op, kind, in, out, n, seed, gpi_cpu_threads(comm->ctx));
}
