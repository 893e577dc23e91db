/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/histogram.c - gp_dist_histogram_even and gp_dist_histogram_range:
 * each rank histograms its shard, the ranks' counts are summed, and every
 * rank ends with the global counts.
 *   check  the arguments; the local histogram (the one-context call, which
 *          makes the sample, bound and bin checks) into the communicator's
 *          scratch.
 *   run    the all-reduce of the bins, bandwidth-optimal: the bins are cut
 *          into p slices; a reduce-scatter (one group of point-to-point
 *          transfers: slice d of every rank to rank d) leaves rank d the p
 *          partial counts of its slice, which it sums (a transpose, then a
 *          segmented reduce: exact integers); an all-gather (a second
 *          group) gives every rank every summed slice, straight into
 *          counts. Each rank sends and receives 2 (p - 1) / p x bins
 *          counters. */
#include "comm_internal.h"

#include <gpuprim/histogram.h>
#include <gpuprim/segmented.h>

#include <stdlib.h>
#include <string.h>

typedef struct hist_args {
    const char *fn;
    int even;
    gp_dtype dtype, count_dtype;
    const void *samples;
    size_t n;
    const void *lower_host, *upper_host, *boundaries;
    size_t bins;
    void *counts;
    /* made by the check */
    size_t cs, smax;
    size_t off_m, off_t, off_s, off_o; /* scratch: local counts at 0, received slices, transposed, sums, offsets */
    gpi_p2p *ops;
    uint64_t *row;
} hist_args;

/* Rank d's slice of the bins: [start(d), start(d + 1)). */
static size_t slice_start(const hist_args *a, int p, int d)
{
    return (size_t)((unsigned __int128)a->bins * (unsigned)d / (unsigned)p);
}

static gp_status check_args(gp_context *ctx, hist_args *a)
{
    const char *fn = a->fn;
    size_t bytes, sbytes;
    gp_status s;
    if (a->count_dtype != GP_UINT32 && a->count_dtype != GP_UINT64)
        return gpi_error(ctx, gpi_valid_dtype(a->count_dtype) ? GP_ERROR_UNSUPPORTED : GP_ERROR_INVALID_ARGUMENT,
                         "%s: count_dtype %d (GP_UINT32 or GP_UINT64)", fn, (int)a->count_dtype);
    if (a->bins == 0) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: bins is 0", fn);
    if ((uint64_t)a->bins > 0xffffffffull)
        return gpi_error(ctx, GP_ERROR_UNSUPPORTED, "%s: %zu bins (at most 2^32 - 1)", fn, a->bins);
    a->cs = gp_dtype_size(a->count_dtype);
    bytes = a->bins * a->cs;
    if ((s = gpi_check_buffer(ctx, a->counts, bytes, "counts"))) return s;
    if ((uintptr_t)a->counts % a->cs)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: counts not aligned to its counter size", fn);
    if (!gpi_valid_dtype(a->dtype)) return GP_SUCCESS; /* the local call says why */
    if (gpi_mul_size(a->n, gp_dtype_size(a->dtype), &sbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu samples overflow a byte count", fn, a->n);
    if (gpi_overlap(a->counts, bytes, a->samples, sbytes) ||
        (!a->even && gpi_overlap(a->counts, bytes, a->boundaries, (a->bins + 1) * gp_dtype_size(a->dtype))))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: counts overlaps the samples or the boundaries", fn);
    return GP_SUCCESS;
}

static gp_status hist_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    hist_args *a = (hist_args *)arg;
    gp_context *ctx = comm->ctx;
    const int p = comm->size;
    const size_t pz = (size_t)p;
    unsigned char *base = NULL;
    gp_status s;
    size_t i, mine_s;
    (void)part;
    mine->n = a->n;
    if ((s = check_args(ctx, a))) return s;
    a->smax = (a->bins + pz - 1) / pz;
    a->off_m = gpi_round256(a->bins * a->cs);
    a->off_t = a->off_m + gpi_round256(pz * a->smax * a->cs);
    a->off_s = a->off_t + gpi_round256(pz * a->smax * a->cs);
    a->off_o = a->off_s + gpi_round256(a->smax * a->cs);
    a->ops = (gpi_p2p *)calloc(4 * pz, sizeof *a->ops);
    a->row = (uint64_t *)calloc(pz + a->smax + 1, sizeof *a->row);
    if (!a->ops || !a->row) return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", a->fn);
    if ((s = gpi_comm_scratch(comm, a->off_o + gpi_round256((a->smax + 1) * 8), (void **)&base))) return s;
    s = a->even ? gp_histogram_even(ctx, a->dtype, a->samples, a->n, a->lower_host, a->upper_host, a->bins,
                                    a->count_dtype, base)
                : gp_histogram_range(ctx, a->dtype, a->samples, a->n, a->boundaries, a->bins, a->count_dtype, base);
    if (s) return s;
    if (p == 1) return GP_SUCCESS;
    /* The segments of this rank's sum: p counters each. */
    mine_s = slice_start(a, p, comm->rank + 1) - slice_start(a, p, comm->rank);
    for (i = 0; i <= mine_s; i++) a->row[pz + i] = (uint64_t)(i * pz);
    return gpi_copy(ctx, base + a->off_o, a->row + pz, (mine_s + 1) * 8, 0);
}

static gp_status hist_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    hist_args *a = (hist_args *)arg;
    gp_context *ctx = comm->ctx;
    const int p = comm->size, me = comm->rank;
    const size_t cs = a->cs, s_me = slice_start(a, p, me + 1) - slice_start(a, p, me);
    unsigned char *base = (unsigned char *)comm->scratch, *sums = base + a->off_s;
    uint64_t total = 0;
    int q, nops = 0;
    gp_status s;
    (void)found;
    for (q = 0; q < p; q++) total += all[q].n;
    if (a->count_dtype == GP_UINT32 && total > 0xffffffffull)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %llu samples in all overflow GP_UINT32 counts", a->fn,
                         (unsigned long long)total);
    if (p == 1) return gpi_copy(ctx, a->counts, base, a->bins * cs, 2);
    /* Reduce-scatter: slice d of every rank to rank d. */
    for (q = 0; q < p; q++) {
        const size_t lo = slice_start(a, p, q), len = slice_start(a, p, q + 1) - lo;
        if (len) a->ops[nops++] = (gpi_p2p){q, 1, base + lo * cs, len * cs};
        if (s_me) a->ops[nops++] = (gpi_p2p){q, 0, base + a->off_m + (size_t)q * s_me * cs, s_me * cs};
    }
    if ((s = gpi_comm_p2p(comm, a->ops, nops, GPI_P2P_QUEUE))) return s;
    s = GP_SUCCESS;
    if (s_me) {
        /* p rows of this slice's partial counts: a column's sum is a bin's. */
        s = gp_transpose(ctx, cs, base + a->off_m, base + a->off_t, (size_t)p, s_me);
        if (!s)
            s = gp_segmented_reduce(ctx, a->count_dtype, GP_OP_SUM, base + a->off_t, (size_t)p * s_me,
                                    (const uint64_t *)(base + a->off_o), s_me, sums);
    }
    if ((s = gpi_dist_agree_step(comm, a->fn, "summing its bins; counts untouched", s, a->row))) return s;
    /* All-gather: every summed slice into its place in counts. */
    nops = 0;
    for (q = 0; q < p; q++) {
        const size_t lo = slice_start(a, p, q), len = slice_start(a, p, q + 1) - lo;
        if (s_me) a->ops[nops++] = (gpi_p2p){q, 1, sums, s_me * cs};
        if (len) a->ops[nops++] = (gpi_p2p){q, 0, (unsigned char *)a->counts + lo * cs, len * cs};
    }
    return gpi_comm_p2p(comm, a->ops, nops, GPI_P2P_QUEUE);
}

