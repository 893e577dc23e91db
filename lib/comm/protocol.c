/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/protocol.c - the protocol every distributed call follows: check on
 * each rank, exchange the verdicts (with what the call is, so mismatched
 * calls are caught), run only when all agree, and optionally exchange the
 * outcomes. Every failure before the run is seen by every rank at the
 * exchange: no rank leaves early and makes its peers wait out the timeout. */
#include "comm_internal.h"

#include <stdio.h>
#include <string.h>

/* The calls by op: their public names and the meaning of args[]. */
static const struct {
    const char *fn;
    const char *args[3];
} g_calls[GPI_DIST_OP_COUNT] = {
    [GPI_DIST_OTHER] = {"another collective", {"argument 1", "argument 2", "argument 3"}},
    [GPI_DIST_SCAN] = {"gp_dist_scan", {"dtype", "operator", "scan kind"}},
    [GPI_DIST_REDUCE] = {"gp_dist_reduce", {"dtype", "operator", "argument 3"}},
    [GPI_DIST_COMPACT] = {"gp_dist_compact", {"dtype", "flag type", "argument 3"}},
    [GPI_DIST_COMPACT_INDICES] = {"gp_dist_compact_indices", {"flag type", "argument 2", "argument 3"}},
    [GPI_DIST_FIND_REPEATS] = {"gp_dist_find_repeats", {"dtype", "argument 2", "argument 3"}},
    [GPI_DIST_STENCIL_2D] = {"gp_dist_stencil_2d", {"dtype", "boundary", "argument 3"}},
    [GPI_DIST_RENDER_GATHER] = {"gp_dist_renderer_gather", {"root", "image width", "image height"}},
    [GPI_DIST_SHUFFLE] = {"gp_dist_shuffle", {"element size", "value size", "argument 3"}},
    [GPI_DIST_SHUFFLE_COUNTS] = {"gp_dist_shuffle_counts", {"argument 1", "argument 2", "argument 3"}},
    [GPI_DIST_SORT] = {"gp_dist_sort", {"key dtype", "sort order", "bit range (begin * 256 + end)"}},
    [GPI_DIST_HISTOGRAM_EVEN] = {"gp_dist_histogram_even", {"dtype", "count dtype", "argument 3"}},
    [GPI_DIST_HISTOGRAM_RANGE] = {"gp_dist_histogram_range", {"dtype", "count dtype", "argument 3"}},
    [GPI_DIST_REDUCE_BY_KEY] = {"gp_dist_reduce_by_key", {"key dtype", "value dtype", "operator"}},
    [GPI_DIST_UNIQUE] = {"gp_dist_unique", {"dtype", "argument 2", "argument 3"}},
    [GPI_DIST_TOP_K] = {"gp_dist_top_k", {"key dtype", "sort order", "value size"}},
};

/* What a record's op says, for messages. */
static void describe_op(int32_t op, char *buf, size_t size)
{
    int32_t base = op & ~GPI_DIST_OUTCOME;
    const char *name = base >= 0 && base < GPI_DIST_OP_COUNT ? g_calls[base].fn : "an unknown call";
    snprintf(buf, size, "%s%s", (op & GPI_DIST_OUTCOME) ? "the end of " : "", name);
}

