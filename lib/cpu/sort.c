/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/sort.c - the CPU sort: a stable LSD radix sort on the context's
 * threads (the passes: cpu/sort_radix.c).
 *
 * Keys become working keys (cpu/sort_radix.h) as the first pass reads them
 * and keys again as the last pass writes them, so the passes in between
 * move plain words and nothing else is carried: keys-only sorts move keys,
 * pairs move values alongside. One read first finds the bits of
 * [begin_bit, end_bit) that vary among the keys; digits of up to
 * GPI_RADIX_MAX_BITS bits cover only those, so constant bits cost no pass.
 * Passes alternate between the output and one scratch buffer and end in
 * the output.
 *
 * Threads: the array is cut into contiguous parts in order. Each part counts
 * its digits, the offsets run over (digit, part) in that order, and each
 * part scatters its keys in order, which keeps the sort stable and the
 * result independent of the number of parts. On one thread the histograms
 * of every digit come from one read (they do not depend on the order of
 * the keys). Tiny inputs take an insertion sort. */
#include "internal.h"
#include "pool.h"
#include "sort_radix.h"

#include <stdlib.h>
#include <string.h>

enum { kSmallSort = 64, kMaxPasses = 64 }; /* a pass covers at least one bit */

static uint64_t load_key(unsigned width, const void *keys, size_t i)
{
    return width == 32 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

static void store_key(unsigned width, void *keys, size_t i, uint64_t k)
{
    if (width == 32) ((uint32_t *)keys)[i] = (uint32_t)k;
    else ((uint64_t *)keys)[i] = k;
}

static uint64_t work_of(unsigned width, const gpi_radix_xform *x, uint64_t k)
{
    if (x->is_float) k = width == 32 ? gpi_f32_image((uint32_t)k) : gpi_f64_image(k);
    return k ^ x->flip;
}

/* The position of value i of the output (values_in NULL: indices). */
static void store_value(size_t vs, void *values, size_t i, uint64_t v)
{
    if (vs == 4) ((uint32_t *)values)[i] = (uint32_t)v;
    else ((uint64_t *)values)[i] = v;
}

/* Stable insertion sort of n <= kSmallSort keys on their working keys'
 * bits in `bits`; keys and values are read before anything is written. */
static void small_sort(const gpi_sort_args *a, unsigned width, const gpi_radix_xform *x, uint64_t bits)
{
    uint64_t key[kSmallSort], w[kSmallSort], val[kSmallSort];
    unsigned char at[kSmallSort];
    const size_t n = a->n, vs = a->value_size;
    size_t i, j;
    for (i = 0; i < n; i++) {
        key[i] = load_key(width, a->keys_in, i);
        w[i] = work_of(width, x, key[i]) & bits;
        val[i] = !vs ? 0 : !a->values_in ? i : vs == 4 ? ((const uint32_t *)a->values_in)[i]
                                                         : ((const uint64_t *)a->values_in)[i];
        for (j = i; j > 0 && w[at[j - 1]] > w[i]; j--) at[j] = at[j - 1];
        at[j] = (unsigned char)i;
    }
    for (i = 0; i < n; i++) {
        store_key(width, a->keys_out, i, key[at[i]]);
        if (vs) store_value(vs, a->values_out, i, val[at[i]]);
    }
}

/* ---- work on the pool ------------------------------------------------------ */

typedef struct span_job {
    unsigned width;
    const void *keys;
    size_t n;
    gpi_radix_xform x;
    uint64_t or_[GPI_POOL_MAX_PARTS], and_[GPI_POOL_MAX_PARTS];
} span_job;

static void span_part(void *arg, int part, int parts)
{
    span_job *j = (span_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 1, &lo, &hi);
    gpi_radix_span(j->width, j->keys, lo, hi, &j->x, &j->or_[part], &j->and_[part]);
}

static void count_part(void *arg, int part, int parts) { gpi_radix_count((const gpi_radix_pass *)arg, part, parts); }
static void scatter_part(void *arg, int part, int parts)
{
    gpi_radix_scatter((const gpi_radix_pass *)arg, part, parts);
}

typedef struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
} copy_job;

