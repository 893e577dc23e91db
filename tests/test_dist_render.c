/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_render.c - the renderer on several ranks (gp_dist_renderer_*):
 * bands rendered on every rank and gathered on one equal the reference
 * image byte for byte; bad arguments fail every rank; the 8-bit image
 * writers match gp_image_write. */
#include "dist_world.h"

#include <gpuprim/render.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the renderer's bands -------------------------------------------------------------- */
typedef struct render_job {
    world *w;
    const gp_scene *scene;
    int width, height;
    unsigned char *rgb;
    gp_status st[MAX_RANKS];
} render_job;

/* Make this rank's renderer and render its band of the job's scene. */
static gp_status render_band(gp_comm *c, const render_job *j, gp_dist_renderer **dr)
{
    gp_status s = gp_dist_renderer_create(dr, c, j->width, j->height);
    if (!s) s = gp_dist_renderer_set_scene(*dr, j->scene);
    if (!s) s = gp_dist_renderer_render(*dr);
    return s;
}

static gp_status render_rank(gp_comm *c, void *p)
{
    render_job *j = (render_job *)p;
    int r = rank_of(c);
    gp_dist_renderer *dr = NULL;
    gp_status s = render_band(c, j, &dr);
    if (r == 0 && !s) {
        void *buf = NULL;
        const size_t bytes = (size_t)j->width * (size_t)j->height * 3;
        gp_context *ctx;
        gp_comm_context(c, &ctx);
        s = gp_malloc(ctx, &buf, bytes);
        if (!s) s = gp_upload(ctx, buf, j->rgb, bytes); /* poisoned */
        if (!s) s = gp_dist_renderer_gather(dr, 0, buf);
        if (!s) s = gp_download(ctx, j->rgb, buf, bytes);
        gp_free(ctx, buf);
    } else if (!s) {
        s = gp_dist_renderer_gather(dr, 0, NULL);
    }
    gp_dist_renderer_destroy(dr);
    return j->st[r] = s;
}

static void renderer_bands(void **state)
{
    gp_backend b = backend_of(gpt_ctx(state));
    static const char *scenes[] = {"rgb", "rand10k", "pattern", "snow", "biglittle"};
    static const int sizes[][2] = {{64, 20}, {100, 77}, {256, 256}};
    int counts[8], nc = rank_counts(b, counts), ci, si, zi;
    for (ci = 0; ci < nc; ci++) {
        world w;
        make_world(&w, b, counts[ci], 0);
        for (si = 0; si < (int)COUNT(scenes); si++)
            for (zi = 0; zi < (int)COUNT(sizes); zi++) {
                render_job j;
                gp_scene *scene = NULL;
                const int W = sizes[zi][0], H = sizes[zi][1];
                float *ref = gpt_malloc((size_t)W * H * 16);
                unsigned char *want = gpt_malloc((size_t)W * H * 3);
                int r;
                memset(&j, 0, sizeof j);
                assert_int_equal(gp_scene_create(&scene, scenes[si], 0), GP_SUCCESS);
                j.w = &w;
                j.scene = scene;
                j.width = W;
                j.height = H;
                j.rgb = gpt_malloc((size_t)W * H * 3);
                gpt_poison(j.rgb, (size_t)W * H * 3);
                if (gp_comm_run(w.comm, w.n, render_rank, &j) != GP_SUCCESS)
                    for (r = 0; r < w.n; r++)
                        if (j.st[r]) fail_msg("rank %d: %s [%s]", r, gp_status_string(j.st[r]), gp_context_last_error(w.ctx[r]));
                assert_int_equal(gp_render_reference(scene, W, H, ref), GP_SUCCESS);
                assert_int_equal(gp_image_to_rgb8(ref, W, H, want), GP_SUCCESS);
                if (memcmp(want, j.rgb, (size_t)W * H * 3) != 0)
                    fail_msg("%s %dx%d on %d ranks differs from the reference", scenes[si], W, H, w.n);
                gp_scene_destroy(scene);
                free(ref);
                free(want);
                free(j.rgb);
            }
        free_world(&w);
    }
}

