/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/compact.c - stream compaction on the context's threads. Elements move
 * as raw 4- or 8-byte words: only the dtype's size matters, so float
 * payloads (NaN bit patterns included) are copied bit for bit.
 *
 * Three steps: each thread counts the set flags of its contiguous piece;
 * the counts are scanned into each piece's first output position; each
 * thread writes its piece's survivors from there. The writes are
 * branch-free (every element is stored, the position advances by the flag)
 * into a small buffer on the stack, copied out per stretch, so nothing is
 * stored past a piece's survivors: another piece's, or past *count.
 * With uint8 flags on a processor with AVX2, vector loops do the same in
 * one pass over tiles (run_chained): each tile counted (while the tile
 * before it is written), then written while its flags are still in cache;
 * outputs larger than the cache are stored non-temporally, in whole lines. */
#include "internal.h"
#include "pool.h"
#include "tile_chain.h"
#include "vec_kernels.h"

#include <stdlib.h>
#include <string.h>

enum { kStretch = 512, kVecStretch = 2048, kTile = 1 << 14 };

typedef struct compact_job {
    size_t es;            /* element bytes; 0: write indices */
    const void *in, *flags;
    gp_flag_type flag_type;
    void *out;
    size_t n;
    int avx2;             /* u8 flags: the AVX2 kernels */
    int stream;           /* store the output non-temporally */
    size_t start[GPI_POOL_MAX_PARTS];    /* per piece: its count, then its first output position */
} compact_job;

static size_t count_set(const void *flags, gp_flag_type t, size_t lo, size_t hi)
{
    size_t i, c = 0;
    if (t == GP_UINT8_FLAGS) {
        const uint8_t *f = (const uint8_t *)flags;
        for (i = lo; i < hi; i++) c += f[i] != 0;
    } else {
        const int32_t *f = (const int32_t *)flags;
        for (i = lo; i < hi; i++) c += f[i] != 0;
    }
    return c;
}

/* The survivors of [lo, hi) to dst from position pos. VALUE(i) is what
 * element i writes. */
#define DEFINE_WRITE(NAME, T, F, VALUE)                                                              \
    static void NAME(const void *in_, const void *flags_, void *out_, size_t lo, size_t hi, size_t pos) \
    {                                                                                                \
        const T *in = (const T *)in_;                                                                \
        const F *flags = (const F *)flags_;                                                          \
        T *out = (T *)out_, buf[kStretch];                                                           \
        size_t b, i;                                                                                 \
        (void)in;                                                                                    \
        for (b = lo; b < hi; b += kStretch) {                                                        \
            const size_t e = hi - b < kStretch ? hi : b + kStretch;                                  \
            size_t k = 0;                                                                            \
            for (i = b; i < e; i++) {                                                                \
                buf[k] = VALUE;                                                                      \
                k += flags[i] != 0;                                                                  \
            }                                                                                        \
            memcpy(out + pos, buf, k * sizeof *buf);                                                 \
            pos += k;                                                                                \
        }                                                                                            \
    }

DEFINE_WRITE(write4_u8, uint32_t, uint8_t, in[i])
DEFINE_WRITE(write4_i32, uint32_t, int32_t, in[i])
DEFINE_WRITE(write8_u8, uint64_t, uint8_t, in[i])
DEFINE_WRITE(write8_i32, uint64_t, int32_t, in[i])
DEFINE_WRITE(index_u8, uint64_t, uint8_t, (uint64_t)i)
DEFINE_WRITE(index_i32, uint64_t, int32_t, (uint64_t)i)

#if GPI_HAVE_AVX2_KERNELS
/* The AVX2 form of DEFINE_WRITE for element values (es 4 or 8, u8 flags):
 * survivors gathered into a stack buffer a stretch at a time, copied out
 * (non-temporally with `stream`). Between the stretches it counts the set
 * flags of next_flags[0, next_n) (the caller's next tile: its reads then
 * overlap these writes) and returns that count. */
