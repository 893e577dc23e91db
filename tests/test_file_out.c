/* test_file_out.c - image and scene files. Written whole or not at all
 * (gp_image_write, gp_image_write_rgb8, gp_scene_save): a write that fails
 * part-way leaves the old file byte for byte and no temporary behind, and
 * says why. PNG through libpng: compressed, and read back (by libpng, in
 * gp_image_read_rgb8) to the very bytes of the PPM path.
 *
 * "The disk fills part-way" is made real with RLIMIT_FSIZE: past the limit
 * every write fails with EFBIG, as it would with ENOSPC on a full file
 * system, with no mount needed (SIGXFSZ is ignored so the write returns the
 * error instead of killing the process). */
#include "test_util.h"

#include <gpuprim/render.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/gp_file_out_XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    char p[512];
    (void)state;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) {
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            remove(p);
        }
    if (d) closedir(d);
    return rmdir(g_dir);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = gpt_malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

/* How many entries the directory holds besides . and .. */
static int entries(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static float *image(int w, int h)
{
    float *img = gpt_malloc((size_t)w * h * 16);
    size_t i;
    for (i = 0; i < (size_t)w * h * 4; i++) img[i] = (float)gpt_uniform();
    return img;
}

/* Run write() under a file-size limit of `limit` bytes; restore the limit. */
static gp_status limited(rlim_t limit, gp_status (*write)(const char *, void *), const char *path, void *arg)
{
    struct rlimit old, lim;
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    gp_status s;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = limit;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    s = write(path, arg);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    return s;
}

static gp_status write_big_image(const char *path, void *arg)
{
    return gp_image_write(path, (const float *)arg, 512, 512);
}

static void failed_write_keeps_the_old_file(const char *ext)
{
    char path[256];
    float *small = image(8, 8), *big = image(512, 512);
    unsigned char *before, *after;
    size_t n0, n1;
    gp_status s;
    snprintf(path, sizeof path, "%s/keep.%s", g_dir, ext);
    assert_int_equal(gp_image_write(path, small, 8, 8), GP_SUCCESS);
    assert_string_equal(gp_last_io_error(), "");
    before = slurp(path, &n0);
    assert_non_null(before);
    /* 512x512 RGB is ~786 KB: the "disk" holds 64 KB */
    s = limited(64 * 1024, write_big_image, path, big);
    assert_int_equal(s, GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), path));
    assert_non_null(strstr(gp_last_io_error(), strerror(EFBIG)));
    after = slurp(path, &n1);
    assert_non_null(after);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    assert_int_equal(entries(), 1); /* no temporary left behind */
    /* and a file that did not exist is not created at all */
    snprintf(path, sizeof path, "%s/new.%s", g_dir, ext);
    assert_int_equal(limited(64 * 1024, write_big_image, path, big), GP_ERROR_IO);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(entries(), 1);
    snprintf(path, sizeof path, "%s/keep.%s", g_dir, ext);
    remove(path);
    free(small);
    free(big);
    free(before);
    free(after);
}

static void ppm_write_is_atomic(void **state)
{
    (void)state;
    gpt_seed_once();
    failed_write_keeps_the_old_file("ppm");
}

static void png_write_is_atomic(void **state)
{
    (void)state;
    gpt_seed_once();
    failed_write_keeps_the_old_file("png");
}

static gp_status save_scene(const char *path, void *arg) { return gp_scene_save((const gp_scene *)arg, path); }

static void scene_save_is_atomic(void **state)
{
    gp_scene *small = NULL, *big = NULL;
    char path[256];
    unsigned char *before, *after;
    size_t n0, n1;
    (void)state;
    assert_int_equal(gp_scene_create(&small, "rgb", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&big, "rand10k", 0), GP_SUCCESS);
    snprintf(path, sizeof path, "%s/scene.txt", g_dir);
    assert_int_equal(gp_scene_save(small, path), GP_SUCCESS);
    before = slurp(path, &n0);
    assert_int_equal(limited(16 * 1024, save_scene, path, big), GP_ERROR_IO); /* ~600 KB */
    assert_non_null(strstr(gp_last_io_error(), strerror(EFBIG)));
    after = slurp(path, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    assert_int_equal(entries(), 1);
    remove(path);
    gp_scene_destroy(small);
    gp_scene_destroy(big);
    free(before);
    free(after);
}

static void errors_name_the_path_and_the_reason(void **state)
{
    float *img = image(4, 4);
    char path[256];
    (void)state;
    assert_int_equal(gp_image_write("/nonexistent-dir/x.ppm", img, 4, 4), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), "/nonexistent-dir/x.ppm"));
    assert_non_null(strstr(gp_last_io_error(), strerror(ENOENT)));
    /* a directory where the file should go */
    snprintf(path, sizeof path, "%s/d.ppm", g_dir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(gp_image_write(path, img, 4, 4), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), strerror(EISDIR)));
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(gp_image_write("x.bmp", img, 4, 4), GP_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(gp_last_io_error(), ".ppm or .png"));
    /* a read-only directory (root writes anyway: then the write succeeds) */
    snprintf(path, sizeof path, "%s/ro", g_dir);
    assert_int_equal(mkdir(path, 0555), 0);
    strcat(path, "/x.ppm");
    if (geteuid() != 0) {
        assert_int_equal(gp_image_write(path, img, 4, 4), GP_ERROR_IO);
        assert_non_null(strstr(gp_last_io_error(), strerror(EACCES)));
    } else {
        remove(path);
    }
    path[strlen(path) - 6] = '\0';
    rmdir(path);
    free(img);
}

