/* renderer - the gpuprim circle renderer's command line.
 * Exit codes: 0 success, 1 runtime failure (or --check found a pixel more
 * than one 8-bit level off), 2 a wrong argument. */
#define _POSIX_C_SOURCE 200809L
#include <gpuprim/gpuprim.h>
#include <gpuprim/render.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const scene_names[] = {"rgb", "rgby", "rand10k", "rand100k", "rand1M", "micro2M",
                                          "biglittle", "littlebig", "pattern", "snow", "bouncingballs",
                                          "hypnosis", "fireworks"};

static void usage(FILE *f)
{
    size_t i;
    fprintf(f,
            "usage: renderer (--scene NAME | --scene-file PATH) [options]\n"
            "  --scene NAME        one of:");
    for (i = 0; i < sizeof scene_names / sizeof scene_names[0]; i++) fprintf(f, " %s", scene_names[i]);
    fprintf(f,
            "\n"
            "  --scene-file PATH   a .par file (snow) or a \"gpuprim-circles 1\" file\n"
            "  --size N | WxH      image size in pixels (default 1024)\n"
            "  --seed S            random seed of generated scenes (default 0)\n"
            "  --output PATH       .ppm or .png (default <scene>.ppm)\n"
            "  --frames A:B        advance to frame A, render frames A..B-1 to <base>_<frame>.<ext>\n"
            "  --backend B         auto (GPU when present, else CPU), cuda or cpu (default auto)\n"
            "  --threads N         CPU threads (default: one per processor)\n"
            "  --check             also render with the single-threaded reference and compare;\n"
            "                      exit 1 if any pixel differs by more than one 8-bit level\n"
            "  --bench N           time N frames (clear + advance + render, synchronized);\n"
            "                      print the mean milliseconds per frame\n"
            "  --help              this text\n");
}

static int bad_arg(const char *fmt, const char *what)
{
    fprintf(stderr, "renderer: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(run 'renderer --help' for the options)\n");
    return 2;
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

typedef struct options {
    const char *scene, *scene_file, *output;
    int width, height;
    unsigned seed;
    long frame_a, frame_b;
    int have_frames;
    gp_backend backend;
    long threads;
    int check;
    long bench;
} options;

static int parse_args(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->width = o->height = 1024;
    o->backend = GP_BACKEND_AUTO;
    o->threads = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) return bad_arg("unexpected argument '%s'", a);
        if (strcmp(a, "--scene") && strcmp(a, "--scene-file") && strcmp(a, "--size") && strcmp(a, "--seed") &&
            strcmp(a, "--output") && strcmp(a, "--frames") && strcmp(a, "--backend") && strcmp(a, "--threads") &&
            strcmp(a, "--bench"))
            return bad_arg("unknown option '%s'", a);
        if (!v) return bad_arg("option '%s' needs a value", a);
        i++;
        if (!strcmp(a, "--scene")) {
            size_t k, known = 0;
            for (k = 0; k < sizeof scene_names / sizeof scene_names[0]; k++)
                if (!strcmp(v, scene_names[k])) known = 1;
            if (!known) return bad_arg("unknown scene '%s'", v);
            o->scene = v;
        } else if (!strcmp(a, "--scene-file")) {
            o->scene_file = v;
        } else if (!strcmp(a, "--size")) {
            const char *x = strchr(v, 'x');
            long w, h;
            if (x) {
                char buf[32];
                size_t len = (size_t)(x - v);
                if (len == 0 || len >= sizeof buf) return bad_arg("bad --size '%s' (want N or WxH)", v);
                memcpy(buf, v, len);
                buf[len] = '\0';
                if (parse_int(buf, 1, GP_RENDER_MAX_SIDE, &w) || parse_int(x + 1, 1, GP_RENDER_MAX_SIDE, &h))
                    return bad_arg("bad --size '%s' (want N or WxH, each 1..16384)", v);
            } else {
                if (parse_int(v, 1, GP_RENDER_MAX_SIDE, &w)) return bad_arg("bad --size '%s' (want 1..16384)", v);
                h = w;
            }
            o->width = (int)w;
            o->height = (int)h;
        } else if (!strcmp(a, "--seed")) {
            if (parse_int(v, 0, (long)UINT_MAX < LONG_MAX ? (long)UINT_MAX : LONG_MAX, &n))
                return bad_arg("bad --seed '%s' (want 0..4294967295)", v);
            o->seed = (unsigned)n;
        } else if (!strcmp(a, "--output")) {
            size_t len = strlen(v);
            if (len < 5 || (strcmp(v + len - 4, ".ppm") && strcmp(v + len - 4, ".png")))
                return bad_arg("bad --output '%s' (want a .ppm or .png path)", v);
            o->output = v;
        } else if (!strcmp(a, "--frames")) {
            const char *c = strchr(v, ':');
            char buf[32];
            size_t len = c ? (size_t)(c - v) : 0;
            if (!c || len == 0 || len >= sizeof buf) return bad_arg("bad --frames '%s' (want A:B)", v);
            memcpy(buf, v, len);
            buf[len] = '\0';
            if (parse_int(buf, 0, 1000000, &o->frame_a) || parse_int(c + 1, 0, 1000000, &o->frame_b) ||
                o->frame_b <= o->frame_a)
                return bad_arg("bad --frames '%s' (want A:B with 0 <= A < B <= 1000000)", v);
            o->have_frames = 1;
        } else if (!strcmp(a, "--backend")) {
            if (!strcmp(v, "auto")) o->backend = GP_BACKEND_AUTO;
            else if (!strcmp(v, "cuda")) o->backend = GP_BACKEND_CUDA;
            else if (!strcmp(v, "cpu")) o->backend = GP_BACKEND_CPU;
            else return bad_arg("bad --backend '%s' (want auto, cuda or cpu)", v);
        } else if (!strcmp(a, "--threads")) {
            if (parse_int(v, 1, 256, &o->threads)) return bad_arg("bad --threads '%s' (want 1..256)", v);
        } else if (!strcmp(a, "--bench")) {
            if (parse_int(v, 1, 100000, &o->bench)) return bad_arg("bad --bench '%s' (want 1..100000)", v);
        }
    }
    if (!o->scene == !o->scene_file) return bad_arg("%s", "give exactly one of --scene NAME or --scene-file PATH");
    if (o->bench && o->have_frames) return bad_arg("%s", "--bench and --frames do not go together");
    return 0;
}

