/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_cli.c - libFuzzer target for the renderer command's argument
 * handling (renderer/cli/options.c, the parser main() calls).
 *
 * The input is an argument line: words separated by spaces or newlines (a
 * NUL byte also ends a word); argv[0] is "renderer". The parser must
 * answer CLI_RUN, CLI_HELP, CLI_VERSION or CLI_BAD; on CLI_BAD a non-empty message that
 * fits the room cli_error_length() asks for, and the same message cut short
 * in a tiny buffer; on CLI_RUN options inside their documented ranges. The
 * answer must not depend on the error buffer. Built by tests/fuzz/CMakeLists.txt
 * (the libFuzzer program with GPUPRIM_BUILD_FUZZERS, and always the corpus
 * replay test fuzz_replay_cli). */
#include "options.h"

#include <gpuprim/render.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "fuzz_cli: check failed at line %d: %s\n", __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static int is_sep(uint8_t c) { return c == ' ' || c == '\n' || c == '\0'; }

/* Does p point into one of the argument strings? */
static int in_argv(const char *p, int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++)
        if (p == argv[i]) return 1;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Every word copied into its own exact-size allocation, so ASan sees any
     * read past a word's end. */
    char **argv = (char **)malloc((size / 2 + 3) * sizeof(char *));
    int argc = 0, rc, rc2, i, k;
    size_t pos = 0, errlen;
    char *err, tiny[5];
    cli_options o, o2;
    CHECK(argv);
    argv[argc++] = strdup("renderer");
    while (pos < size) {
        size_t start;
        while (pos < size && is_sep(data[pos])) pos++;
        if (pos >= size) break;
        start = pos;
        while (pos < size && !is_sep(data[pos])) pos++;
        argv[argc] = (char *)malloc(pos - start + 1);
        CHECK(argv[argc]);
        memcpy(argv[argc], data + start, pos - start);
        argv[argc][pos - start] = '\0';
        argc++;
    }
    argv[argc] = NULL;

    errlen = cli_error_length(argc, argv);
    err = (char *)malloc(errlen);
    CHECK(err);
    memset(err, 'X', errlen);
    rc = cli_parse_args(argc, argv, &o, err, errlen);
    CHECK(rc == CLI_RUN || rc == CLI_HELP || rc == CLI_BAD || rc == CLI_VERSION);
    CHECK(memchr(err, '\0', errlen) != NULL);
    if (rc == CLI_BAD) {
        size_t len = strlen(err);
        CHECK(len > 0 && len + 1 < errlen); /* never cut short with the room asked for */
        memset(tiny, 'X', sizeof tiny);
        rc2 = cli_parse_args(argc, argv, &o2, tiny, sizeof tiny);
        CHECK(rc2 == CLI_BAD && memchr(tiny, '\0', sizeof tiny) != NULL && strncmp(tiny, err, sizeof tiny - 1) == 0);
        CHECK(cli_parse_args(argc, argv, &o2, NULL, 0) == CLI_BAD);
    } else {
        CHECK(err[0] == '\0');
        CHECK(cli_parse_args(argc, argv, &o2, NULL, 0) == rc);
    }
    if (rc == CLI_HELP) {
        int found = 0;
        for (i = 1; i < argc; i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) found = 1;
        CHECK(found);
    }
    if (rc == CLI_VERSION) {
        int found = 0;
        for (i = 1; i < argc; i++)
            if (!strcmp(argv[i], "--version")) found = 1;
        CHECK(found);
    }
    if (rc == CLI_RUN) {
        CHECK(memcmp(&o, &o2, sizeof o) == 0);
        CHECK((o.scene == NULL) != (o.scene_file == NULL));
        if (o.scene) {
            int known = 0;
            CHECK(in_argv(o.scene, argc, argv));
            for (k = 0; k < (int)cli_scene_count; k++)
                if (!strcmp(o.scene, cli_scene_names[k])) known = 1;
            CHECK(known);
        }
        if (o.scene_file) CHECK(in_argv(o.scene_file, argc, argv));
        if (o.output) CHECK(in_argv(o.output, argc, argv) && strlen(o.output) >= 5 &&
                            (ends_with(o.output, ".ppm") || ends_with(o.output, ".png")));
        CHECK(o.width >= 1 && o.width <= GP_RENDER_MAX_SIDE && o.height >= 1 && o.height <= GP_RENDER_MAX_SIDE);
        CHECK(o.backend == GP_BACKEND_AUTO || o.backend == GP_BACKEND_CPU || o.backend == GP_BACKEND_CUDA);
        CHECK(o.threads == 0 || (o.threads >= 1 && o.threads <= 256));
        CHECK(o.bench == 0 || (o.bench >= 1 && o.bench <= 100000));
        CHECK(!(o.bench && o.have_frames));
        if (o.have_frames) CHECK(o.frame_a >= 0 && o.frame_a < o.frame_b && o.frame_b <= 1000000);
        else CHECK(o.frame_a == 0 && o.frame_b == 0);
        CHECK(o.check == 0 || o.check == 1);
    }

    free(err);
    for (i = 0; i < argc; i++) free(argv[i]);
    free(argv);
    return 0;
}
