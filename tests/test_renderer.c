/* SPDX-License-Identifier: BSD-3-Clause */
/* The renderers: the CPU reference against hand-computed pixels, the CPU
 * tile renderer against the reference bit for bit, the CUDA renderer
 * against the reference within one 8-bit level, image output, and the
 * argument checks of every public renderer function. */
#include "test_util.h"
#include "scene.h"

#include <gpuprim/render.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const all_scenes[] = {"rgb",     "rgby",      "rand10k",   "rand100k", "rand1M",
                                         "micro2M", "biglittle", "littlebig", "pattern",  "snow",
                                         "bouncingballs", "hypnosis", "fireworks"};
#define NSCENES (sizeof all_scenes / sizeof all_scenes[0])

static float *image(int w, int h) { return (float *)gpt_malloc((size_t)w * (size_t)h * 4 * sizeof(float)); }

static const float *px(const float *img, int w, int i, int j) { return img + ((size_t)j * (size_t)w + (size_t)i) * 4; }

static void expect_px(const float *img, int w, int i, int j, float r, float g, float b, float a)
{
    const float *p = px(img, w, i, j);
    if (p[0] != r || p[1] != g || p[2] != b || p[3] != a)
        fail_msg("pixel (%d,%d) = (%.9g %.9g %.9g %.9g), expected (%.9g %.9g %.9g %.9g)", i, j, (double)p[0],
                 (double)p[1], (double)p[2], (double)p[3], (double)r, (double)g, (double)b, (double)a);
}

static gp_scene *circles(const gp_circle *c, size_t n, int snow)
{
    gp_scene *s = NULL;
    assert_int_equal(gp_scene_from_circles(&s, c, n, snow), GP_SUCCESS);
    return s;
}

/* ---- the reference, by hand ------------------------------------------------------ */

static void reference_one_circle(void **state)
{
    /* 4x4 pixels: centres at .125, .375, .625, .875. Circle at the middle
     * with r = .25 covers exactly the four central pixels (d2 = .03125). */
    gp_circle c = {.5f, .5f, 0.f, .25f, 1.f, 0.f, .5f};
    gp_scene *s = circles(&c, 1, 0);
    float *img = image(4, 4);
    int i, j;
    (void)state;
    assert_int_equal(gp_render_reference(s, 4, 4, img), GP_SUCCESS);
    for (j = 0; j < 4; j++)
        for (i = 0; i < 4; i++) {
            if ((i == 1 || i == 2) && (j == 1 || j == 2)) expect_px(img, 4, i, j, 1.f, .5f, .75f, 1.5f);
            else expect_px(img, 4, i, j, 1.f, 1.f, 1.f, 1.f);
        }
    free(img);
    gp_scene_destroy(s);
}

static void reference_edge_is_inside(void **state)
{
    /* d2 == r*r counts: pixel centres .375 and .625 lie exactly at r = .125
     * from x = .5 on row 1 (all values exact in binary). */
    gp_circle c = {.5f, .375f, 0.f, .125f, 0.f, 0.f, 0.f};
    gp_scene *s = circles(&c, 1, 0);
    float *img = image(4, 4);
    (void)state;
    assert_int_equal(gp_render_reference(s, 4, 4, img), GP_SUCCESS);
    expect_px(img, 4, 1, 1, .5f, .5f, .5f, 1.5f);
    expect_px(img, 4, 2, 1, .5f, .5f, .5f, 1.5f);
    expect_px(img, 4, 0, 1, 1.f, 1.f, 1.f, 1.f);
    expect_px(img, 4, 1, 0, 1.f, 1.f, 1.f, 1.f);
    expect_px(img, 4, 1, 2, 1.f, 1.f, 1.f, 1.f);
    free(img);
    gp_scene_destroy(s);
}

