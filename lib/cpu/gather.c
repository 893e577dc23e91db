/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/gather.c - gather, scatter and the index check: the reference loops
 * (in index order, elements as opaque bytes; an out-of-range index is
 * skipped), then their forms on the context's threads. */
#include "permute_internal.h"
#include "pool.h"

#include <string.h>

gp_status gpi_cpu_check_indices(const uint64_t *indices, size_t n, uint64_t limit, size_t *first_bad)
{
    size_t i;
    *first_bad = SIZE_MAX;
    for (i = 0; i < n; i++)
        if (indices[i] >= limit) {
            *first_bad = i;
            break;
        }
    return GP_SUCCESS;
}

gp_status gpi_cpu_gather(size_t elem_size, const void *in, size_t in_n, const uint64_t *indices, void *out,
                         size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (indices[i] < in_n)
            memcpy((char *)out + i * elem_size, (const char *)in + indices[i] * elem_size, elem_size);
    return GP_SUCCESS;
}

gp_status gpi_cpu_scatter(size_t elem_size, const void *in, const uint64_t *indices, size_t n, void *out,
                          size_t out_n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (indices[i] < out_n)
            memcpy((char *)out + indices[i] * elem_size, (const char *)in + i * elem_size, elem_size);
    return GP_SUCCESS;
}

/* ---- the same on the context's threads ----
 * Gather and the index check cut [0, n) into contiguous parts. Scatter
 * first tries the same for ascending indices: part p writes its own
 * elements while its indices do not descend and stay below the first index
 * of every later part, so no destination is written by two parts. Where a part
 * meets an index that breaks this it stops, and the call cuts the
 * destinations instead: every part reads all the indices in order and
 * writes only the elements whose index falls in its own range of out, so
 * each element of out is written by one thread, in index order, and the
 * last duplicate wins exactly as in the loop above (this rewrites every
 * destination the first try wrote). Elements move as 4-, 8- or 16-byte
 * words (the same bytes memcpy moves). */

typedef struct word16 {
    uint64_t w[2];
} word16;

typedef struct move_job {
    size_t es;
    const void *in;
    const uint64_t *indices;
    void *out;
    size_t n;                             /* indices */
    uint64_t limit;                       /* check: the bound; gather: in_n; scatter: out_n */
    size_t first_bad[GPI_POOL_MAX_PARTS]; /* check: per part */
    uint64_t bound[GPI_POOL_MAX_PARTS];   /* ascending scatter: part p's indices stay below bound[p] */
    int broke[GPI_POOL_MAX_PARTS];        /* ascending scatter: part p met an index that breaks the order */
} move_job;

static void check_part(void *arg, int part, int parts)
{
    move_job *j = (move_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 1, &lo, &hi);
    gpi_cpu_check_indices(j->indices + lo, hi - lo, j->limit, &j->first_bad[part]);
    if (j->first_bad[part] != SIZE_MAX) j->first_bad[part] += lo;
}

gp_status gpi_cpu_check_indices_threads(const uint64_t *indices, size_t n, uint64_t limit, size_t *first_bad,
                                        int threads)
{
    const int parts = gpi_pool_parts(n, threads);
    move_job j;
    int p;
    if (parts == 1) return gpi_cpu_check_indices(indices, n, limit, first_bad);
    j.indices = indices;
    j.n = n;
    j.limit = limit;
    gpi_pool_run(parts, check_part, &j);
    *first_bad = SIZE_MAX;
    for (p = 0; p < parts; p++)
        if (j.first_bad[p] != SIZE_MAX) {
            *first_bad = j.first_bad[p];
            break;
        }
    return GP_SUCCESS;
}

#define GATHER_LOOP(T)                                                 \
    do {                                                               \
        const T *src = (const T *)j->in;                               \
        T *dst = (T *)j->out;                                          \
        for (i = lo; i < hi; i++) {                                    \
            const uint64_t k = idx[i];                                 \
            if (k < in_n) dst[i] = src[k];                             \
        }                                                              \
    } while (0)

static void gather_range(const move_job *j, size_t lo, size_t hi)
{
    const uint64_t *idx = j->indices;
    const uint64_t in_n = j->limit;
    size_t i;
    if (j->es == 4) GATHER_LOOP(uint32_t);
    else if (j->es == 8) GATHER_LOOP(uint64_t);
    else GATHER_LOOP(word16);
}

static void gather_part(void *arg, int part, int parts)
{
    const move_job *j = (const move_job *)arg;
    size_t lo, hi;
    /* starts on 64-byte lines of out: no line is written by two threads */
    gpi_pool_range(j->n, part, parts, 64 / j->es, &lo, &hi);
    gather_range(j, lo, hi);
}

