/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/splitters.c - the distributed bisection on key images that the sort
 * (split by count) and the group-by (each key to one rank) share (see
 * comm_internal.h). For every boundary b at once, a round proposes up to
 * 15 images splitting its interval into 16, every rank counts its images
 * at or below each (gp_upper_bound), one all-gather sums the counts, and
 * the interval shrinks to the sixteenth holding v_b, the smallest image
 * with more than bound[b] images at or below it. A last round, the
 * caller's, counts around the v_b: the group-by cuts below each
 * (gpi_key_split_run); the sort also splits the copies of v_b by count. */
#include "comm_internal.h"

#include <gpuprim/search.h>

#include <stdlib.h>
#include <string.h>

#define FANOUT 16

static size_t slots(int size) { return (size_t)(size - 1) * (FANOUT - 1); }

/* A row of a round: status, n, then up to slots counts (a bisection
 * round's; the last round has 2 (p - 1) at most). */
static size_t row_len(int size) { return 2 + slots(size); }

size_t gpi_key_split_backend_bytes(int size)
{
    const size_t k = slots(size) ? slots(size) : 1;
    return 2 * gpi_round256(k * 8);
}

gp_status gpi_key_split_init(gp_comm *comm, const char *fn, gpi_key_split *sp, void *backend)
{
    const size_t p = (size_t)comm->size, k = slots(comm->size), row = row_len(comm->size);
    memset(sp, 0, sizeof *sp);
    sp->needles = (uint64_t *)backend;
    sp->positions = (uint64_t *)((unsigned char *)backend + gpi_round256((k ? k : 1) * 8));
    sp->host = calloc(1, (row + p * row + k + 3 * p + 1 + p * (p + 1)) * 8 + p * sizeof(unsigned));
    if (!sp->host) return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    sp->row = (uint64_t *)sp->host;
    sp->rows = sp->row + row;
    sp->cand = sp->rows + p * row;
    sp->lo = sp->cand + k;
    sp->hi = sp->lo + p;
    sp->bound = sp->hi + p;
    sp->lower = sp->bound + p + 1;
    sp->m = (unsigned *)(sp->lower + p * (p + 1));
    return GP_SUCCESS;
}

void gpi_key_split_free(gpi_key_split *sp)
{
    free(sp->host);
    sp->host = NULL;
}

const uint64_t *gpi_key_split_counts(const gp_comm *comm, const gpi_key_split *sp, int q)
{
    return sp->rows + (size_t)q * row_len(comm->size) + 2;
}

/* Rank q's image count, as its last round's row says. */
static uint64_t rank_n(const gp_comm *comm, const gpi_key_split *sp, int q)
{
    return sp->rows[(size_t)q * row_len(comm->size) + 1];
}

/* The sum over ranks of count j of the last round. */
static uint64_t count_sum(const gp_comm *comm, const gpi_key_split *sp, size_t j)
{
    uint64_t sum = 0;
    int q;
    for (q = 0; q < comm->size; q++) sum += gpi_key_split_counts(comm, sp, q)[j];
    return sum;
}

gp_status gpi_key_split_count(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                              size_t count, size_t nlower)
{
    const size_t row = row_len(comm->size);
    gp_context *ctx = comm->ctx;
    gp_status s = sp->local;
    int q;
    sp->local = GP_SUCCESS; /* reported now */
    if (!s && count) s = gpi_copy(ctx, sp->needles, sp->cand, count * 8, 0);
    if (!s && nlower)
        s = gp_lower_bound(ctx, GP_UINT64, GP_SORT_ASCENDING, images, n, sp->needles, nlower, sp->positions);
    if (!s && count > nlower)
        s = gp_upper_bound(ctx, GP_UINT64, GP_SORT_ASCENDING, images, n, sp->needles + nlower, count - nlower,
                           sp->positions + nlower);
    if (!s) s = gpi_copy(ctx, sp->row + 2, sp->positions, count * 8, 1);
    sp->row[0] = (uint64_t)s;
    sp->row[1] = n;
    if ((s = gpi_comm_allgather(comm, sp->row, NULL, row * 8, sp->rows))) return s;
    if (sp->row[0]) return (gp_status)sp->row[0];
    for (q = 0; q < comm->size; q++)
        if (sp->rows[(size_t)q * row])
            return gpi_error(ctx, GP_ERROR_COMM, "%s: rank %d failed (%s) while choosing splitters", fn, q,
                             gp_status_string((gp_status)sp->rows[(size_t)q * row]));
    return GP_SUCCESS;
}

