/* SPDX-License-Identifier: BSD-3-Clause */
/* render_cpu.h - the multi-threaded CPU tile renderer behind gp_renderer on
 * the CPU backend (the files of cpu/; never installed). It gives gp_render_reference's
 * image (reference.c) bit for bit. Arguments are checked by renderer.c. */
#ifndef GPUPRIM_RENDER_CPU_H
#define GPUPRIM_RENDER_CPU_H

#include "scene.h"

typedef struct gpr_cpu_renderer gpr_cpu_renderer;

/* Image sizes every renderer accepts: 1 .. GP_RENDER_MAX_SIDE a side, and
 * width*height*4 floats addressable. GP_ERROR_INVALID_ARGUMENT /
 * GP_ERROR_SIZE_OVERFLOW otherwise. */
gp_status gpr_render_check_size(int width, int height);

/* Draws tile rows [band_ty0, band_ty1) of a width x height image (all of
 * them, or a distributed rank's band); the image held is those rows, in
 * buffers of ctx (a CPU context). */
gp_status gpr_cpu_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                  gpr_cpu_renderer **out);
void gpr_cpu_renderer_destroy(gpr_cpu_renderer *r);
/* Copy the circles (grows the copy only when the scene grows). */
gp_status gpr_cpu_renderer_set_scene(gpr_cpu_renderer *r, const gp_scene *scene);
/* Clear and render one frame with `threads` worker threads (>= 1). */
gp_status gpr_cpu_renderer_render(gpr_cpu_renderer *r, int threads);
/* Report gpr_cpu_renderer_render's progress through fn (NULL: none). */
void gpr_cpu_renderer_set_progress(gpr_cpu_renderer *r, gp_progress_fn fn, void *user);
/* Copy the last frame's band (width * band rows * 4 floats). */
gp_status gpr_cpu_renderer_read(const gpr_cpu_renderer *r, float *rgba_host);
/* The band as 8-bit RGB (width * band rows * 3 bytes), as gp_image_write
 * would write it. */
gp_status gpr_cpu_renderer_rgb8(const gpr_cpu_renderer *r, unsigned char *rgb);

#endif
