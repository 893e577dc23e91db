/* SPDX-License-Identifier: BSD-3-Clause */
/* test_render_zero_radius.c - a circle of radius 0 covers no area: a scene
 * holding such circles (placed where the old rule painted them: exactly on
 * a pixel centre) renders exactly as the scene without them, for ordinary
 * and snow circles, in the reference and in the context's renderer on
 * both backends. Negative and NaN radii (gp_scene_from_circles does not
 * check values) draw nothing either. Scene files with r = 0 load. */
#include "test_util.h"

#include <gpuprim/render.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { W = 64, H = 32 }; /* powers of two: pixel centres are exact floats */

/* Ordinary circles, then the degenerate ones interleaved among them. */
static size_t scene_circles(gp_circle *with, gp_circle *without)
{
    static const float radii[] = {0.f, -0.f, 0.f, -1e-6f, 0.f, NAN, 0.f, 0.f};
    size_t n = 0, m = 0, k;
    for (k = 0; k < 12; k++) {
        gp_circle c;
        c.x = (float)(0.1 + 0.07 * (double)k);
        c.y = (float)(0.2 + 0.05 * (double)(k % 5));
        c.z = (float)(0.1 * (double)(k % 7));
        c.radius = (float)(0.05 + 0.02 * (double)(k % 3));
        c.r = (float)(k % 2), c.g = .5f, c.b = (float)(k % 3) / 2.f;
        with[n++] = c;
        without[m++] = c;
        if (k < sizeof radii / sizeof radii[0]) {
            /* on pixel (i, j)'s centre exactly: (i + .5) / W is exact in float */
            gp_circle z = c;
            int i = 5 + 7 * (int)k, j = 3 + 3 * (int)k;
            z.x = ((float)i + .5f) / (float)W;
            z.y = ((float)j + .5f) / (float)H;
            z.radius = radii[k];
            z.r = 0.f, z.g = 0.f, z.b = 0.f;
            with[n++] = z;
        }
    }
    /* and a scene's first and last circles */
    memmove(with + 1, with, n * sizeof with[0]);
    with[0] = with[2];
    with[0].radius = 0.f;
    n++;
    with[n] = with[n - 1];
    with[n].x = 32.5f / (float)W; /* pixel (32, 16)'s centre */
    with[n].y = 16.5f / (float)H;
    with[n].radius = 0.f;
    n++;
    assert_int_equal(m, 12);
    return n;
}

/* The CPU renderers are bit-exact to the reference; the CUDA renderer is
 * held to its promise (every channel within one 8-bit level, here none
 * differing) and must produce no NaN, which is what a zero radius once
 * caused. */
static void expect_same_on(gp_context *ctx, const float *a, const float *b, const char *what)
{
    size_t differ = 1, i;
    int worst = 1;
    assert_int_equal(gp_image_compare(a, b, W, H, &worst, &differ), GP_SUCCESS);
    if (differ != 0) fail_msg("%s: %zu pixels differ (by up to %d)", what, differ, worst);
    for (i = 0; i < (size_t)W * H * 4; i++)
        if (isnan(b[i])) fail_msg("%s: NaN in channel %zu of pixel %zu", what, i % 4, i / 4);
    if ((!ctx || !gpt_on_cuda(ctx)) && memcmp(a, b, (size_t)W * H * 16) != 0)
        fail_msg("%s: the float images differ", what);
}

static void expect_same(const float *a, const float *b, const char *what)
{
    expect_same_on(NULL, a, b, what);
}

static void zero_radius_draws_nothing(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_circle with[32], without[12];
    float *want = gpt_malloc((size_t)W * H * 16), *got = gpt_malloc((size_t)W * H * 16);
    int snow;
    size_t n = scene_circles(with, without);
    if (!ctx) return;
    for (snow = 0; snow < 2; snow++) {
        gp_scene *a = NULL, *b = NULL;
        const char *what = snow ? "snow" : "ordinary";
        size_t count = 0;
        assert_int_equal(gp_scene_from_circles(&a, with, n, snow), GP_SUCCESS);
        assert_int_equal(gp_scene_from_circles(&b, without, 12, snow), GP_SUCCESS);
        assert_int_equal(gp_scene_count(a, &count), GP_SUCCESS);
        assert_int_equal(count, n); /* accepted, kept */
        assert_int_equal(gp_render_reference(b, W, H, want), GP_SUCCESS);
        gpt_poison(got, (size_t)W * H * 16);
        assert_int_equal(gp_render_reference(a, W, H, got), GP_SUCCESS);
        expect_same(want, got, what);
        gpt_poison(got, (size_t)W * H * 16);
        GPT_OK(ctx, gp_render(ctx, a, W, H, got));
        expect_same_on(ctx, want, got, what);
        gp_scene_destroy(a);
        gp_scene_destroy(b);
    }
    free(want);
    free(got);
}