static void reference_blends_in_order(void **state)
{
    gp_circle c[2] = {{.5f, .5f, 0.f, .4f, 1.f, 0.f, 0.f}, {.5f, .5f, 0.f, .4f, 0.f, 0.f, 1.f}};
    gp_scene *s = circles(c, 2, 0);
    float *img = image(2, 2);
    (void)state;
    assert_int_equal(gp_render_reference(s, 2, 2, img), GP_SUCCESS);
    /* white -> red at .5: (1, .5, .5) -> blue at .5: (.5, .25, .75) */
    expect_px(img, 2, 0, 0, .5f, .25f, .75f, 2.f);
    expect_px(img, 2, 1, 1, .5f, .25f, .75f, 2.f);
    free(img);
    gp_scene_destroy(s);
}

static void reference_snow_pixel(void **state)
{
    /* One flake at the centre, r = .5, z = .3, on a 4x4 snow image. Pixel
     * (1,1) at (.375,.375): t = sqrt(2)*.125/.5; ramp entries 1 and 2;
     * alpha = .5 * clamp(.6 + .4*(1-z)) * exp(-4 t^2); background of row
     * 1 = .4 + .45 * 3/4. Pixel (0,0) lies outside (distance .53). */
    gp_circle c = {.5f, .5f, .3f, .5f, 0.f, 0.f, 0.f};
    gp_scene *s = circles(&c, 1, 1);
    float *img = image(4, 4);
    double t = sqrt(2.0) * .125 / .5, w = 4 * t - 1, alpha = .5 * (.6 + .4 * .7) * exp(-4 * t * t);
    double bg = .4 + .45 * 3 / 4, cr = (1 - w) * 1 + w * .8, cg = (1 - w) * 1 + w * .9, cb = 1;
    const float *p;
    (void)state;
    assert_int_equal(gp_render_reference(s, 4, 4, img), GP_SUCCESS);
    p = px(img, 4, 1, 1);
    assert_float_equal(p[0], alpha * cr + (1 - alpha) * bg, 1e-6);
    assert_float_equal(p[1], alpha * cg + (1 - alpha) * bg, 1e-6);
    assert_float_equal(p[2], alpha * cb + (1 - alpha) * bg, 1e-6);
    assert_float_equal(p[3], 1 + alpha, 1e-6);
    p = px(img, 4, 0, 0);
    assert_float_equal(p[0], .4 + .45, 1e-6);
    assert_float_equal(p[3], 1, 0);
    /* At the centre-most ring (t small) the colour is white. */
    free(img);
    gp_scene_destroy(s);
}

static void reference_background(void **state)
{
    gp_circle c = {5.f, 5.f, 0.f, .1f, 0.f, 0.f, 0.f}; /* off the image */
    gp_scene *snow = circles(&c, 1, 1), *plain = circles(&c, 1, 0);
    const int w = 3, h = 7;
    float *img = image(w, h);
    int i, j;
    (void)state;
    assert_int_equal(gp_render_reference(snow, w, h, img), GP_SUCCESS);
    for (j = 0; j < h; j++) {
        float g = .4f + .45f * (float)(h - j) / (float)h;
        for (i = 0; i < w; i++) expect_px(img, w, i, j, g, g, g, 1.f);
    }
    assert_true(px(img, w, 0, 0)[0] > px(img, w, 0, h - 1)[0]); /* lighter at the bottom row j = 0 */
    assert_int_equal(gp_render_reference(plain, w, h, img), GP_SUCCESS);
    for (j = 0; j < h; j++)
        for (i = 0; i < w; i++) expect_px(img, w, i, j, 1.f, 1.f, 1.f, 1.f);
    free(img);
    gp_scene_destroy(snow);
    gp_scene_destroy(plain);
}

/* ---- the tile renderer against the reference ----------------------------------- */

/* Render with the context's renderer and compare with the reference: bit for
 * bit on the CPU, within one 8-bit level on CUDA. */