static void copy_part(void *arg, int part, int parts)
{
    copy_job *j = (copy_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->bytes, part, parts, 64, &lo, &hi);
    memcpy((char *)j->dst + lo, (const char *)j->src + lo, hi - lo);
}

static void parallel_copy(void *dst, const void *src, size_t bytes, int parts)
{
    copy_job j;
    if (dst == src || bytes == 0) return;
    j.dst = dst, j.src = src, j.bytes = bytes;
    gpi_pool_run(parts, copy_part, &j);
}

typedef struct index_job {
    void *values;
    size_t vs, n;
} index_job;

static void index_part(void *arg, int part, int parts)
{
    index_job *j = (index_job *)arg;
    size_t lo, hi, i;
    gpi_pool_range(j->n, part, parts, 1, &lo, &hi);
    if (j->vs == 4)
        for (i = lo; i < hi; i++) ((uint32_t *)j->values)[i] = (uint32_t)i;
    else
        for (i = lo; i < hi; i++) ((uint64_t *)j->values)[i] = i;
}

/* No bit of the range varies: the input is already in order. */
static void copy_through(const gpi_sort_args *a, size_t kbytes, int parts)
{
    parallel_copy(a->keys_out, a->keys_in, kbytes, parts);
    if (!a->value_size) return;
    if (a->values_in) {
        parallel_copy(a->values_out, a->values_in, a->n * a->value_size, parts);
    } else {
        index_job j;
        j.values = a->values_out, j.vs = a->value_size, j.n = a->n;
        gpi_pool_run(parts, index_part, &j);
    }
}

/* ---- the plan ---------------------------------------------------------------- */

/* Digits over the set bits of `vary`, low to high: each starts at the
 * lowest varying bit not yet covered and spans up to GPI_RADIX_MAX_BITS
 * bits, none past the highest varying bit. Returns how many. */
static int plan_digits(uint64_t vary, int *shifts, int *bits)
{
    int d = 0, at = 0;
    while (at < 64 && (vary >> at)) {
        int top = 63;
        while (!((vary >> at) & 1)) at++;
        while (!((vary >> top) & 1)) top--;
        shifts[d] = at;
        bits[d] = top - at + 1 < GPI_RADIX_MAX_BITS ? top - at + 1 : GPI_RADIX_MAX_BITS;
        at += bits[d];
        d++;
    }
    return d;
}

/* Where the values' scratch starts in a scratch block: after the keys',
 * rounded up to 64 bytes. */
static size_t values_scratch_at(const gpi_sort_args *a)
{
    return (a->n * gp_dtype_size(a->key_dtype) + 63) / 64 * 64;
}

size_t gpi_cpu_sort_scratch_bytes(const gpi_sort_args *a)
{
    if (a->n <= kSmallSort || a->n > SIZE_MAX / 32) return 0;
    return values_scratch_at(a) + a->n * a->value_size;
}

gp_status gpi_cpu_sort(const gpi_sort_args *a, int threads) { return gpi_cpu_sort_with(a, threads, NULL); }

