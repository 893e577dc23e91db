/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/search.c - sorted search: the reference, a binary search per needle
 * over the keys' order images, then its form on the context's threads. The
 * loop keeps lo <= hi <= n and shrinks [lo, hi) every step, so it ends
 * inside [0, n] whatever the keys hold. */
#include "search_internal.h"
#include "pool.h"

gp_status gpi_cpu_search(const gpi_search_args *a)
{
    size_t i;
    for (i = 0; i < a->m; i++) {
        const uint64_t x = gpi_order_image(a->key_dtype, a->descending, a->needles, i);
        size_t lo = 0, hi = a->n;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            const uint64_t k = gpi_order_image(a->key_dtype, a->descending, a->keys, mid);
            /* lower: go right while keys[mid] < x; upper: while keys[mid] <= x */
            if (a->upper ? k <= x : k < x) lo = mid + 1;
            else hi = mid;
        }
        a->positions[i] = lo;
    }
    return GP_SUCCESS;
}

/* ---- the same on the context's threads: the needles cut into contiguous
 * parts, each searched with the reference's loop and probes (so unsorted
 * keys give the same positions too), the key dtype chosen once per part. */

#define DEFINE_SEARCH(NAME, T, IMAGE)                                                                  \
    static void NAME(const gpi_search_args *a, size_t from, size_t to)                                \
    {                                                                                                 \
        const T *keys = (const T *)a->keys, *needles = (const T *)a->needles;                         \
        const uint64_t flip = a->descending ? (sizeof(T) == 4 ? 0xffffffffull : ~0ull) : 0;            \
        const int upper = a->upper;                                                                   \
        size_t i;                                                                                     \
        for (i = from; i < to; i++) {                                                                 \
            const uint64_t x = (IMAGE(needles[i])) ^ flip;                                            \
            size_t lo = 0, hi = a->n;                                                                 \
            while (lo < hi) {                                                                         \
                const size_t mid = lo + (hi - lo) / 2;                                                \
                const uint64_t k = (IMAGE(keys[mid])) ^ flip;                                         \
                if (upper ? k <= x : k < x) lo = mid + 1;                                             \
                else hi = mid;                                                                        \
            }                                                                                         \
            a->positions[i] = lo;                                                                     \
        }                                                                                             \
    }

/* Keys read as unsigned words of their size, as gpi_order_image reads them. */
DEFINE_SEARCH(search_u32, uint32_t, gpi_u32_image)
DEFINE_SEARCH(search_i32, uint32_t, gpi_i32_image)
DEFINE_SEARCH(search_u64, uint64_t, gpi_u64_image)
DEFINE_SEARCH(search_i64, uint64_t, gpi_i64_image)
DEFINE_SEARCH(search_f32, uint32_t, gpi_f32_image)
DEFINE_SEARCH(search_f64, uint64_t, gpi_f64_image)

static void search_part(void *arg, int part, int parts)
{
    const gpi_search_args *a = (const gpi_search_args *)arg;
    size_t from, to;
    /* starts on 64-byte lines of positions: no line is written by two threads */
    gpi_pool_range(a->m, part, parts, 8, &from, &to);
    switch (a->key_dtype) {
    case GP_UINT32: search_u32(a, from, to); break;
    case GP_INT32: search_i32(a, from, to); break;
    case GP_UINT64: search_u64(a, from, to); break;
    case GP_INT64: search_i64(a, from, to); break;
    case GP_FLOAT32: search_f32(a, from, to); break;
    default: search_f64(a, from, to); break;
    }
}

gp_status gpi_cpu_search_threads(const gpi_search_args *a, int threads)
{
    gpi_pool_run(gpi_pool_parts(a->m, threads), search_part, (void *)a);
    return GP_SUCCESS;
}
