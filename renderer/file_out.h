/* file_out.h - files written whole or not at all (never installed).
 *
 * A writer opens a temporary file beside the destination (same directory,
 * so the final rename is atomic on POSIX file systems), writes, and
 * commits: flush, fsync, close, rename over the destination. On any
 * failure the temporary is removed and a file already at the destination
 * is left exactly as it was. Failures record, for gp_last_io_error(), the
 * path and the operating system's reason. */
#ifndef GPUPRIM_FILE_OUT_H
#define GPUPRIM_FILE_OUT_H

#include <gpuprim/gpuprim.h>
#include <stdio.h>

typedef struct gpr_file_out {
    FILE *f;
    const char *path;
    char *tmp; /* the temporary's name */
} gpr_file_out;

/* GP_ERROR_IO (recorded) when the temporary cannot be made. */
gp_status gpr_file_out_open(gpr_file_out *o, const char *path);

/* Finish: when st is GP_SUCCESS and every write went through, the file
 * replaces the destination; else the temporary is removed. Returns st, or
 * GP_ERROR_IO (recorded) when the commit itself fails. `what` names the
 * failing step when st is already an error ("write" for short writes). */
gp_status gpr_file_out_close(gpr_file_out *o, gp_status st);

/* Record the last I/O failure of this thread (printf-style). */
void gpr_io_error(const char *fmt, ...);
void gpr_io_error_clear(void);

#endif
