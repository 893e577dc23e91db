/* cpu/transpose.c - the CPU reference transpose.
 * out[c][r] = in[r][c]. The loops walk the matrix in square blocks so that
 * both the rows read and the rows written stay in cache; the result does
 * not depend on the blocking. */
#include "internal.h"

#include <string.h>

enum { CPU_TRANSPOSE_BLOCK = 32 };

typedef struct { uint64_t lo, hi; } elem16;

/* One typed copy loop per element size, so each element moves as a single
 * load and store rather than a memcpy call. */
#define DEFINE_TRANSPOSE(NAME, T)                                                        \
    static void NAME(const T *in, T *out, size_t rows, size_t cols)                      \
    {                                                                                    \
        size_t r0, c0, r, c;                                                             \
        for (r0 = 0; r0 < rows; r0 += CPU_TRANSPOSE_BLOCK) {                             \
            size_t r1 = rows - r0 < CPU_TRANSPOSE_BLOCK ? rows : r0 + CPU_TRANSPOSE_BLOCK; \
            for (c0 = 0; c0 < cols; c0 += CPU_TRANSPOSE_BLOCK) {                         \
                size_t c1 = cols - c0 < CPU_TRANSPOSE_BLOCK ? cols : c0 + CPU_TRANSPOSE_BLOCK; \
                for (r = r0; r < r1; r++)                                                \
                    for (c = c0; c < c1; c++) out[c * rows + r] = in[r * cols + c];      \
            }                                                                            \
        }                                                                                \
    }

DEFINE_TRANSPOSE(transpose4, uint32_t)
DEFINE_TRANSPOSE(transpose8, uint64_t)
DEFINE_TRANSPOSE(transpose16, elem16)

/* Elements are opaque bytes and the caller's pointers need not be aligned
 * to the element size: such buffers go element by element through memcpy
 * (reading a misaligned uint64_t would be undefined behaviour in C). */
static void transpose_unaligned(size_t es, const unsigned char *in, unsigned char *out, size_t rows, size_t cols)
{
    size_t r, c;
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) memcpy(out + (c * rows + r) * es, in + (r * cols + c) * es, es);
}

gp_status gpi_cpu_transpose(size_t elem_size, const void *in, void *out, size_t rows, size_t cols)
{
    /* elem16 is only 8-byte aligned, so 8 is the most any path needs. */
    size_t need = elem_size < 8 ? elem_size : 8;
    if (((uintptr_t)in | (uintptr_t)out) % need != 0) {
        transpose_unaligned(elem_size, (const unsigned char *)in, (unsigned char *)out, rows, cols);
        return GP_SUCCESS;
    }
    switch (elem_size) {
    case 4: transpose4((const uint32_t *)in, (uint32_t *)out, rows, cols); return GP_SUCCESS;
    case 8: transpose8((const uint64_t *)in, (uint64_t *)out, rows, cols); return GP_SUCCESS;
    case 16: transpose16((const elem16 *)in, (elem16 *)out, rows, cols); return GP_SUCCESS;
    }
    return GP_ERROR_INTERNAL;
}