static gp_status hist_call(gp_comm *comm, hist_args *a, uint64_t digest)
{
    gpi_dist_call call = {a->fn, a->even ? GPI_DIST_HISTOGRAM_EVEN : GPI_DIST_HISTOGRAM_RANGE,
                          {(int32_t)a->dtype, (int32_t)a->count_dtype, 0}, 0, digest, hist_check, hist_run, NULL};
    gp_status s = gpi_dist_call_run(comm, &call, a);
    free(a->ops);
    free(a->row);
    return s;
}

gp_status gp_dist_histogram_even(gp_comm *comm, gp_dtype dtype, const void *samples, size_t n, const void *lower_host,
                                 const void *upper_host, size_t bins, gp_dtype count_dtype, void *counts)
{
    /* bins and both bounds must agree (a rank with a NULL bound fails its
     * own check). */
    unsigned char agree[24] = {0};
    hist_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_histogram_even";
    a.even = 1;
    a.dtype = dtype;
    a.count_dtype = count_dtype;
    a.samples = samples;
    a.n = n;
    a.lower_host = lower_host;
    a.upper_host = upper_host;
    a.bins = bins;
    a.counts = counts;
    memcpy(agree, &bins, sizeof bins);
    if (gpi_valid_dtype(dtype) && lower_host && upper_host) {
        memcpy(agree + 8, lower_host, gp_dtype_size(dtype));
        memcpy(agree + 16, upper_host, gp_dtype_size(dtype));
    }
    return hist_call(comm, &a, gpi_dist_digest(agree, sizeof agree));
}

gp_status gp_dist_histogram_range(gp_comm *comm, gp_dtype dtype, const void *samples, size_t n,
                                  const void *boundaries, size_t bins, gp_dtype count_dtype, void *counts)
{
    const uint64_t agree[1] = {bins};
    hist_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_histogram_range";
    a.dtype = dtype;
    a.count_dtype = count_dtype;
    a.samples = samples;
    a.n = n;
    a.boundaries = boundaries;
    a.bins = bins;
    a.counts = counts;
    return hist_call(comm, &a, gpi_dist_digest(agree, sizeof agree));
}
