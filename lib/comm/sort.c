/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/sort.c - gp_dist_sort_keys and gp_dist_sort_pairs: a stable sample
 * sort with exact splitters, after which every rank holds as many elements
 * as it gave.
 *
 * The global order is (key in the sort's order and bit range, global
 * index); the global index order of equal keys is (source rank, position in
 * the shard), so a stable local sort keeps it. Rank r's output is the range
 * [B_r, B_{r+1}) of that order, B_r = the elements of the ranks before r.
 *   1. Each rank sorts its shard stably into scratch (gp_sort_pairs /
 *      gp_sort_keys) and takes each sorted key's search image: its order
 *      image within the bit range, complemented when descending, as uint64
 *      (non-decreasing along the sorted shard).
 *   2. Splitters, by the distributed multiway bisection on image values
 *      that the group-by shares (splitters.c): for every boundary B at
 *      once, each round proposes 15 images splitting the boundary's
 *      interval into 16, each rank counts its keys at or below each
 *      (gp_upper_bound on its images), one all-gather sums the counts, and
 *      the interval shrinks to the sixteenth that holds v*, the image of
 *      the element at global position B. At most ceil(w / 4) rounds for w
 *      bits of image, then one round for the exact lower and upper counts
 *      of v* on every rank. The ranks' elements equal to v* split in
 *      source-rank order, so the splitters are exact elements, (key,
 *      global index): skew (all keys equal, one rank holding all) is
 *      harmless. Every rank computes the same count matrix.
 *   3. The shuffle (gpi_shuffle_move): one group of point-to-point
 *      transfers.
 *   4. What arrived is p sorted runs in source order; a stable local sort
 *      of it (in place of a p-way merge) keeps equal keys in source order,
 *      hence in global index order.
 * Memory: scratch of about 2n (keys + values) + 8n bytes on each rank (the
 * sorted shard, the received runs, the images), kept by the communicator. */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct sort_args {
    const char *fn;
    gp_dtype dtype;
    gp_sort_order order;
    const void *keys_in;
    void *keys_out;
    size_t value_size; /* 0: keys only */
    const void *values_in;
    void *values_out;
    size_t n;
    int begin_bit, end_bit;
    /* made by the check */
    unsigned char *sk, *sv, *rk, *rv; /* sorted shard, received runs (keys, values) */
    uint64_t *images;
    gpi_key_split split;
    void *host;                       /* one block for the matrix and the transfers */
    uint64_t *matrix;
    gpi_p2p *ops;
} sort_args;

static size_t round_up(size_t x) { return (x + 255) & ~(size_t)255; }

static gp_status check_args(gp_context *ctx, const sort_args *a)
{
    const char *fn = a->fn;
    const size_t vs = a->value_size;
    size_t ks, kbytes, vbytes = 0;
    gp_status s;
    if ((s = gpi_sort_key_check(ctx, fn, a->dtype, a->order, a->begin_bit, a->end_bit))) return s;
    ks = gp_dtype_size(a->dtype);
    if (gpi_mul_size(a->n, ks, &kbytes) || gpi_mul_size(a->n, vs ? vs : 1, &vbytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, a->n);
    if ((s = gpi_sort_keys_buffers_check(ctx, fn, a->keys_in, a->keys_out, a->n, ks, kbytes))) return s;
    if (!vs) return GP_SUCCESS;
    if (vs != 4 && vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (4 or 8 bytes)", fn, vs);
    if (!a->values_in && vs != 8 && a->n)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT,
                         "%s: values_in NULL (global indices) needs value_size 8, not %zu", fn, vs);
    return gpi_sort_values_buffers_check(ctx, fn, a->keys_in, a->keys_out, kbytes, a->values_in, a->values_out, a->n,
                                         vs, vbytes);
}

static gp_status sort_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    sort_args *a = (sort_args *)arg;
    const size_t n = a->n, ks = gp_dtype_size(a->dtype), vs = a->value_size, p = (size_t)comm->size;
    size_t bytes;
    unsigned char *base;
    gp_status s;
    (void)part;
    mine->n = n;
    if ((s = check_args(comm->ctx, a))) return s;
    if (gpi_dist_one_rank(comm)) return GP_SUCCESS; /* sorted in place of the exchange: no scratch */
    /* Backend scratch and host arrays now, so that nothing fails for want
     * of memory once the verdicts are out. */
    bytes = 2 * round_up(n * ks) + 2 * round_up(n * vs) + round_up(n * 8) + gpi_key_split_backend_bytes(comm->size);
    if ((s = gpi_comm_scratch(comm, bytes, (void **)&base))) return s;
    a->sk = base;
    a->sv = a->sk + round_up(n * ks);
    a->rk = a->sv + round_up(n * vs);
    a->rv = a->rk + round_up(n * ks);
    a->images = (uint64_t *)(a->rv + round_up(n * vs));
    if ((s = gpi_key_split_init(comm, a->fn, &a->split, (unsigned char *)a->images + round_up(n * 8)))) return s;
    a->host = calloc(1, p * p * 8 + 4 * p * sizeof(gpi_p2p));
    if (!a->host) return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", a->fn);
    a->matrix = (uint64_t *)a->host;
    a->ops = (gpi_p2p *)(a->matrix + p * p);
    return GP_SUCCESS;
}

