/* SPDX-License-Identifier: BSD-3-Clause */
/* scene.c - the named scenes (docs/renderer.md, "Scenes"), generated as the
 * CMU 15-418 / Stanford CS149 circle renderer generates them (same rand()
 * draws in the same order, same float arithmetic), and their animations. */
#include "scene.h"
#include "rand.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t next_uid = 1;

gp_scene *gpr_scene_wrap(size_t n, int snow, float *position, float *velocity, float *color,
                         float *radius)
{
    gp_scene *s = (gp_scene *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->n = n;
    s->snow = snow;
    s->kind = GPR_SCENE_STATIC;
    s->position = position;
    s->velocity = velocity;
    s->color = color;
    s->radius = radius;
    s->uid = atomic_fetch_add(&next_uid, 1);
    return s;
}

gp_scene *gpr_scene_alloc(size_t n, int snow)
{
    float *p, *v, *c, *r;
    gp_scene *s;
    if (n == 0 || n > GP_SCENE_MAX_CIRCLES) return NULL;
    p = (float *)calloc(3 * n, sizeof(float));
    v = (float *)calloc(3 * n, sizeof(float));
    c = (float *)calloc(3 * n, sizeof(float));
    r = (float *)calloc(n, sizeof(float));
    s = (p && v && c && r) ? gpr_scene_wrap(n, snow, p, v, c, r) : NULL;
    if (!s) {
        free(p);
        free(v);
        free(c);
        free(r);
    }
    return s;
}

void gp_scene_destroy(gp_scene *s)
{
    if (!s) return;
    free(s->position);
    free(s->velocity);
    free(s->color);
    free(s->radius);
    free(s->extra);
    free(s);
}

/* ---- depth sort ---------------------------------------------------------- */

/* Order-preserving map of a float's bits to an unsigned key. */
static uint32_t float_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* Sort descending (std::sort with std::greater in the course: only the
 * multiset of values matters, so any correct sort gives the same array).
 * LSD radix sort: 2M depths in a few milliseconds instead of qsort's ~0.3 s. */
static int sort_descending(float *a, size_t n)
{
    float *tmp = (float *)malloc(n * sizeof(float));
    float *src = a, *dst = tmp;
    size_t count[256], i;
    int pass;
    if (!tmp) return -1;
    for (pass = 0; pass < 4; pass++) {
        int shift = 8 * pass;
        size_t sum = 0;
        memset(count, 0, sizeof count);
        /* Keys complemented so that ascending key order is descending value. */
        for (i = 0; i < n; i++) count[(~float_key(src[i]) >> shift) & 255]++;
        for (i = 0; i < 256; i++) {
            size_t c = count[i];
            count[i] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++) dst[count[(~float_key(src[i]) >> shift) & 255]++] = src[i];
        {
            float *t = src;
            src = dst;
            dst = t;
        }
    }
    /* Four passes: the result is back in a. */
    free(tmp);
    return 0;
}

/* n depths u, sorted descending: the first draws of every random scene. */
static int random_depths(gpr_rand *g, float *depth, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) depth[i] = gpr_rand_float(g);
    return sort_descending(depth, n);
}

/* Colour of a random or fixed-size scene circle: three draws. */
static void random_color(gpr_rand *g, size_t n, int fixed_size, float *c)
{
    float u0, u1, u2;
    u0 = gpr_rand_float(g);
    if (n <= 10000) {
        c[0] = .1f + .9f * u0;
        u1 = gpr_rand_float(g);
        c[1] = .2f + .5f * u1;
        u2 = gpr_rand_float(g);
        c[2] = .5f + .5f * u2;
    } else if (n <= 100000) {
        c[0] = .3f + .9f * u0;
        u1 = gpr_rand_float(g);
        c[1] = .1f + .9f * u1;
        u2 = gpr_rand_float(g);
        c[2] = .1f + .4f * u2;
    } else if (!fixed_size) {
        c[0] = .2f + .5f * u0;
        u1 = gpr_rand_float(g);
        c[1] = .5f + .5f * u1;
        u2 = gpr_rand_float(g);
        c[2] = .1f + .4f * u2;
    } else {
        c[0] = .3f + .9f * u0;
        u1 = gpr_rand_float(g);
        c[1] = .1f + .3f * u1;
        u2 = gpr_rand_float(g);
        c[2] = .2f + .2f * u2;
    }
}

