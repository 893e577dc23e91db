/* SPDX-License-Identifier: BSD-3-Clause */
/* Scenes: counts, the exact circles docs/renderer.md defines for seed 0
 * (recomputed here from the system's srand/rand, in the documented order
 * of draws), depth order, and the animations' steps. */
#include "test_util.h"
#include "scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float u(void) { return (float)rand() / RAND_MAX; }

static int desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

static gp_scene *make(const char *name)
{
    gp_scene *s = NULL;
    assert_int_equal(gp_scene_create(&s, name, 0), GP_SUCCESS);
    assert_non_null(s);
    return s;
}

static void same(float got, float want, const char *what, size_t i)
{
    if (got != want) fail_msg("%s of circle %zu: %.9g, expected %.9g", what, i, (double)got, (double)want);
}

static void expect_circle(const gp_scene *s, size_t i, float x, float y, float z, float rad, float r, float g, float b)
{
    gp_circle c;
    assert_int_equal(gp_scene_get_circle(s, i, &c), GP_SUCCESS);
    same(c.x, x, "x", i);
    same(c.y, y, "y", i);
    same(c.z, z, "z", i);
    same(c.radius, rad, "radius", i);
    same(c.r, r, "r", i);
    same(c.g, g, "g", i);
    same(c.b, b, "b", i);
}

static void counts_and_names(void **state)
{
    static const struct {
        const char *name;
        size_t n;
        int snow;
    } want[] = {{"rgb", 3, 0},           {"rgby", 4, 0},          {"rand10k", 10000, 0}, {"rand100k", 100000, 0},
                {"rand1M", 1000000, 0},  {"micro2M", 2000000, 0}, {"biglittle", 10000, 0}, {"littlebig", 10000, 0},
                {"pattern", 1217, 0},    {"snow", 100000, 1},     {"bouncingballs", 10, 0}, {"hypnosis", 25, 0},
                {"fireworks", 315, 0}};
    size_t k;
    (void)state;
    for (k = 0; k < sizeof want / sizeof want[0]; k++) {
        gp_scene *s = make(want[k].name);
        size_t n = 0;
        int snow = -1;
        assert_int_equal(gp_scene_count(s, &n), GP_SUCCESS);
        assert_int_equal(gp_scene_is_snow(s, &snow), GP_SUCCESS);
        if (n != want[k].n) fail_msg("%s: %zu circles, expected %zu", want[k].name, n, want[k].n);
        assert_int_equal(snow, want[k].snow);
        gp_scene_destroy(s);
    }
}

