/* dist/stencil.c - gp_dist_stencil_2d: a matrix split by rows.
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

gp_status gp_dist_stencil_2d(gp_comm *comm, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                             const void *in, void *out, size_t rows, size_t cols)
{
    static const char fn[] = "gp_dist_stencil_2d";
    gpi_dist_rec mine, *recs;
    gp_context *ctx;
    gpi_p2p ops[4];
    int nops = 0, q, first = -1, last = -1, prev = -1, next = -1;
    size_t row_bytes = 0;
    char *t_in = NULL, *t_out;
    const char *src = (const char *)in;
    gp_status s = gpi_comm_enter(comm);
    if (s) return s;
    ctx = comm->ctx;
    memset(&mine, 0, sizeof mine);
    mine.status = gpi_stencil_2d_check(ctx, fn, dtype, weights, boundary, in, out, rows, cols);
    mine.args[0] = dtype;
    mine.args[1] = boundary;
    mine.n = rows;
    mine.cols = cols;
    /* The halos need 12 rows of scratch: 6 in, 6 out. */
    if (!mine.status && rows && cols) {
        row_bytes = cols * gp_dtype_size(dtype); /* checked: rows * cols * size fits */
        if (row_bytes > SIZE_MAX / 12)
            mine.status = gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: halo scratch of 12 rows overflows", fn);
        else mine.status = gpi_comm_scratch(comm, 12 * row_bytes, (void **)&t_in);
    }
    if (!(recs = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *recs))) return GP_ERROR_OUT_OF_MEMORY;
    s = gpi_dist_exchange(comm, fn, &mine, recs);
    if (s || cols == 0) { /* cols agree: every rank leaves here */
        free(recs);
        return s;
    }
    if (rows == 0) { /* no halo to trade, but the group is collective */
        free(recs);
        return gpi_comm_p2p(comm, NULL, 0, GPI_P2P_QUEUE);
    }
    for (q = 0; q < comm->size; q++) {
        if (recs[q].n == 0) continue;
        if (first < 0) first = q;
        last = q;
        if (q < comm->rank) prev = q;
        if (q > comm->rank && next < 0) next = q;
    }
    free(recs);
    if (boundary == GP_BOUNDARY_PERIODIC) {
        if (prev < 0) prev = last; /* may be this rank */
        if (next < 0) next = first;
    }
    /* Scratch: A = [north, row 0, row 1], B = [row r-2, row r-1, south] (a
     * single row: A = [north, row 0, south], B unused), then their outputs. */
    t_out = t_in + 6 * row_bytes;
    {
        char *a = t_in, *b = t_in + 3 * row_bytes;
        char *north = a, *south = rows == 1 ? a + 2 * row_bytes : b + 2 * row_bytes;
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
        if (rows > 2 && (s = gpi_stencil_2d_run(ctx, dtype, weights, boundary, in, out, rows, cols))) return s;
        if (ctx->backend == GP_BACKEND_CUDA) ctx->stream = comm->side; /* restored below on every path */
        s = edge_rows(comm, ops, nops, dtype, weights, boundary, src, rows, cols, row_bytes, a, b, north, south,
                      prev < 0, next < 0, t_out);
        ctx->stream = main_stream;
        if (s || (s = gpi_comm_join(comm))) return s;
        if (rows == 1) return gpi_copy(ctx, out, t_out + row_bytes, row_bytes, 2);
        /* Rows 1 and 4 of the 6-row run are A's and B's middles: rows 0 and
         * 2 of A/B are their neighbours, whatever stands at rows 3 and 2. */
        if ((s = gpi_copy(ctx, out, t_out + row_bytes, row_bytes, 2))) return s;
        return gpi_copy(ctx, (char *)out + (rows - 1) * row_bytes, t_out + 4 * row_bytes, row_bytes, 2);
    }
}

gp_status gp_dist_laplacian_2d(gp_comm *comm, gp_dtype dtype, gp_boundary boundary, const void *in, void *out,
                               size_t rows, size_t cols)
{
    static const gp_stencil5 laplacian = {-4.0, 1.0, 1.0, 1.0, 1.0};
    return gp_dist_stencil_2d(comm, dtype, &laplacian, boundary, in, out, rows, cols);
}
