/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/sort_radix_impl.h - the radix passes for one key width, included by
 * cpu/sort_radix.c once per width with:
 *   RW      the width in bits (32 or 64), naming the functions
 *   RT      the unsigned word of that width
 *   RIMG    key bits -> float order image, RUNIMG its inverse
 * The kernels are always inlined into a dispatch on their constant flags, so
 * each combination of conversion and value kind is its own loop. */

#define RCAT_(a, b) a##b
#define RCAT(a, b) RCAT_(a, b)
#define RNAME(name) RCAT(name, RW)
#define GPI_RADIX_MAX_PASSES_UNROLLED 4

#if defined(__GNUC__)
#define RINLINE static inline __attribute__((always_inline))
#else
#define RINLINE static inline
#endif

RINLINE RT RNAME(work_of)(RT k, int is_float, RT flip) { return (is_float ? RIMG(k) : k) ^ flip; }
RINLINE RT RNAME(key_of)(RT w, int is_float, RT flip) { return is_float ? RUNIMG(w ^ flip) : w ^ flip; }

static void RNAME(span)(const RT *src, size_t lo, size_t hi, int is_float, uint64_t *or_out, uint64_t *and_out)
{
    RT o = 0, a = (RT)~(RT)0;
    size_t i;
    if (is_float)
        for (i = lo; i < hi; i++) {
            const RT w = RIMG(src[i]);
            o |= w, a &= w;
        }
    else
        for (i = lo; i < hi; i++) o |= src[i], a &= src[i];
    *or_out = o, *and_out = a;
}

/* One read counting every digit; digits is a constant where inlined, so
 * the digit loop unrolls and the shifts stay in registers. */
RINLINE void RNAME(histograms_k)(const RT *src, size_t n, int is_float, RT flip, const int *shifts, const int *bits,
                                 int digits, size_t *counts)
{
    int sh[GPI_RADIX_MAX_PASSES_UNROLLED];
    RT mask[GPI_RADIX_MAX_PASSES_UNROLLED];
    size_t i;
    int d;
    for (d = 0; d < digits; d++) sh[d] = shifts[d], mask[d] = ((RT)1 << bits[d]) - 1;
    for (i = 0; i < n; i++) {
        const RT w = RNAME(work_of)(src[i], is_float, flip);
        for (d = 0; d < digits; d++) counts[(size_t)d << GPI_RADIX_MAX_BITS | (size_t)((w >> sh[d]) & mask[d])]++;
    }
}

static void RNAME(histograms)(const RT *src, size_t n, int is_float, RT flip, const int *shifts, const int *bits,
                              int digits, size_t *counts)
{
    memset(counts, 0, (size_t)digits * GPI_RADIX_MAX_DIGITS * sizeof *counts);
#define RHIST_CASE(D)                                                                    \
    case D:                                                                              \
        if (is_float) RNAME(histograms_k)(src, n, 1, flip, shifts, bits, D, counts);     \
        else RNAME(histograms_k)(src, n, 0, flip, shifts, bits, D, counts);              \
        return;
    switch (digits) {
        RHIST_CASE(1)
        RHIST_CASE(2)
        RHIST_CASE(3)
        RHIST_CASE(4)
    default: break;
    }
#undef RHIST_CASE
    while (digits > 0) { /* more digits (64-bit keys): up to four a read */
        const int now = digits < 4 ? digits : 4;
        RNAME(histograms)(src, n, is_float, flip, shifts, bits, now, counts);
        shifts += now, bits += now, digits -= now, counts += (size_t)now << GPI_RADIX_MAX_BITS;
    }
}

RINLINE void RNAME(count_k)(const RT *src, size_t lo, size_t hi, int shift, RT mask, int is_float, RT flip,
                            size_t *count)
{
    size_t i;
    for (i = lo; i < hi; i++) count[(RNAME(work_of)(src[i], is_float, flip) >> shift) & mask]++;
}

