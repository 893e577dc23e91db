/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.c - throttled progress reports (progress.h). */
#include "progress.h"

#include <time.h>

double gpr_mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void gpr_progress_report(gpr_progress *p, double done, double total)
{
    double now;
    if (!p->fn) return;
    now = gpr_mono_s();
    if (now - p->last < .1 && done < total) return;
    p->last = now;
    p->fn(total > 0 ? done / total : 1.0, p->user);
}
