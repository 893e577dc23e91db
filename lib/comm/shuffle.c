/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/shuffle.c - gp_dist_shuffle_counts and gp_dist_shuffle: the
 * all-to-all exchange of variable-size groups (all-to-all-v).
 *
 * Each rank's elements go to the ranks that dest[] names (per element), or
 * lie already grouped by destination with per-destination counts. Steps:
 *   check   the arguments; per-element routing counts the destinations
 *           (gp_histogram_even on the dest array) and, for the exchange,
 *           groups the elements by destination into the communicator's
 *           scratch with a stable sort on dest (gp_sort_pairs over the
 *           destination bits; 16-byte elements and values move by the
 *           permutation it gives, gp_gather). Nothing here touches the
 *           outputs, so a rank that fails is seen by all at the verdicts.
 *   verdict the records (protocol.c): every rank's status and capacity.
 *   run     an all-gather of the ranks' count rows (p x 8 bytes each):
 *           every rank then knows the whole matrix, so a receiver whose
 *           capacity is too small fails every rank, still before any byte
 *           moves; then one group of point-to-point transfers (NCCL send
 *           and receive on CUDA, the host hub on CPU ranks).
 * Received groups land in source-rank order, each in its sender's order:
 * stable within a source.
 * One rank: every destination must be 0 (one pass over dest, a max), the
 * elements are then already grouped, no count row is exchanged and the
 * "transfer" is a copy: the verdicts and the capacity check, then a copy. */
#include "comm_internal.h"

#include <gpuprim/histogram.h>
#include <gpuprim/permute.h>

#include <stdlib.h>
#include <string.h>

typedef struct shuffle_args {
    const char *fn;
    int counts_only;
    size_t elem_size, value_size;
    const void *in, *values_in;
    size_t n;
    const uint32_t *dest;
    const size_t *send_counts_host;
    void *out, *values_out;
    size_t capacity;
    size_t *recv_count_host, *source_counts_host;
    /* made by the check */
    uint64_t *row;    /* this rank's count to each destination */
    uint64_t *matrix; /* every rank's row */
    gpi_p2p *ops;
    const void *grouped, *grouped_values; /* what is sent: the input itself, or the scratch */
} shuffle_args;

static size_t round_up(size_t x) { return (x + 255) & ~(size_t)255; }

/* Bits that hold a destination below size. */
static int dest_bits(int size)
{
    int b = 0;
    while (b < 31 && ((uint32_t)1 << b) < (uint32_t)size) b++;
    return b;
}

/* The per-destination counts of dest[0, n), into a->row; GP_ERROR_INVALID_ARGUMENT
 * when a destination is outside the communicator. */
static gp_status count_destinations(gp_comm *comm, shuffle_args *a, uint64_t *counts_dev)
{
    const uint32_t lower = 0, upper = (uint32_t)comm->size;
    uint64_t sum = 0;
    int d;
    gp_status s;
    if (a->n == 0) {
        memset(a->row, 0, (size_t)comm->size * sizeof *a->row);
        return GP_SUCCESS;
    }
    if ((s = gp_histogram_even(comm->ctx, GP_UINT32, a->dest, a->n, &lower, &upper, (size_t)comm->size, GP_UINT64,
                               counts_dev)))
        return s;
    if ((s = gpi_copy(comm->ctx, a->row, counts_dev, (size_t)comm->size * sizeof *a->row, 1))) return s;
    for (d = 0; d < comm->size; d++) sum += a->row[d];
    if (sum != a->n)
        return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                         "%s: %llu of the %zu destinations in dest are not ranks (0..%d)", a->fn,
                         (unsigned long long)(a->n - sum), a->n, comm->size - 1);
    return GP_SUCCESS;
}

/* One rank: every destination must be 0. A max over dest finds out; only
 * when it is not 0 are the destinations counted, for the message. */
