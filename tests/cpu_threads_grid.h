/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu_threads_grid.h - the thread counts and sizes the test_cpu_threads_*
 * programs try: an even and two uneven splits of the work, and sizes
 * around the point where a call starts using threads (64K elements) and
 * an odd larger one. */
#ifndef GPUPRIM_TESTS_CPU_THREADS_GRID_H
#define GPUPRIM_TESTS_CPU_THREADS_GRID_H

#include "test_util.h"

static const int thread_counts[] = {2, 3, 7};
static const size_t sizes[] = {0, 1, 65535, 65536, 65537, 131073, 300007};
enum { kGuard = 64 }; /* poisoned bytes past each output */

/* How many of the sizes a run covers: the largest only at full size. */
static inline size_t size_count(void) { return COUNT(sizes) - (gpt_quick() ? 1 : 0); }

/* The index of the thread count for the next case, drawn from the tests'
 * seeded generator (GP_TEST_SEED repeats a run): a third of the time of
 * trying each count on each case, and no loop whose length is a multiple
 * of the counts' pins one variant to one count, as taking them in turn
 * would. */
static inline size_t next_turn(void) { return (size_t)(gpt_rand64() % COUNT(thread_counts)); }

static inline void set_threads(gp_context *ctx, int t) { GPT_OK(ctx, gp_context_set_cpu_threads(ctx, t)); }

#endif