/* Step 2: a->matrix[q * p + d], the elements rank q sends rank d: rank q's
 * range b begins after its elements below v_b and its share of the copies
 * of v_b, shared out in source-rank order (exact splitters). `local`: this
 * rank's status so far (every rank learns of it at the first round). */
static gp_status splitters(gp_comm *comm, sort_args *a, const gpi_dist_rec *all, gp_status local)
{
    gpi_key_split *sp = &a->split;
    const int p = comm->size, width = a->end_bit - a->begin_bit;
    const uint64_t maxv = width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    const size_t p1 = (size_t)p + 1;
    uint64_t total = 0;
    int b, q;
    gp_status s;
    for (q = 0; q < p; q++) {
        sp->bound[q] = total;
        total += all[q].n;
    }
    sp->bound[p] = total;
    if ((s = gpi_key_split_bisect(comm, a->fn, sp, a->images, a->n, total, maxv, local))) return s;
    /* v_b = lo[b]: every rank's count below it, then at or below it. */
    for (b = 1; b < p; b++) sp->cand[b - 1] = sp->cand[p - 1 + b - 1] = sp->lo[b];
    if ((s = gpi_key_split_count(comm, a->fn, sp, a->images, a->n, 2 * (size_t)(p - 1), (size_t)(p - 1)))) return s;
    for (q = 0; q < p; q++) {
        sp->lower[(size_t)q * p1] = 0;
        sp->lower[(size_t)q * p1 + p] = all[q].n;
    }
    for (b = 1; b < p; b++) {
        /* The elements below v_b go before bound[b], then of those equal
         * to v_b the first bound[b] - (all below) in (source rank,
         * position) order. */
        uint64_t rem = sp->bound[b];
        for (q = 0; q < p; q++) rem -= gpi_key_split_counts(comm, sp, q)[b - 1];
        for (q = 0; q < p; q++) {
            const uint64_t *c = gpi_key_split_counts(comm, sp, q);
            const uint64_t lower = c[b - 1], eq = c[p - 1 + b - 1] - lower, take = rem < eq ? rem : eq;
            if (sp->bound[b] >= total) {
                sp->lower[(size_t)q * p1 + b] = all[q].n;
                continue;
            }
            sp->lower[(size_t)q * p1 + b] = lower + take;
            rem -= take;
        }
    }
    gpi_key_split_matrix(comm, sp, a->matrix);
    return GP_SUCCESS;
}

/* Step 1: the stable local sort into scratch (values: the caller's, or the
 * global indices), then the images. */
static gp_status local_sort(gp_comm *comm, sort_args *a, uint64_t base)
{
    gp_context *ctx = comm->ctx;
    gp_status s;
    if (a->n == 0) return GP_SUCCESS;
    if (!a->value_size)
        s = gp_sort_keys(ctx, a->dtype, a->order, a->keys_in, a->sk, a->n, a->begin_bit, a->end_bit);
    else
        s = gp_sort_pairs(ctx, a->dtype, a->order, a->keys_in, a->sk, a->value_size, a->values_in, a->sv, a->n,
                          a->begin_bit, a->end_bit);
    if (!s && a->value_size && !a->values_in) s = gpi_add_u64(ctx, (uint64_t *)a->sv, a->n, base);
    if (!s)
        s = gpi_dist_key_images(ctx, a->dtype, a->order == GP_SORT_DESCENDING, a->sk, a->n, a->begin_bit,
                                a->end_bit, a->images);
    return s;
}