static size_t write_u8_avx2(size_t es, const void *in, const uint8_t *flags, void *out, size_t lo, size_t hi,
                            size_t pos, int stream, const uint8_t *next_flags, size_t next_n)
{
    uint64_t buf[kVecStretch + 8]; /* a stretch after up to a line's worth held */
    size_t b, counted = 0, next_count = 0, held = 0; /* held: survivors in buf not yet written, due at pos */
    /* Streamed, only whole 64-byte lines go out non-temporally; the rest of
     * a stretch waits in buf for the next one (a partial line streamed costs
     * the memory a read-modify-write). out is aligned to es (the public entry
     * checks it), so a line's end is a whole number of elements. */
    for (b = lo; b < hi; b += kVecStretch) {
        const size_t m = hi - b < kVecStretch ? hi - b : kVecStretch;
        char *const at = (char *)buf + held * es;
        const size_t k = es == 4 ? gpi_avx2_select4_u8((const uint32_t *)in + b, flags + b, m, (uint32_t *)at)
                                 : gpi_avx2_select8_u8((const uint64_t *)in + b, flags + b, m, (uint64_t *)at);
        char *dst = (char *)out + pos * es;
        const size_t bytes = (held + k) * es;
        if (stream) {
            const uintptr_t end = ((uintptr_t)dst + bytes) & ~(uintptr_t)63;
            const size_t go = end > (uintptr_t)dst ? (size_t)(end - (uintptr_t)dst) : 0;
            gpi_avx2_copy_stream(dst, buf, go);
            memmove(buf, (char *)buf + go, bytes - go);
            held = (bytes - go) / es;
            pos += go / es;
        } else {
            memcpy(dst, buf, bytes);
            pos += k;
        }
        if (counted < next_n) {
            const size_t c = next_n - counted < kVecStretch ? next_n - counted : kVecStretch;
            next_count += gpi_avx2_count_u8(next_flags + counted, c);
            counted += c;
        }
    }
    if (held) memcpy((char *)out + pos * es, buf, held * es); /* out may be NULL when n is 0 */
    if (stream) gpi_avx2_store_fence();
    return next_count + gpi_avx2_count_u8(next_flags + counted, next_n - counted);
}
#endif

#if GPI_HAVE_AVX2_KERNELS
/* The AVX2 path in one pass over tiles of kTile elements, claimed in
 * order by the threads (tile_chain.h): a tile's flags are counted and the
 * count published; its first output position is the counts before it;
 * its survivors are written while its flags are still in cache. */
typedef struct chained_job {
    compact_job *job;
    gpi_tile_chain chain; /* values: the tiles' counts */
} chained_job;

static uint64_t tile_count(const void *arg, size_t k)
{
    const compact_job *j = (const compact_job *)arg;
    const size_t lo = k * kTile;
    return gpi_avx2_count_u8((const uint8_t *)j->flags + lo, j->n - lo < kTile ? j->n - lo : kTile);
}

/* Software-pipelined: a thread claims its next tile before it writes the
 * current one, and counts the next one's flags while it writes. */
static void chained_part(void *arg, int part, int parts)
{
    chained_job *c = (chained_job *)arg;
    const compact_job *j = c->job;
    const uint8_t *flags = (const uint8_t *)j->flags;
    const size_t tiles = c->chain.tiles;
    size_t k = gpi_tile_chain_claim(&c->chain), next, pos;
    (void)part, (void)parts;
    if (k >= tiles) return;
    pos = gpi_tile_chain_publish(&c->chain, k, tile_count(j, k));
    for (;; k = next) {
        const size_t lo = k * kTile, hi = j->n - lo < kTile ? j->n : lo + kTile;
        size_t next_lo, next_count;
        next = gpi_tile_chain_claim(&c->chain);
        next_lo = next < tiles ? next * kTile : j->n;
        next_count = write_u8_avx2(j->es, j->in, flags, j->out, lo, hi, pos, j->stream, flags + next_lo,
                                   j->n - next_lo < kTile ? j->n - next_lo : kTile);
        if (next >= tiles) return;
        pos = gpi_tile_chain_publish(&c->chain, next, next_count);
    }
}

