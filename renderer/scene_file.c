/* SPDX-License-Identifier: BSD-3-Clause */
/* scene_file.c - reading and writing scene files (.par and gpuprim-circles).
 * Files are untrusted: every line is bounded, every number checked, and
 * memory grows with the lines actually read, never with a claimed count. */
#include "file_out.h"
#include "scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 1024 /* longest line accepted (bytes, without the newline) */
#define MAGIC "gpuprim-circles"

typedef struct reader {
    FILE *f;
    const char *path;
    unsigned long line; /* number of the line in buf (1-based) */
    char buf[MAX_LINE + 2];
    char *err;
    size_t errlen;
    int bom_seen; /* the byte-order mark at the start was skipped */
} reader;

/* Text from the file, as messages show it: at most `max` bytes, the
 * non-printable ones escaped (\xHH). Each call site has its own buffer. */
#define SHOWN(text, max, buf) gpr_escape((text), (max), (buf), sizeof(buf))

static gp_status fail(reader *r, gp_status s, const char *fmt, ...)
{
    if (r->err && r->errlen > 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (r->line > 0) snprintf(r->err, r->errlen, "%s:%lu: %s", r->path, r->line, msg);
        else snprintf(r->err, r->errlen, "%s: %s", r->path, msg);
    }
    return s;
}

/* Read one physical line into r->buf (newline stripped). Returns 1 for a
 * line, 0 at end of file, or a negative gp_status on error. */
