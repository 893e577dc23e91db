/* SPDX-License-Identifier: BSD-3-Clause */
/* layer.c - the context calls a library layered on gpuprim makes to report
 * through its caller's context as gpuprim's own calls do (gpuprim.h, "for
 * libraries built on gpuprim"). */
#include "internal.h"

#include <stdio.h>

gp_status gp_context_enter(gp_context *ctx) { return gpi_enter(ctx, NULL); }

gp_status gp_context_set_error(gp_context *ctx, gp_status status, const char *fmt, ...)
{
    if (ctx && fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
        va_end(ap);
    }
    return status;
}

gp_status gp_context_get_cpu_threads(const gp_context *ctx, int *threads)
{
    if (gpi_check_context(ctx) || !threads) return GP_ERROR_INVALID_ARGUMENT;
    *threads = gpi_cpu_threads(ctx);
    return GP_SUCCESS;
}

gp_status gp_context_get_device(const gp_context *ctx, int *device)
{
    if (gpi_check_context(ctx) || !device) return GP_ERROR_INVALID_ARGUMENT;
    *device = ctx->backend == GP_BACKEND_CUDA ? ctx->device : -1;
    return GP_SUCCESS;
}