static void compare_with_reference(gp_context *ctx, const gp_scene *s, int w, int h, const char *what)
{
    float *ref = image(w, h), *got = image(w, h);
    gp_backend b = GP_BACKEND_CPU;
    gpt_poison(got, (size_t)w * (size_t)h * 4 * sizeof(float));
    gp_context_get_backend(ctx, &b);
    assert_int_equal(gp_render_reference(s, w, h, ref), GP_SUCCESS);
    GPT_OK(ctx, gp_render(ctx, s, w, h, got));
    if (b == GP_BACKEND_CPU) {
        size_t i, n = (size_t)w * (size_t)h * 4;
        for (i = 0; i < n; i++)
            if (memcmp(&ref[i], &got[i], sizeof(float)) != 0)
                fail_msg("%s %dx%d: pixel (%zu,%zu) channel %zu: tile %.9g, reference %.9g", what, w, h,
                         (i / 4) % (size_t)w, (i / 4) / (size_t)w, i % 4, (double)got[i], (double)ref[i]);
    } else {
        int max_diff = -1;
        size_t differing = 0;
        assert_int_equal(gp_image_compare(got, ref, w, h, &max_diff, &differing), GP_SUCCESS);
        if (max_diff > 1)
            fail_msg("%s %dx%d: max difference %d levels, %zu pixels differ", what, w, h, max_diff, differing);
    }
    free(ref);
    free(got);
}

/* For each value of a testing knob (an environment variable the renderer
 * reads), each case against the reference; the knob is unset after. */
struct render_case {
    const gp_scene *scene;
    int w, h;
};

static void compare_per_knob(gp_context *ctx, const char *knob, const char *const *values, size_t nvalues,
                             const struct render_case *cases, size_t ncases)
{
    size_t k, c;
    for (k = 0; k < nvalues; k++) {
        setenv(knob, values[k], 1);
        for (c = 0; c < ncases; c++) compare_with_reference(ctx, cases[c].scene, cases[c].w, cases[c].h, values[k]);
    }
    unsetenv(knob);
}

static void every_scene_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_backend b = GP_BACKEND_CPU;
    static const int sizes_cpu[][2] = {{64, 64}, {100, 75}, {257, 129}, {1, 1}, {3, 200}};
    static const int sizes_cuda[][2] = {{64, 64}, {100, 75}, {257, 129}, {1, 1}, {3, 200}, {1000, 600}, {1024, 1024}, {1920, 1080}};
    size_t k, z, nsizes;
    gp_context_get_backend(ctx, &b);
    nsizes = b == GP_BACKEND_CUDA ? (gpt_quick() ? 4 : sizeof sizes_cuda / sizeof sizes_cuda[0])
                                  : sizeof sizes_cpu / sizeof sizes_cpu[0];
    for (k = 0; k < NSCENES; k++) {
        gp_scene *s = NULL;
        assert_int_equal(gp_scene_create(&s, all_scenes[k], 0), GP_SUCCESS);
        if (b == GP_BACKEND_CPU) gp_context_set_cpu_threads(ctx, 1 + (int)(k % 3)); /* 1, 2, 3 threads */
        for (z = 0; z < nsizes; z++) {
            const int *wh = b == GP_BACKEND_CUDA ? sizes_cuda[z] : sizes_cpu[z];
            compare_with_reference(ctx, s, wh[0], wh[1], all_scenes[k]);
        }
        gp_scene_destroy(s);
    }
}

static void rand10k_256_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_scene *s = NULL;
    assert_int_equal(gp_scene_create(&s, "rand10k", 0), GP_SUCCESS);
    compare_with_reference(ctx, s, 256, 256, "rand10k");
    gp_context_set_cpu_threads(ctx, 5);
    compare_with_reference(ctx, s, 256, 256, "rand10k");
    gp_scene_destroy(s);
}

/* Each of the CPU tile renderer's shading paths (the scalar, SSE and AVX2
 * row blends and the AVX2 and AVX-512 register tiles; the library picks the
 * widest the CPU has, and a forced one the CPU lacks falls back to that)
 * against the reference. */