static int read_line(reader *r, gp_status *st)
{
    size_t len = 0;
    int c;
    for (;;) {
        c = getc(r->f);
        if (c == EOF) break;
        if (c == '\n') break;
        if (len >= MAX_LINE) {
            r->line++;
            *st = fail(r, GP_ERROR_PARSE, "line longer than %d bytes", MAX_LINE);
            return -1;
        }
        if (c == '\0' || (c < 32 && c != '\t' && c != '\r' && c != '\v' && c != '\f') || c == 127) {
            r->line++;
            *st = fail(r, GP_ERROR_PARSE, "unexpected control byte 0x%02x (not a text file?)", c);
            return -1;
        }
        r->buf[len++] = (char)c;
        /* A UTF-8 byte-order mark at the very start of the file (editors on
         * Windows write one) is not content. */
        if (r->line == 0 && len == 3 && memcmp(r->buf, "\xEF\xBB\xBF", 3) == 0 && !r->bom_seen) {
            r->bom_seen = 1;
            len = 0;
        }
    }
    if (c == EOF && ferror(r->f)) {
        r->line++;
        *st = fail(r, GP_ERROR_IO, "read error: %s", strerror(errno));
        return -1;
    }
    if (c == EOF && len == 0) return 0;
    r->buf[len] = '\0';
    r->line++;
    return 1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static char *skip_space(char *p)
{
    while (is_space(*p)) p++;
    return p;
}

/* Next line with content (blank lines and '#' comments skipped). 1, 0 at
 * end of file, -1 on error (status in *st). */
static int next_content(reader *r, gp_status *st, char **text)
{
    for (;;) {
        int got = read_line(r, st);
        char *p;
        if (got <= 0) return got;
        p = skip_space(r->buf);
        if (*p == '\0' || *p == '#') continue;
        *text = p;
        return 1;
    }
}

/* A count: decimal digits only, 1 .. GP_SCENE_MAX_CIRCLES. */
static gp_status parse_count(reader *r, char *p, size_t *n)
{
    unsigned long long v = 0;
    char *q = p;
    char esc[4 * 40 + 1];
    if (*q < '0' || *q > '9')
        return fail(r, GP_ERROR_PARSE, "expected a circle count, found \"%s\"", SHOWN(p, 40, esc));
    while (*q >= '0' && *q <= '9') {
        if (v <= (unsigned long long)GP_SCENE_MAX_CIRCLES) v = v * 10 + (unsigned)(*q - '0');
        q++;
    }
    if (*skip_space(q) != '\0')
        return fail(r, GP_ERROR_PARSE, "unexpected text after the circle count: \"%s\"",
                    SHOWN(skip_space(q), 40, esc));
    if (v == 0) return fail(r, GP_ERROR_PARSE, "the circle count must be at least 1");
    if (v > (unsigned long long)GP_SCENE_MAX_CIRCLES)
        return fail(r, GP_ERROR_PARSE, "circle count larger than the limit of %zu", (size_t)GP_SCENE_MAX_CIRCLES);
    *n = (size_t)v;
    return GP_SUCCESS;
}

/* Exactly 7 finite numbers on the line. */
static gp_status parse_values(reader *r, char *p, float v[7])
{
    char esc[4 * 40 + 1];
    int k;
    for (k = 0; k < 7; k++) {
        char *end;
        p = skip_space(p);
        if (*p == '\0') return fail(r, GP_ERROR_PARSE, "expected 7 numbers, found %d", k);
        errno = 0;
        v[k] = strtof(p, &end);
        if (end == p || (*end != '\0' && !is_space(*end)))
            return fail(r, GP_ERROR_PARSE, "value %d is not a number: \"%s\"", k + 1, SHOWN(p, 40, esc));
        if (!isfinite(v[k]))
            return fail(r, GP_ERROR_PARSE, "value %d is not finite: \"%s\"", k + 1, SHOWN(p, 40, esc));
        p = end;
    }
    p = skip_space(p);
    if (*p != '\0') return fail(r, GP_ERROR_PARSE, "more than 7 values on the line: \"%s\"", SHOWN(p, 40, esc));
    return GP_SUCCESS;
}

typedef struct arrays {
    float *position, *velocity, *color, *radius;
    size_t cap;
} arrays;

static int grow(arrays *a, size_t need)
{
    size_t cap = a->cap ? a->cap : 1024;
    float *p;
    while (cap < need) cap *= 2;
    if (cap == a->cap) return 0;
    if (!(p = (float *)realloc(a->position, cap * 3 * sizeof(float)))) return -1;
    a->position = p;
    if (!(p = (float *)realloc(a->velocity, cap * 3 * sizeof(float)))) return -1;
    a->velocity = p;
    if (!(p = (float *)realloc(a->color, cap * 3 * sizeof(float)))) return -1;
    a->color = p;
    if (!(p = (float *)realloc(a->radius, cap * sizeof(float)))) return -1;
    a->radius = p;
    a->cap = cap;
    return 0;
}

static void free_arrays(arrays *a)
{
    free(a->position);
    free(a->velocity);
    free(a->color);
    free(a->radius);
}

static gp_status load(reader *r, gp_scene **scene)
{
    arrays a = {NULL, NULL, NULL, NULL, 0};
    gp_status st = GP_SUCCESS;
    char *text = NULL;
    int got, par;
    size_t n = 0, i = 0;
    gp_scene *s;

    got = next_content(r, &st, &text);
    if (got < 0) return st;
    if (got == 0) return fail(r, GP_ERROR_PARSE, "empty file (no circle count)");
    par = strncmp(text, MAGIC, strlen(MAGIC)) != 0;
    if (!par) {
        /* The header: the magic word, blanks, the version 1, nothing else. */
        char *p = text + strlen(MAGIC);
        char *q = skip_space(p);
        char esc[4 * 60 + 1];
        if (q == p || q[0] != '1' || *skip_space(q + 1) != '\0')
            return fail(r, GP_ERROR_PARSE, "unsupported header \"%s\" (expected \"" MAGIC " 1\")",
                        SHOWN(text, 60, esc));
        got = next_content(r, &st, &text);
        if (got < 0) return st;
        if (got == 0) return fail(r, GP_ERROR_PARSE, "file ends before the circle count");
    }
    st = parse_count(r, text, &n);
    if (st) return st;

    for (i = 0; i < n; i++) {
        float v[7];
        got = next_content(r, &st, &text);
        if (got < 0) goto out;
        if (got == 0) {
            st = fail(r, GP_ERROR_PARSE, "file ends after %zu of %zu circles", i, n);
            goto out;
        }
        if ((st = parse_values(r, text, v))) goto out;
        if (i >= a.cap && grow(&a, i + 1 < n ? i + 1 : n)) {
            st = fail(r, GP_ERROR_OUT_OF_MEMORY, "out of memory after %zu circles", i);
            goto out;
        }
        a.position[3 * i] = v[0];
        a.position[3 * i + 1] = v[1];
        a.position[3 * i + 2] = v[2];
        if (par) { /* x y z vx vy vz r */
            a.velocity[3 * i] = v[3];
            a.velocity[3 * i + 1] = v[4];
            a.velocity[3 * i + 2] = v[5];
            a.radius[i] = v[6];
            a.color[3 * i] = a.color[3 * i + 1] = a.color[3 * i + 2] = 0.f;
        } else { /* x y z radius r g b */
            a.radius[i] = v[3];
            a.color[3 * i] = v[4];
            a.color[3 * i + 1] = v[5];
            a.color[3 * i + 2] = v[6];
            a.velocity[3 * i] = a.velocity[3 * i + 1] = a.velocity[3 * i + 2] = 0.f;
        }
        if (a.radius[i] < 0.f) {
            st = fail(r, GP_ERROR_PARSE, "negative radius %g", (double)a.radius[i]);
            goto out;
        }
    }
    got = next_content(r, &st, &text);
    if (got < 0) goto out;
    if (got > 0) {
        st = fail(r, GP_ERROR_PARSE, "more circles than the count of %zu", n);
        goto out;
    }
    /* Trim the arrays to the exact size (realloc down never fails in practice;
     * keep the larger block if it does). */
    if (a.cap > n) {
        float *p;
        if ((p = (float *)realloc(a.position, n * 3 * sizeof(float)))) a.position = p;
        if ((p = (float *)realloc(a.velocity, n * 3 * sizeof(float)))) a.velocity = p;
        if ((p = (float *)realloc(a.color, n * 3 * sizeof(float)))) a.color = p;
        if ((p = (float *)realloc(a.radius, n * sizeof(float)))) a.radius = p;
    }
    s = gpr_scene_wrap(n, par, a.position, a.velocity, a.color, a.radius);
    if (!s) {
        r->line = 0;
        st = fail(r, GP_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    *scene = s;
    return GP_SUCCESS;
out:
    free_arrays(&a);
    return st;
}

gp_status gp_scene_load(gp_scene **scene, const char *path, char *errbuf, size_t errlen)
{
    reader *r;
    gp_status st;
    if (errbuf && errlen > 0) errbuf[0] = '\0';
    if (!scene || !path) return GP_ERROR_INVALID_ARGUMENT;
    r = (reader *)calloc(1, sizeof *r);
    if (!r) return GP_ERROR_OUT_OF_MEMORY;
    r->path = path;
    r->err = errbuf;
    r->errlen = errlen;
    r->f = fopen(path, "rb");
    if (!r->f) {
        st = fail(r, GP_ERROR_IO, "cannot open: %s", strerror(errno));
        free(r);
        return st;
    }
    st = load(r, scene);
    fclose(r->f);
    free(r);
    return st;
}

gp_status gp_scene_save(const gp_scene *s, const char *path)
{
    gpr_file_out out;
    FILE *f;
    size_t i;
    int bad = 0;
    gp_status st;
    if (!s || !path || s->n == 0) return GP_ERROR_INVALID_ARGUMENT;
    gpr_io_error_clear();
    /* All or nothing: a failed save leaves any file at `path` as it was. */
    if ((st = gpr_file_out_open(&out, path))) return st;
    f = out.f;
    /* %.9g: nine significant digits bring every float back exactly. */
    if (s->snow) {
        if (fprintf(f, "%zu\n", s->n) < 0) bad = 1;
        for (i = 0; i < s->n && !bad; i++) {
            const float *p = s->position + 3 * i, *v = s->velocity + 3 * i;
            if (fprintf(f, "%.9g %.9g %.9g   %.9g %.9g %.9g   %.9g\n", (double)p[0], (double)p[1], (double)p[2],
                        (double)v[0], (double)v[1], (double)v[2], (double)s->radius[i]) < 0)
                bad = 1;
        }
    } else {
        if (fprintf(f, MAGIC " 1\n%zu\n", s->n) < 0) bad = 1;
        for (i = 0; i < s->n && !bad; i++) {
            const float *p = s->position + 3 * i, *c = s->color + 3 * i;
            if (fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)p[0], (double)p[1], (double)p[2],
                        (double)s->radius[i], (double)c[0], (double)c[1], (double)c[2]) < 0)
                bad = 1;
        }
    }
    return gpr_file_out_close(&out, bad ? GP_ERROR_IO : GP_SUCCESS);
}
