/* SPDX-License-Identifier: BSD-3-Clause */
/* renderer - the gpuprim circle renderer's command line.
 * Exit codes: 0 success, 1 runtime failure (or --check found a pixel more
 * than one 8-bit level off), 2 a wrong argument. */
#define _POSIX_C_SOURCE 200809L
#include <gpuprim/gpuprim.h>
#include <gpuprim/dist.h>
#include <gpuprim/render.h>

#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int failed(const char *what, gp_status s, const gp_context *ctx)
{
    const char *detail = gp_context_last_error(ctx);
    fprintf(stderr, "renderer: %s failed: %s%s%s\n", what, gp_status_string(s), *detail ? ": " : "", detail);
    return 1;
}

typedef cli_options options;
static const options *g_opts; /* for the progress line of --check */

/* A line about the run (backend, file written, reference timing); --quiet
 * leaves these out and keeps only verdicts, timings and errors. */
static void note(FILE *f, const char *fmt, ...)
{
    va_list ap;
    if (g_opts && g_opts->quiet) return;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

/* Whether this renderer's build has the CUDA backend (renderer/CMakeLists.txt). */
#ifndef GP_RENDERER_HAVE_CUDA
#define GP_RENDERER_HAVE_CUDA 1
#endif

static int print_version(void)
{
    int ndev = 0;
    printf("renderer %s\n", GP_VERSION_STRING);
    printf("libgpuprim %s (built against %s)\n", gp_version_string(), GP_VERSION_STRING);
    /* The render library has no version call: it is released with libgpuprim, same version. */
    printf("libgpuprim-render %s (released with libgpuprim)\n", GP_VERSION_STRING);
    gp_cuda_device_count(&ndev);
    if (GP_RENDERER_HAVE_CUDA) printf("CUDA backend: built in, %d device(s) found\n", ndev);
    else printf("CUDA backend: not in this build (built without a CUDA compiler): CPU only\n");
    return 0;
}

/* ---- progress: a line on stderr, updated in place, for long CPU work ----------
 * Only when stderr is a terminal and not --quiet, and only once the work has
 * run GP_PROGRESS_AFTER_MS (default 2000) milliseconds. */
typedef struct progress_line {
    const char *what;
    double start, after;
    int shown;
} progress_line;

static void progress_cb(double done, void *user)
{
    progress_line *p = (progress_line *)user;
    double t = now_s() - p->start;
    if (t < p->after) return;
    fprintf(stderr, "\r%s: %3.0f%%", p->what, 100.0 * done);
    if (done > 0.01 && done < 1) fprintf(stderr, ", %.0f s left ", t * (1 - done) / done);
    else fprintf(stderr, "             ");
    fflush(stderr);
    p->shown = 1;
}

/* The callback to pass (NULL when no line may be shown). */
static gp_progress_fn progress_start(progress_line *p, const options *o, const char *what)
{
    const char *env = getenv("GP_PROGRESS_AFTER_MS");
    p->what = what;
    p->start = now_s();
    p->after = env ? atof(env) / 1e3 : 2.0;
    p->shown = 0;
    return !o->quiet && isatty(STDERR_FILENO) ? progress_cb : NULL;
}

static void progress_end(progress_line *p)
{
    if (p->shown) fprintf(stderr, "\r%*s\r", 60, "");
}

/* The file was not written; the library says why (path and OS reason). */
static void write_failed(const char *path, gp_status s)
{
    const char *why = gp_last_io_error();
    if (*why) fprintf(stderr, "renderer: %s\n", why);
    else fprintf(stderr, "renderer: cannot write %s: %s\n", path, gp_status_string(s));
}

/* "<dir>/name.ext" -> "name" part with directory, without the extension. */
static void strip_ext(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    snprintf(out, len, "%s", path);
    if (dot && (!slash || dot > slash) && (size_t)(dot - path) < len) out[dot - path] = '\0';
}

/* The scene the options name; 1 (after a message) if it cannot be made. */
static int open_scene(const options *o, gp_scene **scene)
{
    char errbuf[512];
    gp_status s;
    if (o->scene) {
        if ((s = gp_scene_create(scene, o->scene, o->seed))) return failed("gp_scene_create", s, NULL);
        return 0;
    }
    errbuf[0] = '\0';
    if ((s = gp_scene_load(scene, o->scene_file, errbuf, sizeof errbuf))) {
        fprintf(stderr, "renderer: cannot load the scene: %s: %s\n", gp_status_string(s),
                errbuf[0] ? errbuf : o->scene_file);
        return 1;
    }
    return 0;
}

/* ---- --gpus N: each frame split into bands over N ranks ---------------------- */
typedef struct dist_frame {
    gp_dist_renderer *dr[64];
    const gp_scene *scene;
    void *frame;        /* rank 0's gathered frame: a buffer of its context */
    unsigned char *rgb; /* ... brought to the host */
    int gather;
} dist_frame;

static gp_status dist_rank(gp_comm *comm, void *arg)
{
    dist_frame *d = (dist_frame *)arg;
    gp_context *ctx;
    int r;
    gp_status s;
    gp_comm_rank(comm, &r);
    gp_comm_context(comm, &ctx);
    if ((s = gp_dist_renderer_set_scene(d->dr[r], d->scene)) || (s = gp_dist_renderer_render(d->dr[r]))) return s;
    if (d->gather) return gp_dist_renderer_gather(d->dr[r], 0, r == 0 ? d->frame : NULL);
    return gp_context_synchronize(ctx);
}

/* Compare two 8-bit frames; print the verdict; 1 if a channel is more than
 * one level off. */
static int compare_rgb8(const unsigned char *want, const unsigned char *rgb, int w, int h, const char *what)
{
    size_t i, differing = 0;
    int worst = 0, c;
    for (i = 0; i < (size_t)w * (size_t)h; i++) {
        int dif = 0;
        for (c = 0; c < 3; c++) {
            int dd = abs((int)want[3 * i + c] - (int)rgb[3 * i + c]);
            if (dd > worst) worst = dd;
            dif |= dd != 0;
        }
        differing += (size_t)dif;
    }
    printf("%s: max per-channel difference %d (8-bit levels), %zu differing pixels: %s\n", what, worst, differing,
           worst <= 1 ? "OK" : "FAIL");
    return worst > 1;
}

/* Compare the 8-bit frame with the single-threaded reference's; 1 if it
 * fails. frame >= 0 names the frame in the verdict. */
static int check_rgb8(const gp_scene *scene, const unsigned char *rgb, int w, int h, long frame)
{
    float *ref = (float *)malloc((size_t)w * (size_t)h * 16);
    unsigned char *want = (unsigned char *)malloc((size_t)w * (size_t)h * 3);
    size_t count = 0;
    char what[64];
    int rc = 1;
    double t0 = now_s();
    gp_status s;
    progress_line pl;
    gp_progress_fn fn = progress_start(&pl, g_opts, "check: reference render");
    gp_scene_count(scene, &count);
    note(stderr, "check: reference render (one thread, %zu circles, %dx%d)...\n", count, w, h);
    if (!ref || !want) {
        fprintf(stderr, "renderer: out of memory for the reference image\n");
    } else if ((s = gp_render_reference_progress(scene, w, h, ref, fn, &pl)) ||
               (s = gp_image_to_rgb8(ref, w, h, want))) {
        progress_end(&pl);
        failed("the reference render", s, NULL);
    } else {
        progress_end(&pl);
        note(stderr, "check: reference took %.3f s\n", now_s() - t0);
        if (frame >= 0) snprintf(what, sizeof what, "check frame %ld", frame);
        else snprintf(what, sizeof what, "check");
        rc = compare_rgb8(want, rgb, w, h, what);
    }
    free(ref);
    free(want);
    return rc;
}

/* Compare the 8-bit frame with an image file; 1 if it fails or cannot be read. */
static int check_file(const char *path, const unsigned char *rgb, int w, int h)
{
    unsigned char *want = (unsigned char *)malloc((size_t)w * (size_t)h * 3);
    int fw = 0, fh = 0, rc = 1;
    gp_status s;
    if (!want) {
        fprintf(stderr, "renderer: out of memory for the reference image\n");
        return 1;
    }
    if ((s = gp_image_read_rgb8(path, &fw, &fh, NULL, 0)))
        fprintf(stderr, "renderer: cannot read the reference image: %s\n", gp_last_io_error());
    else if (fw != w || fh != h)
        fprintf(stderr, "renderer: the reference image %s is %dx%d, the frame %dx%d\n", path, fw, fh, w, h);
    else if ((s = gp_image_read_rgb8(path, &fw, &fh, want, (size_t)w * (size_t)h * 3)))
        fprintf(stderr, "renderer: cannot read the reference image: %s\n", gp_last_io_error());
    else rc = compare_rgb8(want, rgb, w, h, path);
    free(want);
    return rc;
}

static int run_dist(const options *o)
{
    const int n = (int)o->gpus, w = o->width, h = o->height;
    gp_context *ctx[64] = {NULL};
    gp_comm *comm[64] = {NULL};
    gp_scene *scene = NULL;
    dist_frame d;
    gp_backend b = o->backend;
    int r, rc = 0, ndev = 0;
    long f, i, frames = o->bench ? o->bench : 1;
    double render_s = 0, gather_s = 0;
    gp_status s = GP_SUCCESS;
    memset(&d, 0, sizeof d);
    gp_cuda_device_count(&ndev);
    if (b == GP_BACKEND_AUTO) b = ndev > 0 ? GP_BACKEND_CUDA : GP_BACKEND_CPU;
    if (b == GP_BACKEND_CUDA && n > ndev) {
        fprintf(stderr, "renderer: --gpus %d, but this machine has %d CUDA device(s)%s\n", n, ndev,
                GP_RENDERER_HAVE_CUDA ? "" : " (this build has no CUDA)");
        return 1;
    }
    for (r = 0; r < n && !s; r++) s = gp_context_create(&ctx[r], b, b == GP_BACKEND_CUDA ? r : 0);
    if (s) {
        fprintf(stderr, "renderer: cannot create context %d: %s\n", r - 1, gp_status_string(s));
        rc = 1;
        goto done;
    }
    for (r = 0; r < n && o->threads; r++) gp_context_set_cpu_threads(ctx[r], (int)o->threads);
    if ((s = gp_comm_init_all(comm, ctx, n, 0))) {
        rc = failed("gp_comm_init_all", s, ctx[0]);
        goto done;
    }
    note(stdout, "backend: %s, %d ranks (bands of tile rows, gathered on rank 0)\n", b == GP_BACKEND_CUDA ? "cuda" : "cpu",
         n);
    if ((rc = open_scene(o, &scene))) goto done;
    for (r = 0; r < n; r++)
        if ((s = gp_dist_renderer_create(&d.dr[r], comm[r], w, h))) {
            rc = failed("gp_dist_renderer_create", s, ctx[r]);
            goto done;
        }
    if ((s = gp_malloc(ctx[0], &d.frame, (size_t)w * (size_t)h * 3))) {
        rc = failed("gp_malloc of the frame", s, ctx[0]);
        goto done;
    }
    if (!(d.rgb = (unsigned char *)malloc((size_t)w * (size_t)h * 3))) {
        fprintf(stderr, "renderer: out of memory for a %dx%d image\n", w, h);
        rc = 1;
        goto done;
    }
    d.scene = scene;
    for (f = 0; f < o->frame_a; f++) gp_scene_advance(scene);
    d.gather = 1;
    if (o->bench) s = gp_comm_run(comm, n, dist_rank, &d); /* warm-up */
    for (i = 0; i < frames && !s; i++) {
        double t0 = now_s();
        if (o->bench) gp_scene_advance(scene);
        d.gather = 0; /* the bands, rendered and synchronized */
        if ((s = gp_comm_run(comm, n, dist_rank, &d))) break;
        render_s += now_s() - t0;
        d.gather = 1; /* again with the gather: the frame delivered on rank 0 */
        t0 = now_s();
        s = gp_comm_run(comm, n, dist_rank, &d);
        gather_s += now_s() - t0;
    }
    if (!s) s = gp_download(ctx[0], d.rgb, d.frame, (size_t)w * (size_t)h * 3);
    if (s) {
        for (r = 1; r < n; r++)
            if (*gp_context_last_error(ctx[r])) fprintf(stderr, "renderer: rank %d: %s\n", r, gp_context_last_error(ctx[r]));
        rc = failed("distributed frame", s, ctx[0]);
        goto done;
    }
    if (o->bench)
        printf("bench: %s %dx%d, %s x %d, %ld frames: %.3f ms per frame (bands, slowest rank); %.3f ms with the 8-bit "
               "gather into rank 0's memory\n",
               o->scene ? o->scene : o->scene_file, w, h, b == GP_BACKEND_CUDA ? "cuda" : "cpu", n, frames,
               1e3 * render_s / (double)frames, 1e3 * gather_s / (double)frames);
    if (o->output || !o->bench) {
        char path[4200];
        if (o->output) snprintf(path, sizeof path, "%s", o->output);
        else snprintf(path, sizeof path, "%s.ppm", o->scene ? o->scene : "scene");
        if ((s = gp_image_write_rgb8(path, d.rgb, w, h))) {
            write_failed(path, s);
            rc = 1;
            goto done;
        }
        if (!o->bench)
            note(stdout, "rendered %dx%d on %d ranks in %.3f ms -> %s\n", w, h, n, 1e3 * (render_s + gather_s), path);
    }
    if (o->check && check_rgb8(scene, d.rgb, w, h, -1)) rc = 1;
    if (o->reference && check_file(o->reference, d.rgb, w, h)) rc = 1;
done:
    for (r = 0; r < n; r++) gp_dist_renderer_destroy(d.dr[r]);
    for (r = 0; r < n; r++) gp_comm_destroy(comm[r]);
    if (ctx[0]) gp_free(ctx[0], d.frame);
    for (r = 0; r < n; r++) gp_context_destroy(ctx[r]);
    gp_scene_destroy(scene);
    free(d.rgb);
    return rc;
}

static int run(const options *o)
{
    progress_line render_progress;
    gp_context *ctx = NULL;
    gp_scene *scene = NULL;
    gp_renderer *rd = NULL;
    gp_backend used = GP_BACKEND_CPU;
    unsigned char *rgb = NULL; /* the frame as written: 8-bit RGB */
    char base[4096], path[4200];
    const char *ext = ".ppm";
    int rc = 0;
    long f;
    gp_status s;
    const int w = o->width, h = o->height;

    if ((s = gp_context_create(&ctx, o->backend, 0))) {
        fprintf(stderr, "renderer: cannot create a %s context: %s%s\n",
                o->backend == GP_BACKEND_CUDA ? "CUDA" : "renderer", gp_status_string(s),
                s == GP_ERROR_NO_DEVICE && !GP_RENDERER_HAVE_CUDA ? " (this build has no CUDA)" : "");
        return 1;
    }
    gp_context_get_backend(ctx, &used);
    if (o->threads && (s = gp_context_set_cpu_threads(ctx, (int)o->threads))) {
        rc = failed("gp_context_set_cpu_threads", s, ctx);
        goto done;
    }
    note(stdout, "backend: %s\n", used == GP_BACKEND_CUDA ? "cuda" : "cpu");

    if ((rc = open_scene(o, &scene))) goto done;
    if (o->output) {
        strip_ext(o->output, base, sizeof base);
        ext = o->output + strlen(o->output) - 4;
    } else if (o->scene) {
        snprintf(base, sizeof base, "%s", o->scene);
    } else {
        const char *slash = strrchr(o->scene_file, '/');
        strip_ext(slash ? slash + 1 : o->scene_file, base, sizeof base);
    }

    rgb = (unsigned char *)malloc((size_t)w * (size_t)h * 3);
    if (!rgb) {
        fprintf(stderr, "renderer: out of memory for a %dx%d image\n", w, h);
        rc = 1;
        goto done;
    }
    if ((s = gp_renderer_create(&rd, ctx, w, h))) {
        rc = failed("gp_renderer_create", s, ctx);
        goto done;
    }
    /* CPU frames at large sizes take seconds: show how far along they are */
    if (!o->bench) gp_renderer_set_progress(rd, progress_start(&render_progress, o, "rendering"), &render_progress);
    for (f = 0; f < o->frame_a; f++) gp_scene_advance(scene);

    if (o->bench) {
        double total = 0;
        long i;
        /* Warm-up: the first frame allocates the renderer's buffers; more
         * frames of the same scene until 40 ms have passed, because for
         * 10-20 ms after large frees (the previous process's, in a bench
         * script) every kernel runs ~11% slower (bench/RESULTS.md). */
        double w0 = now_s();
        do {
            if ((s = gp_renderer_set_scene(rd, scene)) || (s = gp_renderer_render(rd)) ||
                (s = gp_context_synchronize(ctx))) {
                rc = failed("warm-up frame", s, ctx);
                goto done;
            }
        } while (now_s() - w0 < 0.040);
        for (i = 0; i < o->bench; i++) {
            double t0 = now_s();
            gp_scene_advance(scene);
            if ((s = gp_renderer_set_scene(rd, scene)) || (s = gp_renderer_render(rd)) ||
                (s = gp_context_synchronize(ctx))) {
                rc = failed("bench frame", s, ctx);
                goto done;
            }
            total += now_s() - t0;
        }
        printf("bench: %s %dx%d, %s, %ld frames: %.3f ms per frame\n", o->scene ? o->scene : o->scene_file, w, h,
               used == GP_BACKEND_CUDA ? "cuda" : "cpu", o->bench, 1e3 * total / (double)o->bench);
        if (o->check || o->output || o->reference) {
            if ((s = gp_renderer_read_rgb8(rd, rgb))) {
                rc = failed("gp_renderer_read_rgb8", s, ctx);
                goto done;
            }
            if (o->output && (s = gp_image_write_rgb8(o->output, rgb, w, h))) {
                write_failed(o->output, s);
                rc = 1;
                goto done;
            }
            if (o->check) rc = check_rgb8(scene, rgb, w, h, -1);
            if (o->reference && check_file(o->reference, rgb, w, h)) rc = 1;
        }
        goto done;
    }

    for (f = o->frame_a; f < (o->have_frames ? o->frame_b : o->frame_a + 1); f++) {
        double t0 = now_s();
        if (f > o->frame_a) gp_scene_advance(scene);
        render_progress.start = now_s();
        s = gp_renderer_set_scene(rd, scene);
        if (!s) s = gp_renderer_render(rd);
        progress_end(&render_progress);
        if (s || (s = gp_renderer_read_rgb8(rd, rgb))) {
            rc = failed("rendering", s, ctx);
            goto done;
        }
        if (o->have_frames) snprintf(path, sizeof path, "%s_%04ld%s", base, f, ext);
        else snprintf(path, sizeof path, "%s%s", base, ext);
        t0 = now_s() - t0;
        if ((s = gp_image_write_rgb8(path, rgb, w, h))) {
            write_failed(path, s);
            rc = 1;
            goto done;
        }
        /* said only once the file is in place */
        note(stdout, "rendered %dx%d in %.3f ms -> %s\n", w, h, 1e3 * t0, path);
        if (o->check && check_rgb8(scene, rgb, w, h, o->have_frames ? f : -1)) rc = 1;
        if (o->reference && check_file(o->reference, rgb, w, h)) rc = 1;
    }

done:
    free(rgb);
    gp_renderer_destroy(rd);
    gp_scene_destroy(scene);
    gp_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    size_t errlen = cli_error_length(argc, argv);
    char *err = (char *)malloc(errlen);
    int rc;
    if (!err) {
        fprintf(stderr, "renderer: out of memory\n");
        return 1;
    }
    rc = cli_parse_args(argc, argv, &o, err, errlen);
    if (rc == CLI_HELP) {
        free(err);
        cli_usage(stdout);
        return 0;
    }
    if (rc == CLI_VERSION) {
        free(err);
        return print_version();
    }
    if (rc == CLI_BAD) {
        fprintf(stderr, "renderer: %s\n(run 'renderer --help' for the options)\n", err);
        free(err);
        return 2;
    }
    free(err);
    g_opts = &o;
    return o.gpus > 1 ? run_dist(&o) : run(&o);
}