/* "<dir>/name.ext" -> "name" part with directory, without the extension. */
static void strip_ext(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    snprintf(out, len, "%s", path);
    if (dot && (!slash || dot > slash) && (size_t)(dot - path) < len) out[dot - path] = '\0';
}

/* Compare the image with the single-threaded reference; 1 if it fails. */
static int check_image(const gp_scene *scene, const float *img, int w, int h, long frame)
{
    size_t n = (size_t)w * (size_t)h * 4, differing = 0, count = 0;
    float *ref = (float *)malloc(n * sizeof(float));
    int max_diff = 0;
    double t0;
    gp_status s;
    if (!ref) {
        fprintf(stderr, "renderer: out of memory for the reference image\n");
        return 1;
    }
    gp_scene_count(scene, &count);
    fprintf(stderr, "check: reference render (one thread, %zu circles, %dx%d)...\n", count, w, h);
    t0 = now_s();
    s = gp_render_reference(scene, w, h, ref);
    if (s) {
        free(ref);
        return failed("gp_render_reference", s, NULL);
    }
    fprintf(stderr, "check: reference took %.3f s\n", now_s() - t0);
    gp_image_compare(img, ref, w, h, &max_diff, &differing);
    free(ref);
    if (frame >= 0) printf("check frame %ld: ", frame);
    else printf("check: ");
    printf("max per-channel difference %d (8-bit levels), %zu differing pixels: %s\n", max_diff, differing,
           max_diff <= 1 ? "OK" : "FAIL");
    return max_diff > 1;
}