/* rand10k / rand100k / rand1M (R < 0: a random radius per circle) and
 * micro2M, biglittle, littlebig (fixed radius R). */
static gp_status gen_circles(gp_scene *s, gpr_rand *g, float R)
{
    size_t n = s->n, i;
    float *d = (float *)malloc(n * sizeof(float));
    if (!d) return GP_ERROR_OUT_OF_MEMORY;
    if (random_depths(g, d, n)) {
        free(d);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) {
        if (R >= 0.f) s->radius[i] = R;
        else if (n > 100000) s->radius[i] = .009f + .005f * gpr_rand_float(g);
        else s->radius[i] = .02f + .06f * gpr_rand_float(g);
        s->position[3 * i] = gpr_rand_float(g);
        s->position[3 * i + 1] = gpr_rand_float(g);
        s->position[3 * i + 2] = d[i];
        random_color(g, n, R >= 0.f, s->color + 3 * i);
    }
    free(d);
    return GP_SUCCESS;
}

/* biglittle / littlebig: circles 9000..9999 become small ones in a corner.
 * The course writes x = .9 - centre + .1u and y = centre + .1u in float;
 * .9f - .85f is not .05f, so keep its arithmetic to get its exact circles. */
static void small_corner(gp_scene *s, gpr_rand *g, float centre)
{
    size_t i;
    for (i = 9000; i < 10000; i++) {
        s->radius[i] = .05f;
        s->position[3 * i] = .9f - centre + .1f * gpr_rand_float(g);
        s->position[3 * i + 1] = centre + .1f * gpr_rand_float(g);
    }
}

static gp_status gen_snow(gp_scene *s, gpr_rand *g)
{
    size_t n = s->n, i;
    float *d = (float *)malloc(n * sizeof(float));
    if (!d) return GP_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) {
        /* Most flakes far away: pow(i/n, .1), jittered, clamped. */
        float v = powf((float)i / (float)n, .1f) + (-.05f + .1f * gpr_rand_float(g));
        d[i] = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
    }
    if (sort_descending(d, n)) {
        free(d);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) {
        float depth = d[i];
        /* The course's closeSize - .0075 + .015u with closeSize = .08, in float. */
        float size = .08f - .0075f + (.015f * gpr_rand_float(g));
        float r = ((1.f - depth) * size) + (depth * size / 15.f);
        if (depth < .02f) r *= 3.f;
        else if (r < .0075f) r = .0075f;
        s->radius[i] = r;
        s->position[3 * i] = gpr_rand_float(g);
        s->position[3 * i + 1] = 1.f + r + 2.f * gpr_rand_float(g);
        s->position[3 * i + 2] = depth;
    }
    free(d);
    return GP_SUCCESS;
}

static void set3(float *a, float x, float y, float z)
{
    a[0] = x;
    a[1] = y;
    a[2] = z;
}

static void gen_rgb(gp_scene *s)
{
    int i;
    for (i = 0; i < 3; i++) s->radius[i] = .3f;
    set3(s->position, .4f, .5f, .75f);
    set3(s->color, 1.f, 0.f, 0.f);
    set3(s->position + 3, .5f, .5f, .5f);
    set3(s->color + 3, 0.f, 1.f, 0.f);
    set3(s->position + 6, .6f, .5f, .25f);
    set3(s->color + 6, 0.f, 0.f, 1.f);
}

static void gen_rgby(gp_scene *s)
{
    s->radius[0] = .19f;
    s->radius[1] = .19f;
    s->radius[2] = .25f;
    s->radius[3] = .1f;
    set3(s->position, .25f, .25f, .75f);
    set3(s->color, 1.f, 0.f, 0.f);
    set3(s->position + 3, .3f, .3f, .5f);
    set3(s->color + 3, 0.f, 1.f, 0.f);
    set3(s->position + 6, .5f, .5f, .25f);
    set3(s->color + 6, 0.f, 0.f, 1.f);
    set3(s->position + 9, .2f, .2f, .9f);
    set3(s->color + 9, 1.f, 1.f, 0.f);
}

