/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/find_repeats.c - every i in [0, n-1) with in[i] == in[i+1], on the
 * context's threads. Values compare with the type's == (for floats NaN
 * never equals anything and -0.0 == +0.0), so signed and unsigned integers
 * of one width behave alike but floats need their own loops.
 *
 * As cpu/compact.c: each thread counts the pairs of its piece of [0, n-1),
 * the counts are scanned into first output positions, each thread writes
 * its pairs (branch-free, through a stack buffer: nothing is stored outside
 * its own results). A pair at a piece's end reads the next piece's first
 * element, which is only read. */
#include "internal.h"
#include "pool.h"

#include <string.h>

enum { kStretch = 512 };

#define DEFINE_REPEATS(SUF, T)                                                                       \
    static size_t count_##SUF(const void *in_, size_t lo, size_t hi)                                 \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        size_t i, k = 0;                                                                             \
        for (i = lo; i < hi; i++) k += in[i] == in[i + 1];                                           \
        return k;                                                                                    \
    }                                                                                                \
    static void write_##SUF(const void *in_, size_t lo, size_t hi, uint64_t *out)                    \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        uint64_t buf[kStretch];                                                                      \
        size_t b, i;                                                                                 \
        for (b = lo; b < hi; b += kStretch) {                                                        \
            const size_t e = hi - b < kStretch ? hi : b + kStretch;                                  \
            size_t k = 0;                                                                            \
            for (i = b; i < e; i++) {                                                                \
                buf[k] = (uint64_t)i;                                                                \
                k += in[i] == in[i + 1];                                                             \
            }                                                                                        \
            memcpy(out, buf, k * sizeof *buf);                                                       \
            out += k;                                                                                \
        }                                                                                            \
    }

DEFINE_REPEATS(u32, uint32_t)
DEFINE_REPEATS(u64, uint64_t)
DEFINE_REPEATS(f32, float)
DEFINE_REPEATS(f64, double)

typedef struct repeats_job {
    size_t (*count)(const void *in, size_t lo, size_t hi);
    void (*write)(const void *in, size_t lo, size_t hi, uint64_t *out);
    const void *in;
    size_t pairs;       /* n - 1 */
    uint64_t *out;
    size_t start[GPI_POOL_MAX_PARTS];  /* per piece: its count, then its first output position */
} repeats_job;

static void count_part(void *arg, int part, int parts)
{
    repeats_job *j = (repeats_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->pairs, part, parts, 64, &lo, &hi);
    j->start[part] = j->count(j->in, lo, hi);
}

static void write_part(void *arg, int part, int parts)
{
    repeats_job *j = (repeats_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->pairs, part, parts, 64, &lo, &hi);
    j->write(j->in, lo, hi, j->out + j->start[part]);
}

gp_status gpi_cpu_find_repeats(gp_dtype dtype, const void *in, size_t n, uint64_t *out, size_t *count,
                               int threads)
{
    repeats_job j;
    size_t total = 0;
    int parts, p;
    switch (dtype) {
    case GP_INT32:
    case GP_UINT32: j.count = count_u32, j.write = write_u32; break;
    case GP_INT64:
    case GP_UINT64: j.count = count_u64, j.write = write_u64; break;
    case GP_FLOAT32: j.count = count_f32, j.write = write_f32; break;
    case GP_FLOAT64: j.count = count_f64, j.write = write_f64; break;
    default: return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    }
    j.in = in;
    j.pairs = n ? n - 1 : 0;
    j.out = out;
    parts = gpi_pool_parts(j.pairs, threads);
    gpi_pool_run(parts, count_part, &j);
    for (p = 0; p < parts; p++) {
        const size_t c = j.start[p];
        j.start[p] = total;
        total += c;
    }
    gpi_pool_run(parts, write_part, &j);
    *count = total;
    return GP_SUCCESS;
}
