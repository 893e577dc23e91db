/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c - the renderer command's argument parser (see options.h). */
#include "options.h"

#include <gpuprim/render.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const cli_scene_names[] = {"rgb", "rgby", "rand10k", "rand100k", "rand1M", "micro2M",
                                       "biglittle", "littlebig", "pattern", "snow", "bouncingballs",
                                       "hypnosis", "fireworks"};
const size_t cli_scene_count = sizeof cli_scene_names / sizeof cli_scene_names[0];

void cli_usage(FILE *f)
{
    size_t i;
    fprintf(f,
            "usage: renderer (--scene NAME | --scene-file PATH) [options]\n"
            "  --scene NAME        one of:");
    for (i = 0; i < cli_scene_count; i++) fprintf(f, " %s", cli_scene_names[i]);
    fprintf(f,
            "\n"
            "  --scene-file PATH   a .par file (snow) or a \"gpuprim-circles 1\" file\n"
            "  --size N | WxH      image size in pixels (default 1024)\n"
            "  --seed S            random seed of generated scenes (default 0)\n"
            "  --output PATH       .ppm or .png (default <scene>.ppm)\n"
            "  --frames A:B        advance to frame A, render frames A..B-1 to <base>_<frame>.<ext>\n"
            "  --backend B         auto (GPU when present, else CPU), cuda or cpu (default auto)\n"
            "  --threads N         CPU threads (default: one per processor)\n"
            "  --gpus N            split each frame into N bands, one per GPU (NCCL), gathered\n"
            "                      on the first; with --backend cpu, N CPU ranks (default 1)\n"
            "  --check             also render with the single-threaded reference and compare;\n"
            "                      exit 1 if any pixel differs by more than one 8-bit level\n"
            "  --reference FILE    compare the frame with an image file (.ppm or .png) the same\n"
            "                      way (e.g. the course's reference renderer's output)\n"
            "  --bench N           time N frames (clear + advance + render, synchronized)\n"
            "                      after 40 ms of warm-up frames; print the mean\n"
            "                      milliseconds per frame\n"
            "  --quiet             print only the --check / --reference verdicts, the --bench\n"
            "                      timings and errors (no progress line, which is otherwise\n"
            "                      shown on a terminal for renders that take over 2 seconds)\n"
            "  --version           the versions of libgpuprim and libgpuprim-render\n"
            "  --help              this text\n");
}

/* The longest fixed text of any message below is under 100 bytes. */
size_t cli_error_length(int argc, char **argv)
{
    size_t longest = 0;
    int i;
    for (i = 1; i < argc; i++) {
        size_t len = argv[i] ? strlen(argv[i]) : 0;
        if (len > longest) longest = len;
    }
    return longest + 128;
}

static int bad_arg(char *err, size_t errlen, const char *fmt, const char *what)
{
    if (err && errlen > 0) snprintf(err, errlen, fmt, what);
    return CLI_BAD;
}