gp_status gpi_cpu_sort_with(const gpi_sort_args *a, int threads, void *scratch)
{
    const size_t n = a->n, vs = a->value_size, ks = gp_dtype_size(a->key_dtype);
    const unsigned width = 8u * (unsigned)ks;
    const uint64_t ones = width == 64 ? ~0ull : 0xffffffffull;
    const int sign = a->key_dtype == GP_INT32 || a->key_dtype == GP_INT64;
    const int parts = gpi_pool_parts(n, threads);
    int shifts[kMaxPasses], bits[kMaxPasses], passes, j;
    uint64_t range, vary = 0, all_and = ones;
    gpi_radix_xform x;
    span_job *span;
    void *ktmp, *vtmp = NULL, *owned = NULL;
    size_t *offsets;
    int in_place, final_copy;

    x.is_float = a->key_dtype == GP_FLOAT32 || a->key_dtype == GP_FLOAT64;
    x.flip = ((sign ? (uint64_t)1 << (width - 1) : 0) ^ (a->descending ? ones : 0)) & ones;
    range = a->end_bit <= a->begin_bit ? 0
            : (a->end_bit - a->begin_bit == 64 ? ~0ull : (((uint64_t)1 << (a->end_bit - a->begin_bit)) - 1))
                  << a->begin_bit;
    if (n > SIZE_MAX / 32) return GP_ERROR_OUT_OF_MEMORY;
    if (n <= kSmallSort) {
        small_sort(a, width, &x, range);
        return GP_SUCCESS;
    }
    if (range) {
        if (!(span = (span_job *)malloc(sizeof *span))) return GP_ERROR_OUT_OF_MEMORY;
        span->width = width, span->keys = a->keys_in, span->n = n, span->x = x;
        gpi_pool_run(parts, span_part, span);
        for (j = 0; j < parts; j++) vary |= span->or_[j], all_and &= span->and_[j];
        free(span);
        vary = (vary ^ all_and) & range;
    }
    if (!vary) {
        copy_through(a, n * ks, parts);
        return GP_SUCCESS;
    }
    passes = plan_digits(vary, shifts, bits);

    in_place = a->keys_in == a->keys_out || (vs && a->values_in && a->values_in == a->values_out);
    final_copy = in_place && passes % 2; /* the first pass cannot write where it reads */
    ktmp = scratch ? scratch : (owned = gpi_host_alloc_large(gpi_cpu_sort_scratch_bytes(a)));
    if (vs && ktmp) vtmp = (char *)ktmp + values_scratch_at(a);
    offsets = (size_t *)malloc((size_t)(parts > passes ? parts : passes) * GPI_RADIX_MAX_DIGITS * sizeof *offsets);
    if (!ktmp || !offsets) {
        free(owned), free(offsets);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    if (parts == 1) /* every digit's histogram from one read; offsets of pass j at row j */
        gpi_radix_histograms(width, a->keys_in, n, &x, shifts, bits, passes, offsets);

    for (j = 0; j < passes; j++) {
        /* Pass j writes the output when an even number of passes follow
         * (odd with a final copy), the scratch otherwise. */
        const int to_out = final_copy ? j % 2 == 1 : (passes - 1 - j) % 2 == 0;
        gpi_radix_pass p;
        const size_t digits = (size_t)1 << bits[j];
        size_t d, run = 0;
        int q;
        p.width = width;
        p.ksrc = j == 0 ? a->keys_in : to_out ? ktmp : a->keys_out;
        p.kdst = to_out ? a->keys_out : ktmp;
        p.vsrc = j == 0 ? a->values_in : to_out ? vtmp : a->values_out;
        p.vdst = to_out ? a->values_out : vtmp;
        p.values = !vs ? GPI_RADIX_KEYS_ONLY
                   : j == 0 && !a->values_in ? (vs == 4 ? GPI_RADIX_INDEX4 : GPI_RADIX_INDEX8)
                   : vs == 4 ? GPI_RADIX_VALUES4 : GPI_RADIX_VALUES8;
        p.n = n;
        p.shift = shifts[j], p.bits = bits[j];
        p.to_work = j == 0, p.to_key = j == passes - 1;
        p.x = x;
        if (parts == 1) {
            p.offsets = offsets + ((size_t)j << GPI_RADIX_MAX_BITS);
            for (d = 0; d < digits; d++) {
                const size_t c = p.offsets[d];
                p.offsets[d] = run, run += c;
            }
        } else {
            p.offsets = offsets;
            gpi_pool_run(parts, count_part, &p);
            for (d = 0; d < digits; d++) /* offsets in (digit, part) order */
                for (q = 0; q < parts; q++) {
                    size_t *o = &offsets[((size_t)q << bits[j]) + d];
                    const size_t c = *o;
                    *o = run, run += c;
                }
        }
        gpi_pool_run(parts, scatter_part, &p);
    }
    if (final_copy) {
        parallel_copy(a->keys_out, ktmp, n * ks, parts);
        if (vs) parallel_copy(a->values_out, vtmp, n * vs, parts);
    }
    free(owned), free(offsets);
    return GP_SUCCESS;
}