static gp_status check_one_destination(gp_comm *comm, shuffle_args *a)
{
    uint32_t most = 0;
    void *counts_dev = NULL;
    gp_status s;
    if (a->n == 0) return GP_SUCCESS;
    if ((s = gp_reduce(comm->ctx, GP_UINT32, GP_OP_MAX, a->dest, a->n, &most))) return s;
    if (most == 0) return GP_SUCCESS;
    if ((s = gpi_comm_scratch(comm, 8, &counts_dev))) return s;
    return count_destinations(comm, a, (uint64_t *)counts_dev);
}

/* Group the elements (and values) by destination into scratch, stably. */
static gp_status group(gp_comm *comm, shuffle_args *a, unsigned char *scratch)
{
    const size_t n = a->n, es = a->elem_size, vs = a->value_size;
    const int bits = dest_bits(comm->size);
    unsigned char *keys = scratch, *perm = keys + round_up(n * 4), *elems = perm + round_up(n * 8);
    unsigned char *vals = elems + round_up(n * es);
    gp_context *ctx = comm->ctx;
    gp_status s;
    a->grouped = elems;
    a->grouped_values = vs ? vals : NULL;
    if (n == 0) return GP_SUCCESS;
    if ((es == 4 || es == 8) && vs == 0) /* the elements ride along as the sort's values */
        return gp_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, a->dest, keys, es, a->in, elems, n, 0, bits);
    if ((s = gp_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, a->dest, keys, 8, NULL, perm, n, 0, bits))) return s;
    if ((s = gp_gather(ctx, es, a->in, n, (const uint64_t *)perm, elems, n, GP_INDEX_SKIP))) return s;
    if (vs) s = gp_gather(ctx, vs, a->values_in, n, (const uint64_t *)perm, vals, n, GP_INDEX_SKIP);
    return s;
}

