/* SPDX-License-Identifier: BSD-3-Clause */
/* options.h - the renderer command's argument parser, apart from main() so
 * that it can be tested and fuzzed: it never prints, exits or allocates. */
#ifndef GPUPRIM_CLI_OPTIONS_H
#define GPUPRIM_CLI_OPTIONS_H

#include <gpuprim/gpuprim.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cli_options {
    const char *scene, *scene_file, *output; /* point into argv */
    const char *reference; /* --reference FILE: compare the frame with an image file */
    int width, height;
    unsigned seed;
    long frame_a, frame_b;
    int have_frames;
    gp_backend backend;
    long threads;
    int check;
    int quiet; /* --quiet: print nothing but the verdicts and timings asked for, and errors */
    long bench;
    long gpus; /* ranks: 1 = one context; N = gp_dist_renderer over N GPUs (or N CPU ranks) */
} cli_options;

/* What cli_parse_args found. */
enum {
    CLI_RUN = 0,  /* *o holds the options: render */
    CLI_HELP = 1, /* --help or -h: print cli_usage(stdout) and exit 0 */
    CLI_BAD = 2,  /* a wrong argument: the message is in err; exit 2 */
    CLI_VERSION = 3 /* --version: print the library versions and exit 0 */
};

/* Parse argv[1..argc-1] into *o (argv[0] is the program name). Arguments
 * are read left to right and the first --help, --version or wrong argument
 * decides.
 * On CLI_BAD, err (when errlen > 0) receives the NUL-terminated message,
 * truncated to errlen bytes; cli_error_length() tells how much room the
 * longest message for these arguments needs. */
int cli_parse_args(int argc, char **argv, cli_options *o, char *err, size_t errlen);

/* Bytes enough for any message cli_parse_args can write for these
 * arguments, NUL included. */
size_t cli_error_length(int argc, char **argv);

/* The --help text. */
void cli_usage(FILE *f);

/* The scene names --scene accepts (as gp_scene_create does). */
extern const char *const cli_scene_names[];
extern const size_t cli_scene_count;

#endif
