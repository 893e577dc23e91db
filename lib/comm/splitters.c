/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/splitters.c - key-range splitters: each key goes to exactly one
 * rank, in ranges of about equal size (see comm_internal.h). The bisection
 * is the distributed sort's, on image values: for every boundary b at
 * once, a round proposes up to 15 images splitting its interval into 16,
 * every rank counts its images at or below each (gp_upper_bound), one
 * all-gather sums the counts, and the interval shrinks to the sixteenth
 * holding v_b, the smallest image with more than B_b images at or below
 * it. A last round brings every rank's count below each v_b: the matrix. */
#include "comm_internal.h"

#include <gpuprim/search.h>

#include <stdlib.h>
#include <string.h>

#define FANOUT 16

static size_t slots(int size) { return (size_t)(size - 1) * (FANOUT - 1); }

size_t gpi_key_split_backend_bytes(int size)
{
    const size_t k = slots(size) ? slots(size) : 1;
    return gpi_round256(k * 8) + gpi_round256(2 * k * 8);
}

gp_status gpi_key_split_init(gp_comm *comm, const char *fn, gpi_key_split *sp, void *backend)
{
    const size_t p = (size_t)comm->size, k = slots(comm->size), row = 2 + 2 * k;
    memset(sp, 0, sizeof *sp);
    sp->needles = (uint64_t *)backend;
    sp->positions = (uint64_t *)((unsigned char *)backend + gpi_round256((k ? k : 1) * 8));
    sp->host = calloc(1, (row + p * row + k + 3 * p + p * (p + 1)) * 8 + p * sizeof(unsigned));
    if (!sp->host) return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    sp->row = (uint64_t *)sp->host;
    sp->rows = sp->row + row;
    sp->cand = sp->rows + p * row;
    sp->lo = sp->cand + k;
    sp->hi = sp->lo + p;
    sp->bound = sp->hi + p;
    sp->lower = sp->bound + p;
    sp->m = (unsigned *)(sp->lower + p * (p + 1));
    return GP_SUCCESS;
}

void gpi_key_split_free(gpi_key_split *sp)
{
    free(sp->host);
    sp->host = NULL;
}

/* One round: this rank's counts of images below (`lower`) or at or below
 * each of `count` needles (sp->cand) into its row after its status and
 * element count; rows[q * row + 2 + j] is then rank q's count j. Every
 * rank fails when one did (`local`: a failure before the round). */
static gp_status count_round(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                             size_t count, int lower, gp_status local)
{
    const size_t row = 2 + 2 * slots(comm->size);
    gp_context *ctx = comm->ctx;
    gp_status s = local;
    int q;
    if (!s && count) s = gpi_copy(ctx, sp->needles, sp->cand, count * 8, 0);
    if (!s && count)
        s = (lower ? gp_lower_bound : gp_upper_bound)(ctx, GP_UINT64, GP_SORT_ASCENDING, images, n, sp->needles, count,
                                                      sp->positions);
    if (!s) s = gpi_copy(ctx, sp->row + 2, sp->positions, count * 8, 1);
    sp->row[0] = (uint64_t)s;
    sp->row[1] = n;
    if ((s = gpi_comm_allgather(comm, sp->row, NULL, row * 8, sp->rows))) return s;
    if (sp->row[0]) return (gp_status)sp->row[0];
    for (q = 0; q < comm->size; q++)
        if (sp->rows[(size_t)q * row])
            return gpi_error(ctx, GP_ERROR_COMM, "%s: rank %d failed (%s) before the exchange", fn, q,
                             gp_status_string((gp_status)sp->rows[(size_t)q * row]));
    return GP_SUCCESS;
}

static uint64_t count_sum(const gp_comm *comm, const gpi_key_split *sp, size_t j)
{
    const size_t row = 2 + 2 * slots(comm->size);
    uint64_t sum = 0;
    int q;
    for (q = 0; q < comm->size; q++) sum += sp->rows[(size_t)q * row + 2 + j];
    return sum;
}

gp_status gpi_key_split_run(gp_comm *comm, const char *fn, gpi_key_split *sp, const uint64_t *images, size_t n,
                            uint64_t total, uint64_t maxv, uint64_t no_start, gp_status local, uint64_t *matrix)
{
    const int p = comm->size;
    const size_t row = 2 + 2 * slots(p), p1 = (size_t)p + 1;
    int b, q, rounds = 0, nactive = 0;
    gp_status s;
    for (b = 1; b < p; b++) {
        sp->bound[b] = (uint64_t)((unsigned __int128)total * (unsigned)b / (unsigned)p);
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
        if (!active) break;
        if ((s = count_round(comm, fn, sp, images, n, slots(p), 0, rounds ? GP_SUCCESS : local))) return s;
        rounds++;
        for (b = 1; b < p; b++) {
            const uint64_t *c = sp->cand + (size_t)(b - 1) * (FANOUT - 1);
            unsigned j, m = sp->m[b];
            if (!m) continue;
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
    /* v_b = lo[b] (an image no range may start at moves one down); the
     * last round counts every rank's images below each v_b. */
    for (b = 1; b < p; b++) {
        if (sp->bound[b] >= total) continue;
        sp->cand[nactive++] = no_start && sp->lo[b] == no_start ? no_start - 1 : sp->lo[b];
    }
    if ((s = count_round(comm, fn, sp, images, n, (size_t)nactive, 1, rounds ? GP_SUCCESS : local))) return s;
    for (q = 0; q < p; q++) {
        const uint64_t *r = sp->rows + (size_t)q * row;
        uint64_t *lower = sp->lower + (size_t)q * p1;
        int j = 0;
        lower[0] = 0;
        lower[p] = r[1];
        for (b = 1; b < p; b++) lower[b] = sp->bound[b] >= total ? r[1] : r[2 + j++];
        for (b = 0; b < p; b++) matrix[(size_t)q * p + b] = lower[b + 1] - lower[b];
    }
    return GP_SUCCESS;
}
