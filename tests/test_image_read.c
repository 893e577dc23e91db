/* SPDX-License-Identifier: BSD-3-Clause */
/* test_image_read.c - gp_image_read_rgb8 on files other tools write:
 * interlaced (Adam7) PNGs of every colour type, written here with libpng
 * itself, read back exactly; damaged files fail without writing a byte of
 * the caller's buffer; a directory is an I/O error; PPM headers with
 * netpbm's '#' comments are read. */
#include "test_util.h"

#include <gpuprim/render.h>

#include <dirent.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

static int make_dir(void **state)
{
    (void)state;
    return gpt_temp_dir_make(g_dir, sizeof g_dir, "gp_image_read");
}

static int remove_dir(void **state)
{
    (void)state;
    return gpt_temp_dir_remove(g_dir);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    unsigned char *buf = gpt_read_file(path, len);
    assert_non_null(buf);
    return buf;
}

static void path_of(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", g_dir, name); }

/* A rendered image as 8-bit RGB (row 0 at the bottom): flat colours, as
 * the renderer's are, so a palette can hold them. */
static unsigned char *rendered(const char *scene_name, int w, int h)
{
    gp_scene *scene = NULL;
    float *img = gpt_malloc((size_t)w * h * 16);
    unsigned char *rgb = gpt_malloc((size_t)w * h * 3);
    assert_int_equal(gp_scene_create(&scene, scene_name, 0), GP_SUCCESS);
    assert_int_equal(gp_render_reference(scene, w, h, img), GP_SUCCESS);
    assert_int_equal(gp_image_to_rgb8(img, w, h, rgb), GP_SUCCESS);
    gp_scene_destroy(scene);
    free(img);
    return rgb;
}

/* ---- PNGs written by libpng ------------------------------------------------ */

/* How a test file stores each pixel of the source image. */
typedef enum form { RGB8, RGB16, RGBA8, GRAY8, GRAY4, GRAY1, GRAY_ALPHA16, PALETTE8, PALETTE8_TRNS } form;

static const char *form_name[] = {"rgb8",  "rgb16",        "rgba8",    "gray8",         "gray4",
                                  "gray1", "gray_alpha16", "palette8", "palette8_trns"};

typedef struct png_spec {
    int color_type, bit_depth, channels;
} png_spec;

static png_spec spec_of(form f)
{
    switch (f) {
    case RGB8: return (png_spec){PNG_COLOR_TYPE_RGB, 8, 3};
    case RGB16: return (png_spec){PNG_COLOR_TYPE_RGB, 16, 3};
    case RGBA8: return (png_spec){PNG_COLOR_TYPE_RGBA, 8, 4};
    case GRAY8: return (png_spec){PNG_COLOR_TYPE_GRAY, 8, 1};
    case GRAY4: return (png_spec){PNG_COLOR_TYPE_GRAY, 4, 1};
    case GRAY1: return (png_spec){PNG_COLOR_TYPE_GRAY, 1, 1};
    case GRAY_ALPHA16: return (png_spec){PNG_COLOR_TYPE_GRAY_ALPHA, 16, 2};
    case PALETTE8:
    case PALETTE8_TRNS: return (png_spec){PNG_COLOR_TYPE_PALETTE, 8, 1};
    }
    return (png_spec){0, 0, 0};
}

typedef struct palette {
    png_color c[256];
    int n;
} palette;

static int palette_index(palette *p, const unsigned char *rgb)
{
    int k;
    for (k = 0; k < p->n; k++)
        if (p->c[k].red == rgb[0] && p->c[k].green == rgb[1] && p->c[k].blue == rgb[2]) return k;
    assert_true(p->n < 256); /* the image must have few colours */
    p->c[p->n].red = rgb[0];
    p->c[p->n].green = rgb[1];
    p->c[p->n].blue = rgb[2];
    return p->n++;
}

/* Pixel `src` (RGB) stored as form f: the samples into ch[], and the RGB
 * the reader must give back into want[]. Low bytes of 16-bit samples and
 * alpha are noise the reader must drop. */
static void encode(form f, const unsigned char *src, palette *pal, unsigned ch[4], unsigned char want[3])
{
    unsigned noise = (unsigned)(gpt_rand64() & 0xffff);
    int c;
    for (c = 0; c < 3; c++) want[c] = src[c];
    switch (f) {
    case RGB8: ch[0] = src[0], ch[1] = src[1], ch[2] = src[2]; break;
    case RGB16:
        for (c = 0; c < 3; c++) ch[c] = (unsigned)src[c] << 8 | ((noise >> (4 * c)) & 0xff);
        break;
    case RGBA8: ch[0] = src[0], ch[1] = src[1], ch[2] = src[2], ch[3] = noise & 0xff; break;
    case GRAY8:
        ch[0] = src[1];
        want[0] = want[1] = want[2] = src[1];
        break;
    case GRAY4: /* expanded by bit replication: v * 17 */
        ch[0] = src[1] >> 4;
        want[0] = want[1] = want[2] = (unsigned char)(ch[0] * 17);
        break;
    case GRAY1:
        ch[0] = src[1] >> 7;
        want[0] = want[1] = want[2] = ch[0] ? 255 : 0;
        break;
    case GRAY_ALPHA16:
        ch[0] = (unsigned)src[1] << 8 | (noise & 0xff);
        ch[1] = noise;
        want[0] = want[1] = want[2] = src[1];
        break;
    case PALETTE8:
    case PALETTE8_TRNS: ch[0] = (unsigned)palette_index(pal, src); break;
    }
}

/* Write the image (row 0 at the bottom, so the file's first row is h - 1)
 * as form f with libpng, and return the RGB a reader must give back. */
static unsigned char *write_png_as(const char *path, const unsigned char *rgb, int w, int h, form f, int interlace)
{
    const png_spec sp = spec_of(f);
    const size_t row_bytes = ((size_t)w * sp.channels * sp.bit_depth + 7) / 8;
    unsigned char *want = gpt_malloc((size_t)w * h * 3);
    unsigned char *rows = gpt_malloc(row_bytes * h);
    png_bytep *rp = gpt_malloc(sizeof(png_bytep) * h);
    palette pal;
    png_structp png;
    png_infop info;
    FILE *out;
    int i, j, c;
    pal.n = 0;
    memset(rows, 0, row_bytes * h);
    for (j = 0; j < h; j++) {
        unsigned char *row = rows + row_bytes * (size_t)(h - 1 - j);
        size_t bit = 0;
        rp[h - 1 - j] = row;
        for (i = 0; i < w; i++) {
            unsigned ch[4] = {0, 0, 0, 0};
            const size_t at = ((size_t)j * w + i) * 3;
            encode(f, rgb + at, &pal, ch, want + at);
            for (c = 0; c < sp.channels; c++) {
                if (sp.bit_depth == 16) {
                    row[bit / 8] = (unsigned char)(ch[c] >> 8);
                    row[bit / 8 + 1] = (unsigned char)ch[c];
                } else if (sp.bit_depth == 8) {
                    row[bit / 8] = (unsigned char)ch[c];
                } else { /* packed, leftmost pixel in the high bits */
                    row[bit / 8] |= (unsigned char)(ch[c] << (8 - sp.bit_depth - bit % 8));
                }
                bit += (size_t)sp.bit_depth;
            }
        }
    }
    out = fopen(path, "wb");
    assert_non_null(out);
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    assert_non_null(png);
    info = png_create_info_struct(png);
    assert_non_null(info);
    if (setjmp(png_jmpbuf(png))) fail_msg("libpng could not write %s", path);
    png_init_io(png, out);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, sp.bit_depth, sp.color_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (sp.color_type == PNG_COLOR_TYPE_PALETTE) png_set_PLTE(png, info, pal.c, pal.n);
    if (f == PALETTE8_TRNS) {
        png_byte alpha[256];
        for (c = 0; c < pal.n; c++) alpha[c] = (png_byte)(c * 37);
        png_set_tRNS(png, info, alpha, pal.n, NULL);
    }
    png_set_rows(png, info, rp);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    assert_int_equal(fclose(out), 0);
    free(rows);
    free(rp);
    return want;
}

static void interlaced_pngs_read_exactly(void **state)
{
    static const int sizes[][2] = {{97, 61}, {1, 1}, {3, 2}, {8, 8}, {9, 17}, {256, 3}};
    size_t s;
    int f, interlace;
    char path[256];
    (void)state;
    gpt_seed_once();
    path_of(path, sizeof path, "x.png");
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        unsigned char *src = rendered("rgby", w, h);
        unsigned char *got = gpt_malloc((size_t)w * h * 3);
        for (f = RGB8; f <= PALETTE8_TRNS; f++)
            for (interlace = 0; interlace < 2; interlace++) {
                unsigned char *want = write_png_as(path, src, w, h, (form)f, interlace);
                int rw = -1, rh = -1;
                size_t k;
                gpt_poison(got, (size_t)w * h * 3);
                assert_int_equal(gp_image_read_rgb8(path, &rw, &rh, got, (size_t)w * h * 3), GP_SUCCESS);
                assert_int_equal(rw, w);
                assert_int_equal(rh, h);
                for (k = 0; k < (size_t)w * h * 3; k++)
                    if (got[k] != want[k])
                        fail_msg("%dx%d %s%s: byte %zu (pixel %zu) is %d, want %d", w, h, form_name[f],
                                 interlace ? " interlaced" : "", k, k / 3, got[k], want[k]);
                free(want);
            }
        free(src);
        free(got);
    }
    remove(path);
}