/* 0 when the tiles' state could not be allocated (nothing done then). */
static int run_chained(compact_job *j, size_t *count, int threads)
{
    chained_job c;
    c.job = j;
    if (!gpi_tile_chain_init(&c.chain, (j->n + kTile - 1) / kTile, 0, 1, tile_count, j)) return 0;
    j->stream = gpi_cpu_stream_output(j->n * j->es);
    gpi_pool_run(gpi_pool_parts(j->n, threads), chained_part, &c);
    *count = gpi_tile_chain_end(&c.chain);
    gpi_tile_chain_free(&c.chain);
    return 1;
}
#endif

static void count_part(void *arg, int part, int parts)
{
    compact_job *j = (compact_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
#if GPI_HAVE_AVX2_KERNELS
    if (j->avx2) {
        j->start[part] = gpi_avx2_count_u8((const uint8_t *)j->flags + lo, hi - lo);
        return;
    }
#endif
    j->start[part] = count_set(j->flags, j->flag_type, lo, hi);
}

static void write_part(void *arg, int part, int parts)
{
    compact_job *j = (compact_job *)arg;
    const int u8 = j->flag_type == GP_UINT8_FLAGS;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
#if GPI_HAVE_AVX2_KERNELS
    if (j->avx2 && j->es != 0) {
        /* no next tile to count: an empty range after this one */
        write_u8_avx2(j->es, j->in, (const uint8_t *)j->flags, j->out, lo, hi, j->start[part], j->stream,
                      (const uint8_t *)j->flags + hi, 0);
        return;
    }
#endif
    if (j->es == 0) (u8 ? index_u8 : index_i32)(NULL, j->flags, j->out, lo, hi, j->start[part]);
    else if (j->es == 4) (u8 ? write4_u8 : write4_i32)(j->in, j->flags, j->out, lo, hi, j->start[part]);
    else (u8 ? write8_u8 : write8_i32)(j->in, j->flags, j->out, lo, hi, j->start[part]);
}

static void run(compact_job *j, size_t *count, int threads)
{
    const int parts = gpi_pool_parts(j->n, threads);
    size_t total = 0;
    int p;
    j->avx2 = j->flag_type == GP_UINT8_FLAGS && ((uintptr_t)j->out & 3) == 0 && gpi_cpu_avx2();
#if GPI_HAVE_AVX2_KERNELS
    if (j->avx2 && j->es != 0 && j->n > kTile && run_chained(j, count, threads)) return;
#endif
    gpi_pool_run(parts, count_part, j);
    for (p = 0; p < parts; p++) {
        const size_t c = j->start[p];
        j->start[p] = total;
        total += c;
    }
    j->stream = j->avx2 && gpi_cpu_stream_output(total * (j->es ? j->es : 8));
    gpi_pool_run(parts, write_part, j);
    *count = total;
}

gp_status gpi_cpu_compact(gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count, int threads)
{
    compact_job j;
    j.es = gp_dtype_size(dtype);
    if (j.es != 4 && j.es != 8) return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    j.in = in;
    j.flags = flags;
    j.flag_type = flag_type;
    j.out = out;
    j.n = n;
    run(&j, count, threads);
    return GP_SUCCESS;
}

gp_status gpi_cpu_compact_indices(const void *flags, gp_flag_type flag_type, uint64_t *out, size_t n,
                                  size_t *count, int threads)
{
    compact_job j;
    j.es = 0;
    j.in = NULL;
    j.flags = flags;
    j.flag_type = flag_type;
    j.out = out;
    j.n = n;
    run(&j, count, threads);
    return GP_SUCCESS;
}
