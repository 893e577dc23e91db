/* image.c - writing images (PPM P6, and PNG without any library: stored
 * deflate blocks in a zlib stream, our own CRC-32 and Adler-32) and
 * comparing them as the 8-bit values they are written as. */
#include <gpuprim/render.h>

#include "file_out.h"
#include "shade.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
        out[3 * i] = gpi_to8(p[4 * i]);
        out[3 * i + 1] = gpi_to8(p[4 * i + 1]);
        out[3 * i + 2] = gpi_to8(p[4 * i + 2]);
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

/* ---- PNG ------------------------------------------------------------------ */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_build(void)
{
    uint32_t n, k;
    for (n = 0; n < 256; n++) {
        uint32_t c = n;
        for (k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static void crc_init(void) { pthread_once(&crc_once, crc_build); }

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 255] ^ (crc >> 8);
    return crc;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int write_chunk(FILE *f, const char *type, const unsigned char *data, size_t n)
{
    unsigned char hdr[8], tail[4];
    uint32_t crc;
    put32(hdr, (uint32_t)n);
    memcpy(hdr + 4, type, 4);
    crc = crc_update(0xFFFFFFFFu, hdr + 4, 4);
    crc = crc_update(crc, data, n) ^ 0xFFFFFFFFu;
    put32(tail, crc);
    if (fwrite(hdr, 1, 8, f) != 8) return -1;
    if (n && fwrite(data, 1, n, f) != n) return -1;
    return fwrite(tail, 1, 4, f) == 4 ? 0 : -1;
}

#define BLOCK_MAX 65535 /* a stored deflate block's largest length */

/* The zlib stream, cut into one IDAT chunk per stored block. */
typedef struct png_out {
    FILE *f;
    unsigned char *chunk; /* 2 (zlib header) + 5 (block header) + BLOCK_MAX + 4 (Adler) */
    size_t fill;          /* bytes of raw data in the current block */
    uint32_t s1, s2;      /* Adler-32 */
    int first, bad;
} png_out;

static void flush_block(png_out *o, int final)
{
    size_t h = o->first ? 2 : 0, n = o->fill, total;
    unsigned char *b = o->chunk;
    if (o->first) { /* CMF: deflate, 32K window; FLG: no dictionary, check bits */
        b[0] = 0x78;
        b[1] = 0x01;
    }
    /* The block's data was staged after a 7-byte gap; move the header in. */
    b[h] = (unsigned char)(final ? 1 : 0); /* BFINAL, BTYPE = 00 (stored) */
    b[h + 1] = (unsigned char)(n & 255);
    b[h + 2] = (unsigned char)(n >> 8);
    b[h + 3] = (unsigned char)(~n & 255);
    b[h + 4] = (unsigned char)((~n >> 8) & 255);
    if (h == 0) memmove(b + 5, b + 7, n);
    total = h + 5 + n;
    if (final) {
        put32(b + total, (o->s2 << 16) | o->s1);
        total += 4;
    }
    if (write_chunk(o->f, "IDAT", b, total)) o->bad = 1;
    o->first = 0;
    o->fill = 0;
}

static void png_put(png_out *o, const unsigned char *p, size_t n)
{
    while (n > 0 && !o->bad) {
        size_t take = BLOCK_MAX - o->fill, i;
        if (take > n) take = n;
        memcpy(o->chunk + 7 + o->fill, p, take);
        for (i = 0; i < take; i++) { /* Adler-32, reduced often enough not to overflow */
            o->s1 += p[i];
            if (o->s1 >= 65521) o->s1 -= 65521;
            o->s2 += o->s1;
            if (o->s2 >= 65521) o->s2 -= 65521;
        }
        o->fill += take;
        p += take;
        n -= take;
        if (o->fill == BLOCK_MAX) flush_block(o, 0);
    }
}

static gp_status write_png(FILE *f, const image_src *src)
{
    const int width = src->width, height = src->height;
    static const unsigned char sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    unsigned char ihdr[13];
    png_out o;
    unsigned char *row;
    int j;
    crc_init();
    memset(&o, 0, sizeof o);
    o.f = f;
    o.first = 1;
    o.s1 = 1;
    o.chunk = (unsigned char *)malloc(7 + BLOCK_MAX + 4);
    row = (unsigned char *)malloc(1 + (size_t)width * 3);
    if (!o.chunk || !row) {
        free(o.chunk);
        free(row);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering (we use filter 0 everywhere) */
    ihdr[12] = 0; /* no interlace */
    if (fwrite(sig, 1, 8, f) != 8 || write_chunk(f, "IHDR", ihdr, 13)) o.bad = 1;
    for (j = height - 1; j >= 0 && !o.bad; j--) {
        row[0] = 0; /* filter: none */
        row_rgb(src, j, row + 1);
        png_put(&o, row, 1 + (size_t)width * 3);
    }
    if (!o.bad) flush_block(&o, 1);
    if (!o.bad && write_chunk(f, "IEND", NULL, 0)) o.bad = 1;
    free(o.chunk);
    free(row);
    return o.bad ? GP_ERROR_IO : GP_SUCCESS;
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
    gpi_file_out out;
    gp_status st;
    int png;
    gpi_io_error_clear();
    if (ends_with(path, ".png")) png = 1;
    else if (ends_with(path, ".ppm")) png = 0;
    else {
        gpi_io_error("%s: the name must end in .ppm or .png", path);
        return GP_ERROR_INVALID_ARGUMENT;
    }
    if ((st = gpi_file_out_open(&out, path))) return st;
    st = png ? write_png(out.f, src) : write_ppm(out.f, src);
    return gpi_file_out_close(&out, st);
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
            int d = (int)gpi_to8(a[4 * i + c]) - (int)gpi_to8(b[4 * i + c]);
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
