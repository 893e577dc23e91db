/* SPDX-License-Identifier: BSD-3-Clause */
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
    return gpt_temp_dir_make(g_dir, sizeof g_dir, "gp_file_out");
}

static int remove_dir(void **state)
{
    (void)state;
    return gpt_temp_dir_remove(g_dir);
}

static void write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
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
    before = gpt_read_file(path, &n0);
    assert_non_null(before);
    /* 512x512 RGB is ~786 KB: the "disk" holds 64 KB */
    s = limited(64 * 1024, write_big_image, path, big);
    assert_int_equal(s, GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), path));
    assert_non_null(strstr(gp_last_io_error(), strerror(EFBIG)));
    after = gpt_read_file(path, &n1);
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
    before = gpt_read_file(path, &n0);
    assert_int_equal(limited(16 * 1024, save_scene, path, big), GP_ERROR_IO); /* ~600 KB */
    assert_non_null(strstr(gp_last_io_error(), strerror(EFBIG)));
    after = gpt_read_file(path, &n1);
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
        all = gpt_read_file(path, &n);
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


/* Entries of directory `dir` besides . and .. */
static int entries_of(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

/* Read an 8-bit image back and compare it with the floats written. */
static void expect_image(const char *path, const float *img, int w, int h)
{
    unsigned char *want = gpt_malloc((size_t)w * h * 3), *got = gpt_malloc((size_t)w * h * 3);
    int rw = 0, rh = 0;
    assert_int_equal(gp_image_to_rgb8(img, w, h, want), GP_SUCCESS);
    assert_int_equal(gp_image_read_rgb8(path, &rw, &rh, got, (size_t)w * h * 3), GP_SUCCESS);
    assert_int_equal(rw, w);
    assert_int_equal(rh, h);
    assert_memory_equal(got, want, (size_t)w * h * 3);
    free(want);
    free(got);
}

/* Names up to NAME_MAX (255 bytes here) can be written: the temporary's
 * name is shortened rather than passing the limit. */
static void longest_names_can_be_written(void **state)
{
    static const int lengths[] = {255, 254, 228, 227, 200};
    float *img = image(5, 3);
    gp_scene *scene = NULL;
    char name[300], path[600];
    size_t k;
    (void)state;
    gpt_seed_once();
    assert_int_equal(pathconf(g_dir, _PC_NAME_MAX) >= 255, 1);
    assert_int_equal(gp_scene_create(&scene, "rgb", 0), GP_SUCCESS);
    for (k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        static const char *ext[] = {".ppm", ".png", ".txt"};
        int e;
        for (e = 0; e < 3; e++) {
            const int len = lengths[k];
            gp_scene *back = NULL;
            char err[256];
            memset(name, 'n', (size_t)len - 4);
            memcpy(name + len - 4, ext[e], 5);
            assert_int_equal(strlen(name), len);
            snprintf(path, sizeof path, "%s/%s", g_dir, name);
            if (e < 2) {
                if (gp_image_write(path, img, 5, 3) != GP_SUCCESS)
                    fail_msg("a %d-byte name: %s", len, gp_last_io_error());
                expect_image(path, img, 5, 3);
                /* replacing it works too */
                assert_int_equal(gp_image_write(path, img, 5, 3), GP_SUCCESS);
            } else {
                if (gp_scene_save(scene, path) != GP_SUCCESS) fail_msg("a %d-byte name: %s", len, gp_last_io_error());
                assert_int_equal(gp_scene_load(&back, path, err, sizeof err), GP_SUCCESS);
                gp_scene_destroy(back);
            }
            assert_int_equal(entries(), 1); /* the file, no temporary */
            assert_int_equal(remove(path), 0);
        }
    }
    /* one byte more is the file system's refusal, reported as such */
    memset(name, 'n', 252);
    memcpy(name + 252, ".ppm", 5);
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    assert_int_equal(gp_image_write(path, img, 5, 3), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), strerror(ENAMETOOLONG)));
    assert_int_equal(entries(), 0);
    gp_scene_destroy(scene);
    free(img);
}

/* A second directory, for link targets. */
static char *other_dir(char *buf, size_t len)
{
    snprintf(buf, len, "/tmp/gp_file_out_target_XXXXXX");
    assert_non_null(mkdtemp(buf));
    return buf;
}

