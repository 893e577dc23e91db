/* SPDX-License-Identifier: BSD-3-Clause */
/* file_out.c - atomic file replacement (see file_out.h), the thread's
 * last I/O failure (gp_last_io_error) and escaping for messages. */
#include "file_out.h"

#include <gpuprim/render.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Symbolic links followed before giving up with ELOOP (Linux's own limit). */
#define MAX_LINKS 40

static _Thread_local char g_io_error[512];

const char *gp_last_io_error(void) { return g_io_error; }

void gpr_io_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_io_error, sizeof g_io_error, fmt, ap);
    va_end(ap);
}

void gpr_io_error_clear(void) { g_io_error[0] = '\0'; }

char *gpr_escape(const char *s, size_t max, char *out, size_t outlen)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, k = 0;
    if (outlen == 0) return out;
    for (i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f) {
            if (k + 1 >= outlen) break;
            out[k++] = (char)c;
        } else {
            if (k + 4 >= outlen) break;
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hex[c >> 4];
            out[k++] = hex[c & 15];
        }
    }
    out[k] = '\0';
    return out;
}

/* Length of the directory part of p, its final '/' included (0: none). */
static size_t dir_len(const char *p)
{
    const char *slash = strrchr(p, '/');
    return slash ? (size_t)(slash - p) + 1 : 0;
}

/* Follow the symbolic links at the end of `path` to the file they name
 * (which need not exist: a dangling link names the file to create). The
 * directories on the way are left to the kernel. 0, or an errno value. */
static int follow_links(const char *path, char **out)
{
    char *cur = strdup(path), *link = NULL;
    int depth, err = 0;
    if (!cur) return ENOMEM;
    for (depth = 0;; depth++) {
        struct stat st;
        ssize_t n;
        size_t d;
        char *next;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) break; /* the end of the chain */
        if (depth == MAX_LINKS) {
            err = ELOOP;
            break;
        }
        if (!link && !(link = (char *)malloc(PATH_MAX + 1))) {
            err = ENOMEM;
            break;
        }
        if ((n = readlink(cur, link, PATH_MAX + 1)) < 0) {
            err = errno;
            break;
        }
        if (n > PATH_MAX || n == 0) {
            err = n ? ENAMETOOLONG : ENOENT;
            break;
        }
        link[n] = '\0';
        /* A relative target is relative to the link's own directory. */
        d = link[0] == '/' ? 0 : dir_len(cur);
        if (!(next = (char *)malloc(d + (size_t)n + 1))) {
            err = ENOMEM;
            break;
        }
        memcpy(next, cur, d);
        memcpy(next + d, link, (size_t)n + 1);
        free(cur);
        cur = next;
    }
    free(link);
    if (err) {
        free(cur);
        return err;
    }
    *out = cur;
    return 0;
}

/* The longest file name the directory `dir` (dir_len bytes of target, or
 * the current directory) accepts. */
static size_t name_max(const char *target, size_t dlen)
{
    char *dir = (char *)malloc(dlen + 2);
    long m = -1;
    if (dir) {
        if (dlen) memcpy(dir, target, dlen);
        else dir[dlen++] = '.';
        dir[dlen] = '\0';
        m = pathconf(dir, _PC_NAME_MAX);
        free(dir);
    }
    return m > 0 ? (size_t)m : (size_t)NAME_MAX;
}

static gp_status open_failed(gpr_file_out *o, gp_status st)
{
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    return st;
}

gp_status gpr_file_out_open(gpr_file_out *o, const char *path)
{
    static unsigned long counter;
    const char *base;
    size_t dlen, base_len, len, max_name;
    struct stat st;
    int fd = -1, tries, mode = 0666, err;
    memset(o, 0, sizeof o[0]);
    o->path = path;
    if ((err = follow_links(path, &o->target))) {
        gpr_io_error("%s: %s", path, strerror(err));
        return err == ENOMEM ? GP_ERROR_OUT_OF_MEMORY : GP_ERROR_IO;
    }
    dlen = dir_len(o->target);
    base = o->target + dlen;
    base_len = strlen(base);
    len = dlen + base_len + 64;
    if (!(o->tmp = (char *)malloc(len))) {
        gpr_io_error("%s: out of memory", path);
        return open_failed(o, GP_ERROR_OUT_OF_MEMORY);
    }
    /* Keep the permissions of a file being replaced (umask applies otherwise). */
    if (stat(o->target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            gpr_io_error("%s: %s", path, strerror(EISDIR));
            return open_failed(o, GP_ERROR_IO);
        }
        mode = (int)(st.st_mode & 07777);
    } else if (errno == ENAMETOOLONG) { /* say so now, before the caller encodes a whole file */
        gpr_io_error("%s: %s", path, strerror(errno));
        return open_failed(o, GP_ERROR_IO);
    }
    max_name = name_max(o->target, dlen);
    for (tries = 0; tries < 100 && fd < 0; tries++) {
        unsigned long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        char suffix[64];
        size_t keep = base_len, sfx;
        /* pid and counter keep the name unique; the time tells apart the
         * leftovers of an earlier process that had the same pid. */
        sfx = (size_t)snprintf(suffix, sizeof suffix, ".%ld.%lu.tmp", (long)getpid(),
                               n ^ ((unsigned long)time(NULL) << 20));
        /* "." + name + suffix within NAME_MAX: shorten the name's copy. */
        if (1 + keep + sfx > max_name) keep = max_name > 1 + sfx ? max_name - 1 - sfx : 0;
        snprintf(o->tmp, len, "%.*s.%.*s%s", (int)dlen, o->target, (int)keep, base, suffix);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        err = errno;
        if (strcmp(o->target, path) != 0)
            gpr_io_error("%s: cannot create a temporary beside its link target %s: %s", path, o->target,
                         strerror(err));
        else
            gpr_io_error("%s: cannot create a temporary beside it: %s", path, strerror(err));
        return open_failed(o, GP_ERROR_IO);
    }
    if (mode != 0666) (void)fchmod(fd, (mode_t)mode);
    if (!(o->f = fdopen(fd, "wb"))) {
        gpr_io_error("%s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return open_failed(o, GP_ERROR_IO);
    }
    return GP_SUCCESS;
}

gp_status gpr_file_out_close(gpr_file_out *o, gp_status st)
{
    int err = 0;
    if (!o->f) return st;
    /* A write error sets the stream's error flag and errno. */
    if (ferror(o->f)) err = errno ? errno : EIO;
    if (!st && !err && fflush(o->f) != 0) err = errno;
    if (!st && !err && fsync(fileno(o->f)) != 0) err = errno;
    if (fclose(o->f) != 0 && !err && !st) err = errno;
    o->f = NULL;
    if (!st && !err && rename(o->tmp, o->target) != 0) err = errno;
    if (st || err) {
        unlink(o->tmp);
        if (err) {
            gpr_io_error("%s: cannot write: %s (nothing was changed)", o->path, strerror(err));
            st = GP_ERROR_IO;
        } else if (!gp_last_io_error()[0]) {
            gpr_io_error("%s: %s (nothing was changed)", o->path, gp_status_string(st));
        }
    }
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    return st;
}
