/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/stencil.c - gp_dist_stencil_2d: a matrix split by rows.
 *
 * Each rank receives the row above its first (north halo) and the row below
 * its last (south halo) from the neighbouring non-empty ranks, in one group
 * of point-to-point transfers; at the global edges the halo is what the
 * boundary rule reads there (the last global row for PERIODIC, the edge row
 * itself for CLAMP, zeros for ZERO: the reference forms w*0 for a zero
 * neighbour, so a zero row gives the same bits). The shard is run through
 * the one-context stencil, which is right for every row but the first and
 * last; those two are recomputed from 3-row copies [north halo, row 0,
 * row 1] and [row r-2, row r-1, south halo], whose middle rows have exactly
 * their true neighbours. CUDA ranks do the halo transfers and those two
 * 3-row runs on the communicator's side stream, beside the shard's run.
 * So the whole shard is read once and written once, plus six rows: the
 * result is gp_stencil_2d's bit for bit. */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

/* The two edge rows' inputs and outputs, on the context's current stream:
 * A and B from the shard's own rows, the halos from the neighbours (or, at a
 * global edge without one, what the boundary rule reads there: CLAMP
 * repeats the edge row, ZERO reads zeros), then the stencil over A and B. */
static gp_status edge_rows(gp_comm *comm, const gpi_p2p *ops, int nops, gp_dtype dtype, const gp_stencil5 *weights,
                           gp_boundary boundary, const char *src, size_t rows, size_t cols, size_t row_bytes, char *a,
                           char *b, char *north, char *south, int north_edge, int south_edge, char *t_out)
{
    gp_context *ctx = comm->ctx;
    gp_status s;
    if ((s = gpi_copy(ctx, a + row_bytes, src, (rows == 1 ? 1 : 2) * row_bytes, 2))) return s;
    if (rows > 1 && (s = gpi_copy(ctx, b, src + (rows - 2) * row_bytes, 2 * row_bytes, 2))) return s;
    if (north_edge) {
        s = boundary == GP_BOUNDARY_CLAMP ? gpi_copy(ctx, north, src, row_bytes, 2) : gpi_memset(ctx, north, 0, row_bytes);
        if (s) return s;
    }
    if (south_edge) {
        s = boundary == GP_BOUNDARY_CLAMP ? gpi_copy(ctx, south, src + (rows - 1) * row_bytes, row_bytes, 2)
                                          : gpi_memset(ctx, south, 0, row_bytes);
        if (s) return s;
    }
    if ((s = gpi_comm_p2p(comm, ops, nops, GPI_P2P_SIDE))) return s;
    return gpi_stencil_2d_run(ctx, dtype, weights, boundary, a, t_out, rows == 1 ? 3 : 6, cols);
}

typedef struct stencil_args {
    gp_dtype dtype;
    const gp_stencil5 *weights;
    gp_boundary boundary;
    const void *in;
    void *out;
    size_t rows, cols;
    size_t row_bytes;
    char *t_in; /* 12 rows of scratch: 6 in, 6 out */
} stencil_args;

static gp_status stencil_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    const char *fn = comm->ctx->call; /* gp_dist_stencil_2d or gp_dist_laplacian_2d */
    stencil_args *a = (stencil_args *)arg;
    gp_status s = gpi_stencil_2d_check(comm->ctx, fn, a->dtype, a->weights, a->boundary, a->in, a->out, a->rows,
                                       a->cols);
    (void)part;
    mine->n = a->rows;
    if (s || !a->rows || !a->cols) return s;
    a->row_bytes = a->cols * gp_dtype_size(a->dtype); /* checked: rows * cols * size fits */
    if (a->row_bytes > SIZE_MAX / 12)
        return gpi_error(comm->ctx, GP_ERROR_SIZE_OVERFLOW, "%s: halo scratch of 12 rows overflows", fn);
    return gpi_comm_scratch(comm, 12 * a->row_bytes, (void **)&a->t_in);
}