/* The scatter loop: fin/fout convert on read/write (float image and flip;
 * otherwise the flip alone, 0 between passes), vk says what moves along. */
RINLINE void RNAME(scatter_k)(const RT *restrict src, RT *restrict dst, const void *restrict vsrc,
                              void *restrict vdst, size_t lo, size_t hi, int shift, RT mask, int fin, RT flip_in,
                              int fout, RT flip_out, gpi_radix_values vk, size_t *restrict off)
{
    size_t i;
    for (i = lo; i < hi; i++) {
        const RT w = RNAME(work_of)(src[i], fin, flip_in);
        const size_t at = off[(w >> shift) & mask]++;
        dst[at] = RNAME(key_of)(w, fout, flip_out);
        switch (vk) {
        case GPI_RADIX_KEYS_ONLY: break;
        case GPI_RADIX_VALUES4: ((uint32_t *)vdst)[at] = ((const uint32_t *)vsrc)[i]; break;
        case GPI_RADIX_VALUES8: ((uint64_t *)vdst)[at] = ((const uint64_t *)vsrc)[i]; break;
        case GPI_RADIX_INDEX4: ((uint32_t *)vdst)[at] = (uint32_t)i; break;
        case GPI_RADIX_INDEX8: ((uint64_t *)vdst)[at] = (uint64_t)i; break;
        }
    }
}

#define RSCATTER_VK(FIN, FOUT, VK)                                                                               \
    case VK:                                                                                                     \
        RNAME(scatter_k)(src, dst, p->vsrc, p->vdst, lo, hi, p->shift, mask, FIN, flip_in, FOUT, flip_out, VK, \
                         off);                                                                                   \
        return;

#define RSCATTER_FLOAT(FIN, FOUT)                              \
    switch (p->values) {                                       \
        RSCATTER_VK(FIN, FOUT, GPI_RADIX_KEYS_ONLY)            \
        RSCATTER_VK(FIN, FOUT, GPI_RADIX_VALUES4)              \
        RSCATTER_VK(FIN, FOUT, GPI_RADIX_VALUES8)              \
        RSCATTER_VK(FIN, FOUT, GPI_RADIX_INDEX4)               \
        RSCATTER_VK(FIN, FOUT, GPI_RADIX_INDEX8)               \
    }                                                          \
    return;

static void RNAME(scatter)(const gpi_radix_pass *p, size_t lo, size_t hi, size_t *off)
{
    const RT *src = (const RT *)p->ksrc;
    RT *dst = (RT *)p->kdst;
    const RT mask = ((RT)1 << p->bits) - 1;
    const RT flip_in = p->to_work ? (RT)p->x.flip : 0, flip_out = p->to_key ? (RT)p->x.flip : 0;
    const int fin = p->to_work && p->x.is_float, fout = p->to_key && p->x.is_float;
    if (!fin && !fout) {
        RSCATTER_FLOAT(0, 0)
    } else if (fin && !fout) {
        RSCATTER_FLOAT(1, 0)
    } else if (!fin && fout) {
        RSCATTER_FLOAT(0, 1)
    } else {
        RSCATTER_FLOAT(1, 1)
    }
}

static void RNAME(count)(const gpi_radix_pass *p, size_t lo, size_t hi, size_t *count)
{
    const RT *src = (const RT *)p->ksrc;
    const RT mask = ((RT)1 << p->bits) - 1, flip = p->to_work ? (RT)p->x.flip : 0;
    memset(count, 0, ((size_t)1 << p->bits) * sizeof *count);
    if (p->to_work && p->x.is_float) RNAME(count_k)(src, lo, hi, p->shift, mask, 1, flip, count);
    else RNAME(count_k)(src, lo, hi, p->shift, mask, 0, flip, count);
}

#undef RSCATTER_VK
#undef RSCATTER_FLOAT
#undef RINLINE
#undef RNAME
#undef GPI_RADIX_MAX_PASSES_UNROLLED
#undef RCAT
#undef RCAT_
