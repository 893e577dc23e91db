/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_keys.h - the key shapes of the distributed sort, group-by and top-k
 * tests: keys_util.h's distributions and three skewed ones (90% one value,
 * sorted, reverse sorted), and the CPU context that makes the references.
 * Header-only (static inline), like dist_world.h. */
#ifndef GPT_DIST_KEYS_H
#define GPT_DIST_KEYS_H

#include "keys_util.h"

#include <string.h>

enum { DIST_NINETY = GPK_NDISTS, DIST_SORTED, DIST_REVERSED, NDISTS };

/* The reference context, made on first use; each test's main destroys it. */
static gp_context *ref;

static inline gp_context *cpu_ref(void)
{
    if (!ref && gp_context_create(&ref, GP_BACKEND_CPU, 0)) fail_msg("CPU reference context");
    return ref;
}

/* n keys of distribution dist; the skewed ones start from random keys of
 * gpt_fill_random's `range` (0: the full range). */
static inline void fill_keys_ranged(gp_dtype d, void *k, size_t n, int dist, int range)
{
    const size_t es = gp_dtype_size(d);
    size_t i;
    if (dist < GPK_NDISTS) {
        gpk_fill(d, k, n, dist);
        return;
    }
    gpt_fill_random(d, k, n, range);
    if (dist == DIST_NINETY) {
        for (i = 1; i < n; i++)
            if (gpt_uniform() < 0.9) memcpy((char *)k + i * es, k, es);
        return;
    }
    if (n) GPT_OK(cpu_ref(), gp_sort_keys(cpu_ref(), d, dist == DIST_SORTED ? GP_SORT_ASCENDING : GP_SORT_DESCENDING,
                                          k, k, n, 0, (int)(8 * es)));
}

#endif