static void expect_link(const char *link, const char *target_text)
{
    struct stat st;
    char text[512];
    ssize_t n;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    n = readlink(link, text, sizeof text - 1);
    assert_true(n > 0);
    text[n] = '\0';
    assert_string_equal(text, target_text);
}

/* Writing through a symbolic link replaces the file it points to and keeps
 * the link; the temporary goes beside the target (the same file system). */
static void writing_through_symbolic_links(void **state)
{
    char other[64], link[256], link2[256], target[256], rel[256];
    float *a = image(6, 4), *b = image(6, 4);
    gp_scene *scene = NULL, *back = NULL;
    struct stat st;
    char err[256];
    (void)state;
    gpt_seed_once();
    other_dir(other, sizeof other);
    snprintf(target, sizeof target, "%s/target.png", other);
    snprintf(link, sizeof link, "%s/link.png", g_dir);
    assert_int_equal(gp_image_write(target, a, 6, 4), GP_SUCCESS);
    assert_int_equal(chmod(target, 0640), 0);
    /* an absolute link */
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(gp_image_write(link, b, 6, 4), GP_SUCCESS);
    expect_link(link, target);
    expect_image(target, b, 6, 4);
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* the target's permissions kept */
    assert_int_equal(entries(), 1);            /* the link, no temporary */
    assert_int_equal(entries_of(other), 1);
    /* a chain: link2 -> link -> target */
    snprintf(link2, sizeof link2, "%s/link2.png", g_dir);
    assert_int_equal(symlink("link.png", link2), 0);
    assert_int_equal(gp_image_write(link2, a, 6, 4), GP_SUCCESS);
    expect_link(link2, "link.png");
    expect_link(link, target);
    expect_image(target, a, 6, 4);
    assert_int_equal(entries(), 2);
    assert_int_equal(entries_of(other), 1);
    remove(link2);
    remove(link);
    /* a relative link, relative to its own directory */
    snprintf(rel, sizeof rel, "../%s/target.png", strrchr(other, '/') + 1);
    assert_int_equal(symlink(rel, link), 0);
    assert_int_equal(gp_image_write(link, b, 6, 4), GP_SUCCESS);
    expect_link(link, rel);
    expect_image(target, b, 6, 4);
    remove(link);
    /* gp_scene_save follows links the same way */
    snprintf(link, sizeof link, "%s/scene-link.txt", g_dir);
    snprintf(target, sizeof target, "%s/scene.txt", other);
    assert_int_equal(gp_scene_create(&scene, "rgby", 0), GP_SUCCESS);
    write_text_file(target, "old");
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(gp_scene_save(scene, link), GP_SUCCESS);
    expect_link(link, target);
    assert_int_equal(gp_scene_load(&back, target, err, sizeof err), GP_SUCCESS);
    gp_scene_destroy(back);
    remove(link);
    remove(target);
    /* a dangling link whose target's directory exists: the target is made */
    snprintf(target, sizeof target, "%s/new.ppm", other);
    snprintf(link, sizeof link, "%s/dangling.ppm", g_dir);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(gp_image_write(link, a, 6, 4), GP_SUCCESS);
    expect_link(link, target);
    expect_image(target, a, 6, 4);
    remove(target);
    remove(link);
    /* a dangling link into a missing directory: an error, the link kept */
    snprintf(target, sizeof target, "%s/no-such-dir/new.ppm", other);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(gp_image_write(link, a, 6, 4), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), link));
    assert_non_null(strstr(gp_last_io_error(), strerror(ENOENT)));
    expect_link(link, target);
    remove(link);
    /* a loop of links: ELOOP, nothing written */
    snprintf(link2, sizeof link2, "%s/loop2.ppm", g_dir);
    snprintf(link, sizeof link, "%s/loop1.ppm", g_dir);
    assert_int_equal(symlink("loop2.ppm", link), 0);
    assert_int_equal(symlink("loop1.ppm", link2), 0);
    assert_int_equal(gp_image_write(link, a, 6, 4), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), strerror(ELOOP)));
    expect_link(link, "loop2.ppm");
    assert_int_equal(entries(), 2);
    remove(link);
    remove(link2);
    snprintf(target, sizeof target, "%s/target.png", other);
    remove(target);
    assert_int_equal(entries_of(other), 0);
    assert_int_equal(rmdir(other), 0);
    gp_scene_destroy(scene);
    free(a);
    free(b);
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
        cmocka_unit_test(longest_names_can_be_written),
        cmocka_unit_test(writing_through_symbolic_links),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
