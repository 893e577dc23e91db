/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/compact.c - stream compaction on the context's threads. Elements move
 * as raw 4- or 8-byte words: only the dtype's size matters, so float
 * payloads (NaN bit patterns included) are copied bit for bit.
 *
 * Three steps: each thread counts the set flags of its contiguous piece;
 * the counts are scanned into each piece's first output position; each
 * thread writes its piece's survivors from there. The writes are
 * branch-free (every element is stored, the position advances by the flag)
 * into a small buffer on the stack, copied out per stretch, so nothing is
 * stored past a piece's survivors: another piece's, or past *count. */
#include "internal.h"
#include "pool.h"

#include <string.h>

enum { kStretch = 512 };

typedef struct compact_job {
    size_t es;            /* element bytes; 0: write indices */
    const void *in, *flags;
    gp_flag_type flag_type;
    void *out;
    size_t n;
    size_t start[GPI_POOL_MAX_PARTS];    /* per piece: its count, then its first output position */
} compact_job;

static size_t count_set(const void *flags, gp_flag_type t, size_t lo, size_t hi)
{
    size_t i, c = 0;
    if (t == GP_UINT8_FLAGS) {
        const uint8_t *f = (const uint8_t *)flags;
        for (i = lo; i < hi; i++) c += f[i] != 0;
    } else {
        const int32_t *f = (const int32_t *)flags;
        for (i = lo; i < hi; i++) c += f[i] != 0;
    }
    return c;
}

/* The survivors of [lo, hi) to dst from position pos. VALUE(i) is what
 * element i writes. */
#define DEFINE_WRITE(NAME, T, F, VALUE)                                                              \
    static void NAME(const void *in_, const void *flags_, void *out_, size_t lo, size_t hi, size_t pos) \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        const F *flags = (const F *)flags_;                                                          \
        T *out = (T *)out_, buf[kStretch];                                                           \
        size_t b, i;                                                                                 \
        (void)in;                                                                                    \
        for (b = lo; b < hi; b += kStretch) {                                                        \
            const size_t e = hi - b < kStretch ? hi : b + kStretch;                                  \
            size_t k = 0;                                                                            \
            for (i = b; i < e; i++) {                                                                \
                buf[k] = VALUE;                                                                      \
                k += flags[i] != 0;                                                                  \
            }                                                                                        \
            memcpy(out + pos, buf, k * sizeof *buf);                                                 \
            pos += k;                                                                                \
        }                                                                                            \
    }

DEFINE_WRITE(write4_u8, uint32_t, uint8_t, in[i])
DEFINE_WRITE(write4_i32, uint32_t, int32_t, in[i])
DEFINE_WRITE(write8_u8, uint64_t, uint8_t, in[i])
DEFINE_WRITE(write8_i32, uint64_t, int32_t, in[i])
DEFINE_WRITE(index_u8, uint64_t, uint8_t, (uint64_t)i)
DEFINE_WRITE(index_i32, uint64_t, int32_t, (uint64_t)i)

static void count_part(void *arg, int part, int parts)
{
    compact_job *j = (compact_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
    j->start[part] = count_set(j->flags, j->flag_type, lo, hi);
}

static void write_part(void *arg, int part, int parts)
{
    compact_job *j = (compact_job *)arg;
    const int u8 = j->flag_type == GP_UINT8_FLAGS;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
    if (j->es == 0) (u8 ? index_u8 : index_i32)(NULL, j->flags, j->out, lo, hi, j->start[part]);
    else if (j->es == 4) (u8 ? write4_u8 : write4_i32)(j->in, j->flags, j->out, lo, hi, j->start[part]);
    else (u8 ? write8_u8 : write8_i32)(j->in, j->flags, j->out, lo, hi, j->start[part]);
}

static void run(compact_job *j, size_t *count, int threads)
{
    const int parts = gpi_pool_parts(j->n, threads);
    size_t total = 0;
    int p;
    gpi_pool_run(parts, count_part, j);
    for (p = 0; p < parts; p++) {
        const size_t c = j->start[p];
        j->start[p] = total;
        total += c;
    }
    gpi_pool_run(parts, write_part, j);
    *count = total;
}

gp_status gpi_cpu_compact(gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count, int threads)
{
    compact_job j;
    j.es = gp_dtype_size(dtype);
    if (j.es != 4 && j.es != 8) return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    j.in = in;
    j.flags = flags;
    j.flag_type = flag_type;
    j.out = out;
    j.n = n;
    run(&j, count, threads);
    return GP_SUCCESS;
}

gp_status gpi_cpu_compact_indices(const void *flags, gp_flag_type flag_type, uint64_t *out, size_t n,
                                  size_t *count, int threads)
{
    compact_job j;
    j.es = 0;
    j.in = NULL;
    j.flags = flags;
    j.flag_type = flag_type;
    j.out = out;
    j.n = n;
    run(&j, count, threads);
    return GP_SUCCESS;
}