static gp_status bad_root_rank(gp_comm *c, void *p)
{
    render_job *j = (render_job *)p;
    int r = rank_of(c);
    gp_dist_renderer *dr = NULL;
    gp_status s = render_band(c, j, &dr);
    if (!s) s = gp_dist_renderer_gather(dr, 5, NULL); /* no rank 5 */
    gp_dist_renderer_destroy(dr);
    return j->st[r] = s;
}

static void renderer_bad_arguments(void **state)
{
    world w;
    render_job j;
    gp_scene *scene = NULL;
    gp_dist_renderer *dr = (gp_dist_renderer *)&j;
    int a, b, r;
    (void)state;
    make_world(&w, GP_BACKEND_CPU, 2, 0);
    assert_int_equal(gp_scene_create(&scene, "rgb", 0), GP_SUCCESS);
    assert_int_equal(gp_dist_renderer_create(NULL, w.comm[0], 8, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_create(&dr, NULL, 8, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_create(&dr, w.comm[0], 0, 8), GP_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(dr, (gp_dist_renderer *)&j); /* untouched */
    assert_int_equal(gp_dist_renderer_band(NULL, &a, &b), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_render(NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_dist_renderer_gather(NULL, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    /* bands: 20 rows = 2 tile rows over 2 ranks */
    assert_int_equal(gp_dist_renderer_create(&dr, w.comm[1], 8, 20), GP_SUCCESS);
    assert_int_equal(gp_dist_renderer_band(dr, &a, &b), GP_SUCCESS);
    assert_int_equal(a, 16);
    assert_int_equal(b, 20);
    gp_dist_renderer_destroy(dr);
    /* a root that does not exist fails every rank */
    memset(&j, 0, sizeof j);
    j.w = &w;
    j.scene = scene;
    j.width = 32;
    j.height = 32;
    assert_int_not_equal(gp_comm_run(w.comm, w.n, bad_root_rank, &j), GP_SUCCESS);
    for (r = 0; r < w.n; r++) assert_int_equal(j.st[r], GP_ERROR_INVALID_ARGUMENT);
    gp_scene_destroy(scene);
    free_world(&w);
}

/* gp_image_to_rgb8 + gp_image_write_rgb8 write the very bytes gp_image_write does. */
static void rgb8_images(void **state)
{
    const int W = 37, H = 23;
    float *rgba = gpt_malloc((size_t)W * H * 16);
    unsigned char *rgb = gpt_malloc((size_t)W * H * 3);
    char dir[] = "/tmp/gp_rgb8_XXXXXX", a[64], b[64];
    size_t i;
    int k;
    (void)state;
    for (i = 0; i < (size_t)W * H * 4; i++) rgba[i] = (float)(gpt_uniform() * 1.4 - .2); /* some out of [0, 1] */
    rgba[0] = NAN;
    assert_int_equal(gp_image_to_rgb8(NULL, W, H, rgb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, W, H, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, 0, H, rgb), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write_rgb8(NULL, rgb, W, H), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_write_rgb8("x.bmp", rgb, W, H), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_to_rgb8(rgba, W, H, rgb), GP_SUCCESS);
    assert_int_equal(rgb[0], 0); /* NaN */
    assert_non_null(mkdtemp(dir));
    for (k = 0; k < 2; k++) {
        const char *ext = k ? "png" : "ppm";
        FILE *fa, *fb;
        int ca, cb;
        snprintf(a, sizeof a, "%s/a.%s", dir, ext);
        snprintf(b, sizeof b, "%s/b.%s", dir, ext);
        assert_int_equal(gp_image_write(a, rgba, W, H), GP_SUCCESS);
        assert_int_equal(gp_image_write_rgb8(b, rgb, W, H), GP_SUCCESS);
        fa = fopen(a, "rb");
        fb = fopen(b, "rb");
        assert_non_null(fa);
        assert_non_null(fb);
        do {
            ca = fgetc(fa);
            cb = fgetc(fb);
            assert_int_equal(ca, cb);
        } while (ca != EOF);
        fclose(fa);
        fclose(fb);
        remove(a);
        remove(b);
    }
    rmdir(dir);
    free(rgba);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rgb8_images),
        cmocka_unit_test(renderer_bad_arguments),
        GPT_TEST_BOTH(renderer_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