gp_status gpi_key_split_bisect(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                               uint64_t total, uint64_t maxv, gp_status local)
{
    const int p = comm->size;
    int b;
    gp_status s;
    sp->local = local;
    for (b = 1; b < p; b++) {
        sp->lo[b] = 0;
        sp->hi[b] = maxv;
    }
    for (;;) {
        int active = 0;
        memset(sp->cand, 0, slots(p) * 8);
        for (b = 1; b < p; b++) {
            const uint64_t span = sp->hi[b] - sp->lo[b];
            unsigned j, m;
            sp->m[b] = 0;
            if (sp->bound[b] >= total || span == 0) continue;
            m = span < FANOUT - 1 ? (unsigned)span : FANOUT - 1;
            for (j = 0; j < m; j++)
                sp->cand[(size_t)(b - 1) * (FANOUT - 1) + j] =
                    sp->lo[b] + (uint64_t)((unsigned __int128)span * (j + 1) / (m + 1));
            sp->m[b] = m;
            active = 1;
        }
        if (!active) return GP_SUCCESS;
        if ((s = gpi_key_split_count(comm, fn, sp, images, n, slots(p), 0))) return s;
        for (b = 1; b < p; b++) {
            const uint64_t *c = sp->cand + (size_t)(b - 1) * (FANOUT - 1);
            unsigned j, m = sp->m[b];
            if (!m) continue;
            /* v_b is at or below the first candidate with more than bound[b]
             * images at or below it, and above the one before. */
            for (j = 0; j < m && count_sum(comm, sp, (size_t)(b - 1) * (FANOUT - 1) + j) <= sp->bound[b]; j++)
                ;
            if (j < m) {
                sp->hi[b] = c[j];
                if (j) sp->lo[b] = c[j - 1] + 1;
            } else {
                sp->lo[b] = c[m - 1] + 1;
            }
        }
    }
}

void gpi_key_split_matrix(const gp_comm *comm, const gpi_key_split *sp, uint64_t *matrix)
{
    const int p = comm->size;
    const size_t p1 = (size_t)p + 1;
    int q, d;
    for (q = 0; q < p; q++)
        for (d = 0; d < p; d++) matrix[(size_t)q * p + d] = sp->lower[q * p1 + d + 1] - sp->lower[q * p1 + d];
}

gp_status gpi_key_split_run(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                            uint64_t total, uint64_t maxv, uint64_t no_start, gp_status local, uint64_t *matrix)
{
    const int p = comm->size;
    const size_t p1 = (size_t)p + 1;
    int b, q, nactive = 0;
    gp_status s;
    for (b = 1; b < p; b++) sp->bound[b] = (uint64_t)((unsigned __int128)total * (unsigned)b / (unsigned)p);
    if ((s = gpi_key_split_bisect(comm, fn, sp, images, n, total, maxv, local))) return s;
    /* v_b = lo[b] (an image no range may start at moves one down); the
     * last round counts every rank's images below each v_b. */
    for (b = 1; b < p; b++) {
        if (sp->bound[b] >= total) continue;
        sp->cand[nactive++] = no_start && sp->lo[b] == no_start ? no_start - 1 : sp->lo[b];
    }
    if ((s = gpi_key_split_count(comm, fn, sp, images, n, (size_t)nactive, (size_t)nactive))) return s;
    for (q = 0; q < p; q++) {
        const uint64_t *c = gpi_key_split_counts(comm, sp, q), nq = rank_n(comm, sp, q);
        uint64_t *lower = sp->lower + (size_t)q * p1;
        int j = 0;
        lower[0] = 0;
        lower[p] = nq;
        for (b = 1; b < p; b++) lower[b] = sp->bound[b] >= total ? nq : c[j++];
    }
    gpi_key_split_matrix(comm, sp, matrix);
    return GP_SUCCESS;
}