static const char *const blend_paths[] = {"scalar", "sse", "avx2-rows", "avx2", "avx512"};
#define NBLEND_PATHS (sizeof blend_paths / sizeof blend_paths[0])

static void every_blend_path_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_scene *s = NULL, *p = NULL, *d = NULL;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) print_message("this CPU has no AVX-512: its case ran the widest path\n");
    if (!__builtin_cpu_supports("avx2")) print_message("this CPU has no AVX2: its cases ran the SSE path\n");
#endif
    assert_int_equal(gp_scene_create(&s, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&p, "pattern", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&d, "rand100k", 0), GP_SUCCESS); /* thousands of circles per tile */
    {
        const struct render_case cases[] = {{s, 203, 150}, {p, 97, 64}, {d, 131, 67}};
        compare_per_knob(ctx, "GP_CPU_BLEND", blend_paths, NBLEND_PATHS, cases, sizeof cases / sizeof cases[0]);
    }
    gp_scene_destroy(s);
    gp_scene_destroy(p);
    gp_scene_destroy(d);
}

/* Flakes in view (the generated snow starts above the frame), and the
 * course's snow.par frame when it is there. */
static gp_scene *snow_in_view(size_t n)
{
    gp_circle *c = (gp_circle *)gpt_malloc(n * sizeof *c);
    gp_scene *s;
    size_t i;
    for (i = 0; i < n; i++) {
        c[i].x = (float)gpt_uniform() * 1.2f - .1f;
        c[i].y = (float)gpt_uniform() * 1.2f - .1f;
        c[i].z = 1.f - (float)i / (float)n;
        c[i].radius = .0075f + .08f * (float)gpt_uniform() * (float)gpt_uniform();
        c[i].r = c[i].g = c[i].b = 0.f;
    }
    s = circles(c, n, 1);
    free(c);
    return s;
}

static void snow_in_view_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_scene *s = snow_in_view(3000);
    compare_with_reference(ctx, s, 200, 150, "snow in view");
    compare_with_reference(ctx, s, 333, 77, "snow in view");
    gp_scene_destroy(s);
    if (access(GP_SOURCE_DIR "/../shared/data/snow.par", R_OK) == 0) {
        char err[256];
        assert_int_equal(gp_scene_load(&s, GP_SOURCE_DIR "/../shared/data/snow.par", err, sizeof err), GP_SUCCESS);
        compare_with_reference(ctx, s, 256, 256, "snowsingle");
        compare_with_reference(ctx, s, 100, 75, "snowsingle");
        gp_scene_destroy(s);
    } else {
        print_message("snowsingle part SKIPPED: ../shared/data/snow.par not present\n");
    }
}

/* The CUDA renderer bins circles into blocks of 1x1 to 4x4 tiles, the shape
 * picked per scene; GP_CUDA_BINS forces one. Every shape must draw the
 * reference's image: odd sizes (partial bins at the right and bottom), big
 * and small circles, snow. */
static void every_bin_shape_matches_reference(void **state)
{
    static const char *const shapes[] = {"1x1", "2x1", "2x2", "4x2", "4x4"};
    gp_context *ctx = gpt_ctx(state);
    gp_scene *r = NULL, *b = NULL, *m = NULL, *snow = snow_in_view(3000);
    assert_int_equal(gp_scene_create(&r, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&b, "biglittle", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&m, "rand1M", 0), GP_SUCCESS);
    {
        const struct render_case cases[] = {
            {r, 1000, 600}, {r, 257, 129}, {b, 333, 77}, {m, 200, 150}, {snow, 333, 77}};
        compare_per_knob(ctx, "GP_CUDA_BINS", shapes, sizeof shapes / sizeof shapes[0], cases,
                         sizeof cases / sizeof cases[0]);
    }
    gp_scene_destroy(r);
    gp_scene_destroy(b);
    gp_scene_destroy(m);
    gp_scene_destroy(snow);
}

/* Circles no scene generator makes: on the edges, huge, tiny, far away,
 * radius 0, non-finite values, squares that overflow (d2 and r*r both +inf:
 * inside). The tile renderer must agree exactly, on each CPU shading path. */
