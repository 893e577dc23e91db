/* SPDX-License-Identifier: BSD-3-Clause */
/* renderer.c - gp_renderer: argument checks, then the context's backend
 * (the CUDA tile renderer of cuda/, or the CPU tile renderer of cpu/). The
 * renderer reaches gpuprim through its public API only; its errors are
 * recorded on the caller's context (gp_context_set_error), where gpuprim's
 * own calls record theirs, so gp_context_last_error tells the caller why
 * whichever layer failed. */
#include "render_cpu.h"
#include "render_cuda.h"
#include "band.h"

#include <stdlib.h>

struct gp_renderer {
    gp_context *ctx;
    int width, height;
    int band_ty0, band_ty1; /* tile rows drawn: all, or a distributed rank's band */
    int band_y0, band_y1;   /* ... as pixel rows */
    gpr_cpu_renderer *cpu;
    gpr_cuda_renderer *cuda;
    void *rgb_dev; /* CUDA: gp_renderer_read_rgb8's device buffer, made on first use */
    int has_scene, rendered;
    uint64_t scene_uid;        /* the scene object and frame held now: */
    unsigned long scene_frame; /* set_scene of the same ones copies nothing */
};

gp_status gp_renderer_create(gp_renderer **out, gp_context *ctx, int width, int height)
{
    return gpr_renderer_create_band(out, ctx, width, height, 0, 1);
}

gp_status gpr_renderer_create_band(gp_renderer **out, gp_context *ctx, int width, int height, int part, int parts)
{
    gp_renderer *r;
    gp_status st;
    gp_backend backend = GP_BACKEND_CPU;
    if ((st = gp_context_enter(ctx))) return st;
    if (!out) return gp_context_set_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_create: renderer is NULL");
    if ((st = gpr_render_check_size(width, height)))
        return gp_context_set_error(ctx, st, "gp_renderer_create: image size %dx%d outside 1..%d", width, height,
                                    GP_RENDER_MAX_SIDE);
    gp_context_get_backend(ctx, &backend);
    r = (gp_renderer *)calloc(1, sizeof *r);
    if (!r) return gp_context_set_error(ctx, GP_ERROR_OUT_OF_MEMORY, "gp_renderer_create: out of host memory");
    r->ctx = ctx;
    r->width = width;
    r->height = height;
    gpr_render_band(height, part, parts, &r->band_ty0, &r->band_ty1, &r->band_y0, &r->band_y1);
    if (backend == GP_BACKEND_CUDA)
        st = gpr_cuda_renderer_create(ctx, width, height, r->band_ty0, r->band_ty1, &r->cuda);
    else st = gpr_cpu_renderer_create(ctx, width, height, r->band_ty0, r->band_ty1, &r->cpu);
    if (st) {
        free(r);
        if (!gp_context_last_error(ctx)[0])
            gp_context_set_error(ctx, st, "gp_renderer_create: %dx%d image", width, height);
        return st;
    }
    *out = r;
    return GP_SUCCESS;
}

void gp_renderer_destroy(gp_renderer *r)
{
    if (!r) return;
    if (r->rgb_dev) gp_free(r->ctx, r->rgb_dev);
    if (r->cuda) gpr_cuda_renderer_destroy(r->cuda);
    if (r->cpu) gpr_cpu_renderer_destroy(r->cpu);
    free(r);
}

gp_status gp_renderer_set_scene(gp_renderer *r, const gp_scene *scene)
{
    gp_status st;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if (!scene || scene->n == 0)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_set_scene: no scene");
    if ((st = gp_context_enter(r->ctx))) return st;
    /* Static scenes keep their frame number: benchmarks that call set_scene
     * after every gp_scene_advance upload nothing for them. */
    if (r->has_scene && r->scene_uid == scene->uid && r->scene_frame == scene->frame) return GP_SUCCESS;
    r->has_scene = 0;
    st = r->cuda ? gpr_cuda_renderer_set_scene(r->cuda, scene) : gpr_cpu_renderer_set_scene(r->cpu, scene);
    if (st) {
        if (!gp_context_last_error(r->ctx)[0])
            gp_context_set_error(r->ctx, st, "gp_renderer_set_scene: %zu circles", scene->n);
        return st;
    }
    r->has_scene = 1;
    r->scene_uid = scene->uid;
    r->scene_frame = scene->frame;
    return GP_SUCCESS;
}

