/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/sort_radix.h - the passes of the CPU radix sort (cpu/sort_radix.c),
 * driven by cpu/sort.c.
 *
 * Keys travel between passes as working keys: unsigned words of the key's
 * width whose order is the sort order (the order image of gpuprim.h, all
 * bits flipped for descending). A pass reads keys (turning them into working
 * keys on the first pass), scatters them by one digit, and on the last pass
 * writes them back as keys. */
#ifndef GPUPRIM_CPU_SORT_RADIX_H
#define GPUPRIM_CPU_SORT_RADIX_H

#include <stddef.h>
#include <stdint.h>

enum { GPI_RADIX_MAX_BITS = 8, GPI_RADIX_MAX_DIGITS = 1 << GPI_RADIX_MAX_BITS };

/* Key to working key: w = (is_float ? image(k) : k) ^ flip; back:
 * k = is_float ? from_image(w ^ flip) : w ^ flip. */
typedef struct gpi_radix_xform {
    int is_float;
    uint64_t flip; /* sign bit for signed keys, all bits for descending, or both */
} gpi_radix_xform;

/* What travels with the keys. */
typedef enum gpi_radix_values {
    GPI_RADIX_KEYS_ONLY,
    GPI_RADIX_VALUES4,  /* 4-byte values from vsrc */
    GPI_RADIX_VALUES8,  /* 8-byte values from vsrc */
    GPI_RADIX_INDEX4,   /* the source position as uint32 (first pass only) */
    GPI_RADIX_INDEX8    /* the source position as uint64 (first pass only) */
} gpi_radix_values;

/* One scatter pass over keys of `width` (32 or 64) bits. */
typedef struct gpi_radix_pass {
    unsigned width;
    const void *ksrc;
    void *kdst;
    const void *vsrc;
    void *vdst;
    gpi_radix_values values;
    size_t n;
    int shift, bits;      /* the digit: (w >> shift) & ((1 << bits) - 1) */
    int to_work, to_key;  /* convert on read (first pass) / on write (last pass) */
    gpi_radix_xform x;
    size_t *offsets;      /* per part, 1 << bits entries: counts, then where its keys of each digit go */
} gpi_radix_pass;

/* OR and AND of the working keys of src[lo, hi): the bits that vary are
 * (or ^ and). */
void gpi_radix_span(unsigned width, const void *src, size_t lo, size_t hi, const gpi_radix_xform *x, uint64_t *or_out,
                    uint64_t *and_out);

/* Histograms of `digits` digits at once over the working keys of src[0, n):
 * counts[d << GPI_RADIX_MAX_BITS | v] (zeroed here) for digit d at
 * shifts[d], widths bits[d]. */
void gpi_radix_histograms(unsigned width, const void *src, size_t n, const gpi_radix_xform *x, const int *shifts,
                          const int *bits, int digits, size_t *counts);

/* Part p (of `parts`, pieces as gpi_pool_range with align 1): count its
 * digits into p->offsets + (p << bits) (zeroed here). */
void gpi_radix_count(const gpi_radix_pass *p, int part, int parts);

/* Part p: move its keys (and values) to where its offsets say, in order. */
void gpi_radix_scatter(const gpi_radix_pass *p, int part, int parts);

#endif
