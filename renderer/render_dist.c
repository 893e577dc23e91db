/* render_dist.c - one frame on several ranks (DESIGN.md 5a): rank r draws
 * band r of the image's tile rows with an ordinary tile renderer limited to
 * that band, then the 8-bit bands travel to the root in one group of
 * point-to-point transfers (the only data that crosses a link: 3 bytes a
 * pixel). The renderer sits above the library: it uses gpuprim's
 * communicator exchanges, never NCCL itself. */
#include "band.h"
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

struct gp_dist_renderer {
    gp_comm *comm;
    gp_renderer *band;
    int width, height;
};

gp_status gp_dist_renderer_create(gp_dist_renderer **out, gp_comm *comm, int width, int height)
{
    gp_dist_renderer *r;
    gp_status s;
    if (!out || !comm) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = gpi_comm_enter(comm))) return s;
    if (!(r = (gp_dist_renderer *)calloc(1, sizeof *r))) return GP_ERROR_OUT_OF_MEMORY;
    r->comm = comm;
    r->width = width;
    r->height = height;
    if ((s = gpr_renderer_create_band(&r->band, comm->ctx, width, height, comm->rank, comm->size))) {
        free(r);
        return s;
    }
    *out = r;
    return GP_SUCCESS;
}

void gp_dist_renderer_destroy(gp_dist_renderer *r)
{
    if (!r) return;
    gp_renderer_destroy(r->band);
    free(r);
}

gp_status gp_dist_renderer_band(const gp_dist_renderer *r, int *row_begin, int *row_end)
{
    if (!r || !row_begin || !row_end) return GP_ERROR_INVALID_ARGUMENT;
    gpr_renderer_band(r->band, row_begin, row_end);
    return GP_SUCCESS;
}

gp_status gp_dist_renderer_set_scene(gp_dist_renderer *r, const gp_scene *scene)
{
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    return gp_renderer_set_scene(r->band, scene);
}

gp_status gp_dist_renderer_render(gp_dist_renderer *r)
{
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    return gp_renderer_render(r->band);
}

/* Pixel rows of rank q's band, as gpr_renderer_create_band cuts them. */
static void band_of(const gp_dist_renderer *r, int q, size_t *row0, size_t *rows)
{
    int ty0, ty1, y0, y1;
    gpr_render_band(r->height, q, r->comm->size, &ty0, &ty1, &y0, &y1);
    *row0 = (size_t)y0;
    *rows = (size_t)(y1 - y0);
}

gp_status gp_dist_renderer_gather(gp_dist_renderer *r, int root, unsigned char *rgb)
{
    static const char fn[] = "gp_dist_renderer_gather";
    gp_comm *comm;
    gpi_dist_rec mine, *recs;
    gpi_p2p *ops = NULL;
    unsigned char *band = NULL;
    size_t row_bytes, row0, rows;
    int q, nops = 0;
    gp_status s;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    comm = r->comm;
    row_bytes = (size_t)r->width * 3;
    if ((s = gpi_comm_enter(comm))) return s;
    memset(&mine, 0, sizeof mine);
    mine.args[0] = root;
    band_of(r, comm->rank, &row0, &rows);
    if (root < 0 || root >= comm->size)
        mine.status = gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT, "%s: root %d outside 0..%d", fn, root,
                                comm->size - 1);
    else if (comm->rank == root)
        mine.status = gpi_check_buffer(comm->ctx, rgb, row_bytes * (size_t)r->height, "rgb");
    /* The root converts its band in place; the others into scratch. */
    if (!mine.status && comm->rank != root) mine.status = gpi_comm_scratch(comm, row_bytes * rows, (void **)&band);
    if (!mine.status) mine.status = gpr_renderer_rgb8(r->band, comm->rank == root ? rgb + row0 * row_bytes : band);
    if (!(recs = (gpi_dist_rec *)calloc((size_t)comm->size, sizeof *recs))) return GP_ERROR_OUT_OF_MEMORY;
    s = gpi_dist_exchange(comm, fn, &mine, recs);
    free(recs);
    if (s) return s;
    if (!(ops = (gpi_p2p *)calloc((size_t)comm->size, sizeof *ops))) return GP_ERROR_OUT_OF_MEMORY;
    if (comm->rank != root) {
        if (rows) ops[nops++] = (gpi_p2p){root, 1, band, rows * row_bytes};
    } else {
        for (q = 0; q < comm->size; q++) {
            size_t q0, qrows;
            band_of(r, q, &q0, &qrows);
            if (q != root && qrows) ops[nops++] = (gpi_p2p){q, 0, rgb + q0 * row_bytes, qrows * row_bytes};
        }
    }
    s = gpi_comm_p2p(comm, ops, nops, GPI_P2P_WAIT);
    free(ops);
    return s;
}
