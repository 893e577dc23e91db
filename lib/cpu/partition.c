/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/partition.c - stable partition on the CPU backend. Elements move as
 * raw words of the dtype's size (float bits, NaN payloads included, kept).
 *
 * The reference (gpi_cpu_partition): one pass over the input per part,
 * each copying that part's elements in input order.
 *
 * The threaded form, as cpu/compact.c: each thread counts the elements of
 * each part in its contiguous piece; the counts give each piece its first
 * output position in each part (the parts before, then the pieces before
 * in the same part); each thread writes its piece's elements from there.
 * The writes are branch-free (every element is stored into each part's
 * small stack buffer, whose position advances by its flag), copied out
 * per stretch, so each piece writes exactly its own output ranges. */
#include "permute_internal.h"
#include "pool.h"

#include <string.h>

static int flag_set(const void *flags, gp_flag_type flag_type, size_t i)
{
    if (flag_type == GP_UINT8_FLAGS) return ((const uint8_t *)flags)[i] != 0;
    return ((const int32_t *)flags)[i] != 0;
}

/* 0: first part, 1: second, 2: third (the rest). */
static int part_of(const void *first_flags, const void *second_flags, gp_flag_type flag_type, size_t i)
{
    if (flag_set(first_flags, flag_type, i)) return 0;
    if (second_flags && flag_set(second_flags, flag_type, i)) return 1;
    return 2;
}

gp_status gpi_cpu_partition(gp_dtype dtype, const void *in, const void *first_flags, const void *second_flags,
                            gp_flag_type flag_type, void *out, size_t n, size_t counts[3])
{
    const size_t es = gp_dtype_size(dtype);
    size_t i, k = 0;
    int part;
    for (part = 0; part < 3; part++) {
        const size_t start = k;
        for (i = 0; i < n; i++)
            if (part_of(first_flags, second_flags, flag_type, i) == part)
                memcpy((char *)out + k++ * es, (const char *)in + i * es, es);
        counts[part] = k - start;
    }
    return GP_SUCCESS;
}

/* ---- threaded form ----------------------------------------------------------------- */

enum { kStretch = 512 };

typedef struct partition_job {
    size_t es;
    const void *in, *first, *second; /* second NULL: two parts */
    gp_flag_type flag_type;
    void *out;
    size_t n;
    size_t start[GPI_POOL_MAX_PARTS][3]; /* per piece and part: its count, then its first output position */
} partition_job;

/* Elements of the first part and of the second among [lo, hi). */
#define DEFINE_COUNT(NAME, F)                                                                        \
    static void NAME(const void *first_, const void *second_, size_t lo, size_t hi, size_t c[2])     \
    {                                                                                                \
        const F *first = (const F *)first_, *second = (const F *)second_;                            \
        size_t i, c0 = 0, c1 = 0;                                                                    \
        if (second) {                                                                                \
            for (i = lo; i < hi; i++) {                                                              \
                const size_t f = first[i] != 0;                                                      \
                c0 += f;                                                                             \
                c1 += (f ^ 1) & (second[i] != 0);                                                    \
            }                                                                                        \
        } else {                                                                                     \
            for (i = lo; i < hi; i++) c0 += first[i] != 0;                                           \
        }                                                                                            \
        c[0] = c0;                                                                                   \
        c[1] = c1;                                                                                   \
    }

DEFINE_COUNT(count_u8, uint8_t)
DEFINE_COUNT(count_i32, int32_t)

