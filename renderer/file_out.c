/* file_out.c - atomic file replacement (see file_out.h) and the
 * thread's last I/O failure (gp_last_io_error). */
#include "file_out.h"

#include <gpuprim/render.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

gp_status gpr_file_out_open(gpr_file_out *o, const char *path)
{
    static unsigned long counter;
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0, len = strlen(path) + 64;
    struct stat st;
    int fd = -1, tries, mode = 0666;
    memset(o, 0, sizeof o[0]);
    o->path = path;
    if (!(o->tmp = (char *)malloc(len))) {
        gpr_io_error("%s: out of memory", path);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    /* Keep the permissions of a file being replaced (umask applies otherwise). */
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            gpr_io_error("%s: %s", path, strerror(EISDIR));
            free(o->tmp);
            o->tmp = NULL;
            return GP_ERROR_IO;
        }
        mode = (int)(st.st_mode & 07777);
    }
    for (tries = 0; tries < 100 && fd < 0; tries++) {
        unsigned long n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
        snprintf(o->tmp, len, "%.*s.%s.%ld.%lu.tmp", (int)dir_len, path, path + dir_len, (long)getpid(),
                 n ^ ((unsigned long)time(NULL) << 20));
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        gpr_io_error("%s: cannot create a temporary beside it: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return GP_ERROR_IO;
    }
    if (mode != 0666) (void)fchmod(fd, (mode_t)mode);
    if (!(o->f = fdopen(fd, "wb"))) {
        gpr_io_error("%s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return GP_ERROR_IO;
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
    if (!st && !err && rename(o->tmp, o->path) != 0) err = errno;
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
    o->tmp = NULL;
    return st;
}