/* One grid of the pattern scene: rows (y) outer, columns (x) inner. */
static size_t pattern_grid(gp_scene *s, gpr_rand *g, size_t index, int count, float rad,
                           float offset, float cr, float cg, float cb)
{
    int i, j;
    for (j = 0; j < count; j++) {
        for (i = 0; i < count; i++) {
            float *p = s->position + 3 * index;
            p[0] = offset + (2.f * rad * (float)i);
            p[1] = offset + (2.f * rad * (float)j);
            p[2] = gpr_rand_float(g);
            set3(s->color + 3 * index, cr, cg, cb);
            s->radius[index] = rad;
            index++;
        }
    }
    return index;
}

static void gen_pattern(gp_scene *s, gpr_rand *g)
{
    float rad = .5f * (1.f / 16.f);
    size_t k = pattern_grid(s, g, 0, 16, rad, rad, 1.f, 0.f, 0.f);
    pattern_grid(s, g, k, 31, rad, 0.f, 1.f, 1.f, 0.f);
}

static void gen_hypnosis(gp_scene *s, gpr_rand *g)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        set3(s->position + 3 * i, .5f, .5f, 0.f);
        s->radius[i] = .02f + ((float)i * .02f);
        s->color[3 * i] = gpr_rand_float(g);
        s->color[3 * i + 1] = gpr_rand_float(g);
        s->color[3 * i + 2] = gpr_rand_float(g);
    }
}

static void gen_bouncing(gp_scene *s, gpr_rand *g)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        float *p = s->position + 3 * i, *c = s->color + 3 * i;
        s->radius[i] = .05f;
        p[0] = gpr_rand_float(g);
        p[1] = gpr_rand_float(g);
        p[2] = gpr_rand_float(g);
        set3(c, i % 3 == 0 ? 1.f : 0.f, i % 3 == 1 ? 1.f : 0.f, i % 3 == 2 ? 1.f : 0.f);
        set3(s->velocity + 3 * i, 0.f, gpr_rand_float(g), 0.f);
    }
}

#define FIREWORKS 15
#define SPARKS 20

/* Rim point and velocity of spark j of a firework at (cx, cy) with radius fr. */
static void spark_start(float cx, float cy, float fr, int j, float *p, float *v)
{
    const float pi = 3.14159f;
    float angle = ((float)(j * 2) * pi) / (float)SPARKS;
    float sinA = sinf(angle), cosA = cosf(angle);
    p[0] = cx + cosA * fr;
    p[1] = cy + sinA * fr;
    p[2] = 0.f;
    /* The course divides by the double 5.0, then stores a float. */
    v[0] = (float)((double)cosA / 5.0);
    v[1] = (float)((double)sinA / 5.0);
    v[2] = 0.f;
}

static gp_status gen_fireworks(gp_scene *s, gpr_rand *g)
{
    int i, j;
    /* extra: per spark its start x, y, vx, vy (it returns there). */
    s->extra_len = (size_t)FIREWORKS * SPARKS * 4;
    s->extra = (float *)calloc(s->extra_len, sizeof(float));
    if (!s->extra) return GP_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < FIREWORKS; i++) {
        float *p = s->position + 3 * i;
        s->radius[i] = .005f;
        set3(s->color + 3 * i, 1.f, 1.f, 1.f);
        p[0] = gpr_rand_float(g);
        p[1] = gpr_rand_float(g);
        p[2] = 0.f;
        for (j = 0; j < SPARKS; j++) {
            size_t k = (size_t)FIREWORKS + (size_t)i * SPARKS + (size_t)j;
            float *e = s->extra + 4 * (k - FIREWORKS);
            s->radius[k] = .01f;
            set3(s->color + 3 * k, i % 3 == 0 ? 1.f : 0.f, i % 3 == 1 ? 1.f : 0.f, i % 3 == 2 ? 1.f : 0.f);
            spark_start(p[0], p[1], s->radius[i], j, s->position + 3 * k, s->velocity + 3 * k);
            e[0] = s->position[3 * k];
            e[1] = s->position[3 * k + 1];
            e[2] = s->velocity[3 * k];
            e[3] = s->velocity[3 * k + 1];
        }
    }
    return GP_SUCCESS;
}

/* ---- animation ------------------------------------------------------------ */

static void advance_hypnosis(gp_scene *s)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        if (s->radius[i] > .5f) s->radius[i] = .02f;
        else s->radius[i] += .01f;
    }
}