static void replacing_keeps_permissions(void **state)
{
    float *img = image(4, 4);
    char path[256];
    struct stat st;
    (void)state;
    snprintf(path, sizeof path, "%s/perm.ppm", g_dir);
    assert_int_equal(gp_image_write(path, img, 4, 4), GP_SUCCESS);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(gp_image_write(path, img, 4, 4), GP_SUCCESS);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    remove(path);
    free(img);
}

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

static void png_round_trip(void **state)
{
    gp_context *ctx = NULL;
    gp_scene *scene = NULL;
    const int W = 1024, H = 1024;
    float *img = gpt_malloc((size_t)W * H * 16);
    unsigned char *want = gpt_malloc((size_t)W * H * 3), *got = gpt_malloc((size_t)W * H * 3);
    char png[256], ppm[256];
    int w = 0, h = 0;
    (void)state;
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_scene_create(&scene, "rand100k", 0), GP_SUCCESS);
    assert_int_equal(gp_render(ctx, scene, W, H, img), GP_SUCCESS);
    assert_int_equal(gp_image_to_rgb8(img, W, H, want), GP_SUCCESS);
    snprintf(png, sizeof png, "%s/r.png", g_dir);
    snprintf(ppm, sizeof ppm, "%s/r.ppm", g_dir);
    assert_int_equal(gp_image_write(png, img, W, H), GP_SUCCESS);
    assert_int_equal(gp_image_write(ppm, img, W, H), GP_SUCCESS);
    /* compressed: well under half the PPM */
    print_message("rand100k 1024^2: PNG %zu bytes, PPM %zu bytes\n", file_size(png), file_size(ppm));
    assert_true(file_size(png) * 2 < file_size(ppm));
    /* size query, then every pixel of both files */
    assert_int_equal(gp_image_read_rgb8(png, &w, &h, NULL, 0), GP_SUCCESS);
    assert_int_equal(w, W);
    assert_int_equal(h, H);
    gpt_poison(got, (size_t)W * H * 3);
    assert_int_equal(gp_image_read_rgb8(png, &w, &h, got, (size_t)W * H * 3), GP_SUCCESS);
    assert_memory_equal(got, want, (size_t)W * H * 3);
    gpt_poison(got, (size_t)W * H * 3);
    assert_int_equal(gp_image_read_rgb8(ppm, &w, &h, got, (size_t)W * H * 3), GP_SUCCESS);
    assert_memory_equal(got, want, (size_t)W * H * 3);
    /* too small a buffer: nothing written */
    gpt_poison(got, 16);
    assert_int_equal(gp_image_read_rgb8(png, &w, &h, got, (size_t)W * H * 3 - 1), GP_ERROR_INVALID_ARGUMENT);
    gpt_expect_poison(got, 0, 16, "a too-small buffer");
    remove(png);
    remove(ppm);
    gp_scene_destroy(scene);
    gp_context_destroy(ctx);
    free(img);
    free(want);
    free(got);
}

static void reading_bad_files(void **state)
{
    char path[256];
    unsigned char buf[64];
    int w = -1, h = -1;
    FILE *f;
    (void)state;
    assert_int_equal(gp_image_read_rgb8(NULL, &w, &h, NULL, 0), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_image_read_rgb8("/nonexistent/x.png", &w, &h, NULL, 0), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), strerror(ENOENT)));
    snprintf(path, sizeof path, "%s/bad.png", g_dir);
    f = fopen(path, "wb");
    fputs("not an image at all", f);
    fclose(f);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, buf, sizeof buf), GP_ERROR_PARSE);
    /* a PNG cut short */
    {
        float px[4 * 4 * 4] = {0};
        unsigned char *all;
        size_t n = 0;
        assert_int_equal(gp_image_write(path, px, 4, 4), GP_SUCCESS);
        all = slurp(path, &n);
        f = fopen(path, "wb");
        fwrite(all, 1, n / 2, f);
        fclose(f);
        free(all);
        assert_int_not_equal(gp_image_read_rgb8(path, &w, &h, buf, sizeof buf), GP_SUCCESS);
    }
    /* a PPM cut short */
    f = fopen(path, "wb");
    fputs("P6\n4 4\n255\nabc", f);
    fclose(f);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, buf, sizeof buf), GP_ERROR_PARSE);
    assert_int_equal(w, -1); /* untouched on error */
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(png_round_trip),
        cmocka_unit_test(reading_bad_files),
        cmocka_unit_test(ppm_write_is_atomic),
        cmocka_unit_test(png_write_is_atomic),
        cmocka_unit_test(scene_save_is_atomic),
        cmocka_unit_test(errors_name_the_path_and_the_reason),
        cmocka_unit_test(replacing_keeps_permissions),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
