/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/search.c - the reference sorted search: a binary search per needle
 * over the keys' order images. The loop keeps lo <= hi <= n and shrinks
 * [lo, hi) every step, so it ends inside [0, n] whatever the keys hold. */
#include "search_internal.h"

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
