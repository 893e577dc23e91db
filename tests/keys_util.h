/* SPDX-License-Identifier: BSD-3-Clause */
/* keys_util.h - keys for the sorted-data suites (sort, search, merge, top-k):
 * fills with duplicates, extremes and special floats, and an independent
 * comparator for gp_sort's key order, written out case by case on the
 * values (not through the library's order images), so the suites' tiny
 * references do not share the code they check. */
#ifndef GPUPRIM_TEST_KEYS_UTIL_H
#define GPUPRIM_TEST_KEYS_UTIL_H

#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype gpk_dtypes[] = {GP_UINT32, GP_INT32, GP_UINT64, GP_INT64, GP_FLOAT32, GP_FLOAT64};

enum gpk_dist { GPK_RANDOM, GPK_FEW_DISTINCT, GPK_ALL_EQUAL, GPK_SPECIAL, GPK_NDISTS };
static inline const char *gpk_dist_name(int d)
{
    static const char *names[] = {"random", "few-distinct", "all-equal", "special"};
    return names[d];
}

/* Zeros of both signs, infinities, NaNs of both signs and several payloads,
 * denormals, the extremes, +-1. */
static inline void gpk_special(gp_dtype d, void *k, size_t i, uint64_t r)
{
    static const uint64_t b64[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                   0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                   0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
                                   0xffffffffffffffffull, 0x0000000000000001ull, 0x8000000000000001ull,
                                   0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull,
                                   0xbff0000000000000ull};
    static const uint32_t b32[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                   0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u,
                                   0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u};
    const int pick = (int)((r >> 60) & 1);
    switch (d) {
    case GP_UINT32: ((uint32_t *)k)[i] = pick ? 0xffffffffu - (uint32_t)(r % 3) : (uint32_t)(r % 3); break;
    case GP_INT32: ((int32_t *)k)[i] = pick ? INT32_MAX - (int32_t)(r % 3) : INT32_MIN + (int32_t)(r % 3); break;
    case GP_UINT64: ((uint64_t *)k)[i] = pick ? ~0ull - r % 3 : r % 3; break;
    case GP_INT64: ((int64_t *)k)[i] = pick ? INT64_MAX - (int64_t)(r % 3) : INT64_MIN + (int64_t)(r % 3); break;
    case GP_FLOAT32:
        if (pick) ((float *)k)[i] = (float)((double)(r % 7) - 3.0);
        else memcpy((uint32_t *)k + i, &b32[r % 16], 4);
        break;
    default:
        if (pick) ((double *)k)[i] = (double)(r % 7) - 3.0;
        else memcpy((uint64_t *)k + i, &b64[r % 16], 8);
        break;
    }
}

static inline void gpk_fill(gp_dtype d, void *k, size_t n, int dist)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    switch (dist) {
    case GPK_RANDOM: gpt_fill_random(d, k, n, 0); break;
    case GPK_FEW_DISTINCT: gpt_fill_random(d, k, n, 5); break;
    case GPK_ALL_EQUAL:
        gpt_fill_random(d, k, n ? 1 : 0, 0);
        for (i = 1; i < n; i++) memcpy((char *)k + i * es, k, es);
        break;
    default:
        for (i = 0; i < n; i++) gpk_special(d, k, i, gpt_rand64());
    }
}

/* ---- the independent comparator (ascending) ------------------------------------- */
static inline int gpk_cmp_float(double a, double b, uint64_t pa, uint64_t pb, int na, int nb)
{
    /* na/nb: NaN sign (1 negative), pa/pb: payload, for NaNs only. */
    if (isnan(a) || isnan(b)) {
        if (!isnan(b)) return 1;
        if (!isnan(a)) return -1;
        if (na != nb) return na ? 1 : -1; /* positive NaNs first */
        if (pa == pb) return 0;
        return (na ? pa > pb : pa < pb) ? -1 : 1;
    }
    if (a < b) return -1;
    if (a > b) return 1;
    if (a == 0 && signbit(a) != signbit(b)) return signbit(a) ? -1 : 1;
    return 0;
}

/* Compare key i of x with key j of y in `descending` order (-1, 0, 1). */
static inline int gpk_cmp(gp_dtype d, int descending, const void *x, size_t i, const void *y, size_t j)
{
    int c;
    switch (d) {
    case GP_UINT32: { uint32_t a = ((const uint32_t *)x)[i], b = ((const uint32_t *)y)[j]; c = (a > b) - (a < b); break; }
    case GP_INT32: { int32_t a = ((const int32_t *)x)[i], b = ((const int32_t *)y)[j]; c = (a > b) - (a < b); break; }
    case GP_UINT64: { uint64_t a = ((const uint64_t *)x)[i], b = ((const uint64_t *)y)[j]; c = (a > b) - (a < b); break; }
    case GP_INT64: { int64_t a = ((const int64_t *)x)[i], b = ((const int64_t *)y)[j]; c = (a > b) - (a < b); break; }
    case GP_FLOAT32: {
        uint32_t ba, bb;
        float a = ((const float *)x)[i], b = ((const float *)y)[j];
        memcpy(&ba, &a, 4), memcpy(&bb, &b, 4);
        c = gpk_cmp_float(a, b, ba & 0x7fffffu, bb & 0x7fffffu, (int)(ba >> 31), (int)(bb >> 31));
        break;
    }
    default: {
        uint64_t ba, bb;
        double a = ((const double *)x)[i], b = ((const double *)y)[j];
        memcpy(&ba, &a, 8), memcpy(&bb, &b, 8);
        c = gpk_cmp_float(a, b, ba & 0xfffffffffffffull, bb & 0xfffffffffffffull, (int)(ba >> 63), (int)(bb >> 63));
        break;
    }
    }
    return descending ? -c : c;
}

/* Stable sort of positions pos[0..n) of keys by the comparator (ties by
 * position): insertion into a merge sort, written plainly. */
static inline void gpk_stable_order(gp_dtype d, int descending, const void *keys, uint64_t *pos, size_t n)
{
    uint64_t *tmp = (uint64_t *)gpt_malloc(n * 8);
    size_t w, i;
    for (i = 0; i < n; i++) pos[i] = i;
    for (w = 1; w < n; w *= 2) { /* bottom-up merge sort: stable */
        size_t lo;
        for (lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, p = lo, q = mid, o = lo;
            while (p < mid || q < hi) {
                if (q >= hi || (p < mid && gpk_cmp(d, descending, keys, pos[q], keys, pos[p]) >= 0))
                    tmp[o++] = pos[p++];
                else
                    tmp[o++] = pos[q++];
            }
        }
        memcpy(pos, tmp, n * 8);
    }
    free(tmp);
}

/* Sort n keys in place in the order (stable, by the comparator). */
static inline void gpk_sort(gp_dtype d, int descending, void *keys, size_t n)
{
    const size_t es = gp_dtype_size(d);
    uint64_t *pos = (uint64_t *)gpt_malloc(n * 8);
    char *copy = (char *)gpt_malloc(n * es);
    size_t i;
    gpk_stable_order(d, descending, keys, pos, n);
    memcpy(copy, keys, n * es);
    for (i = 0; i < n; i++) memcpy((char *)keys + i * es, copy + pos[i] * es, es);
    free(pos), free(copy);
}

#endif
