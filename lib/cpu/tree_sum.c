/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tree_sum.c - the float-sum tree of gp_reduce (gpuprim.h), replayed on
 * the CPU so both backends give the same bits:
 * blocks of 4096 elements; in each, 256 lanes t adding x[t + 256 j]
 * (j = 0..15) in order from -0.0, the lanes of each warp of 32 folded 16,
 * 8, 4, 2, 1 apart (lane l += lane l + d), the 8 warp sums combined as
 * ((w0+w4) + (w2+w6)) + ((w1+w5) + (w3+w7)); then the same over the block
 * sums until one is left. n == 0 gives +0.0.
 *
 * Blocks are independent, so threads take contiguous runs of them; each
 * level is finished before the next starts, so the bits do not depend on
 * the number of threads. The 256 lanes are independent too: the loops run
 * across lanes, which the compiler turns into vector adds (no
 * reassociation: each lane still adds in its own order; no FMA is involved,
 * and the library is built with -ffp-contract=off). */
#include "internal.h"
#include "pool.h"

#include <stdlib.h>

enum { kBlock = 4096, kLanes = 256, kWarp = 32 };

#define DEFINE_TREE_SUM(SUF, T)                                                                     \
    static T block_##SUF(const T *x, size_t m)                                                      \
    {                                                                                               \
        T lane[kLanes];                                                                             \
        const size_t rows = m / kLanes, rest = m % kLanes;                                          \
        size_t t, r, w, d;                                                                          \
        for (t = 0; t < kLanes; t++) lane[t] = (T)-0.0;                                             \
        for (r = 0; r < rows; r++)                                                                  \
            for (t = 0; t < kLanes; t++) lane[t] = lane[t] + x[r * kLanes + t];                     \
        for (t = 0; t < rest; t++) lane[t] = lane[t] + x[rows * kLanes + t];                        \
        for (d = kWarp / 2; d > 0; d >>= 1)                                                         \
            for (w = 0; w < kLanes; w += kWarp)                                                     \
                for (t = 0; t < d; t++) lane[w + t] = lane[w + t] + lane[w + t + d];                \
        return ((lane[0] + lane[128]) + (lane[64] + lane[192])) +                                   \
               ((lane[32] + lane[160]) + (lane[96] + lane[224]));                                   \
    }                                                                                               \
                                                                                                    \
    typedef struct { const T *x; size_t n; T *level; } job_##SUF;                                   \
                                                                                                    \
    static void blocks_##SUF(void *arg, int part, int parts)                                        \
    {                                                                                               \
        const job_##SUF *j = (const job_##SUF *)arg;                                                \
        size_t lo, hi, b;                                                                           \
        gpi_pool_range(j->n, part, parts, kBlock, &lo, &hi);                                        \
        for (b = lo; b < hi; b += kBlock)                                                           \
            j->level[b / kBlock] = block_##SUF(j->x + b, j->n - b < kBlock ? j->n - b : kBlock);    \
    }                                                                                               \
                                                                                                    \
    gp_status gpi_cpu_tree_sum_##SUF(const T *x, size_t n, T *sum, int threads)                     \
    {                                                                                               \
        job_##SUF j;                                                                                \
        gp_status st;                                                                               \
        if (n == 0) return *sum = (T)0, GP_SUCCESS;                                                 \
        if (n <= kBlock) return *sum = block_##SUF(x, n), GP_SUCCESS;                               \
        j.x = x;                                                                                    \
        j.n = n;                                                                                    \
        if (!(j.level = (T *)malloc((n + kBlock - 1) / kBlock * sizeof *j.level)))                  \
            return GP_ERROR_OUT_OF_MEMORY;                                                          \
        gpi_pool_run(gpi_pool_parts(n, threads), blocks_##SUF, &j);                                 \
        st = gpi_cpu_tree_sum_##SUF(j.level, (n + kBlock - 1) / kBlock, sum, threads);              \
        free(j.level);                                                                              \
        return st;                                                                                  \
    }

DEFINE_TREE_SUM(f32, float)
DEFINE_TREE_SUM(f64, double)