gp_status gpi_cpu_gather_threads(size_t elem_size, const void *in, size_t in_n, const uint64_t *indices,
                                 void *out, size_t n, int threads)
{
    move_job j;
    if (elem_size != 4 && elem_size != 8 && elem_size != 16)
        return gpi_cpu_gather(elem_size, in, in_n, indices, out, n);
    j.es = elem_size;
    j.in = in;
    j.indices = indices;
    j.out = out;
    j.n = n;
    j.limit = in_n;
    gpi_pool_run(gpi_pool_parts(n, threads), gather_part, &j);
    return GP_SUCCESS;
}

/* Elements i in [0, n) whose index is in [dlo, dhi), in index order. */
#define SCATTER_LOOP(T)                                                \
    do {                                                               \
        const T *src = (const T *)j->in;                               \
        T *dst = (T *)j->out;                                          \
        for (i = 0; i < n; i++) {                                      \
            const uint64_t k = idx[i];                                 \
            if (k - dlo < span) dst[k] = src[i];                       \
        }                                                              \
    } while (0)

static void scatter_range(const move_job *j, uint64_t dlo, uint64_t dhi)
{
    const uint64_t *idx = j->indices, span = dhi - dlo;
    const size_t n = j->n;
    size_t i;
    if (j->es == 4) SCATTER_LOOP(uint32_t);
    else if (j->es == 8) SCATTER_LOOP(uint64_t);
    else SCATTER_LOOP(word16);
}

/* Elements [lo, hi) while their indices ascend (repeats allowed) and stay
 * below `bound`; 1 where one did not (the rest not written). */
#define ASCENDING_LOOP(T)                                              \
    do {                                                               \
        const T *src = (const T *)j->in;                               \
        T *dst = (T *)j->out;                                          \
        for (i = lo; i < hi; i++) {                                    \
            const uint64_t k = idx[i];                                 \
            if (k < prev || k >= bound) return 1;                      \
            prev = k;                                                  \
            if (k < out_n) dst[k] = src[i];                            \
        }                                                              \
    } while (0)

static int scatter_ascending_range(const move_job *j, size_t lo, size_t hi, uint64_t bound)
{
    const uint64_t *idx = j->indices, out_n = j->limit;
    uint64_t prev = 0;
    size_t i;
    if (j->es == 4) ASCENDING_LOOP(uint32_t);
    else if (j->es == 8) ASCENDING_LOOP(uint64_t);
    else ASCENDING_LOOP(word16);
    return 0;
}

static void scatter_ascending_part(void *arg, int part, int parts)
{
    move_job *j = (move_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 1, &lo, &hi);
    j->broke[part] = scatter_ascending_range(j, lo, hi, j->bound[part]);
}

static void scatter_part(void *arg, int part, int parts)
{
    const move_job *j = (const move_job *)arg;
    size_t lo, hi;
    gpi_pool_range((size_t)j->limit, part, parts, 64 / j->es, &lo, &hi); /* out_n: a size_t */
    scatter_range(j, lo, hi);
}

gp_status gpi_cpu_scatter_threads(size_t elem_size, const void *in, const uint64_t *indices, size_t n, void *out,
                                  size_t out_n, int threads)
{
    move_job j;
    int parts, p, broke;
    if (elem_size != 4 && elem_size != 8 && elem_size != 16)
        return gpi_cpu_scatter(elem_size, in, indices, n, out, out_n);
    j.es = elem_size;
    j.in = in;
    j.indices = indices;
    j.out = out;
    j.n = n;
    j.limit = out_n;
    parts = gpi_pool_parts(n, threads);
    if (parts == 1) {
        scatter_range(&j, 0, out_n);
        return GP_SUCCESS;
    }
    /* part p's bound: the least first index of the parts after it (parts
     * are never empty here), so that its ascending indices stay below every
     * later part's */
    j.bound[parts - 1] = UINT64_MAX;
    for (p = parts - 2; p >= 0; p--) {
        size_t lo, hi;
        gpi_pool_range(n, p + 1, parts, 1, &lo, &hi);
        j.bound[p] = indices[lo] < j.bound[p + 1] ? indices[lo] : j.bound[p + 1];
    }
    gpi_pool_run(parts, scatter_ascending_part, &j);
    for (p = 0, broke = 0; p < parts; p++) broke |= j.broke[p];
    if (!broke) return GP_SUCCESS;
    /* every part reads all n indices: more parts only help while each has
     * many destinations to write */
    gpi_pool_run(gpi_pool_parts(n < out_n ? n : out_n, threads), scatter_part, &j);
    return GP_SUCCESS;
}