/* Whole-string non-negative decimal integer in [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_args(int argc, char **argv, cli_options *o, char *err, size_t errlen)
{
    int i;
    if (err && errlen > 0) err[0] = '\0';
    memset(o, 0, sizeof *o);
    o->width = o->height = 1024;
    o->backend = GP_BACKEND_AUTO;
    o->threads = 0;
    o->gpus = 1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return CLI_HELP;
        } else if (!strcmp(a, "--version")) {
            return CLI_VERSION;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
            continue;
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) return bad_arg(err, errlen, "unexpected argument '%s'", a);
        if (strcmp(a, "--scene") && strcmp(a, "--scene-file") && strcmp(a, "--size") && strcmp(a, "--seed") &&
            strcmp(a, "--output") && strcmp(a, "--frames") && strcmp(a, "--backend") && strcmp(a, "--threads") &&
            strcmp(a, "--bench") && strcmp(a, "--gpus") && strcmp(a, "--reference"))
            return bad_arg(err, errlen, "unknown option '%s'", a);
        if (!v) return bad_arg(err, errlen, "option '%s' needs a value", a);
        i++;
        if (!strcmp(a, "--scene")) {
            size_t k, known = 0;
            for (k = 0; k < cli_scene_count; k++)
                if (!strcmp(v, cli_scene_names[k])) known = 1;
            if (!known) return bad_arg(err, errlen, "unknown scene '%s'", v);
            o->scene = v;
        } else if (!strcmp(a, "--scene-file")) {
            o->scene_file = v;
        } else if (!strcmp(a, "--size")) {
            const char *x = strchr(v, 'x');
            long w, h;
            if (x) {
                char buf[32];
                size_t len = (size_t)(x - v);
                if (len == 0 || len >= sizeof buf) return bad_arg(err, errlen, "bad --size '%s' (want N or WxH)", v);
                memcpy(buf, v, len);
                buf[len] = '\0';
                if (parse_int(buf, 1, GP_RENDER_MAX_SIDE, &w) || parse_int(x + 1, 1, GP_RENDER_MAX_SIDE, &h))
                    return bad_arg(err, errlen, "bad --size '%s' (want N or WxH, each 1..16384)", v);
            } else {
                if (parse_int(v, 1, GP_RENDER_MAX_SIDE, &w))
                    return bad_arg(err, errlen, "bad --size '%s' (want 1..16384)", v);
                h = w;
            }
            o->width = (int)w;
            o->height = (int)h;
        } else if (!strcmp(a, "--seed")) {
            if (parse_int(v, 0, (long)UINT_MAX < LONG_MAX ? (long)UINT_MAX : LONG_MAX, &n))
                return bad_arg(err, errlen, "bad --seed '%s' (want 0..4294967295)", v);
            o->seed = (unsigned)n;
        } else if (!strcmp(a, "--output")) {
            size_t len = strlen(v);
            if (len < 5 || (strcmp(v + len - 4, ".ppm") && strcmp(v + len - 4, ".png")))
                return bad_arg(err, errlen, "bad --output '%s' (want a .ppm or .png path)", v);
            o->output = v;
        } else if (!strcmp(a, "--frames")) {
            const char *c = strchr(v, ':');
            char buf[32];
            size_t len = c ? (size_t)(c - v) : 0;
            if (!c || len == 0 || len >= sizeof buf) return bad_arg(err, errlen, "bad --frames '%s' (want A:B)", v);
            memcpy(buf, v, len);
            buf[len] = '\0';
            if (parse_int(buf, 0, 1000000, &o->frame_a) || parse_int(c + 1, 0, 1000000, &o->frame_b) ||
                o->frame_b <= o->frame_a)
                return bad_arg(err, errlen, "bad --frames '%s' (want A:B with 0 <= A < B <= 1000000)", v);
            o->have_frames = 1;
        } else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "auto")) o->backend = GP_BACKEND_AUTO;
            else if (!strcmp(v, "cuda")) o->backend = GP_BACKEND_CUDA;
            else if (!strcmp(v, "cpu")) o->backend = GP_BACKEND_CPU;
            else return bad_arg(err, errlen, "bad --backend '%s' (want auto, cuda or cpu)", v);
        } else if (!strcmp(a, "--threads")) {
            if (parse_int(v, 1, 256, &o->threads)) return bad_arg(err, errlen, "bad --threads '%s' (want 1..256)", v);
        } else if (!strcmp(a, "--reference")) {
            o->reference = v;
        } else if (!strcmp(a, "--gpus")) {
            if (parse_int(v, 1, 64, &o->gpus)) return bad_arg(err, errlen, "bad --gpus '%s' (want 1..64)", v);
        } else if (!strcmp(a, "--bench")) {
            if (parse_int(v, 1, 100000, &o->bench)) return bad_arg(err, errlen, "bad --bench '%s' (want 1..100000)", v);
        }
    }
    if (!o->scene == !o->scene_file)
        return bad_arg(err, errlen, "%s", "give exactly one of --scene NAME or --scene-file PATH");
    if (o->bench && o->have_frames) return bad_arg(err, errlen, "%s", "--bench and --frames do not go together");
    return CLI_RUN;
}
