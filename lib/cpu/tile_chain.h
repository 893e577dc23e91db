/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tile_chain.h - tiles claimed in order by the threads, each finding
 * the sum of the values of the tiles before it by looking back (the AVX2
 * scan's tile totals, the AVX2 compaction's tile counts).
 *
 * A tile publishes its value (ready 1), then its inclusive prefix, start
 * plus every value up to its own (ready 2). The prefix before tile k is its
 * predecessors' values added back to the first published prefix, or to
 * start. A predecessor that has not published soon (its thread may be
 * descheduled on a busy machine) has its value computed by value_of
 * instead of waited for, so no thread waits for another; unless may_help
 * is 0 (a scan in place, whose input is overwritten once a tile is
 * written): then the look-back waits, yielding. Sums are uint64 and wrap,
 * so a 32-bit scan's prefix is their low half. */
#ifndef GPUPRIM_CPU_TILE_CHAIN_H
#define GPUPRIM_CPU_TILE_CHAIN_H

#include "vec_kernels.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint64_t (*gpi_tile_value_fn)(const void *arg, size_t tile);

typedef struct gpi_tile_chain {
    size_t tiles;
    atomic_size_t next;        /* the next tile to claim */
    atomic_int *ready;         /* per tile: 1 its value, 2 also its prefix is published */
    uint64_t *value, *prefix;  /* per tile */
    uint64_t start;            /* what the first tile's prefix starts from */
    unsigned help_spins;       /* gpi_cpu_help_spins() */
    int may_help;
    gpi_tile_value_fn value_of;
    const void *arg;           /* value_of's */
} gpi_tile_chain;

/* 0 when the tiles' state could not be allocated (nothing to free then). */
static inline int gpi_tile_chain_init(gpi_tile_chain *c, size_t tiles, uint64_t start, int may_help,
                                      gpi_tile_value_fn value_of, const void *arg)
{
    size_t k;
    c->ready = (atomic_int *)malloc(tiles * sizeof *c->ready);
    c->value = (uint64_t *)malloc(tiles * sizeof *c->value);
    c->prefix = (uint64_t *)malloc(tiles * sizeof *c->prefix);
    if (!c->ready || !c->value || !c->prefix) {
        free(c->ready), free(c->value), free(c->prefix);
        return 0;
    }
    for (k = 0; k < tiles; k++) atomic_init(&c->ready[k], 0);
    atomic_init(&c->next, 0);
    c->tiles = tiles;
    c->start = start;
    c->help_spins = gpi_cpu_help_spins();
    c->may_help = may_help;
    c->value_of = value_of;
    c->arg = arg;
    return 1;
}

static inline void gpi_tile_chain_free(gpi_tile_chain *c)
{
    free(c->ready), free(c->value), free(c->prefix);
}

/* The next tile for this thread (>= tiles: none left). */
static inline size_t gpi_tile_chain_claim(gpi_tile_chain *c)
{
    return atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed);
}

static inline uint64_t gpi_tile_chain_before(const gpi_tile_chain *c, size_t k)
{
    uint64_t acc = 0;
    while (k > 0) {
        const size_t p = --k;
        unsigned spins = 0;
        int state;
        while ((state = atomic_load_explicit(&c->ready[p], memory_order_acquire)) == 0) {
            if (spins < c->help_spins) {
                spins++;
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else if (c->may_help) {
                break;
            } else {
                sched_yield(); /* its thread may be descheduled */
            }
        }
        if (state == 2) return acc + c->prefix[p];
        acc += state == 1 ? c->value[p] : c->value_of(c->arg, p);
    }
    return acc + c->start;
}

/* Publishes tile k's value, then its inclusive prefix; returns the prefix
 * before it. */
static inline uint64_t gpi_tile_chain_publish(gpi_tile_chain *c, size_t k, uint64_t value)
{
    uint64_t before;
    c->value[k] = value;
    atomic_store_explicit(&c->ready[k], 1, memory_order_release);
    before = gpi_tile_chain_before(c, k);
    c->prefix[k] = before + value;
    atomic_store_explicit(&c->ready[k], 2, memory_order_release);
    return before;
}

/* After the run: start plus every tile's value. */
static inline uint64_t gpi_tile_chain_end(const gpi_tile_chain *c)
{
    return c->prefix[c->tiles - 1];
}

#endif
