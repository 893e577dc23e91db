/* SPDX-License-Identifier: BSD-3-Clause */
/* render_cuda.h - the CUDA tile renderer behind gp_renderer (never installed).
 * renderer.c owns gp_renderer and calls these for contexts whose backend is
 * CUDA; renderer/cuda/frame.cu implements them, with the kernels in pack.cu,
 * bin.cu and shade.cu beside it. All run on the context's stream. */
#ifndef GPUPRIM_RENDER_CUDA_H
#define GPUPRIM_RENDER_CUDA_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpr_cuda_renderer gpr_cuda_renderer;

/* Draws tile rows [band_ty0, band_ty1) of a width x height image (all of
 * them, or a distributed rank's band); the device image holds those rows. */
gp_status gpr_cuda_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                   gpr_cuda_renderer **out);
void gpr_cuda_renderer_destroy(gpr_cuda_renderer *r);
/* Upload the circles (positions, radii, colours) and the snow flag. */
gp_status gpr_cuda_renderer_set_scene(gpr_cuda_renderer *r, const gp_scene *scene);
/* Clear and render one frame into the device image (asynchronous, except
 * for the small host read of the binning total). */
gp_status gpr_cuda_renderer_render(gpr_cuda_renderer *r);
/* Copy the device image (width * band rows * 4 floats) to the host; synchronizes. */
gp_status gpr_cuda_renderer_read(gpr_cuda_renderer *r, float *rgba_host);
/* The band as 8-bit RGB into device memory (width * band rows * 3 bytes);
 * asynchronous. */
gp_status gpr_cuda_renderer_rgb8(gpr_cuda_renderer *r, unsigned char *rgb_dev);

#ifdef __cplusplus
}
#endif

#endif
