/* SPDX-License-Identifier: BSD-3-Clause */
/* sizes.h - size arithmetic the renderer's files share (never installed). */
#ifndef GPUPRIM_RENDER_SIZES_H
#define GPUPRIM_RENDER_SIZES_H

#include <gpuprim/gpuprim.h>

#include <stddef.h>
#include <stdint.h>

/* a*b into *out, or GP_ERROR_SIZE_OVERFLOW (*out untouched). */
static inline gp_status gpr_mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return GP_ERROR_SIZE_OVERFLOW;
    *out = a * b;
    return GP_SUCCESS;
}

/* Blocks of `threads` for a grid-stride loop over n items: a thread an
 * item up to 65536 blocks, past that each thread loops. */
static inline unsigned gpr_stride_blocks(size_t n, unsigned threads)
{
    const size_t blocks = (n + threads - 1) / threads;
    return (unsigned)(blocks < 65536 ? blocks : 65536);
}

#endif
