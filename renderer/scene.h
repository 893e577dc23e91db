/* SPDX-License-Identifier: BSD-3-Clause */
/* scene.h - the scene's layout inside the library (never installed).
 * Arrays of n*3 / n floats, as the course's renderer keeps them, so the
 * CUDA renderer can upload each with one copy. */
#ifndef GPUPRIM_SCENE_H
#define GPUPRIM_SCENE_H

#include <gpuprim/render.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gpr_scene_kind {
    GPR_SCENE_STATIC = 0,     /* no animation */
    GPR_SCENE_SNOW,           /* animated snow (gravity, drag, noise) */
    GPR_SCENE_BOUNCING_BALLS,
    GPR_SCENE_HYPNOSIS,
    GPR_SCENE_FIREWORKS
} gpr_scene_kind;

struct gp_scene {
    size_t n;
    int snow;              /* snow shading and background */
    gpr_scene_kind kind;   /* which animation gp_scene_advance runs */
    float *position;       /* 3n: x, y, z */
    float *velocity;       /* 3n */
    float *color;          /* 3n: r, g, b */
    float *radius;         /* n */
    /* Animation state that the frames need (fireworks' rim points, ...). */
    float *extra;
    size_t extra_len;
    unsigned long frame;   /* how many times advanced */
    /* Added by scene.c (after the original fields): */
    uint64_t uid;          /* unique per scene object, so a renderer can tell
                              whether (uid, frame) is what it already holds */
};

/* Internal helpers of scene.c, shared with scene_file.c. */
#ifdef __cplusplus
extern "C" {
#endif
/* A zeroed scene of n circles (all arrays allocated), or NULL. */
gp_scene *gpr_scene_alloc(size_t n, int snow);
/* Take ownership of arrays already allocated (n*3, n*3, n*3, n floats). */
gp_scene *gpr_scene_wrap(size_t n, int snow, float *position, float *velocity, float *color,
                         float *radius);
#ifdef __cplusplus
}
#endif

#endif
