/* SPDX-License-Identifier: BSD-3-Clause */
/* status.c - version queries, status messages and small shared checks. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

unsigned gp_version_number(void) { return GP_VERSION_NUMBER; }
const char *gp_version_string(void) { return GP_VERSION_STRING; }

const char *gp_status_string(gp_status status)
{
    switch (status) {
    case GP_SUCCESS: return "success";
    case GP_ERROR_INVALID_ARGUMENT: return "invalid argument (NULL pointer, unknown enum value or bad shape)";
    case GP_ERROR_SIZE_OVERFLOW: return "size overflow (a byte count or index does not fit)";
    case GP_ERROR_OVERLAP: return "input and output buffers overlap where that is not allowed";
    case GP_ERROR_WRONG_MEMORY: return "pointer is not memory the backend can use (host memory given to the CUDA backend?)";
    case GP_ERROR_UNSUPPORTED: return "this type/operator combination is not supported";
    case GP_ERROR_NO_DEVICE: return "no CUDA driver or no CUDA device";
    case GP_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GP_ERROR_CUDA: return "CUDA runtime error";
    case GP_ERROR_IO: return "file I/O error";
    case GP_ERROR_PARSE: return "malformed input file";
    case GP_ERROR_INTERNAL: return "internal error in gpuprim";
    case GP_ERROR_COMM: return "communicator failure (NCCL error, or another rank failed)";
    case GP_ERROR_TIMEOUT: return "a collective did not complete in time (the communicator is aborted)";
    case GP_ERROR_NO_NCCL: return "NCCL could not be loaded (libnccl.so.2; see GP_NCCL_LIBRARY)";
    }
    return "unknown status code";
}

size_t gp_dtype_size(gp_dtype dtype)
{
    switch (dtype) {
    case GP_INT32: case GP_UINT32: case GP_FLOAT32: return 4;
    case GP_INT64: case GP_UINT64: case GP_FLOAT64: return 8;
    }
    return 0;
}

int gpi_valid_dtype(gp_dtype dtype) { return gp_dtype_size(dtype) != 0; }
int gpi_valid_op(gp_op op) { return op == GP_OP_SUM || op == GP_OP_MIN || op == GP_OP_MAX; }

gp_status gpi_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return GP_ERROR_SIZE_OVERFLOW;
    *out = a * b;
    return GP_SUCCESS;
}

int gpi_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    if (a_bytes == 0 || b_bytes == 0) return 0;
    return pa < pb + b_bytes && pb < pa + a_bytes;
}

gp_status gpi_error(gp_context *ctx, gp_status status, const char *fmt, ...)
{
    if (ctx) {
        char msg[sizeof ctx->last_error]; /* formatted apart: an argument may be the last detail */
        const size_t len = ctx->call ? strlen(ctx->call) : 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (!ctx->call || (strncmp(msg, ctx->call, len) == 0 && msg[len] == ':'))
            memcpy(ctx->last_error, msg, sizeof msg);
        else if (snprintf(ctx->last_error, sizeof ctx->last_error, "%s: %s", ctx->call, msg) < 0)
            ctx->last_error[0] = '\0'; /* (a long detail is cut short, which is fine) */
    }
    return status;
}

void gpi_clear_error(gp_context *ctx)
{
    if (ctx) ctx->last_error[0] = '\0';
}

const char *gp_context_last_error(const gp_context *ctx) { return ctx ? ctx->last_error : ""; }
