/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/pool.h - the CPU backend's worker threads: one process-wide pool,
 * started on first use and reused, so a parallel call does not pay for
 * creating threads. */
#ifndef GPUPRIM_CPU_POOL_H
#define GPUPRIM_CPU_POOL_H

#include <stddef.h>

/* Inputs below this many elements run on the calling thread alone: the
 * hand-off to workers costs more than the work. */
#define GPI_POOL_MIN_PART ((size_t)1 << 16)

/* The most parts a call is cut into (callers size per-part arrays by it). */
#define GPI_POOL_MAX_PARTS 256

/* Run fn(arg, p, parts) for every p in [0, parts) and return when all have
 * finished; the caller runs part 0. A part must not wait for another part
 * that was started after it (parts may run one after another, in order, on
 * the caller: when another call holds the pool, or a worker cannot start). */
typedef void (*gpi_pool_fn)(void *arg, int part, int parts);
void gpi_pool_run(int parts, gpi_pool_fn fn, void *arg);

/* How many parts to cut n elements into for `threads` threads (below 1
 * counts as 1): at most threads and GPI_POOL_MAX_PARTS, at least
 * GPI_POOL_MIN_PART elements each (so 1 for small n). */
int gpi_pool_parts(size_t n, int threads);

/* The half-open range of part p of n elements cut into `parts` near-equal
 * pieces, their starts multiples of `align` (1: any). */
static inline void gpi_pool_range(size_t n, int p, int parts, size_t align, size_t *lo, size_t *hi)
{
    size_t units = (n + align - 1) / align;
    size_t a = units / (size_t)parts * (size_t)p + (units % (size_t)parts < (size_t)p ? units % (size_t)parts : (size_t)p);
    size_t b = a + units / (size_t)parts + ((size_t)p < units % (size_t)parts);
    *lo = a * align < n ? a * align : n;
    *hi = b * align < n ? b * align : n;
}

#endif
