/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/scan.c - the CPU scan, on the context's threads.
 *
 * The array is cut into tiles of kTile elements. Threads claim tiles in
 * order; for its tile a thread folds the elements into the tile's total,
 * waits for the inclusive prefix of the tile before (published by the
 * thread that claimed it), publishes its own (that prefix op the total),
 * then scans the tile from the prefix before it. Each element is read from
 * memory once (the second read of the tile hits the cache) and written once.
 *
 * The result does not depend on the number of threads. Integer sums, min
 * and max equal one left-to-right pass (cpu/ops.h). Float sums follow the
 * tiles: tile k is added left to right starting from P(k), where P(0) is
 * the seed (+0.0 unseeded) and P(k+1) = P(k) + (the left-to-right sum of
 * tile k from +0.0); within the first tile that is the plain sequential sum.
 *
 * 32-bit integer sums, where the processor has AVX2, take a faster form
 * of the same tiles (scan_part_avx2_sum32): vector loops, the next tile
 * summed in the loop that writes the current one, outputs larger than the
 * cache stored non-temporally, and a look-back in place of the wait (any
 * order of integer adds gives the same bits; out of place, a predecessor
 * that is late is summed by its successor instead of waited for).
 *
 * In place (in == out) works: a tile is read whole before it is written.
 * The seeded form starts from *seed (one element of the dtype) instead of
 * the identity: a distributed scan seeds each rank with the combined totals
 * of the ranks before it. */
#include "ops.h"
#include "pool.h"
#include "tile_chain.h"
#include "vec_kernels.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kTile = 1 << 14 };

/* The operators over untyped elements (8 bytes hold any dtype's value). */
typedef struct scan_ops {
    void (*fold)(gp_op op, const void *in, size_t n, void *acc);       /* *acc = *acc op in[...] */
    void (*combine)(gp_op op, const void *a, const void *b, void *to); /* *to = *a op *b */
    void (*scan)(gp_op op, int inclusive, const void *in, void *out, size_t n, const void *acc);
    void (*identity)(gp_op op, void *to);
} scan_ops;

#define DEFINE_UNTYPED(SUF, T)                                                                     \
    static void SUF##_fold_v(gp_op op, const void *in, size_t n, void *acc)                         \
    {                                                                                               \
        T a;                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                  \
        a = SUF##_fold(op, (const T *)in, n, a);                                                    \
        memcpy(acc, &a, sizeof a);                                                                  \
    }                                                                                               \
    static void SUF##_combine_v(gp_op op, const void *a, const void *b, void *to)                   \
    {                                                                                               \
        T x, y;                                                                                     \
        memcpy(&x, a, sizeof x);                                                                    \
        memcpy(&y, b, sizeof y);                                                                    \
        x = SUF##_combine(op, x, y);                                                                \
        memcpy(to, &x, sizeof x);                                                                   \
    }                                                                                               \
    static void SUF##_scan_v(gp_op op, int inclusive, const void *in, void *out, size_t n, const void *acc) \
    {                                                                                               \
        T a;                                                                                        \
        memcpy(&a, acc, sizeof a);                                                                  \
        SUF##_scan(op, inclusive, (const T *)in, (T *)out, n, a);                                   \
    }                                                                                               \
    static void SUF##_identity_v(gp_op op, void *to)                                                \
    {                                                                                               \
        T a = SUF##_identity(op);                                                                   \
        memcpy(to, &a, sizeof a);                                                                   \
    }                                                                                               \
    static const scan_ops SUF##_untyped = {SUF##_fold_v, SUF##_combine_v, SUF##_scan_v, SUF##_identity_v};

DEFINE_UNTYPED(ops_i32, int32_t)
DEFINE_UNTYPED(ops_u32, uint32_t)
DEFINE_UNTYPED(ops_i64, int64_t)
DEFINE_UNTYPED(ops_u64, uint64_t)
DEFINE_UNTYPED(ops_f32, float)
DEFINE_UNTYPED(ops_f64, double)

