/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_scene_file.c - libFuzzer target for the scene-file loader.
 *
 * The input bytes become a file and go through gp_scene_load. The loader
 * must answer with a scene or with an error status and a non-empty,
 * NUL-terminated message (also into a tiny buffer). A scene it accepts must
 * hold what the format allows (1.. circles, finite values, radius >= 0),
 * must come back bit for bit through gp_scene_save and gp_scene_load, and
 * is then drawn by the CPU reference renderer and by the CPU tile renderer
 * (gp_render on a one-thread CPU context), which must agree exactly
 * (hostile coordinates reach the pixel-box clamping and the shading). Only
 * the public API. Built by tests/fuzz/CMakeLists.txt: a libFuzzer program
 * with GPUPRIM_BUILD_FUZZERS (scripts/fuzz.sh), and always the corpus
 * replay test fuzz_replay_scene_file. */
#include <gpuprim/render.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char in_path[64], out_path[64];

static void cleanup(void)
{
    if (in_path[0]) unlink(in_path);
    if (out_path[0]) unlink(out_path);
}

static void make_path(char *path, size_t len, const char *what)
{
    const char *tmp = getenv("TMPDIR");
    int fd;
    snprintf(path, len, "%s/gpuprim_fuzz_%s_XXXXXX", tmp && *tmp && strlen(tmp) < 20 ? tmp : "/tmp", what);
    fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        abort();
    }
    close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    make_path(in_path, sizeof in_path, "in");
    make_path(out_path, sizeof out_path, "out");
    atexit(cleanup);
    return 0;
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "fuzz_scene_file: check failed at line %d: %s\n", __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static void check_message(gp_status st, const char *err, size_t errlen)
{
    CHECK(st == GP_ERROR_PARSE || st == GP_ERROR_IO || st == GP_ERROR_OUT_OF_MEMORY);
    CHECK(memchr(err, '\0', errlen) != NULL);
    CHECK(errlen == 1 || err[0] != '\0');
}

static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

static void same_images(const float *a, const float *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!same_float(a[i], b[i])) {
            fprintf(stderr, "fuzz_scene_file: tile renderer differs from the reference at float %zu: %.9g vs %.9g\n",
                    i, (double)a[i], (double)b[i]);
            abort();
        }
}

static void render_both(const gp_scene *s, int w, int h)
{
    size_t n = (size_t)w * (size_t)h * 4;
    float *ref = (float *)malloc(n * sizeof(float)), *img = (float *)malloc(n * sizeof(float));
    gp_context *ctx = NULL;
    CHECK(ref && img);
    CHECK(gp_render_reference(s, w, h, ref) == GP_SUCCESS);
    CHECK(gp_context_create(&ctx, GP_BACKEND_CPU, 0) == GP_SUCCESS);
    CHECK(gp_context_set_cpu_threads(ctx, 1) == GP_SUCCESS);
    CHECK(gp_render(ctx, s, w, h, img) == GP_SUCCESS);
    same_images(ref, img, n);
    gp_context_destroy(ctx);
    free(ref);
    free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_scene *s = NULL, *t = NULL;
    char *err = (char *)malloc(200), *tiny = (char *)malloc(7), one[1];
    size_t n = 0, m = 0, i;
    int snow = -1, snow2 = -2;
    gp_status st;
    FILE *f = fopen(in_path, "wb");
    CHECK(f && err && tiny);
    CHECK(size == 0 || fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);

    memset(err, 'X', 200);
    st = gp_scene_load(&s, in_path, err, 200);
    if (st != GP_SUCCESS) {
        CHECK(s == NULL);
        check_message(st, err, 200);
        /* The same answer into buffers too small for the message. */
        memset(tiny, 'X', 7);
        CHECK(gp_scene_load(&s, in_path, tiny, 7) == st);
        check_message(st, tiny, 7);
        CHECK(strncmp(tiny, err, 6) == 0);
        one[0] = 'X';
        CHECK(gp_scene_load(&s, in_path, one, 1) == st && one[0] == '\0');
        CHECK(gp_scene_load(&s, in_path, NULL, 0) == st);
        CHECK(s == NULL);
        goto done;
    }
    CHECK(s != NULL);
    CHECK(err[0] == '\0');
    CHECK(gp_scene_count(s, &n) == GP_SUCCESS && n >= 1 && n <= GP_SCENE_MAX_CIRCLES);
    CHECK(gp_scene_is_snow(s, &snow) == GP_SUCCESS && (snow == 0 || snow == 1));
    for (i = 0; i < n; i++) {
        gp_circle c;
        CHECK(gp_scene_get_circle(s, i, &c) == GP_SUCCESS);
        CHECK(isfinite(c.x) && isfinite(c.y) && isfinite(c.z) && isfinite(c.radius) && c.radius >= 0.f);
        CHECK(isfinite(c.r) && isfinite(c.g) && isfinite(c.b));
    }

    /* Save and load again: the same circles, bit for bit. */
    CHECK(gp_scene_save(s, out_path) == GP_SUCCESS);
    CHECK(gp_scene_load(&t, out_path, err, 200) == GP_SUCCESS);
    CHECK(gp_scene_count(t, &m) == GP_SUCCESS && m == n);
    CHECK(gp_scene_is_snow(t, &snow2) == GP_SUCCESS && snow2 == snow);
    for (i = 0; i < n; i++) {
        gp_circle a, b;
        gp_scene_get_circle(s, i, &a);
        gp_scene_get_circle(t, i, &b);
        CHECK(same_float(a.x, b.x) && same_float(a.y, b.y) && same_float(a.z, b.z) &&
              same_float(a.radius, b.radius));
        if (!snow) CHECK(same_float(a.r, b.r) && same_float(a.g, b.g) && same_float(a.b, b.b));
    }

    /* Draw it: a tiny image, and one of several tiles. */
    render_both(s, 8, 8);
    render_both(s, 70, 20);

done:
    gp_scene_destroy(s);
    gp_scene_destroy(t);
    free(err);
    free(tiny);
    return 0;
}