/* The one-context checks of this rank's arguments (nothing written). */
static gp_status check_args(gp_comm *comm, shuffle_args *a)
{
    gp_context *ctx = comm->ctx;
    const size_t es = a->elem_size, vs = a->value_size, n = a->n;
    size_t in_bytes = 0, val_bytes = 0, out_bytes = 0, vout_bytes = 0, dest_bytes = 0;
    gp_status s;
    if (!a->recv_count_host) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: recv_count_host is NULL", a->fn);
    if (a->dest && a->send_counts_host)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: give dest or send_counts_host, not both", a->fn);
    if (!a->dest && !a->send_counts_host && n)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: neither dest nor send_counts_host given", a->fn);
    if (gpi_mul_size(n, 4, &dest_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", a->fn, n);
    if (a->dest) {
        if ((s = gpi_check_buffer(ctx, a->dest, dest_bytes, "dest"))) return s;
        if ((uintptr_t)a->dest % 4)
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: dest not aligned to 4 bytes", a->fn);
    }
    if (a->counts_only) return GP_SUCCESS;
    if (es != 4 && es != 8 && es != 16)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: elem_size %zu is not 4, 8 or 16", a->fn, es);
    if (vs != 0 && vs != 4 && vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu is not 0, 4 or 8", a->fn, vs);
    if (gpi_mul_size(n, es, &in_bytes) || gpi_mul_size(n, vs, &val_bytes) ||
        gpi_mul_size(a->capacity, es, &out_bytes) || gpi_mul_size(a->capacity, vs, &vout_bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: a byte count overflows", a->fn);
    if ((s = gpi_check_buffer(ctx, a->in, in_bytes, "in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->out, out_bytes, "out"))) return s;
    if (vs) {
        if ((s = gpi_check_buffer(ctx, a->values_in, val_bytes, "values_in"))) return s;
        if ((s = gpi_check_buffer(ctx, a->values_out, vout_bytes, "values_out"))) return s;
    }
    if ((n && ((uintptr_t)a->in % es)) || (a->capacity && ((uintptr_t)a->out % es)) ||
        (vs && ((n && (uintptr_t)a->values_in % vs) || (a->capacity && (uintptr_t)a->values_out % vs))))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", a->fn);
    if (gpi_overlap(a->out, out_bytes, a->in, in_bytes) || (a->dest && gpi_overlap(a->out, out_bytes, a->dest, dest_bytes)) ||
        (vs && (gpi_overlap(a->out, out_bytes, a->values_in, val_bytes) ||
                gpi_overlap(a->values_out, vout_bytes, a->in, in_bytes) ||
                gpi_overlap(a->values_out, vout_bytes, a->values_in, val_bytes) ||
                gpi_overlap(a->values_out, vout_bytes, a->out, out_bytes) ||
                (a->dest && gpi_overlap(a->values_out, vout_bytes, a->dest, dest_bytes)))))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input or the other output", a->fn);
    return GP_SUCCESS;
}

static gp_status shuffle_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    shuffle_args *a = (shuffle_args *)arg;
    const size_t p = (size_t)comm->size, es = a->elem_size, vs = a->value_size, n = a->n;
    gp_status s;
    int d;
    (void)part;
    mine->n = n;
    mine->count = a->capacity;
    if ((s = check_args(comm, a))) return s;
    /* Host memory for the counts and the transfers, now: nothing may fail
     * for want of it once the verdicts are out. */
    a->row = (uint64_t *)calloc(p * (p + 1), sizeof *a->row);
    a->ops = (gpi_p2p *)calloc(4 * p, sizeof *a->ops);
    if (!a->row || !a->ops) return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", a->fn);
    a->matrix = a->row + p;
    if (a->send_counts_host || gpi_dist_one_rank(comm)) { /* sent as they lie */
        a->grouped = a->in;
        a->grouped_values = a->values_in;
    }
    if (a->send_counts_host) {
        uint64_t sum = 0;
        for (d = 0; d < comm->size; d++) sum += (a->row[d] = a->send_counts_host[d]);
        if (sum != n)
            return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                             "%s: send_counts_host sums to %llu, not n = %zu", a->fn, (unsigned long long)sum, n);
        return GP_SUCCESS;
    }
    if (gpi_dist_one_rank(comm)) {
        a->row[0] = n;
        return check_one_destination(comm, a);
    }
    {
        /* Scratch: the destination counts, and for the exchange the sorted
         * destinations, the permutation, the grouped elements and values. */
        size_t bytes = round_up(p * 8);
        unsigned char *scratch = NULL;
        if (!a->counts_only) bytes += round_up(n * 4) + round_up(n * 8) + round_up(n * es) + round_up(n * vs);
        if ((s = gpi_comm_scratch(comm, bytes, (void **)&scratch))) return s;
        if ((s = count_destinations(comm, a, (uint64_t *)scratch))) return s;
        if (a->counts_only) return GP_SUCCESS;
        return group(comm, a, scratch + round_up(p * 8));
    }
}

gp_status gpi_shuffle_move(gp_comm *comm, size_t elem_size, const void *in, size_t value_size, const void *values,
                           const uint64_t *counts, void *out, void *values_out, gpi_p2p *ops)
{
    const int p = comm->size, me = comm->rank;
    uint64_t sent = 0, got = 0;
    int d, nops = 0;
    if (gpi_dist_one_rank(comm)) { /* to itself: a copy */
        gp_status s = gpi_copy(comm->ctx, out, in, (size_t)counts[0] * elem_size, 2);
        if (!s && value_size) s = gpi_copy(comm->ctx, values_out, values, (size_t)counts[0] * value_size, 2);
        return s;
    }
    for (d = 0; d < p; d++) { /* the groups to each destination, in rank order */
        const uint64_t c = counts[(size_t)me * p + d];
        if (c) {
            ops[nops++] = (gpi_p2p){d, 1, (unsigned char *)in + sent * elem_size, (size_t)c * elem_size};
            if (value_size)
                ops[nops++] = (gpi_p2p){d, 1, (unsigned char *)values + sent * value_size, (size_t)c * value_size};
        }
        sent += c;
    }
    for (d = 0; d < p; d++) { /* what each source sends here, in source order */
        const uint64_t c = counts[(size_t)d * p + me];
        if (c) {
            ops[nops++] = (gpi_p2p){d, 0, (unsigned char *)out + got * elem_size, (size_t)c * elem_size};
            if (value_size)
                ops[nops++] = (gpi_p2p){d, 0, (unsigned char *)values_out + got * value_size, (size_t)c * value_size};
        }
        got += c;
    }
    return gpi_comm_p2p(comm, ops, nops, GPI_P2P_QUEUE);
}

static gp_status shuffle_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    shuffle_args *a = (shuffle_args *)arg;
    const int p = comm->size, me = comm->rank;
    uint64_t recv = 0;
    int q, d;
    gp_status s;
    (void)found;
    if (gpi_dist_one_rank(comm)) /* the matrix is this rank's row */
        memcpy(a->matrix, a->row, sizeof *a->row);
    else if ((s = gpi_comm_allgather(comm, a->row, NULL, (size_t)p * sizeof *a->row, a->matrix)))
        return s;
    /* Every rank sees the same matrix and capacities: all fail here
     * together, or none does. */
    if (!a->counts_only)
        for (d = 0; d < p; d++) {
            uint64_t want = 0;
            for (q = 0; q < p; q++) want += a->matrix[(size_t)q * p + d];
            if (want <= all[d].count) continue;
            if (d == me)
                return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                                 "%s: capacity %zu, but %llu elements are sent to this rank; nothing was written",
                                 a->fn, a->capacity, (unsigned long long)want);
            return gpi_error(comm->ctx, GP_ERROR_COMM,
                             "%s: rank %d's capacity (%llu) cannot hold the %llu elements sent to it; nothing was "
                             "written", a->fn, d, (unsigned long long)all[d].count, (unsigned long long)want);
        }
    if (!a->counts_only &&
        (s = gpi_shuffle_move(comm, a->elem_size, a->grouped, a->value_size, a->grouped_values, a->matrix, a->out,
                              a->values_out, a->ops)))
        return s;
    for (q = 0; q < p; q++) {
        const uint64_t c = a->matrix[(size_t)q * p + me];
        if (a->source_counts_host) a->source_counts_host[q] = (size_t)c;
        recv += c;
    }
    *a->recv_count_host = (size_t)recv;
    return GP_SUCCESS;
}

static gp_status shuffle_call(gp_comm *comm, shuffle_args *a)
{
    /* Element and value sizes must agree; the routing (per element or
     * grouped) is each rank's own choice. */
    gpi_dist_call call = {a->fn, a->counts_only ? GPI_DIST_SHUFFLE_COUNTS : GPI_DIST_SHUFFLE,
                          {(int32_t)a->elem_size, (int32_t)a->value_size, 0}, 0, 0, shuffle_check, shuffle_run, NULL};
    gp_status s = gpi_dist_call_run(comm, &call, a);
    free(a->row);
    free(a->ops);
    return s;
}

gp_status gp_dist_shuffle_counts(gp_comm *comm, const uint32_t *dest, const size_t *send_counts_host, size_t n,
                                 size_t *recv_count_host, size_t *source_counts_host)
{
    shuffle_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_shuffle_counts";
    a.counts_only = 1;
    a.n = n;
    a.dest = dest;
    a.send_counts_host = send_counts_host;
    a.recv_count_host = recv_count_host;
    a.source_counts_host = source_counts_host;
    return shuffle_call(comm, &a);
}

gp_status gp_dist_shuffle(gp_comm *comm, size_t elem_size, const void *in, size_t value_size, const void *values_in,
                          size_t n, const uint32_t *dest, const size_t *send_counts_host, void *out, void *values_out,
                          size_t capacity, size_t *recv_count_host, size_t *source_counts_host)
{
    shuffle_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_shuffle";
    a.elem_size = elem_size;
    a.value_size = value_size;
    a.in = in;
    a.values_in = values_in;
    a.n = n;
    a.dest = dest;
    a.send_counts_host = send_counts_host;
    a.out = out;
    a.values_out = values_out;
    a.capacity = capacity;
    a.recv_count_host = recv_count_host;
    a.source_counts_host = source_counts_host;
    return shuffle_call(comm, &a);
}
