/* SPDX-License-Identifier: BSD-3-Clause */
/* render_dist.c - one frame on several ranks: rank r draws band r of the
 * image's tile rows with an ordinary tile renderer limited to that band,
 * then the 8-bit bands travel to the root (the only data that crosses a
 * link: 3 bytes a pixel). The renderer sits above the library and uses
 * only gpuprim's public collectives: gp_dist_agree for the ranks' local
 * verdicts, then gp_dist_gatherv, which exchanges its own verdicts and the
 * band sizes before any byte moves, so the root's image is never written
 * when any rank fails. */
#include "band.h"

#include <stdlib.h>
#include <string.h>

struct gp_dist_renderer {
    gp_comm *comm;
    gp_context *ctx;
    int rank, size;
    gp_renderer *band;
    int width, height;
    void *band_rgb; /* this rank's band as 8-bit RGB, a buffer of its context (made on first gather) */
};

gp_status gp_dist_renderer_create(gp_dist_renderer **out, gp_comm *comm, int width, int height)
{
    gp_dist_renderer *r;
    gp_context *ctx = NULL;
    int rank = 0, size = 0;
    gp_status s;
    if (!out || !comm) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = gp_comm_context(comm, &ctx)) || (s = gp_comm_rank(comm, &rank)) || (s = gp_comm_size(comm, &size)))
        return s;
    if ((s = gp_context_enter(ctx))) return s;
    if (!(r = (gp_dist_renderer *)calloc(1, sizeof *r)))
        return gp_context_set_error(ctx, GP_ERROR_OUT_OF_MEMORY, "gp_dist_renderer_create: out of host memory");
    r->comm = comm;
    r->ctx = ctx;
    r->rank = rank;
    r->size = size;
    r->width = width;
    r->height = height;
    if ((s = gpr_renderer_create_band(&r->band, ctx, width, height, rank, size))) {
        free(r);
        return s;
    }
    *out = r;
    return GP_SUCCESS;
}

void gp_dist_renderer_destroy(gp_dist_renderer *r)
{
    if (!r) return;
    if (r->band_rgb) gp_free(r->ctx, r->band_rgb);
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

gp_status gp_dist_renderer_gather(gp_dist_renderer *r, int root, unsigned char *rgb)
{
    const size_t row_bytes = r ? (size_t)r->width * 3 : 0;
    size_t band_bytes;
    int y0, y1;
    gp_status mine = GP_SUCCESS, s;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = gp_context_enter(r->ctx))) return s;
    gpr_renderer_band(r->band, &y0, &y1);
    band_bytes = row_bytes * (size_t)(y1 - y0);
    /* Every rank converts its band into its own buffer, never into the
     * root's image: nothing of rgb is written before all ranks agree. */
    if (band_bytes && !r->band_rgb) mine = gp_malloc(r->ctx, &r->band_rgb, band_bytes);
    if (!mine) mine = gpr_renderer_rgb8(r->band, (unsigned char *)r->band_rgb);
    if ((s = gp_dist_agree(r->comm, mine))) return s;
    /* Bands are consecutive rows in rank order: concatenated, the image. */
    return gp_dist_gatherv(r->comm, root, r->band_rgb, band_bytes, rgb,
                           r->rank == root ? row_bytes * (size_t)r->height : 0, NULL);
}