static int run(const options *o)
{
    gp_context *ctx = NULL;
    gp_scene *scene = NULL;
    gp_renderer *rd = NULL;
    gp_backend used = GP_BACKEND_CPU;
    float *img = NULL;
    char base[4096], errbuf[512], path[4200];
    const char *ext = ".ppm";
    int rc = 0;
    long f;
    gp_status s;
    const int w = o->width, h = o->height;

    if ((s = gp_context_create(&ctx, o->backend, 0))) {
        fprintf(stderr, "renderer: cannot create a %s context: %s\n",
                o->backend == GP_BACKEND_CUDA ? "CUDA" : "renderer", gp_status_string(s));
        return 1;
    }
    gp_context_get_backend(ctx, &used);
    if (o->threads && (s = gp_context_set_cpu_threads(ctx, (int)o->threads))) {
        rc = failed("gp_context_set_cpu_threads", s, ctx);
        goto done;
    }
    printf("backend: %s\n", used == GP_BACKEND_CUDA ? "cuda" : "cpu");

    if (o->scene) {
        s = gp_scene_create(&scene, o->scene, o->seed);
        if (s) {
            rc = failed("gp_scene_create", s, ctx);
            goto done;
        }
    } else {
        errbuf[0] = '\0';
        s = gp_scene_load(&scene, o->scene_file, errbuf, sizeof errbuf);
        if (s) {
            fprintf(stderr, "renderer: cannot load the scene: %s: %s\n", gp_status_string(s),
                    errbuf[0] ? errbuf : o->scene_file);
            rc = 1;
            goto done;
        }
    }
    if (o->output) {
        strip_ext(o->output, base, sizeof base);
        ext = o->output + strlen(o->output) - 4;
    } else if (o->scene) {
        snprintf(base, sizeof base, "%s", o->scene);
    } else {
        const char *slash = strrchr(o->scene_file, '/');
        strip_ext(slash ? slash + 1 : o->scene_file, base, sizeof base);
    }

    img = (float *)malloc((size_t)w * (size_t)h * 4 * sizeof(float));
    if (!img) {
        fprintf(stderr, "renderer: out of memory for a %dx%d image\n", w, h);
        rc = 1;
        goto done;
    }
    if ((s = gp_renderer_create(&rd, ctx, w, h))) {
        rc = failed("gp_renderer_create", s, ctx);
        goto done;
    }
    for (f = 0; f < o->frame_a; f++) gp_scene_advance(scene);

    if (o->bench) {
        double total = 0;
        long i;
        /* Warm-up: the first frame allocates the renderer's buffers. */
        if ((s = gp_renderer_set_scene(rd, scene)) || (s = gp_renderer_render(rd)) ||
            (s = gp_context_synchronize(ctx))) {
            rc = failed("warm-up frame", s, ctx);
            goto done;
        }
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
        if (o->check || o->output) {
            if ((s = gp_renderer_read_image(rd, img))) {
                rc = failed("gp_renderer_read_image", s, ctx);
                goto done;
            }
            if (o->output && (s = gp_image_write(o->output, img, w, h))) {
                fprintf(stderr, "renderer: cannot write %s: %s\n", o->output, gp_status_string(s));
                rc = 1;
                goto done;
            }
            if (o->check) rc = check_image(scene, img, w, h, -1);
        }
        goto done;
    }

    for (f = o->frame_a; f < (o->have_frames ? o->frame_b : o->frame_a + 1); f++) {
        double t0 = now_s();
        if (f > o->frame_a) gp_scene_advance(scene);
        if ((s = gp_renderer_set_scene(rd, scene)) || (s = gp_renderer_render(rd)) ||
            (s = gp_renderer_read_image(rd, img))) {
            rc = failed("rendering", s, ctx);
            goto done;
        }
        if (o->have_frames) snprintf(path, sizeof path, "%s_%04ld%s", base, f, ext);
        else snprintf(path, sizeof path, "%s%s", base, ext);
        printf("rendered %dx%d in %.3f ms -> %s\n", w, h, 1e3 * (now_s() - t0), path);
        if ((s = gp_image_write(path, img, w, h))) {
            fprintf(stderr, "renderer: cannot write %s: %s\n", path, gp_status_string(s));
            rc = 1;
            goto done;
        }
        if (o->check && check_image(scene, img, w, h, o->have_frames ? f : -1)) rc = 1;
    }

done:
    free(img);
    gp_renderer_destroy(rd);
    gp_scene_destroy(scene);
    gp_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    return run(&o);
}