static const scan_ops *ops_of(gp_dtype dtype)
{
    switch (dtype) {
    case GP_INT32: return &ops_i32_untyped;
    case GP_UINT32: return &ops_u32_untyped;
    case GP_INT64: return &ops_i64_untyped;
    case GP_UINT64: return &ops_u64_untyped;
    case GP_FLOAT32: return &ops_f32_untyped;
    case GP_FLOAT64: return &ops_f64_untyped;
    default: return NULL;
    }
}

typedef struct scan_job {
    const scan_ops *ops;
    gp_op op;
    int inclusive;
    const char *in;
    char *out;
    size_t n, es, tiles;
    unsigned char start[8];   /* the seed, or the identity */
    atomic_size_t next;       /* the next tile to claim */
    atomic_int *ready;        /* per tile: its inclusive prefix is published */
    uint64_t *prefix;         /* per tile: the inclusive prefix (raw bytes) */
    int avx2_sum32;           /* a 32-bit integer sum: the AVX2 kernels */
    int stream;               /* store the output non-temporally */
#if GPI_HAVE_AVX2_KERNELS
    gpi_tile_chain chain;     /* the AVX2 tiles' totals and prefixes */
#endif
} scan_job;

static void wait_ready(atomic_int *flag)
{
    unsigned spins = 0;
    while (!atomic_load_explicit(flag, memory_order_acquire))
        if (++spins > 64) sched_yield(); /* the tile before may be on a descheduled thread */
}