/* Only zero-radius circles: the background alone. */
static void only_zero_radius(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    gp_circle c[3] = {{.5f / W, .5f / H, 0.f, 0.f, 1.f, 0.f, 0.f},
                      {32.5f / W, 16.5f / H, .5f, 0.f, 0.f, 0.f, 0.f},
                      {63.5f / W, 31.5f / H, 1.f, 0.f, 0.f, 1.f, 0.f}};
    gp_circle far = {5.f, 5.f, 0.f, .01f, 0.f, 0.f, 0.f}; /* off the image: draws nothing either */
    float *want = gpt_malloc((size_t)W * H * 16), *got = gpt_malloc((size_t)W * H * 16);
    int snow;
    if (!ctx) return;
    for (snow = 0; snow < 2; snow++) {
        gp_scene *a = NULL, *b = NULL;
        assert_int_equal(gp_scene_from_circles(&a, c, 3, snow), GP_SUCCESS);
        assert_int_equal(gp_scene_from_circles(&b, &far, 1, snow), GP_SUCCESS);
        assert_int_equal(gp_render_reference(b, W, H, want), GP_SUCCESS);
        gpt_poison(got, (size_t)W * H * 16);
        GPT_OK(ctx, gp_render(ctx, a, W, H, got));
        expect_same_on(ctx, want, got, snow ? "only zero radii, snow" : "only zero radii");
        gp_scene_destroy(a);
        gp_scene_destroy(b);
    }
    free(want);
    free(got);
}

/* Files: r = 0 is a valid radius in both formats, and draws nothing. */
static void zero_radius_in_files(void **state)
{
    static const char *files[][2] = {
        {"3\n0.5078125 0.515625 0.5 0 0 0 0\n0.3 0.3 0.2 0 0 0 0.1\n0.5078125 0.515625 0.5 0 0 0 0\n",
         "1\n0.3 0.3 0.2 0 0 0 0.1\n"},
        {"gpuprim-circles 1\n2\n0.5078125 0.515625 0 0 0 0 0\n0.3 0.3 0 0.1 1 0 0\n",
         "gpuprim-circles 1\n1\n0.3 0.3 0 0.1 1 0 0\n"},
    };
    char dir[64], pa[128], pb[128], err[256];
    float *want = gpt_malloc((size_t)W * H * 16), *got = gpt_malloc((size_t)W * H * 16);
    size_t k;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gp_zero_radius_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(pa, sizeof pa, "%s/a.txt", dir);
    snprintf(pb, sizeof pb, "%s/b.txt", dir);
    for (k = 0; k < 2; k++) {
        gp_scene *a = NULL, *b = NULL;
        FILE *f = fopen(pa, "w");
        fputs(files[k][0], f);
        fclose(f);
        f = fopen(pb, "w");
        fputs(files[k][1], f);
        fclose(f);
        if (gp_scene_load(&a, pa, err, sizeof err)) fail_msg("%s", err);
        assert_int_equal(gp_scene_load(&b, pb, err, sizeof err), GP_SUCCESS);
        assert_int_equal(gp_render_reference(a, W, H, got), GP_SUCCESS);
        assert_int_equal(gp_render_reference(b, W, H, want), GP_SUCCESS);
        expect_same(want, got, k ? "gpuprim-circles file" : ".par file");
        gp_scene_destroy(a);
        gp_scene_destroy(b);
    }
    remove(pa);
    remove(pb);
    rmdir(dir);
    free(want);
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_BOTH(zero_radius_draws_nothing),
        GPT_TEST_BOTH(only_zero_radius),
        cmocka_unit_test(zero_radius_in_files),
    };
    return cmocka_run_group_tests_name("render_zero_radius", tests, NULL, NULL);
}