static void advance_bouncing(gp_scene *s)
{
    const float dt = 1.f / 60.f, gravity = -2.8f, bounce = -.8f, eps = .001f;
    size_t i;
    for (i = 0; i < s->n; i++) {
        float *y = s->position + 3 * i + 1, *vy = s->velocity + 3 * i + 1;
        float oldV = *vy, oldY = *y;
        if (oldV == 0.f && oldY == 0.f) continue; /* at rest */
        if (oldY < 0.f && oldV < 0.f) *vy *= bounce;
        *vy += gravity * dt;
        *y += *vy * dt;
        if (fabsf(*vy - oldV) < eps && oldY < 0.f && fabsf(*y - oldY) < eps) {
            *vy = 0.f;
            *y = 0.f;
        }
    }
}

static void advance_fireworks(gp_scene *s)
{
    const float dt = 1.f / 60.f, maxDist = .25f;
    size_t k;
    for (k = FIREWORKS; k < s->n; k++) {
        float *p = s->position + 3 * k, *v = s->velocity + 3 * k;
        const float *c = s->position + 3 * ((k - FIREWORKS) / SPARKS);
        const float *e = s->extra + 4 * (k - FIREWORKS);
        float dx, dy;
        p[0] += v[0] * dt;
        p[1] += v[1] * dt;
        dx = p[0] - c[0];
        dy = p[1] - c[1];
        if (sqrtf(dx * dx + dy * dy) > maxDist) {
            p[0] = e[0];
            p[1] = e[1];
            v[0] = e[2];
            v[1] = e[3];
        }
    }
}

/* Snow: gravity, drag and a smooth noise force; a flake that leaves the
 * bottom comes back at the top. Ours, not the course's (not required). */
static void advance_snow(gp_scene *s)
{
    const float dt = 1.f / 60.f, gravity = -.3f, drag = 1.5f, noise = .4f;
    const float t = (float)s->frame * dt;
    size_t i;
    for (i = 0; i < s->n; i++) {
        float *p = s->position + 3 * i, *v = s->velocity + 3 * i;
        float r = s->radius[i];
        /* Nearer (smaller z) flakes fall faster. */
        float g = gravity * (1.5f - p[2]);
        float phase = (float)(i % 997) * .37f;
        float fx = noise * sinf(3.f * p[1] + 1.3f * t + phase);
        float fy = .3f * noise * cosf(5.f * p[0] + .7f * t + phase);
        v[0] += (fx - drag * v[0]) * dt;
        v[1] += (g + fy - drag * v[1]) * dt;
        p[0] += v[0] * dt;
        p[1] += v[1] * dt;
        if (p[1] + r < 0.f) {
            p[1] = 1.f + r;
            v[1] = 0.f;
        }
        if (p[0] < -r) p[0] += 1.f + 2.f * r;
        else if (p[0] > 1.f + r) p[0] -= 1.f + 2.f * r;
    }
}

gp_status gp_scene_advance(gp_scene *s)
{
    if (!s) return GP_ERROR_INVALID_ARGUMENT;
    switch (s->kind) {
    case GPR_SCENE_STATIC: return GP_SUCCESS; /* frame stays: nothing changed */
    case GPR_SCENE_SNOW: advance_snow(s); break;
    case GPR_SCENE_BOUNCING_BALLS: advance_bouncing(s); break;
    case GPR_SCENE_HYPNOSIS: advance_hypnosis(s); break;
    case GPR_SCENE_FIREWORKS:
        if (!s->extra || s->extra_len < (s->n - FIREWORKS) * 4) return GP_ERROR_INTERNAL;
        advance_fireworks(s);
        break;
    default: return GP_ERROR_INTERNAL;
    }
    s->frame++;
    return GP_SUCCESS;
}

/* ---- creation ---------------------------------------------------------------- */

typedef struct scene_def {
    const char *name;
    size_t n;
} scene_def;

static const scene_def scene_defs[] = {
    {"rgb", 3},          {"rgby", 4},
    {"rand10k", 10000},  {"rand100k", 100000},
    {"rand1M", 1000000}, {"micro2M", 2000000},
    {"biglittle", 10000}, {"littlebig", 10000},
    {"pattern", 16 * 16 + 31 * 31}, {"snow", 100000},
    {"bouncingballs", 10}, {"hypnosis", 25},
    {"fireworks", FIREWORKS + FIREWORKS * SPARKS},
};