static gp_status stencil_run(gp_comm *comm, void *arg, const gpi_dist_rec *recs, size_t *found)
{
    stencil_args *a = (stencil_args *)arg;
    gp_context *ctx = comm->ctx;
    gpi_p2p ops[4];
    int nops = 0, q, first = -1, last = -1, prev = -1, next = -1;
    const size_t rows = a->rows, cols = a->cols, row_bytes = a->row_bytes;
    const char *src = (const char *)a->in;
    char *t_out;
    gp_status s;
    (void)found;
    if (cols == 0) return GP_SUCCESS;                               /* cols agree: every rank leaves here */
    if (rows == 0) return gpi_comm_p2p(comm, NULL, 0, GPI_P2P_QUEUE); /* no halo, but the group is collective */
    for (q = 0; q < comm->size; q++) {
        if (recs[q].n == 0) continue;
        if (first < 0) first = q;
        last = q;
        if (q < comm->rank) prev = q;
        if (q > comm->rank && next < 0) next = q;
    }
    if (a->boundary == GP_BOUNDARY_PERIODIC) {
        if (prev < 0) prev = last; /* may be this rank */
        if (next < 0) next = first;
    }
    /* Scratch: A = [north, row 0, row 1], B = [row r-2, row r-1, south] (a
     * single row: A = [north, row 0, south], B unused), then their outputs. */
    t_out = a->t_in + 6 * row_bytes;
    {
        char *ta = a->t_in, *tb = a->t_in + 3 * row_bytes;
        char *north = ta, *south = rows == 1 ? ta + 2 * row_bytes : tb + 2 * row_bytes;
        void *main_stream = ctx->stream;
        /* Sends first: the last row is the next rank's north halo, the first
         * row the previous rank's south halo; receives in the same order. */
        if (next >= 0) ops[nops++] = (gpi_p2p){next, 1, (void *)(src + (rows - 1) * row_bytes), row_bytes};
        if (prev >= 0) ops[nops++] = (gpi_p2p){prev, 1, (void *)src, row_bytes};
        if (prev >= 0) ops[nops++] = (gpi_p2p){prev, 0, north, row_bytes};
        if (next >= 0) ops[nops++] = (gpi_p2p){next, 0, south, row_bytes};
        /* The bulk first, on the context's stream (queued before NCCL is
         * called, so the GPU is busy while NCCL launches); everything the
         * two edge rows need runs beside it on the side stream. Only the
         * two copies into out wait for the bulk, which wrote those rows
         * with the shard's edges taken for the matrix's. */
        if ((s = gpi_comm_fork(comm))) return s;
        if (rows > 2 && (s = gpi_stencil_2d_run(ctx, a->dtype, a->weights, a->boundary, a->in, a->out, rows, cols)))
            return s;
        if (ctx->backend == GP_BACKEND_CUDA) ctx->stream = comm->side; /* restored below on every path */
        s = edge_rows(comm, ops, nops, a->dtype, a->weights, a->boundary, src, rows, cols, row_bytes, ta, tb, north,
                      south, prev < 0, next < 0, t_out);
        ctx->stream = main_stream;
        if (s || (s = gpi_comm_join(comm))) return s;
        if (rows == 1) return gpi_copy(ctx, a->out, t_out + row_bytes, row_bytes, 2);
        /* Rows 1 and 4 of the 6-row run are A's and B's middles: rows 0 and
         * 2 of A/B are their neighbours, whatever stands at rows 3 and 2. */
        if ((s = gpi_copy(ctx, a->out, t_out + row_bytes, row_bytes, 2))) return s;
        return gpi_copy(ctx, (char *)a->out + (rows - 1) * row_bytes, t_out + 4 * row_bytes, row_bytes, 2);
    }
}

static gp_status dist_stencil_2d(gp_comm *comm, const char *fn, gp_dtype dtype, const gp_stencil5 *weights,
                                 gp_boundary boundary, const void *in, void *out, size_t rows, size_t cols)
{
    stencil_args a = {dtype, weights, boundary, in, out, rows, cols, 0, NULL};
    /* The weights must agree too: they travel as a digest. */
    gpi_dist_call call = {fn, GPI_DIST_STENCIL_2D, {dtype, boundary, 0}, cols,
                          weights ? gpi_dist_digest(weights, sizeof *weights) : 0, stencil_check, stencil_run, NULL};
    return gpi_dist_call_run(comm, &call, &a);
}

gp_status gp_dist_stencil_2d(gp_comm *comm, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                             const void *in, void *out, size_t rows, size_t cols)
{
    return dist_stencil_2d(comm, "gp_dist_stencil_2d", dtype, weights, boundary, in, out, rows, cols);
}

gp_status gp_dist_laplacian_2d(gp_comm *comm, gp_dtype dtype, gp_boundary boundary, const void *in, void *out,
                               size_t rows, size_t cols)
{
    static const gp_stencil5 laplacian = {-4.0, 1.0, 1.0, 1.0, 1.0};
    return dist_stencil_2d(comm, "gp_dist_laplacian_2d", dtype, &laplacian, boundary, in, out, rows, cols);
}