/* ---- failures leave the caller's buffer alone ------------------------------- */

/* Read `path` into a poisoned buffer of w*h*3 bytes: it must fail with
 * `want` and leave every byte (and the size outputs) as it was. */
static void expect_failed_read(const char *path, int w, int h, gp_status want, const char *what)
{
    const size_t n = (size_t)w * h * 3;
    unsigned char *buf = gpt_malloc(n);
    int rw = -7, rh = -9;
    gpt_poison(buf, n);
    if (gp_image_read_rgb8(path, &rw, &rh, buf, n) != want) fail_msg("%s: not status %d", what, (int)want);
    assert_true(gp_last_io_error()[0] != '\0');
    gpt_expect_poison(buf, 0, n, what);
    assert_int_equal(rw, -7);
    assert_int_equal(rh, -9);
    free(buf);
}

/* Offset of the first IDAT chunk's data. */
static size_t idat_data(const unsigned char *png, size_t n, size_t *len)
{
    size_t at = 8;
    while (at + 8 <= n) {
        size_t l = (size_t)png[at] << 24 | (size_t)png[at + 1] << 16 | (size_t)png[at + 2] << 8 | png[at + 3];
        if (!memcmp(png + at + 4, "IDAT", 4)) {
            *len = l;
            return at + 8;
        }
        at += 12 + l;
    }
    fail_msg("no IDAT chunk");
    return 0;
}

