/* SPDX-License-Identifier: BSD-3-Clause */
/* file_out.h - files written whole or not at all (never installed).
 *
 * A writer opens a temporary file beside the destination (same directory,
 * so the final rename is atomic on POSIX file systems), writes, and
 * commits: flush, fsync, close, rename over the destination. On any
 * failure the temporary is removed and a file already at the destination
 * is left exactly as it was. Failures record, for gp_last_io_error(), the
 * path and the operating system's reason.
 *
 * The destination is the end of the path's chain of symbolic links: the
 * temporary goes beside the file a link points to and is renamed over it,
 * so the link itself stays a link. A dangling link is followed too: its
 * target is created when the target's directory exists. The temporary's
 * name is `.<name>.<pid>.<n>.tmp`, with <name> cut short where the whole
 * would pass the directory's NAME_MAX, so every name the file system
 * accepts can be written. */
#ifndef GPUPRIM_FILE_OUT_H
#define GPUPRIM_FILE_OUT_H

#include <gpuprim/gpuprim.h>
#include <stdio.h>

typedef struct gpr_file_out {
    FILE *f;
    const char *path; /* as the caller named it (in messages) */
    char *target;     /* the file replaced: path with its symbolic links followed */
    char *tmp;        /* the temporary's name */
} gpr_file_out;

/* GP_ERROR_IO (recorded) when the temporary cannot be made (a directory at
 * the path, a missing directory, a loop of symbolic links, ...),
 * GP_ERROR_OUT_OF_MEMORY when its name cannot be allocated. */
gp_status gpr_file_out_open(gpr_file_out *o, const char *path);

/* Finish: when st is GP_SUCCESS and every write went through, the file
 * replaces the destination; else the temporary is removed. Returns st, or
 * GP_ERROR_IO (recorded) when the commit itself fails. */
gp_status gpr_file_out_close(gpr_file_out *o, gp_status st);

/* Record the last I/O failure of this thread (printf-style). */
void gpr_io_error(const char *fmt, ...);
void gpr_io_error_clear(void);

/* Copy at most `max` bytes of s into out (outlen bytes, NUL-terminated),
 * each byte outside printable ASCII written as \xHH, so that bytes taken
 * from an untrusted file cannot disturb the terminal a message reaches.
 * Returns out. */
char *gpr_escape(const char *s, size_t max, char *out, size_t outlen);

#endif