gp_status gp_renderer_render(gp_renderer *r)
{
    gp_status st;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if (!r->has_scene)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_render: no scene set");
    if ((st = gp_context_enter(r->ctx))) return st;
    if (r->cuda) st = gpr_cuda_renderer_render(r->cuda);
    else {
        int threads = 1;
        gp_context_get_cpu_threads(r->ctx, &threads);
        st = gpr_cpu_renderer_render(r->cpu, threads);
    }
    if (st) {
        if (!gp_context_last_error(r->ctx)[0])
            gp_context_set_error(r->ctx, st, "gp_renderer_render: %dx%d", r->width, r->height);
        return st;
    }
    r->rendered = 1;
    return GP_SUCCESS;
}

gp_status gp_renderer_set_progress(gp_renderer *r, gp_progress_fn fn, void *user)
{
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if (r->cpu) gpr_cpu_renderer_set_progress(r->cpu, fn, user);
    return GP_SUCCESS;
}

void gpr_render_band(int height, int part, int parts, int *ty0, int *ty1, int *y0, int *y1)
{
    const long long tiles_y = (height + GPR_RENDER_TILE - 1) / GPR_RENDER_TILE;
    *ty0 = (int)(tiles_y * part / parts);
    *ty1 = (int)(tiles_y * (part + 1) / parts);
    *y0 = *ty0 * GPR_RENDER_TILE;
    *y1 = *ty1 * GPR_RENDER_TILE < height ? *ty1 * GPR_RENDER_TILE : height;
}

void gpr_renderer_band(const gp_renderer *r, int *row_begin, int *row_end)
{
    *row_begin = r->band_y0;
    *row_end = r->band_y1;
}

gp_status gpr_renderer_rgb8(gp_renderer *r, unsigned char *rgb)
{
    gp_status st;
    if (!r->rendered)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_renderer_gather: nothing rendered yet");
    if ((st = gp_context_enter(r->ctx))) return st;
    return r->cuda ? gpr_cuda_renderer_rgb8(r->cuda, rgb) : gpr_cpu_renderer_rgb8(r->cpu, rgb);
}

gp_status gp_renderer_read_image(gp_renderer *r, float *rgba_host)
{
    gp_status st;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if (!rgba_host)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_read_image: NULL image");
    if (!r->rendered)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_read_image: nothing rendered yet");
    if ((st = gp_context_enter(r->ctx))) return st;
    st = r->cuda ? gpr_cuda_renderer_read(r->cuda, rgba_host) : gpr_cpu_renderer_read(r->cpu, rgba_host);
    if (st && !gp_context_last_error(r->ctx)[0]) gp_context_set_error(r->ctx, st, "gp_renderer_read_image");
    return st;
}

gp_status gp_renderer_read_rgb8(gp_renderer *r, unsigned char *rgb_host)
{
    size_t bytes;
    gp_status st;
    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    if (!rgb_host) return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_read_rgb8: NULL image");
    bytes = (size_t)r->width * (size_t)(r->band_y1 - r->band_y0) * 3;
    if (!r->rendered)
        return gp_context_set_error(r->ctx, GP_ERROR_INVALID_ARGUMENT, "gp_renderer_read_rgb8: nothing rendered yet");
    if ((st = gp_context_enter(r->ctx))) return st;
    if (r->cpu) return gpr_cpu_renderer_rgb8(r->cpu, rgb_host);
    if (!r->rgb_dev && (st = gp_malloc(r->ctx, &r->rgb_dev, bytes))) return st;
    st = gpr_cuda_renderer_rgb8(r->cuda, (unsigned char *)r->rgb_dev);
    if (!st) st = gp_download(r->ctx, rgb_host, r->rgb_dev, bytes);
    if (st && !gp_context_last_error(r->ctx)[0]) gp_context_set_error(r->ctx, st, "gp_renderer_read_rgb8");
    return st;
}

gp_status gp_render(gp_context *ctx, const gp_scene *scene, int width, int height, float *rgba_host)
{
    gp_renderer *r = NULL;
    gp_status st;
    if ((st = gp_context_enter(ctx))) return st;
    if (!scene || !rgba_host)
        return gp_context_set_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_render: NULL scene or image");
    if ((st = gp_renderer_create(&r, ctx, width, height))) return st;
    st = gp_renderer_set_scene(r, scene);
    if (!st) st = gp_renderer_render(r);
    if (!st) st = gp_renderer_read_image(r, rgba_host);
    gp_renderer_destroy(r);
    return st;
}
