/* SPDX-License-Identifier: BSD-3-Clause */
/* image.c - writing and reading images (binary PPM, and PNG through
 * libpng), and comparing them as the 8-bit values they are written as. */
#include <gpuprim/render.h>

#include "file_out.h"
#include "shade.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


static gp_status check_image(const float *rgba, int width, int height)
{
    if (!rgba || width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return GP_ERROR_INVALID_ARGUMENT;
    return GP_SUCCESS;
}

/* An image to write: floats (rgba) or 8-bit RGB (rgb), row 0 at the bottom. */
typedef struct image_src {
    const float *rgba;
    const unsigned char *rgb;
    int width, height;
} image_src;

/* One output row (row j of the image) as RGB bytes. */
static void row_rgb(const image_src *src, int j, unsigned char *out)
{
    const int width = src->width;
    const float *p;
    int i;
    if (src->rgb) {
        memcpy(out, src->rgb + (size_t)j * (size_t)width * 3, (size_t)width * 3);
        return;
    }
    p = src->rgba + (size_t)j * (size_t)width * 4;
    for (i = 0; i < width; i++) {
        out[3 * i] = gpr_to8(p[4 * i]);
        out[3 * i + 1] = gpr_to8(p[4 * i + 1]);
        out[3 * i + 2] = gpr_to8(p[4 * i + 2]);
    }
}

static gp_status write_ppm(FILE *f, const image_src *src)
{
    const int width = src->width, height = src->height;
    unsigned char *row = (unsigned char *)malloc((size_t)width * 3);
    int j, bad = 0;
    if (!row) return GP_ERROR_OUT_OF_MEMORY;
    if (fprintf(f, "P6\n%d %d\n255\n", width, height) < 0) bad = 1;
    /* Top row first: the image's row 0 is at the bottom. */
    for (j = height - 1; j >= 0 && !bad; j--) {
        row_rgb(src, j, row);
        if (fwrite(row, 1, (size_t)width * 3, f) != (size_t)width * 3) bad = 1;
    }
    free(row);
    return bad ? GP_ERROR_IO : GP_SUCCESS;
}

/* ---- PNG, through libpng -------------------------------------------------- */

/* libpng reports errors by longjmp; the message goes to gp_last_io_error. */
typedef struct png_io {
    jmp_buf jmp;
    const char *path;
} png_io;

static void png_fail(png_structp png, png_const_charp msg)
{
    png_io *io = (png_io *)png_get_error_ptr(png);
    char esc[4 * 120 + 1]; /* libpng quotes chunk names from the file */
    gpr_io_error("%s: %s", io->path, gpr_escape(msg, 120, esc, sizeof esc));
    longjmp(io->jmp, 1);
}

static void png_warn(png_structp png, png_const_charp msg)
{
    (void)png, (void)msg;
}

static gp_status write_png(FILE *f, const image_src *src, const char *path)
{
    const int width = src->width, height = src->height;
    png_io io;
    png_structp png;
    png_infop info = NULL;
    unsigned char *volatile row = NULL;
    int j;
    io.path = path;
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, png_fail, png_warn);
    if (!png || !(info = png_create_info_struct(png)) ||
        !(row = (unsigned char *)malloc((size_t)width * 3))) {
        png_destroy_write_struct(&png, &info);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    if (setjmp(io.jmp)) {
        png_destroy_write_struct(&png, &info);
        free(row);
        return GP_ERROR_IO;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (j = height - 1; j >= 0; j--) { /* top row first: row 0 is the bottom */
        row_rgb(src, j, row);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    return ferror(f) ? GP_ERROR_IO : GP_SUCCESS;
}

/* A decoded image: the pixels are decoded into `pix`, a private buffer, and
 * reach the caller's only once the whole file has been read without error. */
static gp_status image_alloc(const char *path, int w, int h, unsigned char **pix)
{
    if (!(*pix = (unsigned char *)malloc((size_t)w * (size_t)h * 3))) {
        gpr_io_error("%s: out of memory for %dx%d pixels", path, w, h);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    return GP_SUCCESS;
}

/* Size checks shared by both formats: a side in 1 .. GP_RENDER_MAX_SIDE
 * (else GP_ERROR_PARSE) and, when rgb is given, room for every pixel (else
 * GP_ERROR_INVALID_ARGUMENT). */
static gp_status check_size(const char *path, unsigned long w, unsigned long h, const unsigned char *rgb,
                            size_t capacity)
{
    if (w < 1 || h < 1 || w > GP_RENDER_MAX_SIDE || h > GP_RENDER_MAX_SIDE) {
        gpr_io_error("%s: %lux%lu pixels, outside 1..%d a side", path, w, h, GP_RENDER_MAX_SIDE);
        return GP_ERROR_PARSE;
    }
    if (rgb && capacity < (size_t)w * h * 3) {
        gpr_io_error("%s: %lux%lu pixels need %zu bytes, %zu given", path, w, h, (size_t)w * h * 3, capacity);
        return GP_ERROR_INVALID_ARGUMENT;
    }
    return GP_SUCCESS;
}

/* Decode a PNG into 8-bit RGB, row 0 at the bottom. rgb NULL: size only. */
static gp_status read_png(FILE *f, const char *path, int *w, int *h, unsigned char *rgb, size_t capacity)
{
    png_io io;
    png_structp png;
    png_infop info = NULL;
    unsigned char *volatile pix = NULL;
    png_bytep *volatile rows = NULL;
    png_uint_32 pw, ph, k;
    gp_status st;
    io.path = path;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, png_fail, png_warn);
    if (!png || !(info = png_create_info_struct(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    if (setjmp(io.jmp)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pix);
        free(rows);
        return GP_ERROR_PARSE;
    }
    png_init_io(png, f);
    png_read_info(png, info);
    pw = png_get_image_width(png, info);
    ph = png_get_image_height(png, info);
    if ((st = check_size(path, pw, ph, rgb, capacity)) || !rgb) {
        png_destroy_read_struct(&png, &info, NULL);
        if (!st) {
            *w = (int)pw;
            *h = (int)ph;
        }
        return st;
    }
    /* Any PNG to 8-bit RGB: expand palettes and low depths, drop alpha and
     * 16-bit; interlaced (Adam7) files are read whole, every pass. */
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    png_set_gray_to_rgb(png);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)pw * 3) {
        gpr_io_error("%s: unsupported PNG layout", path);
        png_destroy_read_struct(&png, &info, NULL);
        return GP_ERROR_PARSE;
    }
    {
        unsigned char *buf = NULL;
        st = image_alloc(path, (int)pw, (int)ph, &buf);
        pix = buf;
    }
    if (st || !(rows = (png_bytep *)malloc((size_t)ph * sizeof(png_bytep)))) {
        if (!st) gpr_io_error("%s: out of memory", path);
        png_destroy_read_struct(&png, &info, NULL);
        free(pix);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (k = 0; k < ph; k++) rows[k] = pix + (size_t)(ph - 1 - k) * pw * 3; /* top row first */
    png_read_image(png, rows);
    png_read_end(png, NULL); /* checks the rest of the file, CRCs included */
    png_destroy_read_struct(&png, &info, NULL);
    memcpy(rgb, pix, (size_t)pw * ph * 3);
    free(pix);
    free(rows);
    *w = (int)pw;
    *h = (int)ph;
    return GP_SUCCESS;
}

/* ---- binary PPM -------------------------------------------------------------- */

static int ppm_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* Skip a comment: '#' (already read) through the end of its line. Returns
 * the byte that ends it ('\n', '\r' or EOF). */
static int ppm_comment(FILE *f)
{
    int c;
    do c = getc(f);
    while (c != '\n' && c != '\r' && c != EOF);
    return c;
}

/* One header number, after whitespace and '#' comments (netpbm allows both
 * between any two header fields), with the one whitespace byte (or comment
 * ending in a newline) that ends it consumed. -1 when malformed. */
static long ppm_number(FILE *f)
{
    long v = 0;
    int c = getc(f);
    for (;;) {
        if (c == '#') c = ppm_comment(f);
        else if (ppm_space(c)) c = getc(f);
        else break;
    }
    if (c < '0' || c > '9') return -1;
    for (; c >= '0' && c <= '9'; c = getc(f))
        if (v < 1000000) v = v * 10 + (c - '0'); /* past every accepted value: stays too large */
    if (c == '#') c = ppm_comment(f);
    return ppm_space(c) ? v : -1;
}

/* The magic "P6" and the whitespace (or comment) after it. */
static int ppm_magic(FILE *f)
{
    int c;
    if (getc(f) != 'P' || getc(f) != '6') return 0;
    c = getc(f);
    if (c == '#') c = ppm_comment(f);
    return ppm_space(c);
}

/* A binary PPM (P6, maxval 255), as write_ppm writes and most tools do. */
static gp_status read_ppm(FILE *f, const char *path, int *w, int *h, unsigned char *rgb, size_t capacity)
{
    long pw, ph, maxval;
    unsigned char *pix = NULL;
    size_t line;
    gp_status st;
    int j;
    if (!ppm_magic(f) || (pw = ppm_number(f)) < 0 || (ph = ppm_number(f)) < 0 ||
        (maxval = ppm_number(f)) < 0) {
        gpr_io_error("%s: not a binary PPM (P6) header", path);
        return GP_ERROR_PARSE;
    }
    if (maxval != 255) {
        gpr_io_error("%s: maxval %ld (want 255)", path, maxval);
        return GP_ERROR_PARSE;
    }
    if ((st = check_size(path, (unsigned long)pw, (unsigned long)ph, rgb, capacity))) return st;
    if (rgb) {
        if ((st = image_alloc(path, (int)pw, (int)ph, &pix))) return st;
        line = (size_t)pw * 3;
        for (j = (int)ph - 1; j >= 0; j--) /* top row first */
            if (fread(pix + (size_t)j * line, 1, line, f) != line) {
                st = ferror(f) ? GP_ERROR_IO : GP_ERROR_PARSE;
                if (st == GP_ERROR_IO) gpr_io_error("%s: %s", path, strerror(errno));
                else gpr_io_error("%s: the file ends inside the pixels", path);
                free(pix);
                return st;
            }
        memcpy(rgb, pix, line * (size_t)ph);
        free(pix);
    }
    *w = (int)pw;
    *h = (int)ph;
    return GP_SUCCESS;
}

gp_status gp_image_read_rgb8(const char *path, int *width, int *height, unsigned char *rgb, size_t capacity)
{
    unsigned char magic[8];
    int w = 0, h = 0;
    size_t got;
    gp_status st;
    struct stat sb;
    FILE *f;
    gpr_io_error_clear();
    if (!path || !width || !height) return GP_ERROR_INVALID_ARGUMENT;
    if (!(f = fopen(path, "rb"))) {
        gpr_io_error("%s: %s", path, strerror(errno));
        return GP_ERROR_IO;
    }
    /* A directory opens for reading; say what it is rather than "not an image". */
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        gpr_io_error("%s: %s", path, strerror(EISDIR));
        fclose(f);
        return GP_ERROR_IO;
    }
    got = fread(magic, 1, sizeof magic, f);
    if (got < sizeof magic && ferror(f)) {
        gpr_io_error("%s: %s", path, strerror(errno));
        fclose(f);
        return GP_ERROR_IO;
    }
    rewind(f);
    if (got == sizeof magic && !png_sig_cmp(magic, 0, sizeof magic)) st = read_png(f, path, &w, &h, rgb, capacity);
    else if (got >= 2 && magic[0] == 'P' && magic[1] == '6') st = read_ppm(f, path, &w, &h, rgb, capacity);
    else {
        gpr_io_error("%s: neither PNG nor binary PPM", path);
        st = GP_ERROR_PARSE;
    }
    fclose(f);
    if (!st) {
        *width = w;
        *height = h;
    }
    return st;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix), i;
    if (n < m) return 0;
    for (i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

/* All or nothing: written to a temporary beside `path`, renamed over it
 * once complete (file_out.h); a failure leaves any old file untouched. */
static gp_status write_image(const char *path, const image_src *src)
{
    gpr_file_out out;
    gp_status st;
    int png;
    gpr_io_error_clear();
    if (ends_with(path, ".png")) png = 1;
    else if (ends_with(path, ".ppm")) png = 0;
    else {
        gpr_io_error("%s: the name must end in .ppm or .png", path);
        return GP_ERROR_INVALID_ARGUMENT;
    }
    if ((st = gpr_file_out_open(&out, path))) return st;
    st = png ? write_png(out.f, src, path) : write_ppm(out.f, src);
    return gpr_file_out_close(&out, st);
}

gp_status gp_image_write(const char *path, const float *rgba, int width, int height)
{
    image_src src = {rgba, NULL, width, height};
    if (!path || check_image(rgba, width, height)) return GP_ERROR_INVALID_ARGUMENT;
    return write_image(path, &src);
}

gp_status gp_image_write_rgb8(const char *path, const unsigned char *rgb, int width, int height)
{
    image_src src = {NULL, rgb, width, height};
    if (!path || !rgb || width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return GP_ERROR_INVALID_ARGUMENT;
    return write_image(path, &src);
}

gp_status gp_image_to_rgb8(const float *rgba, int width, int height, unsigned char *rgb)
{
    image_src src = {rgba, NULL, width, height};
    int j;
    if (check_image(rgba, width, height) || !rgb) return GP_ERROR_INVALID_ARGUMENT;
    for (j = 0; j < height; j++) row_rgb(&src, j, rgb + (size_t)j * (size_t)width * 3);
    return GP_SUCCESS;
}

gp_status gp_image_compare(const float *a, const float *b, int width, int height, int *max_diff,
                           size_t *differing_pixels)
{
    size_t n, i, count = 0;
    int worst = 0;
    if (check_image(a, width, height) || !b) return GP_ERROR_INVALID_ARGUMENT;
    n = (size_t)width * (size_t)height;
    for (i = 0; i < n; i++) {
        int c, differs = 0;
        for (c = 0; c < 3; c++) {
            int d = (int)gpr_to8(a[4 * i + c]) - (int)gpr_to8(b[4 * i + c]);
            if (d < 0) d = -d;
            if (d > worst) worst = d;
            if (d) differs = 1;
        }
        count += (size_t)differs;
    }
    if (max_diff) *max_diff = worst;
    if (differing_pixels) *differing_pixels = count;
    return GP_SUCCESS;
}
