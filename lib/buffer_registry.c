/* SPDX-License-Identifier: BSD-3-Clause */
/* buffer_registry.c - the device buffers a CUDA context allocated with
 * gp_malloc and has not yet freed. A call's pointer check accepts a range
 * inside one of them without asking the driver: cudaPointerGetAttributes
 * costs about a microsecond a buffer, and a short call checks two or three.
 * The ranges are kept sorted by start, so a lookup is a binary search. A
 * buffer that cannot be recorded (no memory for the list) is checked the
 * slow way, as memory from elsewhere is. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct gpi_buffer_range {
    uintptr_t begin, end; /* [begin, end) */
};

/* Index of the first range starting after p (0..count). */
static size_t first_after(const gp_context *ctx, uintptr_t p)
{
    size_t lo = 0, hi = ctx->n_buffers;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (ctx->buffers[mid].begin <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void gpi_buffers_add(gp_context *ctx, const void *ptr, size_t bytes)
{
    const uintptr_t p = (uintptr_t)ptr;
    size_t at;
    if (!ptr || bytes == 0 || p > UINTPTR_MAX - bytes) return;
    if (ctx->n_buffers == ctx->cap_buffers) {
        const size_t cap = ctx->cap_buffers ? 2 * ctx->cap_buffers : 16;
        struct gpi_buffer_range *grown;
        if (cap > SIZE_MAX / sizeof *grown) return;
        grown = (struct gpi_buffer_range *)realloc(ctx->buffers, cap * sizeof *grown);
        if (!grown) return;
        ctx->buffers = grown;
        ctx->cap_buffers = cap;
    }
    at = first_after(ctx, p);
    memmove(ctx->buffers + at + 1, ctx->buffers + at, (ctx->n_buffers - at) * sizeof *ctx->buffers);
    ctx->buffers[at].begin = p;
    ctx->buffers[at].end = p + bytes;
    ctx->n_buffers++;
}

void gpi_buffers_remove(gp_context *ctx, const void *ptr)
{
    const size_t at = first_after(ctx, (uintptr_t)ptr);
    if (at == 0 || ctx->buffers[at - 1].begin != (uintptr_t)ptr) return;
    memmove(ctx->buffers + at - 1, ctx->buffers + at, (ctx->n_buffers - at) * sizeof *ctx->buffers);
    ctx->n_buffers--;
}

int gpi_buffers_hold(const gp_context *ctx, const void *ptr, size_t bytes)
{
    const uintptr_t p = (uintptr_t)ptr;
    const size_t at = first_after(ctx, p);
    return at > 0 && p - ctx->buffers[at - 1].begin < ctx->buffers[at - 1].end - ctx->buffers[at - 1].begin &&
           bytes <= ctx->buffers[at - 1].end - p;
}

void gpi_buffers_release(gp_context *ctx)
{
    free(ctx->buffers);
    ctx->buffers = NULL;
    ctx->n_buffers = ctx->cap_buffers = 0;
}