static void damaged_files_write_nothing(void **state)
{
    const int W = 64, H = 48;
    unsigned char *rgb = gpt_malloc((size_t)W * H * 3), *all;
    char path[256], cut[256];
    size_t n, k, at, len = 0;
    int interlace;
    (void)state;
    gpt_seed_once();
    /* noise: incompressible, so IDAT is most of the file */
    for (k = 0; k < (size_t)W * H * 3; k++) rgb[k] = (unsigned char)gpt_rand64();
    path_of(path, sizeof path, "good.png");
    path_of(cut, sizeof cut, "bad.png");
    for (interlace = 0; interlace < 2; interlace++) {
        free(write_png_as(path, rgb, W, H, RGB8, interlace));
        all = slurp(path, &n);
        /* cut to 2/3 of its length: inside IDAT, after many rows */
        gpt_write_file(cut, all, n * 2 / 3);
        expect_failed_read(cut, W, H, GP_ERROR_PARSE, interlace ? "interlaced PNG cut to 2/3" : "PNG cut to 2/3");
        /* one flipped byte inside IDAT (its CRC no longer matches) */
        at = idat_data(all, n, &len);
        all[at + len / 2] ^= 0x5a;
        gpt_write_file(cut, all, n);
        expect_failed_read(cut, W, H, GP_ERROR_PARSE, "PNG with a flipped IDAT byte");
        /* the same near the end of IDAT: every row but the last decoded first */
        all[at + len / 2] ^= 0x5a;
        all[at + len - 2] ^= 0x01;
        gpt_write_file(cut, all, n);
        expect_failed_read(cut, W, H, GP_ERROR_PARSE, "PNG with a flipped byte at the end of IDAT");
        free(all);
    }
    /* a P6 cut short inside its pixels (all rows but half of one) */
    path_of(path, sizeof path, "good.ppm");
    assert_int_equal(gp_image_write_rgb8(path, rgb, W, H), GP_SUCCESS);
    all = slurp(path, &n);
    gpt_write_file(cut, all, n - (size_t)W * 3 / 2);
    expect_failed_read(cut, W, H, GP_ERROR_PARSE, "P6 cut short");
    assert_non_null(strstr(gp_last_io_error(), "ends inside the pixels"));
    free(all);
    /* and the intact files still read */
    {
        unsigned char *got = gpt_malloc((size_t)W * H * 3);
        int rw, rh;
        assert_int_equal(gp_image_read_rgb8(path, &rw, &rh, got, (size_t)W * H * 3), GP_SUCCESS);
        assert_memory_equal(got, rgb, (size_t)W * H * 3);
        free(got);
    }
    remove(path);
    remove(cut);
    path_of(path, sizeof path, "good.png");
    remove(path);
    free(rgb);
}

