/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_image.c - libFuzzer target for the image reader, gp_image_read_rgb8
 * (PNG through libpng, binary PPM by hand; the content picks the format).
 *
 * The input bytes become a file. The reader must answer with the image's
 * size or with GP_ERROR_PARSE / GP_ERROR_IO and a message in
 * gp_last_io_error(). A size it accepts lies within 1 .. GP_RENDER_MAX_SIDE
 * a side; reading the pixels into a buffer of exactly width*height*3 bytes
 * then either succeeds with the same size or fails as a parse error (pixels
 * missing after a good header), and a buffer one byte short is refused
 * (GP_ERROR_INVALID_ARGUMENT leaves it untouched). Only the public API.
 * Built by tests/fuzz/CMakeLists.txt: a libFuzzer program with
 * GPUPRIM_BUILD_FUZZERS (scripts/fuzz.sh), and always the corpus replay
 * test fuzz_replay_image. */
#include <gpuprim/render.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_image: check failed at line %d: %s\n", __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* Largest pixel buffer the target allocates (a header may claim 16384^2). */
#define MAX_PIXEL_BYTES ((size_t)1 << 24)

static char in_path[64];

static void cleanup(void)
{
    if (in_path[0]) unlink(in_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = getenv("TMPDIR");
    int fd;
    (void)argc;
    (void)argv;
    snprintf(in_path, sizeof in_path, "%s/gpuprim_fuzz_image_XXXXXX", tmp && *tmp && strlen(tmp) < 20 ? tmp : "/tmp");
    fd = mkstemp(in_path);
    if (fd < 0) {
        perror("mkstemp");
        abort();
    }
    close(fd);
    atexit(cleanup);
    return 0;
}

static void check_failure(gp_status st)
{
    CHECK(st == GP_ERROR_PARSE || st == GP_ERROR_IO || st == GP_ERROR_OUT_OF_MEMORY);
    CHECK(gp_last_io_error()[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int w = -1, h = -1, w2 = -1, h2 = -1;
    size_t bytes, i;
    unsigned char *rgb;
    gp_status st;
    FILE *f = fopen(in_path, "wb");
    CHECK(f);
    CHECK(size == 0 || fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);

    st = gp_image_read_rgb8(in_path, &w, &h, NULL, 0);
    if (st != GP_SUCCESS) {
        check_failure(st);
        CHECK(w == -1 && h == -1); /* untouched on error */
        return 0;
    }
    CHECK(w >= 1 && h >= 1 && w <= GP_RENDER_MAX_SIDE && h <= GP_RENDER_MAX_SIDE);
    bytes = (size_t)w * (size_t)h * 3;
    if (bytes > MAX_PIXEL_BYTES) return 0;

    /* One byte short: refused, nothing written. */
    rgb = (unsigned char *)malloc(bytes);
    CHECK(rgb);
    memset(rgb, 0xA5, bytes);
    st = gp_image_read_rgb8(in_path, &w2, &h2, rgb, bytes - 1);
    CHECK(st != GP_SUCCESS);
    if (st == GP_ERROR_INVALID_ARGUMENT)
        for (i = 0; i < bytes; i++) CHECK(rgb[i] == 0xA5);
    else check_failure(st);

    /* Exactly enough: the same size, or pixels missing after the header. */
    st = gp_image_read_rgb8(in_path, &w2, &h2, rgb, bytes);
    if (st == GP_SUCCESS) CHECK(w2 == w && h2 == h);
    else CHECK(st == GP_ERROR_PARSE && gp_last_io_error()[0] != '\0');
    free(rgb);
    return 0;
}