static gp_status sort_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    sort_args *a = (sort_args *)arg;
    gp_context *ctx = comm->ctx;
    gp_status s;
    *found = a->n;
    if (gpi_dist_one_rank(comm)) { /* the local sort is the result */
        if (!a->value_size)
            return gp_sort_keys(ctx, a->dtype, a->order, a->keys_in, a->keys_out, a->n, a->begin_bit, a->end_bit);
        return gp_sort_pairs(ctx, a->dtype, a->order, a->keys_in, a->keys_out, a->value_size, a->values_in,
                             a->values_out, a->n, a->begin_bit, a->end_bit);
    }
    {
        uint64_t base = 0;
        int q;
        for (q = 0; q < comm->rank; q++) base += all[q].n;
        s = local_sort(comm, a, base);
    }
    if ((s = splitters(comm, a, all, s))) return s;
    if ((s = gpi_shuffle_move(comm, gp_dtype_size(a->dtype), a->sk, a->value_size, a->sv, a->matrix, a->rk, a->rv,
                              a->ops)))
        return s;
    /* Step 4: p sorted runs in source order; the stable sort keeps equal
     * keys in that order. */
    if (a->n == 0) return GP_SUCCESS;
    if (!a->value_size)
        return gp_sort_keys(ctx, a->dtype, a->order, a->rk, a->keys_out, a->n, a->begin_bit, a->end_bit);
    return gp_sort_pairs(ctx, a->dtype, a->order, a->rk, a->keys_out, a->value_size, a->rv, a->values_out, a->n,
                         a->begin_bit, a->end_bit);
}

static gp_status dist_sort(gp_comm *comm, sort_args *a)
{
    /* Key dtype, order, bit range and value size must agree (values_in
     * NULL is no disagreement: an empty shard's buffers may be NULL). */
    const uint64_t form[1] = {a->value_size};
    gp_dist_count count;
    gpi_dist_call call = {a->fn, GPI_DIST_SORT, {(int32_t)a->dtype, (int32_t)a->order, a->begin_bit * 256 + a->end_bit},
                          0, gpi_dist_digest(form, sizeof form), sort_check, sort_run, &count};
    gp_status s = gpi_dist_call_run(comm, &call, a);
    gpi_key_split_free(&a->split);
    free(a->host);
    return s;
}

/* Both public calls: keys only with value_size 0 and no values. */
static gp_status dist_sort_call(gp_comm *comm, const char *fn, gp_dtype key_dtype, gp_sort_order order,
                                const void *keys_in, void *keys_out, size_t value_size, const void *values_in,
                                void *values_out, size_t n, int begin_bit, int end_bit)
{
    sort_args a;
    memset(&a, 0, sizeof a);
    a.fn = fn;
    a.dtype = key_dtype;
    a.order = order;
    a.keys_in = keys_in;
    a.keys_out = keys_out;
    a.value_size = value_size;
    a.values_in = values_in;
    a.values_out = values_out;
    a.n = n;
    a.begin_bit = begin_bit;
    a.end_bit = end_bit;
    return dist_sort(comm, &a);
}

gp_status gp_dist_sort_keys(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                            void *keys_out, size_t n, int begin_bit, int end_bit)
{
    return dist_sort_call(comm, "gp_dist_sort_keys", key_dtype, order, keys_in, keys_out, 0, NULL, NULL, n,
                          begin_bit, end_bit);
}

gp_status gp_dist_sort_pairs(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                             void *keys_out, size_t value_size, const void *values_in, void *values_out, size_t n,
                             int begin_bit, int end_bit)
{
    return dist_sort_call(comm, "gp_dist_sort_pairs", key_dtype, order, keys_in, keys_out, value_size, values_in,
                          values_out, n, begin_bit, end_bit);
}