/* The elements of [lo, hi) to their parts, from positions pos[0..2]. */
#define DEFINE_WRITE(NAME, T, F)                                                                     \
    static void NAME(const void *in_, const void *first_, const void *second_, void *out_, size_t lo, \
                     size_t hi, const size_t pos[3])                                                 \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        const F *first = (const F *)first_, *second = (const F *)second_;                            \
        T *out = (T *)out_, buf0[kStretch], buf1[kStretch], buf2[kStretch];                          \
        size_t b, i, p0 = pos[0], p1 = pos[1], p2 = pos[2];                                          \
        for (b = lo; b < hi; b += kStretch) {                                                        \
            const size_t e = hi - b < kStretch ? hi : b + kStretch;                                  \
            size_t k0 = 0, k1 = 0, k2 = 0;                                                           \
            if (second) {                                                                            \
                for (i = b; i < e; i++) {                                                            \
                    const T x = in[i];                                                               \
                    const size_t f0 = first[i] != 0, f1 = (f0 ^ 1) & (second[i] != 0);               \
                    buf0[k0] = x;                                                                    \
                    buf1[k1] = x;                                                                    \
                    buf2[k2] = x;                                                                    \
                    k0 += f0;                                                                        \
                    k1 += f1;                                                                        \
                    k2 += (f0 | f1) ^ 1;                                                             \
                }                                                                                    \
            } else {                                                                                 \
                for (i = b; i < e; i++) {                                                            \
                    const T x = in[i];                                                               \
                    const size_t f0 = first[i] != 0;                                                 \
                    buf0[k0] = x;                                                                    \
                    buf2[k2] = x;                                                                    \
                    k0 += f0;                                                                        \
                    k2 += f0 ^ 1;                                                                    \
                }                                                                                    \
            }                                                                                        \
            memcpy(out + p0, buf0, k0 * sizeof(T));                                                  \
            memcpy(out + p1, buf1, k1 * sizeof(T));                                                  \
            memcpy(out + p2, buf2, k2 * sizeof(T));                                                  \
            p0 += k0;                                                                                \
            p1 += k1;                                                                                \
            p2 += k2;                                                                                \
        }                                                                                            \
    }

DEFINE_WRITE(write4_u8, uint32_t, uint8_t)
DEFINE_WRITE(write4_i32, uint32_t, int32_t)
DEFINE_WRITE(write8_u8, uint64_t, uint8_t)
DEFINE_WRITE(write8_i32, uint64_t, int32_t)

static void count_part(void *arg, int part, int parts)
{
    partition_job *j = (partition_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
    (j->flag_type == GP_UINT8_FLAGS ? count_u8 : count_i32)(j->first, j->second, lo, hi, j->start[part]);
    j->start[part][2] = hi - lo - j->start[part][0] - j->start[part][1];
}

static void write_part(void *arg, int part, int parts)
{
    const partition_job *j = (const partition_job *)arg;
    const int u8 = j->flag_type == GP_UINT8_FLAGS;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
    if (j->es == 4) (u8 ? write4_u8 : write4_i32)(j->in, j->first, j->second, j->out, lo, hi, j->start[part]);
    else (u8 ? write8_u8 : write8_i32)(j->in, j->first, j->second, j->out, lo, hi, j->start[part]);
}

gp_status gpi_cpu_partition_threads(gp_dtype dtype, const void *in, const void *first_flags,
                                    const void *second_flags, gp_flag_type flag_type, void *out, size_t n,
                                    size_t counts[3], int threads)
{
    const int parts = gpi_pool_parts(n, threads);
    partition_job j;
    size_t total[3] = {0, 0, 0}, at;
    int p, k;
    j.es = gp_dtype_size(dtype);
    if (j.es != 4 && j.es != 8) return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    j.in = in;
    j.first = first_flags;
    j.second = second_flags;
    j.flag_type = flag_type;
    j.out = out;
    j.n = n;
    gpi_pool_run(parts, count_part, &j);
    for (p = 0; p < parts; p++)
        for (k = 0; k < 3; k++) total[k] += j.start[p][k];
    /* part k starts after parts 0..k-1; a piece after the pieces before it */
    for (k = 0, at = 0; k < 3; k++) {
        for (p = 0; p < parts; p++) {
            const size_t c = j.start[p][k];
            j.start[p][k] = at;
            at += c;
        }
    }
    gpi_pool_run(parts, write_part, &j);
    counts[0] = total[0];
    counts[1] = total[1];
    counts[2] = total[2];
    return GP_SUCCESS;
}
