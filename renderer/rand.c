/* SPDX-License-Identifier: BSD-3-Clause */
/* rand.c - glibc's TYPE_3 rand(), from its documented definition:
 *   r[0] = seed (0 -> 1); r[i] = 16807 * r[i-1] mod (2^31 - 1), i = 1..30;
 *   r[i] = r[i-31], i = 31..33; r[i] = r[i-31] + r[i-3] (mod 2^32), i >= 34;
 *   the k-th output is r[k + 344] >> 1 (the first 344 terms are discarded). */
#include "rand.h"

static uint32_t next_term(gpr_rand *g)
{
    uint64_t i = g->i++;
    uint32_t v = g->r[(i - 31) % 34] + g->r[(i - 3) % 34];
    g->r[i % 34] = v;
    return v;
}

void gpr_rand_seed(gpr_rand *g, unsigned seed)
{
    int i;
    int32_t w = (int32_t)seed;
    if (seed == 0) w = 1;
    g->r[0] = (uint32_t)w;
    for (i = 1; i < 31; i++) {
        /* 64-bit product: no overflow; a negative seed gives a negative
         * remainder, which glibc brings into range by adding the modulus. */
        int64_t t = ((int64_t)16807 * (int64_t)(int32_t)g->r[i - 1]) % 2147483647;
        if (t < 0) t += 2147483647;
        g->r[i] = (uint32_t)t;
    }
    for (i = 31; i < 34; i++) g->r[i] = g->r[i - 31];
    g->i = 34;
    while (g->i < 344) (void)next_term(g);
}

int gpr_rand_next(gpr_rand *g) { return (int)(next_term(g) >> 1); }

float gpr_rand_float(gpr_rand *g) { return (float)gpr_rand_next(g) / (float)GPR_RAND_MAX; }
