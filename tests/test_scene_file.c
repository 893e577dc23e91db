/* SPDX-License-Identifier: BSD-3-Clause */
/* Scene files: round trips through gp_scene_save / gp_scene_load, and the
 * loader's answers to broken and hostile files (status, and an error
 * message naming the file and the line). */
#include "test_util.h"
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gpuprim_scene_file_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    rmdir(dir);
    return 0;
}

static void path_of(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", dir, name); }

static void write_text(const char *path, const char *text) { gpt_write_file(path, text, strlen(text)); }

static void same_scenes(const gp_scene *a, const gp_scene *b)
{
    size_t i, na = 0, nb = 0;
    gp_scene_count(a, &na);
    gp_scene_count(b, &nb);
    assert_int_equal(na, nb);
    for (i = 0; i < na; i++) {
        gp_circle x, y;
        gp_scene_get_circle(a, i, &x);
        gp_scene_get_circle(b, i, &y);
        if (a->snow) x.r = x.g = x.b = y.r = y.g = y.b = 0.f;
        if (memcmp(&x, &y, sizeof x) != 0) fail_msg("circle %zu differs after the round trip", i);
    }
}

static void round_trip_gpuprim(void **state)
{
    gp_scene *s, *t = NULL;
    char p[128], err[256];
    int snow = -1;
    (void)state;
    path_of(p, sizeof p, "rand10k.txt");
    assert_int_equal(gp_scene_create(&s, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_scene_save(s, p), GP_SUCCESS);
    assert_int_equal(gp_scene_load(&t, p, err, sizeof err), GP_SUCCESS);
    assert_string_equal(err, "");
    gp_scene_is_snow(t, &snow);
    assert_int_equal(snow, 0);
    same_scenes(s, t);
    gp_scene_destroy(s);
    gp_scene_destroy(t);
    unlink(p);
}

static void round_trip_par(void **state)
{
    gp_scene *s, *t = NULL;
    char p[128], err[256];
    int snow = -1;
    size_t i;
    (void)state;
    path_of(p, sizeof p, "snow.par");
    assert_int_equal(gp_scene_create(&s, "snow", 3), GP_SUCCESS);
    assert_int_equal(gp_scene_save(s, p), GP_SUCCESS);
    assert_int_equal(gp_scene_load(&t, p, err, sizeof err), GP_SUCCESS);
    gp_scene_is_snow(t, &snow);
    assert_int_equal(snow, 1);
    same_scenes(s, t);
    for (i = 0; i < 3 * s->n; i++) assert_true(s->velocity[i] == t->velocity[i]);
    gp_scene_destroy(s);
    gp_scene_destroy(t);
    unlink(p);
}

static void good_files(void **state)
{
    static const struct {
        const char *text;
        size_t n;
        int snow;
        float x0, rad0, last_b;
    } good[] = {
        {"2\n0.5 0.5 1.0   0 0 0   0.25\n.1 .2 .3 .4 .5 .6 .7\n", 2, 1, .5f, .25f, 0.f},
        {"# a comment\n\n  2\r\n# another\n0.5 0.5 1   0 0 0 0.25\r\n\n.1 .2 .3 .4 .5 .6 .7", 2, 1, .5f, .25f, 0.f},
        {"gpuprim-circles 1\n1\n0.5 0.25 0.75 0.125 1 0 0.5\n", 1, 0, .5f, .125f, .5f},
        {"# made by hand\ngpuprim-circles  1  \n\n3\n1e-1 2E-1 0 0 0 0 0\n0 0 0 1 0 0 0\n-1 -1 -1 +0.5 1 1 1\n", 3, 0, .1f,
         0.f, 1.f},
    };
    size_t k;
    (void)state;
    for (k = 0; k < sizeof good / sizeof good[0]; k++) {
        gp_scene *s = NULL;
        char p[128], err[256];
        gp_circle c;
        size_t n = 0;
        int snow = -1;
        path_of(p, sizeof p, "good.txt");
        write_text(p, good[k].text);
        if (gp_scene_load(&s, p, err, sizeof err) != GP_SUCCESS) fail_msg("good file %zu rejected: %s", k, err);
        gp_scene_count(s, &n);
        gp_scene_is_snow(s, &snow);
        assert_int_equal(n, good[k].n);
        assert_int_equal(snow, good[k].snow);
        gp_scene_get_circle(s, 0, &c);
        assert_true(c.x == good[k].x0);
        assert_true(c.radius == good[k].rad0);
        gp_scene_get_circle(s, n - 1, &c);
        assert_true(c.b == good[k].last_b);
        gp_scene_destroy(s);
        unlink(p);
    }
}

typedef struct bad_case {
    const char *what;
    const char *text; /* NULL: use data/len */
    const char *data;
    size_t len;
    gp_status status;
    const char *line; /* ":N:" expected in the message, or NULL */
} bad_case;

static void bad_files(void **state)
{
    static const char binary[] = "2\n\x7f" "ELF\x02\x01\x01\0\0\0 garbage\xff\xfe\n";
    static const bad_case cases[] = {
        {"empty", "", NULL, 0, GP_ERROR_PARSE, NULL},
        {"only comments", "# nothing\n\n", NULL, 0, GP_ERROR_PARSE, NULL},
        {"non-numeric count", "abc\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"negative count", "-3\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"zero count", "0\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"count with garbage", "2 x\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"non-numeric value", "1\n0.5 0.5 abc 0 0 0 0.1\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"truncated line", "1\n0.5 0.5 1 0 0\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"too few lines", "3\n0 0 0 0 0 0 .1\n0 0 0 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":3:"},
        {"extra lines", "1\n0 0 0 0 0 0 .1\n0 0 0 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":3:"},
        {"too many values", "1\n0 0 0 0 0 0 .1 7\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"trailing garbage", "1\n0 0 0 0 0 0 .1x\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"huge claimed count", "268435456\n0 0 0 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"count over the limit", "268435457\n0 0 0 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"absurd count", "99999999999999999999999999\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"nan", "1\n0 nan 0 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"inf", "1\n0 0 0 0 0 0 inf\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"overflowing float", "1\n0 0 1e99 0 0 0 .1\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"negative radius (par)", "1\n0 0 0 0 0 0 -.1\n", NULL, 0, GP_ERROR_PARSE, ":2:"},
        {"negative radius (gpuprim)", "gpuprim-circles 1\n1\n0 0 0 -1 0 0 0\n", NULL, 0, GP_ERROR_PARSE, ":3:"},
        {"bad version", "gpuprim-circles 2\n1\n0 0 0 1 0 0 0\n", NULL, 0, GP_ERROR_PARSE, ":1:"},
        {"header only", "gpuprim-circles 1\n", NULL, 0, GP_ERROR_PARSE, NULL},
        {"binary garbage", NULL, binary, sizeof binary - 1, GP_ERROR_PARSE, ":2:"},
        {"NUL in a number line", NULL, "1\n0 0 0 0 0 0 .1\0 5\n", 20, GP_ERROR_PARSE, ":2:"},
    };
    size_t k;
    (void)state;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gp_scene *s = (gp_scene *)0x1;
        char p[128], err[256];
        gp_status st;
        path_of(p, sizeof p, "bad.txt");
        if (cases[k].text) write_text(p, cases[k].text);
        else gpt_write_file(p, cases[k].data, cases[k].len);
        memset(err, 'z', sizeof err);
        st = gp_scene_load(&s, p, err, sizeof err);
        if (st != cases[k].status)
            fail_msg("%s: got %s, expected %s (%s)", cases[k].what, gp_status_string(st),
                     gp_status_string(cases[k].status), err);
        assert_ptr_equal(s, (gp_scene *)0x1);
        assert_non_null(memchr(err, '\0', sizeof err));
        if (!strstr(err, p)) fail_msg("%s: message does not name the file: %s", cases[k].what, err);
        if (cases[k].line && !strstr(err, cases[k].line))
            fail_msg("%s: message does not name line %s: %s", cases[k].what, cases[k].line, err);
        unlink(p);
    }
}

static void overlong_line(void **state)
{
    char p[128], err[256];
    char *text = (char *)gpt_malloc(200000);
    gp_scene *s = NULL;
    size_t i;
    (void)state;
    path_of(p, sizeof p, "long.txt");
    strcpy(text, "1\n");
    for (i = 2; i < 150000; i++) text[i] = '1';
    text[i] = '\0';
    write_text(p, text);
    assert_int_equal(gp_scene_load(&s, p, err, sizeof err), GP_ERROR_PARSE);
    assert_non_null(strstr(err, ":2:"));
    assert_non_null(strstr(err, "long"));
    free(text);
    unlink(p);
}

static void missing_file_and_arguments(void **state)
{
    gp_scene *s = (gp_scene *)0x1;
    char err[256], tiny[8], p[128];
    (void)state;
    path_of(p, sizeof p, "does-not-exist.par");
    assert_int_equal(gp_scene_load(&s, p, err, sizeof err), GP_ERROR_IO);
    assert_non_null(strstr(err, p));
    assert_ptr_equal(s, (gp_scene *)0x1);
    /* A short errbuf is truncated, still terminated; NULL errbuf is fine. */
    assert_int_equal(gp_scene_load(&s, p, tiny, sizeof tiny), GP_ERROR_IO);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_int_equal(gp_scene_load(&s, p, NULL, 0), GP_ERROR_IO);
    assert_int_equal(gp_scene_load(&s, NULL, err, sizeof err), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scene_load(NULL, p, err, sizeof err), GP_ERROR_INVALID_ARGUMENT);
    /* A directory opens but cannot be read as a file. */
    assert_true(gp_scene_load(&s, dir, err, sizeof err) != GP_SUCCESS);
    assert_int_equal(gp_scene_save(NULL, p), GP_ERROR_INVALID_ARGUMENT);
    {
        gp_scene *t;
        assert_int_equal(gp_scene_create(&t, "rgb", 0), GP_SUCCESS);
        assert_int_equal(gp_scene_save(t, NULL), GP_ERROR_INVALID_ARGUMENT);
        assert_int_equal(gp_scene_save(t, "/nonexistent-dir/x.txt"), GP_ERROR_IO);
        gp_scene_destroy(t);
    }
}

static void course_snow_par(void **state)
{
    const char *path = GP_SOURCE_DIR "/../shared/data/snow.par";
    gp_scene *s = NULL;
    char err[512];
    size_t n = 0;
    int snow = 0;
    gp_circle c;
    (void)state;
    if (access(path, R_OK) != 0) {
        print_message("SKIPPED: %s not present\n", path);
        skip();
    }
    if (gp_scene_load(&s, path, err, sizeof err) != GP_SUCCESS) fail_msg("snow.par: %s", err);
    gp_scene_count(s, &n);
    gp_scene_is_snow(s, &snow);
    assert_int_equal(n, 100000);
    assert_int_equal(snow, 1);
    gp_scene_get_circle(s, 0, &c);
    assert_true(c.x == 0.188366f && c.y == 1.357500f && c.z == 1.f && c.radius == 0.0075f);
    assert_true(s->velocity[0] == -1.392330f);
    gp_scene_destroy(s);
}

/* Inputs the fuzzer (tests/fuzz/fuzz_scene_file.c) found: each loads, and
 * the reference and the CPU tile renderer draw it without undefined
 * behaviour (the sanitize preset watches) and agree float for float. */
static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

static void fuzz_findings(void **state)
{
    static const struct {
        const char *what, *text;
    } cases[] = {
        /* A snow circle of radius 0 exactly on a pixel centre: 0/0 in the
         * shading's colour-ramp index, converted to int (undefined). */
        {"zero radius on a pixel centre", "1\n0.0625 0.0625 0.5 0 0 0 0\n"},
        /* A radius whose square overflows: inf in the same conversion. */
        {"radius squared overflows", "1\n3e38 0.5 0.5 0 0 0 3e38\n"},
        /* No circle in any tile: the tile renderer offset a NULL bin list. */
        {"nothing on screen", "1\n1e34 0.5 0.5 0 0 0 0.1\n"},
        {"nothing on screen (circles)", "gpuprim-circles 1\n1\n-5 -5 0 0.5 1 0 0\n"},
    };
    size_t k, i;
    (void)state;
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        static const int sizes[][2] = {{8, 8}, {70, 20}};
        gp_scene *s = NULL;
        char p[128], err[256];
        int z;
        path_of(p, sizeof p, "fuzz.txt");
        write_text(p, cases[k].text);
        if (gp_scene_load(&s, p, err, sizeof err) != GP_SUCCESS) fail_msg("%s: %s", cases[k].what, err);
        for (z = 0; z < 2; z++) {
            const int w = sizes[z][0], h = sizes[z][1];
            const size_t n = (size_t)w * (size_t)h * 4;
            float *ref = (float *)gpt_malloc(n * sizeof(float)), *img = (float *)gpt_malloc(n * sizeof(float));
            gp_context *ctx = NULL;
            assert_int_equal(gp_render_reference(s, w, h, ref), GP_SUCCESS);
            assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
            assert_int_equal(gp_render(ctx, s, w, h, img), GP_SUCCESS);
            for (i = 0; i < n; i++)
                if (!same_float(ref[i], img[i]))
                    fail_msg("%s, %dx%d: float %zu is %g on the tile renderer, %g on the reference", cases[k].what, w,
                             h, i, (double)img[i], (double)ref[i]);
            gp_context_destroy(ctx);
            free(ref);
            free(img);
        }
        gp_scene_destroy(s);
        unlink(p);
    }
}


/* A UTF-8 byte-order mark at the start of a file is skipped (only there,
 * and only one); bytes quoted from the file in a message are escaped. */
static void byte_order_mark_and_escaped_messages(void **state)
{
    static const char *good[] = {
        "\xEF\xBB\xBF" "2\n0.5 0.5 1 0 0 0 0.25\n.1 .2 .3 .4 .5 .6 .7\n",
        "\xEF\xBB\xBF" "gpuprim-circles 1\n1\n0.5 0.25 0.75 0.125 1 0 0.5\n",
        "\xEF\xBB\xBF" "# a comment first\n1\n0.5 0.5 1 0 0 0 0.25\n",
        "\xEF\xBB\xBF\n1\n0.5 0.5 1 0 0 0 0.25\n",
    };
    static const struct {
        const char *text, *shown; /* the message must contain `shown` and no raw byte >= 0x80 */
    } bad[] = {
        {"\xEF\xBB\xBF\xEF\xBB\xBF" "1\n0 0 0 0 0 0 .1\n", "\\xef\\xbb\\xbf1"},           /* a second mark */
        {"1\n\xEF\xBB\xBF" "0 0 0 0 0 0 .1\n", "\\xef\\xbb\\xbf0"},                       /* not at the start */
        {"1\n0 0 \x9b" "31m 0 0 0 0 .1\n", "\\x9b31m"},                                     /* a C1 terminal escape */
        {"gpuprim-circles 1\n1\n0 0 0 1 0 0 \xc3\xa9\n", "\\xc3\\xa9"},                     /* UTF-8 text */
        {"gpuprim-circles \x9b" "1\n1\n0 0 0 1 0 0 0\n", "gpuprim-circles \\x9b1"},          /* a C1 control */
        {"2 \x7f\n", NULL},                                                                  /* DEL: refused as a control byte */
    };
    size_t k, i;
    (void)state;
    for (k = 0; k < sizeof good / sizeof good[0]; k++) {
        gp_scene *sc = NULL, *plain = NULL;
        char p[128], err[256];
        gp_circle a, b;
        size_t n = 0, m = 0;
        path_of(p, sizeof p, "bom.txt");
        write_text(p, good[k]);
        if (gp_scene_load(&sc, p, err, sizeof err) != GP_SUCCESS) fail_msg("file %zu with a BOM: %s", k, err);
        write_text(p, good[k] + 3); /* the same without the mark */
        assert_int_equal(gp_scene_load(&plain, p, err, sizeof err), GP_SUCCESS);
        gp_scene_count(sc, &n);
        gp_scene_count(plain, &m);
        assert_int_equal(n, m);
        for (i = 0; i < n; i++) {
            gp_scene_get_circle(sc, i, &a);
            gp_scene_get_circle(plain, i, &b);
            assert_memory_equal(&a, &b, sizeof a);
        }
        gp_scene_destroy(sc);
        gp_scene_destroy(plain);
        unlink(p);
    }
    for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        gp_scene *sc = (gp_scene *)0x1;
        char p[128], err[256];
        path_of(p, sizeof p, "bom.txt");
        write_text(p, bad[k].text);
        assert_int_equal(gp_scene_load(&sc, p, err, sizeof err), GP_ERROR_PARSE);
        assert_ptr_equal(sc, (gp_scene *)0x1);
        for (i = 0; err[i]; i++)
            if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] >= 0x7f)
                fail_msg("case %zu: byte 0x%02x unescaped in \"%s\"", k, (unsigned char)err[i], err);
        if (bad[k].shown && !strstr(err, bad[k].shown)) fail_msg("case %zu: %s", k, err);
        unlink(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_gpuprim), cmocka_unit_test(round_trip_par),
        cmocka_unit_test(good_files),         cmocka_unit_test(bad_files),
        cmocka_unit_test(overlong_line),      cmocka_unit_test(missing_file_and_arguments),
        cmocka_unit_test(course_snow_par),    cmocka_unit_test(fuzz_findings),
        cmocka_unit_test(byte_order_mark_and_escaped_messages),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