static void odd_circles_match_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_backend b = GP_BACKEND_CPU;
    size_t k, npaths;
    const float inf = INFINITY;
    gp_circle c[] = {
        {0.f, 0.f, .5f, .1f, 1, 0, 0},      {1.f, 1.f, .5f, .1f, 0, 1, 0},      {.5f, .5f, .5f, 0.f, 0, 0, 1},
        {.5f, .5f, .5f, 3.f, .2f, .3f, .4f}, {-.05f, .5f, .1f, .06f, 1, 1, 0},  {1e6f, 1e6f, .1f, 1.5e6f, .1f, .9f, .1f},
        {-1e6f, .5f, .1f, 1e6f, .7f, .1f, .2f}, {.5f, -1e9f, 0, 1e3f, .3f, .3f, .3f}, {.25f, .75f, .2f, 1e-6f, 1, 1, 1},
        {2.f, 2.f, .5f, 2.5f, .5f, .5f, .5f}, {.5f, .5f, 0.f, inf, .9f, .8f, .7f}, {NAN, .5f, 0.f, .2f, 1, 1, 1},
        {.5f, NAN, 0.f, .2f, 1, 1, 1},      {.5f, .5f, NAN, .2f, 1, 0, 1},      {.5f, .5f, 0.f, NAN, 1, 1, 1},
        {inf, .5f, 0.f, .2f, 1, 1, 1},      {.3f, .3f, 0.f, -.2f, 1, 0, 0},     {.999f, .001f, 0.f, .02f, 0, 1, 1},
        {inf, .5f, 0.f, inf, .6f, .2f, .1f}, {.5f, inf, 0.f, inf, .1f, .6f, .2f}, {1e20f, .5f, 0.f, 1e20f, .2f, .1f, .6f},
        {.5f, -3e19f, 0.f, 4e19f, .4f, .4f, .9f},
    };
    const size_t n = sizeof c / sizeof c[0];
    /* the overflowing ones (the last 4) make NaN colours under snow shading,
     * whose sign no path promises */
    gp_scene *s = circles(c, n, 0), *t = circles(c, n - 4, 1);
    gp_context_get_backend(ctx, &b);
    npaths = b == GP_BACKEND_CPU ? NBLEND_PATHS : 1;
    for (k = 0; k < npaths; k++) {
        if (b == GP_BACKEND_CPU) setenv("GP_CPU_BLEND", blend_paths[k], 1);
        compare_with_reference(ctx, s, 97, 61, "odd circles");
        compare_with_reference(ctx, s, 130, 130, "odd circles");
        compare_with_reference(ctx, t, 97, 61, "odd snow circles");
        /* Rims through pixel centres: at 64x64 the centres (i + .5)/64 and
         * these circles are exact in binary, so d2 == r*r (inside) at the
         * top, bottom and sides of each, on every tile path. */
        {
            gp_circle rim[] = {{32.5f / 64, 32.5f / 64, 0.f, 8.f / 64, 1, 0, 0},
                               {10.5f / 64, 50.5f / 64, 0.f, 4.f / 64, 0, 1, 0},
                               {60.5f / 64, 3.5f / 64, 0.f, 3.f / 64, 0, 0, 1}};
            gp_scene *u = circles(rim, 3, 0);
            compare_with_reference(ctx, u, 64, 64, "rims through pixel centres");
            gp_scene_destroy(u);
        }
    }
    unsetenv("GP_CPU_BLEND");
    gp_scene_destroy(s);
    gp_scene_destroy(t);
}