uint64_t gpi_dist_digest(const void *p, size_t bytes)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;
    for (i = 0; i < bytes; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

void gpi_comm_inject_fault(gp_comm *comm, gp_status status)
{
    if (comm) comm->fault = status;
}

gp_status gpi_dist_exchange(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, gpi_dist_rec *all)
{
    return gpi_dist_exchange_part(comm, fn, mine, NULL, all);
}

/* Every rank runs this on the same records, so every rank comes to the
 * same verdict; each words it from its own side. */
gp_status gpi_dist_exchange_part(gp_comm *comm, const char *fn, const gpi_dist_rec *mine, const gpi_backend_part *part,
                                 gpi_dist_rec *all)
{
    int q, k;
    gp_status s = gpi_comm_allgather(comm, mine, part, sizeof *mine, all);
    if (s) return s;
    /* A rank that failed reports its own status (its detail is on its
     * context); the others name the first rank that failed. */
    if (mine->status) return (gp_status)mine->status;
    for (q = 0; q < comm->size; q++) {
        if (all[q].status == GP_SUCCESS) continue;
        return gpi_error(comm->ctx, GP_ERROR_COMM, "%s: rank %d failed (%s); nothing was written", fn, q,
                         gp_status_string((gp_status)all[q].status));
    }
    for (q = 1; q < comm->size; q++) {
        const gpi_dist_rec *a = &all[0], *b = &all[q];
        int32_t base = a->op & ~GPI_DIST_OUTCOME;
        if (b->op != a->op) {
            char x[64], y[64];
            describe_op(a->op, x, sizeof x);
            describe_op(b->op, y, sizeof y);
            return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                             "%s: mismatched calls: rank 0 calls %s, rank %d %s; nothing was written", fn, x, q, y);
        }
        if (base < 0 || base >= GPI_DIST_OP_COUNT) base = GPI_DIST_OTHER;
        for (k = 0; k < 3; k++)
            if (b->args[k] != a->args[k])
                return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                                 "%s: ranks 0 and %d pass a different %s (%d against %d); nothing was written", fn, q,
                                 g_calls[base].args[k], (int)a->args[k], (int)b->args[k]);
        if (b->cols != a->cols)
            return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                             "%s: ranks 0 and %d pass different column counts (%llu against %llu); nothing was written",
                             fn, q, (unsigned long long)a->cols, (unsigned long long)b->cols);
        if (b->digest != a->digest)
            return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                             "%s: ranks 0 and %d pass different %s; nothing was written", fn, q,
                             base == GPI_DIST_STENCIL_2D ? "stencil weights" : "arguments");
    }
    return GP_SUCCESS;
}

static gp_status dist_call_run(gp_comm *comm, const gpi_dist_call *call, void *arg)
{
    gpi_dist_rec mine;
    gpi_backend_part part = {NULL, 0, 0};
    gp_status s, fault, local;
    size_t found = 0;
    uint64_t offset = 0, total = 0;
    int q;
    /* A failed communicator's peers have failed too (or will time out, as
     * documented): there is nobody to exchange with. */
    s = gpi_enter(comm->ctx, call->fn);
    comm->ctx->call_held = 1; /* what the call runs (a sort, a gather) reports under its name */
    if (comm->failed)
        return gpi_error(comm->ctx, GP_ERROR_COMM,
                         "rank %d: the communicator was aborted after an earlier failure; destroy it", comm->rank);
    memset(&mine, 0, sizeof mine);
    mine.op = call->op;
    memcpy(mine.args, call->args, sizeof mine.args);
    mine.cols = call->cols;
    mine.digest = call->digest;
    /* From here to the exchange nothing returns: every outcome of this
     * rank's check becomes its verdict, which the peers then see. */
    mine.status = s ? s : call->check(comm, arg, &mine, &part);
    fault = comm->fault;
    comm->fault = GP_SUCCESS;
    if (!mine.status && fault)
        mine.status = gpi_error(comm->ctx, fault, "%s: injected fault (testing): %s", call->fn, gp_status_string(fault));
    s = gpi_dist_exchange_part(comm, call->fn, &mine, !mine.status && part.src ? &part : NULL, comm->recs);
    if (s) return s;
    local = call->run(comm, arg, comm->recs, &found);
    if (!call->count) return local;
    /* The outcomes: every rank learns whether all ran, and the counts. */
    memset(&mine, 0, sizeof mine);
    mine.status = local;
    mine.op = call->op | GPI_DIST_OUTCOME;
    mine.count = found;
    if ((s = gpi_dist_exchange(comm, call->fn, &mine, comm->recs))) return s;
    for (q = 0; q < comm->size; q++) {
        if (q < comm->rank) offset += comm->recs[q].count;
        total += comm->recs[q].count;
    }
    call->count->local = found;
    call->count->offset = offset;
    call->count->total = total;
    return GP_SUCCESS;
}

gp_status gpi_dist_call_run(gp_comm *comm, const gpi_dist_call *call, void *arg)
{
    gp_status s;
    if (!comm) return GP_ERROR_INVALID_ARGUMENT;
    s = dist_call_run(comm, call, arg);
    comm->ctx->call_held = 0;
    return s;
}
