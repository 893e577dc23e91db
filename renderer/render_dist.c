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

typedef struct gather_args {
    gp_dist_renderer *r;
    int root;
    unsigned char *rgb;
    gpi_p2p *ops; /* room for every rank's band */
} gather_args;

static gp_status gather_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    gather_args *a = (gather_args *)arg;
    const size_t row_bytes = (size_t)a->r->width * 3;
    unsigned char *band = NULL;
    size_t row0, rows;
    gp_status s;
    (void)mine, (void)part;
    band_of(a->r, comm->rank, &row0, &rows);
    if (a->root < 0 || a->root >= comm->size)
        return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_renderer_gather: root %d outside 0..%d",
                         a->root, comm->size - 1);
    if (comm->rank == a->root && (s = gpi_check_buffer(comm->ctx, a->rgb, row_bytes * (size_t)a->r->height, "rgb")))
        return s;
    if (!(a->ops = (gpi_p2p *)calloc((size_t)comm->size, sizeof *a->ops)))
        return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "gp_dist_renderer_gather: transfer list");
    /* The root converts its band in place; the others into scratch. */
    if (comm->rank != a->root && (s = gpi_comm_scratch(comm, row_bytes * rows, (void **)&band))) return s;
    if ((s = gpr_renderer_rgb8(a->r->band, comm->rank == a->root ? a->rgb + row0 * row_bytes : band))) return s;
    if (comm->rank != a->root && rows) a->ops[0] = (gpi_p2p){a->root, 1, band, rows * row_bytes};
    return GP_SUCCESS;
}

static gp_status gather_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    gather_args *a = (gather_args *)arg;
    const size_t row_bytes = (size_t)a->r->width * 3;
    int q, nops = 0;
    (void)all, (void)found;
    if (comm->rank != a->root) {
        nops = a->ops[0].bytes != 0;
    } else {
        for (q = 0; q < comm->size; q++) {
            size_t q0, qrows;
            band_of(a->r, q, &q0, &qrows);
            if (q != a->root && qrows) a->ops[nops++] = (gpi_p2p){q, 0, a->rgb + q0 * row_bytes, qrows * row_bytes};
        }
    }
    return gpi_comm_p2p(comm, a->ops, nops, GPI_P2P_WAIT);
}

gp_status gp_dist_renderer_gather(gp_dist_renderer *r, int root, unsigned char *rgb)
{
    gather_args a = {r, root, rgb, NULL};
    gpi_dist_call call = {"gp_dist_renderer_gather", GPI_DIST_RENDER_GATHER, {root, 0, 0}, 0, 0, gather_check,
                          gather_run, NULL};
    gp_status s;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    call.args[1] = r->width;
    call.args[2] = r->height;
    s = gpi_dist_call_run(r->comm, &call, &a);
    free(a.ops);
    return s;
}
