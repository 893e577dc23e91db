/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/sort_radix.c - the passes of the CPU radix sort, for 32- and 64-bit
 * keys (the loops themselves: cpu/sort_radix_impl.h). */
#include "internal.h"
#include "pool.h"
#include "sort_radix.h"

#include <string.h>

#define RW 32
#define RT uint32_t
#define RIMG gpi_f32_image
#define RUNIMG gpi_f32_from_image
#include "sort_radix_impl.h"
#undef RW
#undef RT
#undef RIMG
#undef RUNIMG

#define RW 64
#define RT uint64_t
#define RIMG gpi_f64_image
#define RUNIMG gpi_f64_from_image
#include "sort_radix_impl.h"
#undef RW
#undef RT
#undef RIMG
#undef RUNIMG

void gpi_radix_span(unsigned width, const void *src, size_t lo, size_t hi, const gpi_radix_xform *x, uint64_t *or_out,
                    uint64_t *and_out)
{
    /* The flip changes which bits are set, not which vary: left out. */
    if (width == 32) span32((const uint32_t *)src, lo, hi, x->is_float, or_out, and_out);
    else span64((const uint64_t *)src, lo, hi, x->is_float, or_out, and_out);
}

void gpi_radix_histograms(unsigned width, const void *src, size_t n, const gpi_radix_xform *x, const int *shifts,
                          const int *bits, int digits, size_t *counts)
{
    if (width == 32)
        histograms32((const uint32_t *)src, n, x->is_float, (uint32_t)x->flip, shifts, bits, digits, counts);
    else
        histograms64((const uint64_t *)src, n, x->is_float, x->flip, shifts, bits, digits, counts);
}

void gpi_radix_count(const gpi_radix_pass *p, int part, int parts)
{
    size_t lo, hi, *count = p->offsets + ((size_t)part << p->bits);
    gpi_pool_range(p->n, part, parts, 1, &lo, &hi);
    if (p->width == 32) count32(p, lo, hi, count);
    else count64(p, lo, hi, count);
}

void gpi_radix_scatter(const gpi_radix_pass *p, int part, int parts)
{
    size_t lo, hi, *off = p->offsets + ((size_t)part << p->bits);
    gpi_pool_range(p->n, part, parts, 1, &lo, &hi);
    if (p->width == 32) scatter32(p, lo, hi, off);
    else scatter64(p, lo, hi, off);
}
