/* SPDX-License-Identifier: BSD-3-Clause */
/* reference.c - gp_render_reference, the ground truth: one thread, circle
 * after circle over its clamped pixel box, gpr_shade per pixel, the
 * reference's float operations in their order (built, like every C file of
 * the renderer, with -ffp-contract=off: no FMA contraction). Also the image
 * size rule every renderer shares. */
#include "progress.h"
#include "render_cpu.h"
#include "shade.h"
#include "sizes.h"

#include <stddef.h>

gp_status gpr_render_check_size(int width, int height)
{
    size_t px, bytes;
    if (width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return GP_ERROR_INVALID_ARGUMENT;
    if (gpr_mul_size((size_t)width, (size_t)height, &px) || gpr_mul_size(px, 4 * sizeof(float), &bytes))
        return GP_ERROR_SIZE_OVERFLOW;
    return GP_SUCCESS;
}

gp_status gp_render_reference(const gp_scene *scene, int width, int height, float *rgba)
{
    return gp_render_reference_progress(scene, width, height, rgba, NULL, NULL);
}

gp_status gp_render_reference_progress(const gp_scene *scene, int width, int height, float *rgba,
                                       gp_progress_fn fn, void *user)
{
    float invW, invH;
    size_t c;
    int i, j;
    gp_status st;
    gpr_progress pr = {fn, user, 0};
    double total = 0, done = 0;
    if (!scene || !rgba) return GP_ERROR_INVALID_ARGUMENT;
    if ((st = gpr_render_check_size(width, height))) return st;
    for (j = 0; j < height; j++) {
        gpr_rgba bg = gpr_background(scene->snow, j, height);
        float *row = rgba + (size_t)j * (size_t)width * 4;
        for (i = 0; i < width; i++) {
            row[4 * i] = bg.r;
            row[4 * i + 1] = bg.g;
            row[4 * i + 2] = bg.b;
            row[4 * i + 3] = bg.a;
        }
    }
    invW = 1.f / (float)width;
    invH = 1.f / (float)height;
    /* Work is pixels tested: each circle's box, plus one per circle. */
    for (c = 0; fn && c < scene->n; c++) {
        int x0, x1, y0, y1;
        gpr_circle_box(scene->position[3 * c], scene->position[3 * c + 1], scene->radius[c], width, height, &x0, &x1,
                       &y0, &y1);
        total += 1.0 + (x1 > x0 && y1 > y0 ? (double)(x1 - x0) * (double)(y1 - y0) : 0.0);
    }
    pr.last = gpr_mono_s();
    for (c = 0; c < scene->n; c++) {
        const float *p = scene->position + 3 * c, *col = scene->color + 3 * c;
        float rad = scene->radius[c];
        int x0, x1, y0, y1;
        gpr_circle_box(p[0], p[1], rad, width, height, &x0, &x1, &y0, &y1);
        for (j = y0; j < y1; j++) {
            float cy = gpr_pixel_y(j, invH);
            float *row = rgba + (size_t)j * (size_t)width * 4;
            for (i = x0; i < x1; i++) {
                float *q = row + 4 * (size_t)i;
                gpr_rgba px = {q[0], q[1], q[2], q[3]};
                gpr_shade(&px, gpr_pixel_x(i, invW), cy, p[0], p[1], p[2], rad, col[0], col[1], col[2],
                          scene->snow);
                q[0] = px.r;
                q[1] = px.g;
                q[2] = px.b;
                q[3] = px.a;
            }
        }
        if (fn) {
            done += 1.0 + (x1 > x0 && y1 > y0 ? (double)(x1 - x0) * (double)(y1 - y0) : 0.0);
            gpr_progress_report(&pr, done, total);
        }
    }
    if (fn) gpr_progress_report(&pr, total, total);
    return GP_SUCCESS;
}