gp_status gp_scene_create(gp_scene **out, const char *name, unsigned seed)
{
    const scene_def *def = NULL;
    gp_scene *s;
    gpr_rand g;
    gp_status st = GP_SUCCESS;
    size_t k;
    if (!out || !name) return GP_ERROR_INVALID_ARGUMENT;
    for (k = 0; k < sizeof scene_defs / sizeof scene_defs[0]; k++)
        if (strcmp(name, scene_defs[k].name) == 0) def = &scene_defs[k];
    if (!def) return GP_ERROR_INVALID_ARGUMENT;
    s = gpr_scene_alloc(def->n, strcmp(name, "snow") == 0);
    if (!s) return GP_ERROR_OUT_OF_MEMORY;
    gpr_rand_seed(&g, seed);
    if (!strcmp(name, "rgb")) gen_rgb(s);
    else if (!strcmp(name, "rgby")) gen_rgby(s);
    else if (!strncmp(name, "rand", 4)) st = gen_circles(s, &g, -1.f);
    else if (!strcmp(name, "micro2M")) st = gen_circles(s, &g, .001f);
    else if (!strcmp(name, "biglittle") || !strcmp(name, "littlebig")) {
        st = gen_circles(s, &g, .25f);
        if (!st) small_corner(s, &g, name[0] == 'b' ? .85f : .05f);
    } else if (!strcmp(name, "pattern")) gen_pattern(s, &g);
    else if (!strcmp(name, "snow")) {
        st = gen_snow(s, &g);
        s->kind = GPR_SCENE_SNOW;
    } else if (!strcmp(name, "bouncingballs")) {
        gen_bouncing(s, &g);
        s->kind = GPR_SCENE_BOUNCING_BALLS;
    } else if (!strcmp(name, "hypnosis")) {
        gen_hypnosis(s, &g);
        s->kind = GPR_SCENE_HYPNOSIS;
    } else {
        st = gen_fireworks(s, &g);
        s->kind = GPR_SCENE_FIREWORKS;
    }
    /* Animated scenes start at frame 0, which is one step in. */
    if (!st && s->kind != GPR_SCENE_STATIC) st = gp_scene_advance(s);
    if (st) {
        gp_scene_destroy(s);
        return st;
    }
    *out = s;
    return GP_SUCCESS;
}

gp_status gp_scene_from_circles(gp_scene **out, const gp_circle *c, size_t n, int snow)
{
    gp_scene *s;
    size_t i;
    if (!out || !c || n == 0 || n > GP_SCENE_MAX_CIRCLES) return GP_ERROR_INVALID_ARGUMENT;
    s = gpr_scene_alloc(n, snow != 0);
    if (!s) return GP_ERROR_OUT_OF_MEMORY;
    for (i = 0; i < n; i++) {
        set3(s->position + 3 * i, c[i].x, c[i].y, c[i].z);
        set3(s->color + 3 * i, c[i].r, c[i].g, c[i].b);
        s->radius[i] = c[i].radius;
    }
    *out = s;
    return GP_SUCCESS;
}

gp_status gp_scene_count(const gp_scene *s, size_t *count)
{
    if (!s || !count) return GP_ERROR_INVALID_ARGUMENT;
    *count = s->n;
    return GP_SUCCESS;
}

gp_status gp_scene_is_snow(const gp_scene *s, int *is_snow)
{
    if (!s || !is_snow) return GP_ERROR_INVALID_ARGUMENT;
    *is_snow = s->snow;
    return GP_SUCCESS;
}

gp_status gp_scene_get_circle(const gp_scene *s, size_t i, gp_circle *c)
{
    if (!s || !c || i >= s->n) return GP_ERROR_INVALID_ARGUMENT;
    c->x = s->position[3 * i];
    c->y = s->position[3 * i + 1];
    c->z = s->position[3 * i + 2];
    c->radius = s->radius[i];
    c->r = s->color[3 * i];
    c->g = s->color[3 * i + 1];
    c->b = s->color[3 * i + 2];
    return GP_SUCCESS;
}