static void renderer_reuse_and_animation(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_renderer *r = NULL;
    gp_scene *s = NULL, *t = NULL;
    const int w = 120, h = 90;
    float *a = image(w, h), *b = image(w, h), *ref = image(w, h);
    unsigned char *rgb = (unsigned char *)gpt_malloc((size_t)w * h * 3);
    unsigned char *want = (unsigned char *)gpt_malloc((size_t)w * h * 3);
    int f;
    assert_int_equal(gp_scene_create(&s, "hypnosis", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&t, "rand10k", 0), GP_SUCCESS);
    GPT_OK(ctx, gp_renderer_create(&r, ctx, w, h));
    for (f = 0; f < 5; f++) {
        int max_diff = -1;
        GPT_OK(ctx, gp_renderer_set_scene(r, s));
        GPT_OK(ctx, gp_renderer_render(r));
        GPT_OK(ctx, gp_renderer_read_image(r, a));
        assert_int_equal(gp_render_reference(s, w, h, ref), GP_SUCCESS);
        gp_image_compare(a, ref, w, h, &max_diff, NULL);
        assert_true(max_diff <= 1);
        /* the 8-bit read is the float read converted */
        gpt_poison(rgb, (size_t)w * h * 3);
        GPT_OK(ctx, gp_renderer_read_rgb8(r, rgb));
        assert_int_equal(gp_image_to_rgb8(a, w, h, want), GP_SUCCESS);
        assert_memory_equal(rgb, want, (size_t)w * h * 3);
        if (f > 0) assert_memory_not_equal(a, b, (size_t)w * h * 4 * sizeof(float)); /* the rings moved */
        memcpy(b, a, (size_t)w * h * 4 * sizeof(float));
        assert_int_equal(gp_scene_advance(s), GP_SUCCESS);
    }
    /* Switch to a bigger scene, then back; render twice: same image. */
    GPT_OK(ctx, gp_renderer_set_scene(r, t));
    GPT_OK(ctx, gp_renderer_render(r));
    GPT_OK(ctx, gp_renderer_read_image(r, a));
    GPT_OK(ctx, gp_renderer_render(r));
    GPT_OK(ctx, gp_renderer_read_image(r, b));
    assert_memory_equal(a, b, (size_t)w * h * 4 * sizeof(float));
    GPT_OK(ctx, gp_renderer_set_scene(r, s));
    GPT_OK(ctx, gp_renderer_render(r));
    GPT_OK(ctx, gp_renderer_read_image(r, a));
    assert_int_equal(gp_render_reference(s, w, h, ref), GP_SUCCESS);
    {
        int max_diff = -1;
        gp_image_compare(a, ref, w, h, &max_diff, NULL);
        assert_true(max_diff <= 1);
    }
    gp_renderer_destroy(r);
    gp_scene_destroy(s);
    gp_scene_destroy(t);
    free(a);
    free(b);
    free(ref);
    free(rgb);
    free(want);
}

/* ---- arguments ------------------------------------------------------------------ */

