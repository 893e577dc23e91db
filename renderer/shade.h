/* SPDX-License-Identifier: BSD-3-Clause */
/* shade.h - the per-pixel shading rule (docs/renderer.md, "Shading and
 * blending"), shared by the CPU reference, the CPU tile renderer and the
 * CUDA renderer so that all three do the same float operations in the
 * same order. Compile it without FMA contraction (-ffp-contract=off in C,
 * --fmad=false for CUDA): the CPU reference is ground truth. */
#ifndef GPUPRIM_SHADE_H
#define GPUPRIM_SHADE_H

#include <math.h>

#ifdef __CUDACC__
#define GPR_HD __host__ __device__ __forceinline__
#else
#define GPR_HD static inline
#endif

typedef struct gpr_rgba {
    float r, g, b, a;
} gpr_rgba;

/* Clamp a float pixel coordinate into [lo, hi] before converting: the same
 * result as the reference's clamp(int(v)) for every in-range value, and no
 * undefined behaviour for huge values from untrusted files. */
GPR_HD int gpr_clamp_coord(float v, int lo, int hi)
{
    int i;
    if (!(v > (float)lo - 1.0f)) return lo; /* also catches NaN */
    if (v > (float)hi + 1.0f) return hi;
    i = (int)v;
    return i < lo ? lo : (i > hi ? hi : i);
}

/* Pixel bounding box of a circle: [x0, x1) x [y0, y1), clamped to the image.
 * A circle whose radius is not positive (0, negative, NaN) covers no area:
 * its box is empty, so it draws nothing. Every renderer draws a circle only
 * inside this box (the reference, the CPU tiles, the CUDA binning), so the
 * rule holds for all of them; without it a radius of 0 would pass
 * gpr_shade's d2 <= r*r at a pixel centre that is the circle's own centre
 * (and snow shading would divide 0 by 0 there). */
GPR_HD void gpr_circle_box(float px, float py, float rad, int width, int height,
                           int *x0, int *x1, int *y0, int *y1)
{
    float minX, maxX, minY, maxY;
    if (!(rad > 0.f)) {
        *x0 = *x1 = *y0 = *y1 = 0;
        return;
    }
    minX = px - rad;
    maxX = px + rad;
    minY = py - rad;
    maxY = py + rad;
    *x0 = gpr_clamp_coord(minX * (float)width, 0, width);
    *x1 = gpr_clamp_coord(maxX * (float)width, -1, width - 1) + 1;
    *y0 = gpr_clamp_coord(minY * (float)height, 0, height);
    *y1 = gpr_clamp_coord(maxY * (float)height, -1, height - 1) + 1;
}

/* Background of pixel row j: white, or the snow scenes' grey ramp. */
GPR_HD gpr_rgba gpr_background(int snow, int j, int height)
{
    gpr_rgba c;
    if (snow) {
        float shade = .4f + .45f * (float)(height - j) / (float)height;
        c.r = shade; c.g = shade; c.b = shade; c.a = 1.f;
    } else {
        c.r = 1.f; c.g = 1.f; c.b = 1.f; c.a = 1.f;
    }
    return c;
}

/* The snow colour ramp's red and green columns (blue is 1 throughout). */
GPR_HD float gpr_snow_red(int i) { return i < 2 ? 1.f : .8f; }
GPR_HD float gpr_snow_green(int i) { return i < 2 ? 1.f : (i < 4 ? .9f : .8f); }

/* Blend one circle over one pixel whose centre is (cx, cy). Does nothing
 * when the centre is outside the circle (d2 > r*r). */
GPR_HD void gpr_shade(gpr_rgba *c, float cx, float cy, float px, float py, float pz, float rad,
                      float cr, float cg, float cb, int snow)
{
    float dx = px - cx, dy = py - cy;
    float d2 = dx * dx + dy * dy;
    float maxd2 = rad * rad;
    float r, g, b, alpha, oneMinusAlpha;
    if (d2 > maxd2) return;
    if (snow) {
        /* Colour ramp {1,1,1},{1,1,1},{.8,.9,1},{.8,.9,1},{.8,.8,1}, read with
         * selects rather than an indexed array (which would sit in local
         * memory on the GPU); the values are the table's exactly. */
        float t = sqrtf(d2) / rad;
        float scaled = t * 4.f;
        /* A radius of 0 never gets here (gpr_circle_box's box is empty).
         * scaled is inf or NaN where the radius or the distance is so large
         * that a square overflows: converting those to int is undefined in C
         * (x86 gives INT_MIN, the GPU 0 or INT_MAX), so take the last entry
         * instead, the same on both. */
        int base = scaled < 4.f ? (int)scaled : 4;
        int next;
        float w, omw, maxAlpha;
        next = base < 4 ? base + 1 : 4; /* t == 1: weight is 0, stay in the table */
        w = scaled - (float)base;
        omw = 1.f - w;
        r = omw * gpr_snow_red(base) + w * gpr_snow_red(next);
        g = omw * gpr_snow_green(base) + w * gpr_snow_green(next);
        b = omw * 1.f + w * 1.f;
        maxAlpha = .6f + .4f * (1.f - pz);
        /* NaN first, as fminf(NaN, 1) would give it: nvcc turns the clamp
         * below into a saturate (cvt.sat), which sends NaN (a NaN depth
         * from a file) to 0 instead. */
        if (maxAlpha != maxAlpha) maxAlpha = 1.f;
        maxAlpha = .5f * fmaxf(fminf(maxAlpha, 1.f), 0.f);
        alpha = maxAlpha * expf(-1.f * 4.f * t * t);
    } else {
        r = cr; g = cg; b = cb;
        alpha = .5f;
    }
    oneMinusAlpha = 1.f - alpha;
    c->r = alpha * r + oneMinusAlpha * c->r;
    c->g = alpha * g + oneMinusAlpha * c->g;
    c->b = alpha * b + oneMinusAlpha * c->b;
    c->a = alpha + c->a;
}

/* Centre of pixel (i, j). */
GPR_HD float gpr_pixel_x(int i, float invW) { return invW * ((float)i + .5f); }
GPR_HD float gpr_pixel_y(int j, float invH) { return invH * ((float)j + .5f); }

/* A channel as written to an 8-bit image: (uint8)(255 * clamp(v, 0, 1)),
 * truncating like the course; NaN gives 0. One product: no FMA question. */
GPR_HD unsigned char gpr_to8(float v)
{
    if (!(v > 0.f)) return 0;
    if (v > 1.f) v = 1.f;
    return (unsigned char)(255.f * v);
}

#endif
