/* SPDX-License-Identifier: BSD-3-Clause */
/* collectives.c - collective building blocks for libraries layered on
 * communicators (dist.h, "building blocks"): a verdict exchange and a
 * gather of variable-size byte blocks to one rank. Both are made of the
 * exchanges every distributed primitive uses: one record exchange (the
 * verdicts and sizes), then, for the gather, one group of point-to-point
 * transfers. */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

gp_status gp_dist_agree(gp_comm *comm, gp_status mine)
{
    char kept[sizeof comm->ctx->last_error];
    gpi_dist_rec rec, *all;
    gp_status s;
    if (!comm || gpi_check_context(comm->ctx)) return GP_ERROR_INVALID_ARGUMENT;
    /* Entering clears the context's last error; a rank that failed keeps
     * the detail it recorded for its failure. */
    memcpy(kept, comm->ctx->last_error, sizeof kept);
    if ((s = gpi_comm_enter(comm, "gp_dist_agree"))) return s;
    if (mine != GP_SUCCESS) memcpy(comm->ctx->last_error, kept, sizeof kept);
    memset(&rec, 0, sizeof rec);
    rec.status = (int32_t)mine;
    if (!(all = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *all)))
        return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "gp_dist_agree: out of host memory");
    s = gpi_dist_exchange(comm, "gp_dist_agree", &rec, all);
    free(all);
    return s;
}

/* This rank's verdict on its own arguments (recorded on its context). */
static gp_status gatherv_check(gp_comm *comm, const char *fn, int root, const void *send, size_t send_bytes,
                               const void *recv, size_t recv_bytes)
{
    gp_context *ctx = comm->ctx;
    gp_status s;
    if (root < 0 || root >= comm->size)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: root %d outside 0..%d", fn, root, comm->size - 1);
    if ((s = gpi_check_buffer(ctx, send, send_bytes, "send"))) return s;
    if (comm->rank != root) return GP_SUCCESS;
    if ((s = gpi_check_buffer(ctx, recv, recv_bytes, "recv"))) return s;
    if (gpi_overlap(send, send_bytes, recv, recv_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: send and recv overlap", fn);
    return GP_SUCCESS;
}

gp_status gp_dist_gatherv(gp_comm *comm, int root, const void *send, size_t send_bytes, void *recv, size_t recv_bytes,
                          size_t *block_bytes_host)
{
    static const char fn[] = "gp_dist_gatherv";
    gpi_dist_rec mine, *all = NULL;
    gpi_p2p *ops = NULL;
    uint64_t total = 0;
    int q, nops = 0, overflow = 0;
    gp_status s;
    if (!comm) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = gpi_comm_enter(comm, fn))) return s;
    all = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *all);
    ops = (gpi_p2p *)calloc((size_t)comm->size + 1, sizeof *ops);
    if (!all || !ops) {
        free(all);
        free(ops);
        return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    /* Verdicts and sizes travel together, before any byte moves: the root
     * learns every block's size, every rank learns the root's room. */
    memset(&mine, 0, sizeof mine);
    mine.status = (int32_t)gatherv_check(comm, fn, root, send, send_bytes, recv, recv_bytes);
    mine.args[0] = root;
    mine.count = send_bytes;
    mine.n = comm->rank == root ? recv_bytes : 0;
    if ((s = gpi_dist_exchange(comm, fn, &mine, all))) goto done;
    for (q = 0; q < comm->size; q++) {
        if (total + all[q].count < total) overflow = 1;
        total += all[q].count;
    }
    if (overflow || total > all[root].n) {
        /* Every rank sees the same records, so all fail here together. */
        if (comm->rank == root)
            s = gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                          "%s: recv holds %zu bytes, the blocks need %llu; nothing was written", fn, recv_bytes,
                          (unsigned long long)total);
        else
            s = gpi_error(comm->ctx, GP_ERROR_COMM, "%s: root %d's recv (%llu bytes) cannot hold the blocks (%llu)",
                          fn, root, (unsigned long long)all[root].n, (unsigned long long)total);
        goto done;
    }
    if (comm->rank != root) {
        if (send_bytes) ops[nops++] = (gpi_p2p){root, 1, (void *)send, send_bytes};
    } else {
        uint64_t off = 0;
        for (q = 0; q < comm->size; q++) {
            const size_t b = (size_t)all[q].count;
            if (!b) continue;
            /* The root's own block is a transfer to itself: a copy. */
            if (q == root) ops[nops++] = (gpi_p2p){root, 1, (void *)send, b};
            ops[nops++] = (gpi_p2p){q, 0, (unsigned char *)recv + off, b};
            off += b;
        }
    }
    s = gpi_comm_p2p(comm, ops, nops, GPI_P2P_WAIT);
    if (!s && comm->rank == root && block_bytes_host)
        for (q = 0; q < comm->size; q++) block_bytes_host[q] = (size_t)all[q].count;
done:
    free(all);
    free(ops);
    return s;
}
