/* SPDX-License-Identifier: BSD-3-Clause */
/* large_segments.h - the segment layout of the past-2^31 segmented cases
 * (test_large_families.c), its inputs, and a cursor that walks it.
 *
 * Over n elements: 5 elements outside every segment at the head and 3 at
 * the tail; between them segments cycling through lengths 1000, 0 (empty),
 * 1, 4097, 33, 777, 8192, 2, except two long ones (longer than 8192, so the
 * CUDA segmented sort gives each a device sort of its own): one from below
 * b - n/128 across the boundary b (2^31) to b + n/128 + 3, and one of
 * n/32 + 1 elements starting past b, after 64 short ones that start past b
 * too. About n / 1760 segments (1.2 million at n = 2^31). */
#ifndef GPUPRIM_TESTS_LARGE_SEGMENTS_H
#define GPUPRIM_TESTS_LARGE_SEGMENTS_H

#include "large_fixture.h"

/* The segmented cases' size: the layout needs room past b (2^31) for the
 * segment across it, 64 short ones and one of n/32 + 1; n/16 more than the
 * other cases' n gives it, kept below 2^32 - 2^26 (uint32 positions). */
static size_t segmented_n(void)
{
    const size_t n = large_n(), more = n + n / 16, cap = B32 - ((size_t)1 << 26);
    return more < cap ? more : cap;
}

typedef struct seg_layout {
    uint64_t *off; /* nseg + 1 offsets */
    size_t nseg, n;
} seg_layout;

static const uint64_t seg_cycle[8] = {1000, 0, 1, 4097, 33, 777, 8192, 2};

static seg_layout seg_layout_make(size_t n)
{
    const size_t b = boundary(n), half = n / 128, cap = (n / 14102 + 2) * 8 + 256;
    seg_layout L = {host_alloc(cap * 8), 0, n};
    uint64_t pos = 5;
    size_t ci = 0, k;
#define PUSH(at)                          \
    do {                                  \
        assert_true(L.nseg < cap);        \
        L.off[L.nseg++] = (at);           \
    } while (0)
    PUSH(pos);
    while (pos + seg_cycle[ci % 8] <= b - half) PUSH(pos += seg_cycle[ci++ % 8]);
    PUSH(pos = b + half + 3); /* across b */
    for (k = 0; k < 64; k++) PUSH(pos += seg_cycle[ci++ % 8]);
    PUSH(pos += n / 32 + 1); /* long, past b */
    assert_true(pos + 3 <= n); /* offsets past n would be a broken layout */
    while (pos + seg_cycle[ci % 8] <= n - 3) PUSH(pos += seg_cycle[ci++ % 8]);
    PUSH(n - 3); /* the last segment is shorter than 8193 */
#undef PUSH
    L.nseg--; /* offsets counted one more than segments */
    return L;
}

static void seg_layout_print(const seg_layout *L)
{
    size_t s, past = SIZE_MAX;
    for (s = 0; s < L->nseg && past == SIZE_MAX; s++)
        if (L->off[s] > boundary(L->n)) past = s;
    print_message("  %zu elements in %zu segments [%llu, %llu); the first starting past %zu is #%zu at %llu\n", L->n,
                  L->nseg, (unsigned long long)L->off[0], (unsigned long long)L->off[L->nseg], boundary(L->n), past,
                  (unsigned long long)(past < L->nseg ? L->off[past] : 0));
}

/* The segment holding element i, walked forward (i must not decrease). */
typedef struct seg_cursor {
    const seg_layout *L;
    size_t s;
} seg_cursor;

static seg_cursor seg_cursor_at(const seg_layout *L, size_t i)
{
    size_t lo = 0, hi = L->nseg; /* the last s with off[s] <= i */
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->off[mid] <= i) lo = mid;
        else hi = mid;
    }
    return (seg_cursor){L, lo};
}

/* Segment number of element i, or -1 (head) / -2 (tail) outside them. */
static int64_t seg_of(seg_cursor *c, size_t i)
{
    const uint64_t *off = c->L->off;
    if (i < off[0]) return -1;
    if (i >= off[c->L->nseg]) return -2;
    while (off[c->s + 1] <= i) c->s++;
    return (int64_t)c->s;
}

/* Keys for scan by key: the segment number; the head and the tail keys of
 * their own. */
static uint32_t segment_id_key(seg_cursor *c, size_t i)
{
    const int64_t s = seg_of(c, i);
    return s == -1 ? 0xFFFFFFFFu : s == -2 ? 0xFFFFFFFEu : (uint32_t)s;
}

static void gen_segment_ids(void *chunk, size_t first, size_t count, const void *arg)
{
    seg_cursor c = seg_cursor_at((const seg_layout *)arg, first);
    uint32_t *o = (uint32_t *)chunk;
    size_t k;
    for (k = 0; k < count; k++) o[k] = segment_id_key(&c, first + k);
}

/* Sort keys: (len - 1 - k) / 2 at place k of a segment of len; 12345
 * outside the segments. */
static void gen_segment_sort_keys(void *chunk, size_t first, size_t count, const void *arg)
{
    const seg_layout *L = (const seg_layout *)arg;
    seg_cursor c = seg_cursor_at(L, first);
    uint32_t *o = (uint32_t *)chunk;
    size_t k;
    for (k = 0; k < count; k++) {
        const size_t i = first + k;
        const int64_t s = seg_of(&c, i);
        if (s < 0) {
            o[k] = 12345;
        } else {
            const uint64_t a = L->off[s], len = L->off[s + 1] - a;
            o[k] = (uint32_t)((len - 1 - (i - a)) / 2);
        }
    }
}

/* After a stable ascending sort of those keys, the original place (within
 * the segment) of the key at place t: key t / 2 came from places len-2-2v
 * and len-1-2v (v = t / 2), the lower first; in a segment of odd length
 * the last key, alone, came from place 0. */
static uint64_t sorted_origin(uint64_t t, uint64_t len)
{
    if (t % 2) return len - t;
    return t == len - 1 ? 0 : len - 2 - t;
}

#endif