static void renderer_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_renderer *r = (gp_renderer *)0x1;
    gp_scene *s = NULL;
    float img[16];
    unsigned char rgb[12];
    static const int bad_sides[] = {0, -1, GP_RENDER_MAX_SIDE + 1, -2147483647 - 1};
    size_t k;
    assert_int_equal(gp_scene_create(&s, "rgb", 0), GP_SUCCESS);

    assert_int_equal(gp_render_reference(NULL, 2, 2, img), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_render_reference(s, 2, 2, NULL), GP_ERROR_INVALID_ARGUMENT);
    for (k = 0; k < sizeof bad_sides / sizeof bad_sides[0]; k++) {
        assert_int_equal(gp_render_reference(s, bad_sides[k], 2, img), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_render_reference(s, 2, bad_sides[k], img), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_renderer_create(&r, ctx, bad_sides[k], 2), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_renderer_create(&r, ctx, 2, bad_sides[k]), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_render(ctx, s, bad_sides[k], 2, img), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_image_write("x.ppm", img, bad_sides[k], 2), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_image_compare(img, img, 2, bad_sides[k], NULL, NULL), GP_ERROR_INVALID_ARGUMENT);
    }
    assert_ptr_equal(r, (gp_renderer *)0x1);
    assert_int_equal(gp_renderer_create(NULL, ctx, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_create(&r, NULL, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(r, (gp_renderer *)0x1);
    gp_renderer_destroy(NULL);

    assert_int_equal(gp_render(NULL, s, 2, 2, img), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_render(ctx, NULL, 2, 2, img), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_render(ctx, s, 2, 2, NULL), GP_ERROR_INVALID_ARGUMENT);

    GPT_OK(ctx, gp_renderer_create(&r, ctx, 2, 2));
    assert_int_equal(gp_renderer_set_scene(NULL, s), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_set_scene(r, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_render(NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_render(r), GP_ERROR_INVALID_ARGUMENT); /* no scene yet */
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_renderer_read_image(r, img), GP_ERROR_INVALID_ARGUMENT); /* nothing rendered */
    memset(rgb, 0x5a, sizeof rgb);
    assert_int_equal(gp_renderer_read_rgb8(r, rgb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(rgb[0], 0x5a); /* untouched */
    GPT_OK(ctx, gp_renderer_set_scene(r, s));
    GPT_OK(ctx, gp_renderer_render(r));
    assert_int_equal(gp_renderer_read_image(r, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_read_image(NULL, img), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_read_rgb8(r, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_read_rgb8(NULL, rgb), GP_ERROR_INVALID_ARGUMENT);
    GPT_OK(ctx, gp_renderer_read_image(r, img));
    GPT_OK(ctx, gp_renderer_read_rgb8(r, rgb));
    gp_renderer_destroy(r);

    assert_int_equal(gp_image_write(NULL, img, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write("x.ppm", NULL, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write("x.jpg", img, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write("ppm", img, 2, 2), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write("/nonexistent-dir/x.ppm", img, 2, 2), GP_ERROR_IO);
    assert_int_equal(gp_image_compare(NULL, img, 2, 2, NULL, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_compare(img, NULL, 2, 2, NULL, NULL), GP_ERROR_INVALID_ARGUMENT);
    gp_scene_destroy(s);
}

/* ---- images ----------------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long len;
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)gpt_malloc((size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* 3x2 image whose values exercise the conversion: truncation, clamping, NaN. */
static void test_pixels(float *img)
{
    static const float v[6][4] = {{0.f, .5f, 1.f, 1.f},     {.999f, 1.5f, -1.f, 1.f}, {NAN, .25f, .0039f, 1.f},
                                  {.1f, .2f, .3f, 1.f},      {.7f, .8f, .9f, 1.f},     {1.f / 255.f, 2.f / 255.f, 1.f, 1.f}};
    memcpy(img, v, sizeof v);
}

static void expected_rgb(unsigned char *out)
{
    /* rows from j = 1 (top) down to 0 */
    static const unsigned char e[18] = {25, 51, 76, 178, 204, 229, 1, 2, 255,
                                        0,  127, 255, 254, 255, 0, 0, 63, 0};
    memcpy(out, e, sizeof e);
}

static void ppm_bytes(void **state)
{
    float img[24];
    unsigned char want[18];
    size_t n;
    unsigned char *got;
    const char *path = "/tmp/gpuprim_test_image.ppm";
    const char *hdr = "P6\n3 2\n255\n";
    (void)state;
    test_pixels(img);
    expected_rgb(want);
    assert_int_equal(gp_image_write(path, img, 3, 2), GP_SUCCESS);
    got = slurp(path, &n);
    assert_int_equal(n, strlen(hdr) + 18);
    assert_memory_equal(got, hdr, strlen(hdr));
    assert_memory_equal(got + strlen(hdr), want, 18);
    free(got);
    unlink(path);
}

/* PNGs are decoded by libpng (gp_image_read_rgb8, row 0 at the bottom) and
 * compared with the bytes the PPM path writes (top row first). */
static void png_decodes(void **state)
{
    float img[24];
    unsigned char want[18], got[18];
    int w = 0, h = 0, j;
    const char *path = "/tmp/gpuprim_test_image.png";
    (void)state;
    test_pixels(img);
    expected_rgb(want);
    assert_int_equal(gp_image_write(path, img, 3, 2), GP_SUCCESS);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, got, sizeof got), GP_SUCCESS);
    assert_int_equal(w, 3);
    assert_int_equal(h, 2);
    for (j = 0; j < 2; j++) assert_memory_equal(got + (1 - j) * 9, want + j * 9, 9);
    unlink(path);
}

static void png_large_matches_ppm(void **state)
{
    const int w = 300, h = 200;
    float *img = image(w, h);
    unsigned char *ppm, *rgb = (unsigned char *)gpt_malloc((size_t)w * h * 3);
    size_t pn, hl;
    int ww, hh, j;
    const char *path = "/tmp/gpuprim_test_big.png", *ppath = "/tmp/gpuprim_test_big.ppm";
    gp_scene *s;
    (void)state;
    assert_int_equal(gp_scene_create(&s, "rgby", 0), GP_SUCCESS);
    assert_int_equal(gp_render_reference(s, w, h, img), GP_SUCCESS);
    assert_int_equal(gp_image_write(path, img, w, h), GP_SUCCESS);
    assert_int_equal(gp_image_write(ppath, img, w, h), GP_SUCCESS);
    assert_int_equal(gp_image_read_rgb8(path, &ww, &hh, rgb, (size_t)w * h * 3), GP_SUCCESS);
    assert_int_equal(ww, w);
    assert_int_equal(hh, h);
    ppm = slurp(ppath, &pn);
    hl = strlen("P6\n300 200\n255\n");
    assert_int_equal(pn, hl + (size_t)w * h * 3);
    for (j = 0; j < h; j++)
        assert_memory_equal(rgb + (size_t)(h - 1 - j) * 3 * w, ppm + hl + (size_t)j * 3 * w, (size_t)3 * w);
    free(ppm);
    free(rgb);
    free(img);
    gp_scene_destroy(s);
    unlink(path);
    unlink(ppath);
}

static void image_compare_counts(void **state)
{
    float a[24], b[24];
    int max_diff = -1;
    size_t differing = 99;
    (void)state;
    test_pixels(a);
    test_pixels(b);
    assert_int_equal(gp_image_compare(a, b, 3, 2, &max_diff, &differing), GP_SUCCESS);
    assert_int_equal(max_diff, 0);
    assert_int_equal(differing, 0);
    b[4 * 3 + 1] = .2f + 3.f / 255.f; /* pixel 3, green: 51 -> 54 */
    b[4 * 5 + 3] = 7.f;               /* alpha is not shown */
    b[4 * 4 + 0] = .7f + .0001f;      /* same 8-bit value */
    assert_int_equal(gp_image_compare(a, b, 3, 2, &max_diff, &differing), GP_SUCCESS);
    assert_int_equal(max_diff, 3);
    assert_int_equal(differing, 1);
    assert_int_equal(gp_image_compare(a, b, 3, 2, NULL, NULL), GP_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_one_circle),
        cmocka_unit_test(reference_edge_is_inside),
        cmocka_unit_test(reference_blends_in_order),
        cmocka_unit_test(reference_snow_pixel),
        cmocka_unit_test(reference_background),
        GPT_TEST_BOTH(every_scene_matches_reference),
        GPT_TEST_BOTH(rand10k_256_matches_reference),
        GPT_TEST_CPU(every_blend_path_matches_reference),
        GPT_TEST_BOTH(snow_in_view_matches_reference),
        GPT_TEST_CUDA(every_bin_shape_matches_reference),
        GPT_TEST_BOTH(odd_circles_match_reference),
        GPT_TEST_BOTH(renderer_reuse_and_animation),
        GPT_TEST_BOTH(renderer_bad_arguments),
        cmocka_unit_test(ppm_bytes),
        cmocka_unit_test(png_decodes),
        cmocka_unit_test(png_large_matches_ppm),
        cmocka_unit_test(image_compare_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