static void scan_part(void *arg, int part, int parts)
{
    scan_job *j = (scan_job *)arg;
    size_t k;
    (void)part, (void)parts;
    while ((k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->tiles) {
        const size_t lo = k * kTile, m = j->n - lo < kTile ? j->n - lo : kTile;
        uint64_t total, before;
        j->ops->identity(j->op, &total);
        j->ops->fold(j->op, j->in + lo * j->es, m, &total);
        if (k == 0) {
            memcpy(&before, j->start, sizeof before);
        } else {
            wait_ready(&j->ready[k - 1]);
            before = j->prefix[k - 1];
        }
        j->ops->combine(j->op, &before, &total, &j->prefix[k]);
        atomic_store_explicit(&j->ready[k], 1, memory_order_release);
        j->ops->scan(j->op, j->inclusive, j->in + lo * j->es, j->out + lo * j->es, m, &before);
    }
}

#if GPI_HAVE_AVX2_KERNELS
/* 32-bit integer sums: any order of the adds gives the same bits, so
 * tiles look back instead of waiting in a chain (tile_chain.h); in place,
 * a late predecessor is waited for, since its input may be overwritten. */
static uint64_t tile_total_u32(const void *arg, size_t k)
{
    const scan_job *j = (const scan_job *)arg;
    const size_t lo = k * kTile;
    return gpi_avx2_sum_u32((const uint32_t *)j->in + lo, j->n - lo < kTile ? j->n - lo : kTile, 0);
}

/* Software-pipelined: a thread claims its next tile before it scans the
 * current one, and sums the next one in the loop that writes the current
 * one (so its memory reads and writes overlap, as in a copy). */
static void scan_part_avx2_sum32(void *arg, int part, int parts)
{
    scan_job *j = (scan_job *)arg;
    const uint32_t *in = (const uint32_t *)j->in;
    uint32_t *out = (uint32_t *)j->out;
    size_t k = gpi_tile_chain_claim(&j->chain), next;
    uint32_t before;
    (void)part, (void)parts;
    if (k >= j->tiles) return;
    before = (uint32_t)gpi_tile_chain_publish(&j->chain, k, tile_total_u32(j, k));
    for (;; k = next) {
        const size_t lo = k * kTile, m = j->n - lo < kTile ? j->n - lo : kTile;
        size_t next_lo, next_m;
        uint32_t next_total = 0;
        next = gpi_tile_chain_claim(&j->chain);
        next_lo = next < j->tiles ? next * kTile : j->n;
        next_m = j->n - next_lo < kTile ? j->n - next_lo : kTile;
        gpi_avx2_scan_u32(in + lo, out + lo, m, before, j->inclusive, j->stream, in + next_lo, next_m, &next_total);
        if (next >= j->tiles) return;
        before = (uint32_t)gpi_tile_chain_publish(&j->chain, next, next_total);
    }
}
#endif

/* One thread, the same tiles: tile k scanned from P(k). */
static void scan_tiles_here(const scan_job *j)
{
    uint64_t before, total;
    size_t lo;
    memcpy(&before, j->start, sizeof before);
    for (lo = 0; lo < j->n; lo += kTile) {
        const size_t m = j->n - lo < kTile ? j->n - lo : kTile;
        j->ops->identity(j->op, &total);
        j->ops->fold(j->op, j->in + lo * j->es, m, &total);
        j->ops->scan(j->op, j->inclusive, j->in + lo * j->es, j->out + lo * j->es, m, &before);
        j->ops->combine(j->op, &before, &total, &before);
    }
}

gp_status gpi_cpu_scan_in_order(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n)
{
    const scan_ops *ops = ops_of(dtype);
    uint64_t start;
    if (!ops) return GP_ERROR_INTERNAL;
    ops->identity(op, &start);
    ops->scan(op, kind == GP_SCAN_INCLUSIVE, in, out, n, &start);
    return GP_SUCCESS;
}

gp_status gpi_cpu_scan(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n,
                       int threads)
{
    return gpi_cpu_scan_seeded(dtype, op, kind, in, out, n, NULL, threads);
}

gp_status gpi_cpu_scan_seeded(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n,
                              const void *seed, int threads)
{
    const int float_sum = op == GP_OP_SUM && (dtype == GP_FLOAT32 || dtype == GP_FLOAT64);
    const int parts = gpi_pool_parts(n, threads);
    scan_job j;
    size_t k;
    memset(&j, 0, sizeof j);
    if (!(j.ops = ops_of(dtype))) return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    j.op = op;
    j.inclusive = kind == GP_SCAN_INCLUSIVE;
    j.in = (const char *)in;
    j.out = (char *)out;
    j.n = n;
    j.es = gp_dtype_size(dtype);
    j.tiles = (n + kTile - 1) / kTile;
    if (seed) memcpy(j.start, seed, j.es);
    else j.ops->identity(op, j.start);
    j.avx2_sum32 = op == GP_OP_SUM && (dtype == GP_INT32 || dtype == GP_UINT32) && ((uintptr_t)out & 3) == 0 &&
                   gpi_cpu_avx2();
    j.stream = j.avx2_sum32 && gpi_cpu_stream_output(n * j.es);
#if GPI_HAVE_AVX2_KERNELS
    if (parts > 1 && j.avx2_sum32) {
        uint32_t s;
        memcpy(&s, j.start, sizeof s);
        if (gpi_tile_chain_init(&j.chain, j.tiles, s, j.in != j.out, tile_total_u32, &j)) {
            gpi_pool_run(parts, scan_part_avx2_sum32, &j);
            gpi_tile_chain_free(&j.chain);
            return GP_SUCCESS;
        }
    } else
#endif
    if (parts > 1) {
        j.ready = (atomic_int *)malloc(j.tiles * sizeof *j.ready);
        j.prefix = (uint64_t *)malloc(j.tiles * sizeof *j.prefix);
    }
    if (!j.ready || !j.prefix) { /* one thread (or no memory for the tiles' state) */
        free(j.ready), free(j.prefix);
        if (float_sum) scan_tiles_here(&j);
#if GPI_HAVE_AVX2_KERNELS
        else if (j.avx2_sum32) {
            uint32_t b;
            memcpy(&b, j.start, sizeof b);
            gpi_avx2_scan_u32((const uint32_t *)in, (uint32_t *)out, n, b, j.inclusive, j.stream, NULL, 0, NULL);
        }
#endif
        else j.ops->scan(op, j.inclusive, in, out, n, j.start); /* one pass: the same values */
        return GP_SUCCESS;
    }
    for (k = 0; k < j.tiles; k++) atomic_init(&j.ready[k], 0);
    atomic_init(&j.next, 0);
    gpi_pool_run(parts, scan_part, &j);
    free(j.ready), free(j.prefix);
    return GP_SUCCESS;
}