static void a_directory_is_an_io_error(void **state)
{
    unsigned char buf[12];
    int w = -1, h = -1;
    char path[256];
    (void)state;
    path_of(path, sizeof path, "dir.png");
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, NULL, 0), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), path));
    assert_non_null(strstr(gp_last_io_error(), strerror(EISDIR)));
    gpt_poison(buf, sizeof buf);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, buf, sizeof buf), GP_ERROR_IO);
    assert_non_null(strstr(gp_last_io_error(), strerror(EISDIR)));
    gpt_expect_poison(buf, 0, sizeof buf, "a directory");
    assert_int_equal(w, -1);
    assert_int_equal(rmdir(path), 0);
    /* a success clears the message */
    path_of(path, sizeof path, "tiny.ppm");
    gpt_write_file(path, "P6 1 1 255\nabc", 14);
    assert_int_equal(gp_image_read_rgb8(path, &w, &h, NULL, 0), GP_SUCCESS);
    assert_string_equal(gp_last_io_error(), "");
    remove(path);
}

/* ---- PPM headers ------------------------------------------------------------ */

/* Read `text` (a header) followed by the raster of a 2x3 image. */
static gp_status read_ppm_text(const char *header, unsigned char *got, int *w, int *h)
{
    char path[256];
    unsigned char file[256];
    size_t n = strlen(header), k;
    gp_status s;
    memcpy(file, header, n);
    for (k = 0; k < 18; k++) file[n + k] = (unsigned char)(10 * k + 1);
    path_of(path, sizeof path, "h.ppm");
    gpt_write_file(path, file, n + 18);
    gpt_poison(got, 18);
    s = gp_image_read_rgb8(path, w, h, got, 18);
    remove(path);
    return s;
}

static void ppm_header_comments(void **state)
{
    static const char *good[] = {
        "P6\n2 3\n255\n",
        "P6\n# written by some tool\n2 3\n255\n",
        "P6 # magic\n2 # width\n3 # height\n255\n",
        "P6\n#c1\n#c2\n  2\n#\n3\r\n255\n",
        "P6 2 3 255#comment right after maxval\n",
        "P6\t2\t3\t255\t",
    };
    static const char *bad[] = {
        "P62 3 255\n",     /* no whitespace after the magic */
        "P6 2x3 255\n",    /* junk after a number */
        "P6 2 3 65535\n",  /* maxval other than 255 */
        "P6 2 # 3 255\n",  /* the comment runs to the end of the line: no height */
        "P6 -2 3 255\n",   /* a sign */
        "P6 2 3 255",      /* no byte after maxval */
        "P6 99999999999999999999 3 255\n",
    };
    unsigned char got[18], want[18];
    size_t i, k;
    int w, h;
    (void)state;
    /* row 0 is the bottom: the file's first row (bytes 0..5) is row 2 */
    for (k = 0; k < 18; k++) want[(2 - k / 6) * 6 + k % 6] = (unsigned char)(10 * k + 1);
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        w = h = -1;
        if (read_ppm_text(good[i], got, &w, &h) != GP_SUCCESS)
            fail_msg("header %zu refused: %s", i, gp_last_io_error());
        assert_int_equal(w, 2);
        assert_int_equal(h, 3);
        assert_memory_equal(got, want, 18);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        w = h = -1;
        if (read_ppm_text(bad[i], got, &w, &h) != GP_ERROR_PARSE) fail_msg("header %zu accepted", i);
        gpt_expect_poison(got, 0, 18, "a bad header");
        assert_int_equal(w, -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interlaced_pngs_read_exactly),
        cmocka_unit_test(damaged_files_write_nothing),
        cmocka_unit_test(a_directory_is_an_io_error),
        cmocka_unit_test(ppm_header_comments),
    };
    return cmocka_run_group_tests_name("image_read", tests, make_dir, remove_dir);
}
