/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.h - progress reports of long CPU renders (gp_progress_fn), shared
 * by the reference and the CPU tile renderer (never installed). */
#ifndef GPUPRIM_RENDER_PROGRESS_H
#define GPUPRIM_RENDER_PROGRESS_H

#include <gpuprim/render.h>

/* Calls fn with done/total at most every 100 ms (not at all when fn is NULL). */
typedef struct gpr_progress {
    gp_progress_fn fn;
    void *user;
    double last; /* gpr_mono_s of the last report */
} gpr_progress;

/* Seconds on the monotonic clock. */
double gpr_mono_s(void);

/* Report done/total through p->fn unless the last report is under 100 ms
 * old (the final one, done >= total, always goes). */
void gpr_progress_report(gpr_progress *p, double done, double total);

#endif
