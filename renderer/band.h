/* SPDX-License-Identifier: BSD-3-Clause */
/* band.h - a renderer that draws one band of tile rows of an image: what
 * the distributed renderer (render_dist.c) gives each rank. Never installed. */
#ifndef GPUPRIM_BAND_H
#define GPUPRIM_BAND_H

#include <gpuprim/render.h>

/* Tile height of both tile renderers (cpu/tile.h's TILE_H, cuda/policy.cuh's
 * kTile): bands are whole tile rows, so no tile straddles two ranks. */
#define GPR_RENDER_TILE 16

/* Band `part` of `parts` of an image `height` pixels tall: tile rows
 * [*ty0, *ty1) and pixel rows [*y0, *y1) (the last band ends at height).
 * The one place the partition is defined. */
void gpr_render_band(int height, int part, int parts, int *ty0, int *ty1, int *y0, int *y1);

/* A renderer for band `part` of `parts` of a width x height image: tile rows
 * [T*part/parts, T*(part+1)/parts) of its T tile rows (possibly none).
 * gp_renderer_create is part 0 of 1. */
gp_status gpr_renderer_create_band(gp_renderer **out, gp_context *ctx, int width, int height, int part, int parts);

/* The band's pixel rows [*row_begin, *row_end). */
void gpr_renderer_band(const gp_renderer *r, int *row_begin, int *row_end);

/* The last frame's band as 8-bit RGB (width * band rows * 3 bytes) into
 * memory of the context's backend; asynchronous on CUDA. */
gp_status gpr_renderer_rgb8(gp_renderer *r, unsigned char *rgb);

#endif
