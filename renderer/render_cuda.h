/* render_cuda.h - the CUDA tile renderer behind gp_renderer (never installed).
 * renderer.c owns gp_renderer and calls these for contexts whose backend is
 * CUDA; render_cuda.cu implements them. All run on the context's stream. */
#ifndef GPUPRIM_RENDER_CUDA_H
#define GPUPRIM_RENDER_CUDA_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpi_cuda_renderer gpi_cuda_renderer;

gp_status gpi_cuda_renderer_create(gp_context *ctx, int width, int height, gpi_cuda_renderer **out);
void gpi_cuda_renderer_destroy(gpi_cuda_renderer *r);
/* Upload the circles (positions, radii, colours) and the snow flag. */
gp_status gpi_cuda_renderer_set_scene(gpi_cuda_renderer *r, const gp_scene *scene);
/* Clear and render one frame into the device image (asynchronous, except
 * for the small host read of the binning total). */
gp_status gpi_cuda_renderer_render(gpi_cuda_renderer *r);
/* Copy the device image (width*height*4 floats) to the host; synchronizes. */
gp_status gpi_cuda_renderer_read(gpi_cuda_renderer *r, float *rgba_host);

#ifdef __cplusplus
}
#endif

#endif
