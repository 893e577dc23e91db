/* cpu/sort.c - the reference radix sort: stable LSD over the keys' order
 * images (gpuprim.h), 8 bits a pass from begin_bit.
 *
 * Every key becomes its 64-bit image (complemented for descending), carried
 * with its original position; after the passes the sorted keys are rebuilt
 * from the images (the image is a bijection, so the bits come back exactly)
 * and the values gathered by position. A pass is parallel over T chunks of
 * the array: each thread counts its chunk's digits, the offsets run over
 * (digit, chunk) in that order, and each thread scatters its chunk in order,
 * which keeps the sort stable. A pass whose digit is the same for every key
 * moves nothing and is skipped. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { kRadixBits = 8, kRadix = 1 << kRadixBits, kMinChunk = 1 << 16 };

typedef struct {
    const uint64_t *u, *pos;
    uint64_t *u2, *pos2;
    size_t lo, hi;
    int shift;
    uint64_t mask;
    size_t *count; /* kRadix entries: counts, then this chunk's offsets */
} pass_part;

static void *count_part(void *arg)
{
    pass_part *p = (pass_part *)arg;
    size_t i;
    memset(p->count, 0, kRadix * sizeof *p->count);
    for (i = p->lo; i < p->hi; i++) p->count[(p->u[i] >> p->shift) & p->mask]++;
    return NULL;
}

static void *scatter_part(void *arg)
{
    pass_part *p = (pass_part *)arg;
    size_t i;
    for (i = p->lo; i < p->hi; i++) {
        size_t at = p->count[(p->u[i] >> p->shift) & p->mask]++;
        p->u2[at] = p->u[i];
        p->pos2[at] = p->pos[i];
    }
    return NULL;
}

/* Run fn over parts[0..t): t - 1 threads and the caller. */
static gp_status parallel(void *(*fn)(void *), pass_part *parts, int t)
{
    pthread_t th[256];
    int i, started = 0;
    for (i = 1; i < t; i++, started++)
        if (pthread_create(&th[i], NULL, fn, &parts[i]) != 0) break;
    fn(&parts[0]);
    for (i = started + 1; i < t; i++) fn(&parts[i]); /* threads that could not start: run here */
    for (i = 1; i <= started; i++) pthread_join(th[i], NULL);
    return GP_SUCCESS;
}

static uint64_t image_of(gp_dtype dt, const void *keys, size_t i)
{
    switch (dt) {
    case GP_UINT32: return ((const uint32_t *)keys)[i];
    case GP_INT32: return ((const uint32_t *)keys)[i] ^ 0x80000000u;
    case GP_UINT64: return ((const uint64_t *)keys)[i];
    case GP_INT64: return ((const uint64_t *)keys)[i] ^ 0x8000000000000000ull;
    case GP_FLOAT32: return gpi_f32_image(((const uint32_t *)keys)[i]);
    default: return gpi_f64_image(((const uint64_t *)keys)[i]);
    }
}

static void store_key(gp_dtype dt, void *keys, size_t i, uint64_t u)
{
    switch (dt) {
    case GP_UINT32: ((uint32_t *)keys)[i] = (uint32_t)u; break;
    case GP_INT32: ((uint32_t *)keys)[i] = (uint32_t)u ^ 0x80000000u; break;
    case GP_UINT64: ((uint64_t *)keys)[i] = u; break;
    case GP_INT64: ((uint64_t *)keys)[i] = u ^ 0x8000000000000000ull; break;
    case GP_FLOAT32: ((uint32_t *)keys)[i] = gpi_f32_from_image((uint32_t)u); break;
    default: ((uint64_t *)keys)[i] = gpi_f64_from_image(u); break;
    }
}

gp_status gpi_cpu_sort(const gpi_sort_args *a, int threads)
{
    const size_t n = a->n, vs = a->value_size;
    const unsigned width = 8u * (unsigned)gp_dtype_size(a->key_dtype);
    const uint64_t flip = width == 64 ? ~0ull : 0xffffffffull;
    uint64_t *u, *pos, *u2, *pos2;
    void *values_copy = NULL;
    size_t *counts, i;
    pass_part parts[256];
    int t, shift;

    if (threads > 256) threads = 256;
    t = (int)((n + kMinChunk - 1) / kMinChunk);
    if (t > threads) t = threads;
    if (t < 1) t = 1;
    if (n > SIZE_MAX / 32) return GP_ERROR_OUT_OF_MEMORY;
    u = (uint64_t *)malloc(n * sizeof *u);
    pos = (uint64_t *)malloc(n * sizeof *pos);
    u2 = (uint64_t *)malloc(n * sizeof *u2);
    pos2 = (uint64_t *)malloc(n * sizeof *pos2);
    counts = (size_t *)malloc((size_t)t * kRadix * sizeof *counts);
    /* Values sorted in place are gathered from a copy. */
    if (vs && a->values_in && a->values_in == a->values_out && (values_copy = malloc(n * vs)))
        memcpy(values_copy, a->values_in, n * vs);
    if (!u || !pos || !u2 || !pos2 || !counts || (vs && a->values_in == a->values_out && a->values_in && !values_copy)) {
        free(u), free(pos), free(u2), free(pos2), free(counts), free(values_copy);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n; i++) {
        u[i] = image_of(a->key_dtype, a->keys_in, i);
        if (a->descending) u[i] ^= flip;
        pos[i] = i;
    }
    for (shift = a->begin_bit; shift < a->end_bit; shift += kRadixBits) {
        const int bits = a->end_bit - shift < kRadixBits ? a->end_bit - shift : kRadixBits;
        const uint64_t mask = ((uint64_t)1 << bits) - 1;
        size_t run = 0, most = 0;
        int p, d;
        for (p = 0; p < t; p++) {
            parts[p].u = u;
            parts[p].pos = pos;
            parts[p].u2 = u2;
            parts[p].pos2 = pos2;
            parts[p].lo = n / (size_t)t * (size_t)p;
            parts[p].hi = p == t - 1 ? n : n / (size_t)t * (size_t)(p + 1);
            parts[p].shift = shift;
            parts[p].mask = mask;
            parts[p].count = counts + (size_t)p * kRadix;
        }
        parallel(count_part, parts, t);
        for (d = 0; d < kRadix; d++) { /* offsets in (digit, chunk) order */
            size_t digit_total = 0;
            for (p = 0; p < t; p++) {
                size_t c = parts[p].count[d];
                parts[p].count[d] = run;
                run += c;
                digit_total += c;
            }
            if (digit_total > most) most = digit_total;
        }
        if (most == n) continue; /* one digit for all: nothing moves */
        parallel(scatter_part, parts, t);
        {
            uint64_t *x = u;
            u = u2, u2 = x;
            x = pos, pos = pos2, pos2 = x;
        }
    }
    if (vs) {
        const void *src = values_copy ? values_copy : a->values_in;
        for (i = 0; i < n; i++) {
            const uint64_t from = pos[i];
            if (!src) {
                if (vs == 4) ((uint32_t *)a->values_out)[i] = (uint32_t)from;
                else ((uint64_t *)a->values_out)[i] = from;
            } else if (vs == 4) {
                ((uint32_t *)a->values_out)[i] = ((const uint32_t *)src)[from];
            } else {
                ((uint64_t *)a->values_out)[i] = ((const uint64_t *)src)[from];
            }
        }
    }
    for (i = 0; i < n; i++) store_key(a->key_dtype, a->keys_out, i, a->descending ? u[i] ^ flip : u[i]);
    free(u), free(pos), free(u2), free(pos2), free(counts), free(values_copy);
    return GP_SUCCESS;
}
