/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_absent/frame.c - the CUDA tile renderer's entry points in a build
 * without CUDA, in place of cuda/. No CUDA context can be made in such a
 * build, so gp_renderer never gets this far; creation still reports
 * GP_ERROR_NO_DEVICE with a detail, and nothing else can be reached (there
 * is never a gpr_cuda_renderer). */
#include "render_cuda.h"

gp_status gpr_cuda_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                   gpr_cuda_renderer **out)
{
    (void)width, (void)height, (void)band_ty0, (void)band_ty1;
    *out = NULL;
    return gp_context_set_error(ctx, GP_ERROR_NO_DEVICE,
                                "renderer: this build of gpuprim has no CUDA (built without a CUDA compiler)");
}

void gpr_cuda_renderer_destroy(gpr_cuda_renderer *r) { (void)r; }

gp_status gpr_cuda_renderer_set_scene(gpr_cuda_renderer *r, const gp_scene *scene)
{
    (void)r, (void)scene;
    return GP_ERROR_NO_DEVICE;
}

gp_status gpr_cuda_renderer_render(gpr_cuda_renderer *r)
{
    (void)r;
    return GP_ERROR_NO_DEVICE;
}

gp_status gpr_cuda_renderer_read(gpr_cuda_renderer *r, float *rgba_host)
{
    (void)r, (void)rgba_host;
    return GP_ERROR_NO_DEVICE;
}

gp_status gpr_cuda_renderer_rgb8(gpr_cuda_renderer *r, unsigned char *rgb_dev)
{
    (void)r, (void)rgb_dev;
    return GP_ERROR_NO_DEVICE;
}
