/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/transpose.c - out[c][r] = in[r][c] on the context's threads.
 * The loops walk the matrix in square blocks so that both the rows read and
 * the rows written stay in cache; the result does not depend on the
 * blocking. Threads split the longer side into runs of whole blocks: by
 * columns of in, each thread writes its own rows of out; by rows of in, its
 * own stretch of every row of out. */
#include "internal.h"
#include "pool.h"

#include <string.h>

enum { kBlock = 32 };

typedef struct { uint64_t lo, hi; } elem16;

/* The part [r_lo, r_hi) x [c_lo, c_hi) of in, one typed copy loop per
 * element size so that each element moves as a single load and store. */
#define DEFINE_TRANSPOSE(NAME, T)                                                                    \
    static void NAME(const void *in_, void *out_, size_t rows, size_t cols, size_t r_lo, size_t r_hi, \
                     size_t c_lo, size_t c_hi)                                                       \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        T *out = (T *)out_;                                                                          \
        size_t r0, c0, r, c;                                                                         \
        for (r0 = r_lo; r0 < r_hi; r0 += kBlock) {                                                   \
            const size_t r1 = r_hi - r0 < kBlock ? r_hi : r0 + kBlock;                               \
            for (c0 = c_lo; c0 < c_hi; c0 += kBlock) {                                               \
                const size_t c1 = c_hi - c0 < kBlock ? c_hi : c0 + kBlock;                           \
                for (r = r0; r < r1; r++)                                                            \
                    for (c = c0; c < c1; c++) out[c * rows + r] = in[r * cols + c];                  \
            }                                                                                        \
        }                                                                                            \
    }

DEFINE_TRANSPOSE(transpose4, uint32_t)
DEFINE_TRANSPOSE(transpose8, uint64_t)
DEFINE_TRANSPOSE(transpose16, elem16)

typedef struct transpose_job {
    size_t es;
    const void *in;
    void *out;
    size_t rows, cols;
    int aligned, by_cols;
} transpose_job;

static void transpose_part(void *arg, int part, int parts)
{
    const transpose_job *j = (const transpose_job *)arg;
    size_t r_lo = 0, r_hi = j->rows, c_lo = 0, c_hi = j->cols, r, c;
    if (j->by_cols) gpi_pool_range(j->cols, part, parts, kBlock, &c_lo, &c_hi);
    else gpi_pool_range(j->rows, part, parts, kBlock, &r_lo, &r_hi);
    if (!j->aligned) {
        /* Elements are opaque bytes and the caller's pointers need not be
         * aligned to the element size: such buffers go element by element
         * through memcpy (a misaligned uint64_t read is undefined in C). */
        const unsigned char *in = (const unsigned char *)j->in;
        unsigned char *out = (unsigned char *)j->out;
        for (r = r_lo; r < r_hi; r++)
            for (c = c_lo; c < c_hi; c++)
                memcpy(out + (c * j->rows + r) * j->es, in + (r * j->cols + c) * j->es, j->es);
        return;
    }
    if (j->es == 4) transpose4(j->in, j->out, j->rows, j->cols, r_lo, r_hi, c_lo, c_hi);
    else if (j->es == 8) transpose8(j->in, j->out, j->rows, j->cols, r_lo, r_hi, c_lo, c_hi);
    else transpose16(j->in, j->out, j->rows, j->cols, r_lo, r_hi, c_lo, c_hi);
}

gp_status gpi_cpu_transpose(size_t elem_size, const void *in, void *out, size_t rows, size_t cols, int threads)
{
    /* elem16 is only 8-byte aligned, so 8 is the most any path needs. */
    const size_t need = elem_size < 8 ? elem_size : 8;
    transpose_job j;
    int parts;
    if (elem_size != 4 && elem_size != 8 && elem_size != 16) return GP_ERROR_INTERNAL;
    j.es = elem_size;
    j.in = in;
    j.out = out;
    j.rows = rows;
    j.cols = cols;
    j.aligned = ((uintptr_t)in | (uintptr_t)out) % need == 0;
    j.by_cols = cols >= rows;
    parts = gpi_pool_parts(rows * cols, threads);
    {   /* at most one part per run of blocks along the side that is split */
        const size_t side_blocks = ((j.by_cols ? cols : rows) + kBlock - 1) / kBlock;
        if ((size_t)parts > side_blocks) parts = (int)side_blocks;
    }
    gpi_pool_run(parts, transpose_part, &j);
    return GP_SUCCESS;
}