static void bad_arguments(void **state)
{
    gp_scene *s = (gp_scene *)0x1;
    gp_circle c;
    size_t n;
    int snow;
    (void)state;
    assert_int_equal(gp_scene_create(&s, "nope", 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_create(&s, "RGB", 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_create(&s, "", 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_create(&s, NULL, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(s, (gp_scene *)0x1);
    assert_int_equal(gp_scene_create(NULL, "rgb", 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_count(NULL, &n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_is_snow(NULL, &snow), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_get_circle(NULL, 0, &c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_advance(NULL), GP_ERROR_INVALID_ARGUMENT);
    gp_scene_destroy(NULL);
    s = make("rgb");
    assert_int_equal(gp_scene_get_circle(s, 3, &c), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_get_circle(s, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_count(s, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_is_snow(s, NULL), GP_ERROR_INVALID_ARGUMENT);
    gp_scene_destroy(s);
    s = (gp_scene *)0x1;
    assert_int_equal(gp_scene_from_circles(&s, NULL, 1, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_from_circles(&s, &c, 0, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_from_circles(&s, &c, GP_SCENE_MAX_CIRCLES + 1, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_from_circles(NULL, &c, 1, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(s, (gp_scene *)0x1);
}

static void rgb_and_rgby(void **state)
{
    gp_scene *s;
    (void)state;
    s = make("rgb");
    expect_circle(s, 0, .4f, .5f, .75f, .3f, 1.f, 0.f, 0.f);
    expect_circle(s, 1, .5f, .5f, .5f, .3f, 0.f, 1.f, 0.f);
    expect_circle(s, 2, .6f, .5f, .25f, .3f, 0.f, 0.f, 1.f);
    gp_scene_destroy(s);
    s = make("rgby");
    expect_circle(s, 0, .25f, .25f, .75f, .19f, 1.f, 0.f, 0.f);
    expect_circle(s, 1, .3f, .3f, .5f, .19f, 0.f, 1.f, 0.f);
    expect_circle(s, 2, .5f, .5f, .25f, .25f, 0.f, 0.f, 1.f);
    expect_circle(s, 3, .2f, .2f, .9f, .1f, 1.f, 1.f, 0.f);
    gp_scene_destroy(s);
}

/* n depths u sorted descending; then per circle its radius (unless fixed),
 * x, y, r, g, b. */
static void check_random(const char *name, size_t n, float fixed_radius, size_t check)
{
    gp_scene *s = make(name);
    float *depth = (float *)gpt_malloc(n * sizeof(float));
    size_t i;
    srand(0);
    for (i = 0; i < n; i++) depth[i] = u();
    qsort(depth, n, sizeof(float), desc);
    for (i = 0; i < n && i < check; i++) {
        float rad, x, y, r, g, b;
        if (fixed_radius > 0.f) rad = fixed_radius;
        else rad = n > 100000 ? .009f + .005f * u() : .02f + .06f * u();
        x = u();
        y = u();
        if (n <= 10000) {
            r = .1f + .9f * u();
            g = .2f + .5f * u();
            b = .5f + .5f * u();
        } else if (n <= 100000) {
            r = .3f + .9f * u();
            g = .1f + .9f * u();
            b = .1f + .4f * u();
        } else if (fixed_radius > 0.f) {
            r = .3f + .9f * u();
            g = .1f + .3f * u();
            b = .2f + .2f * u();
        } else {
            r = .2f + .5f * u();
            g = .5f + .5f * u();
            b = .1f + .4f * u();
        }
        expect_circle(s, i, x, y, depth[i], rad, r, g, b);
    }
    /* Depth order: descending (farthest first). */
    for (i = 1; i < n; i++) assert_true(s->position[3 * i + 2] <= s->position[3 * i - 1]);
    free(depth);
    gp_scene_destroy(s);
}

static void rand10k_circles(void **state)
{
    (void)state;
    check_random("rand10k", 10000, 0.f, 10000);
}

static void rand100k_circles(void **state)
{
    (void)state;
    check_random("rand100k", 100000, 0.f, 100000);
}

static void rand1M_circles(void **state)
{
    (void)state;
    check_random("rand1M", 1000000, 0.f, gpt_quick() ? 1000 : 1000000);
}

static void micro2M_circles(void **state)
{
    (void)state;
    if (gpt_quick()) skip();
    check_random("micro2M", 2000000, .001f, 100000);
}

static void biglittle_circles(void **state)
{
    int which;
    (void)state;
    for (which = 0; which < 2; which++) {
        const char *name = which ? "littlebig" : "biglittle";
        gp_scene *s;
        size_t i;
        float centre = which ? .05f : .85f;
        check_random(name, 10000, .25f, 9000);
        /* The corner's small circles: drawn after all 10000, x then y,
         * with the course's float arithmetic x = .9 - centre + .1u. */
        srand(0);
        for (i = 0; i < 10000 + 10000 * 5; i++) (void)rand(); /* depths, then x y r g b each */
        s = make(name);
        for (i = 9000; i < 10000; i++) {
            gp_circle c;
            float x = .9f - centre + .1f * u();
            float y = centre + .1f * u();
            gp_scene_get_circle(s, i, &c);
            same(c.radius, .05f, "radius", i);
            same(c.x, x, "x", i);
            same(c.y, y, "y", i);
            if (which) assert_true(c.x > .8f && c.y < .16f);
            else assert_true(c.x < .16f && c.y > .8f);
        }
        gp_scene_destroy(s);
    }
}

static void pattern_circles(void **state)
{
    gp_scene *s = make("pattern");
    const float rad = 1.f / 32.f;
    size_t k = 0;
    int i, j;
    (void)state;
    srand(0);
    for (j = 0; j < 16; j++)
        for (i = 0; i < 16; i++, k++) expect_circle(s, k, rad + 2 * rad * i, rad + 2 * rad * j, u(), rad, 1.f, 0.f, 0.f);
    for (j = 0; j < 31; j++)
        for (i = 0; i < 31; i++, k++) expect_circle(s, k, 2 * rad * i, 2 * rad * j, u(), rad, 1.f, 1.f, 0.f);
    assert_int_equal(k, 1217);
    gp_scene_destroy(s);
}

static void snow_flakes(void **state)
{
    gp_scene *s = make("snow");
    const size_t n = 100000;
    float *depth = (float *)gpt_malloc(n * sizeof(float));
    size_t i;
    (void)state;
    srand(0);
    for (i = 0; i < n; i++) {
        float d = powf((float)i / (float)n, .1f) + (-.05f + .1f * u());
        depth[i] = d < 0.f ? 0.f : (d > 1.f ? 1.f : d);
    }
    qsort(depth, n, sizeof(float), desc);
    for (i = 0; i < n; i++) {
        gp_circle c;
        float size = .08f - .0075f + .015f * u();
        float r = (1.f - depth[i]) * size + depth[i] * size / 15.f;
        float x, y;
        if (depth[i] < .02f) r *= 3.f;
        else if (r < .0075f) r = .0075f;
        x = u();
        y = 1.f + r + 2.f * u();
        gp_scene_get_circle(s, i, &c);
        same(c.z, depth[i], "depth", i);
        same(c.radius, r, "radius", i);
        /* Frame 0 is one step of our own snow animation in: near the start. */
        if (fabsf(c.x - x) > .01f || fabsf(c.y - y) > .01f)
            fail_msg("flake %zu at (%g, %g), started at (%g, %g)", i, (double)c.x, (double)c.y, (double)x, (double)y);
        assert_true(c.y > 1.f); /* everything starts above the frame */
    }
    free(depth);
    gp_scene_destroy(s);
}

static void hypnosis_steps(void **state)
{
    gp_scene *s = make("hypnosis");
    float rad[25];
    int i, f;
    (void)state;
    srand(0);
    for (i = 0; i < 25; i++) {
        float r = u(), g = u(), b = u();
        rad[i] = .02f + (float)i * .02f;
        rad[i] = rad[i] > .5f ? .02f : rad[i] + .01f; /* frame 0: advanced once */
        expect_circle(s, (size_t)i, .5f, .5f, 0.f, rad[i], r, g, b);
    }
    for (f = 0; f < 80; f++) {
        assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
        for (i = 0; i < 25; i++) {
            rad[i] = rad[i] > .5f ? .02f : rad[i] + .01f;
            same(s->radius[i], rad[i], "radius", (size_t)i);
        }
    }
    gp_scene_destroy(s);
}

static void bouncing_step(float *y, float *vy)
{
    const float dt = 1.f / 60.f;
    float oldV = *vy, oldY = *y;
    if (oldV == 0.f && oldY == 0.f) return;
    if (oldY < 0.f && oldV < 0.f) *vy *= -.8f;
    *vy += -2.8f * dt;
    *y += *vy * dt;
    if (fabsf(*vy - oldV) < .001f && oldY < 0.f && fabsf(*y - oldY) < .001f) *vy = *y = 0.f;
}

static void bouncingballs_steps(void **state)
{
    gp_scene *s = make("bouncingballs");
    float x[10], y[10], z[10], vy[10];
    int i, f, rested = 0;
    (void)state;
    srand(0);
    for (i = 0; i < 10; i++) {
        x[i] = u();
        y[i] = u();
        z[i] = u();
        vy[i] = u();
        bouncing_step(&y[i], &vy[i]);
        expect_circle(s, (size_t)i, x[i], y[i], z[i], .05f, i % 3 == 0, i % 3 == 1, i % 3 == 2);
        same(s->velocity[3 * i + 1], vy[i], "vy", (size_t)i);
    }
    for (f = 0; f < 3000; f++) {
        assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
        for (i = 0; i < 10; i++) {
            bouncing_step(&y[i], &vy[i]);
            same(s->position[3 * i + 1], y[i], "y", (size_t)i);
            same(s->velocity[3 * i + 1], vy[i], "vy", (size_t)i);
            same(s->position[3 * i], x[i], "x", (size_t)i);
        }
    }
    for (i = 0; i < 10; i++) rested += y[i] == 0.f && vy[i] == 0.f;
    (void)rested; /* balls may or may not come to rest; the steps above are what count */
    gp_scene_destroy(s);
}

static void fireworks_steps(void **state)
{
    gp_scene *s = make("fireworks");
    float px[315], py[315], vx[315], vy[315], sx[315], sy[315], svx[315], svy[315];
    const float dt = 1.f / 60.f, pi = 3.14159f;
    int i, j, f;
    (void)state;
    srand(0);
    for (i = 0; i < 15; i++) {
        px[i] = u();
        py[i] = u();
        expect_circle(s, (size_t)i, px[i], py[i], 0.f, .005f, 1.f, 1.f, 1.f);
        for (j = 0; j < 20; j++) {
            int k = 15 + 20 * i + j;
            float a = ((float)(j * 2) * pi) / 20.f;
            sx[k] = px[i] + cosf(a) * .005f;
            sy[k] = py[i] + sinf(a) * .005f;
            svx[k] = (float)((double)cosf(a) / 5.0);
            svy[k] = (float)((double)sinf(a) / 5.0);
            px[k] = sx[k] + svx[k] * dt; /* frame 0: one step in */
            py[k] = sy[k] + svy[k] * dt;
            vx[k] = svx[k];
            vy[k] = svy[k];
            expect_circle(s, (size_t)k, px[k], py[k], 0.f, .01f, i % 3 == 0, i % 3 == 1, i % 3 == 2);
        }
    }
    for (f = 0; f < 200; f++) {
        assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
        for (i = 0; i < 15; i++) {
            for (j = 0; j < 20; j++) {
                int k = 15 + 20 * i + j;
                float dx, dy;
                px[k] += vx[k] * dt;
                py[k] += vy[k] * dt;
                dx = px[k] - px[i];
                dy = py[k] - py[i];
                if (sqrtf(dx * dx + dy * dy) > .25f) {
                    px[k] = sx[k];
                    py[k] = sy[k];
                    vx[k] = svx[k];
                    vy[k] = svy[k];
                }
                same(s->position[3 * k], px[k], "x", (size_t)k);
                same(s->position[3 * k + 1], py[k], "y", (size_t)k);
            }
            same(s->position[3 * i], px[i], "firework x", (size_t)i);
        }
    }
    gp_scene_destroy(s);
}

static void seeds_matter(void **state)
{
    gp_scene *a, *b, *c;
    (void)state;
    assert_int_equal(gp_scene_create(&a, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&b, "rand10k", 1), GP_SUCCESS); /* glibc: seed 0 acts as 1 */
    assert_int_equal(gp_scene_create(&c, "rand10k", 2), GP_SUCCESS);
    assert_memory_equal(a->position, b->position, 3 * 10000 * sizeof(float));
    assert_memory_not_equal(a->position, c->position, 3 * 10000 * sizeof(float));
    gp_scene_destroy(a);
    gp_scene_destroy(b);
    gp_scene_destroy(c);
}

static void static_scenes_do_not_move(void **state)
{
    gp_scene *s = make("rand10k");
    float *copy = (float *)gpt_malloc(3 * 10000 * sizeof(float));
    (void)state;
    memcpy(copy, s->position, 3 * 10000 * sizeof(float));
    assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
    assert_memory_equal(copy, s->position, 3 * 10000 * sizeof(float));
    free(copy);
    gp_scene_destroy(s);
}

static void snow_falls(void **state)
{
    gp_scene *s = make("snow");
    double before = 0, after = 0;
    size_t i;
    int f;
    (void)state;
    for (i = 0; i < s->n; i++) before += s->position[3 * i + 1];
    for (f = 0; f < 30; f++) assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
    for (i = 0; i < s->n; i++) {
        after += s->position[3 * i + 1];
        assert_true(isfinite(s->position[3 * i]) && isfinite(s->position[3 * i + 1]));
    }
    assert_true(after < before);
    gp_scene_destroy(s);
}

static void from_circles_round_trip(void **state)
{
    gp_circle in[3] = {{.1f, .2f, .3f, .4f, .5f, .6f, .7f}, {1, 2, 3, 4, 5, 6, 7}, {-1, -2, -3, 0, 0, 0, 0}};
    gp_scene *s = NULL;
    size_t n = 0, i;
    int snow = -1;
    (void)state;
    assert_int_equal(gp_scene_from_circles(&s, in, 3, 7), GP_SUCCESS);
    assert_int_equal(gp_scene_count(s, &n), GP_SUCCESS);
    assert_int_equal(n, 3);
    assert_int_equal(gp_scene_is_snow(s, &snow), GP_SUCCESS);
    assert_int_equal(snow, 1);
    for (i = 0; i < 3; i++) {
        gp_circle c;
        assert_int_equal(gp_scene_get_circle(s, i, &c), GP_SUCCESS);
        assert_memory_equal(&c, &in[i], sizeof c);
    }
    assert_int_equal(gp_scene_advance(s), GP_SUCCESS); /* static: no-op */
    gp_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_and_names),    cmocka_unit_test(bad_arguments),
        cmocka_unit_test(rgb_and_rgby),        cmocka_unit_test(rand10k_circles),
        cmocka_unit_test(rand100k_circles),    cmocka_unit_test(rand1M_circles),
        cmocka_unit_test(micro2M_circles),     cmocka_unit_test(biglittle_circles),
        cmocka_unit_test(pattern_circles),     cmocka_unit_test(snow_flakes),
        cmocka_unit_test(hypnosis_steps),      cmocka_unit_test(bouncingballs_steps),
        cmocka_unit_test(fireworks_steps),     cmocka_unit_test(seeds_matter),
        cmocka_unit_test(static_scenes_do_not_move), cmocka_unit_test(snow_falls),
        cmocka_unit_test(from_circles_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
