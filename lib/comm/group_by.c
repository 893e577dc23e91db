/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/group_by.c - gp_dist_reduce_by_key (a group-by) and gp_dist_unique:
 * equal keys gathered from the whole global array onto one rank, the ranks
 * holding ascending key ranges in rank order.
 *   check  the arguments; the local pre-aggregation into the
 *          communicator's scratch: a stable local sort by key (gp_sort_pairs,
 *          gp_sort_keys), then gp_reduce_by_key (lengths too when asked) or
 *          gp_unique in place; the search images of the aggregated keys.
 *   run    splitters on the images (splitters.c: every copy of a key to
 *          one rank, about U / p aggregated entries a rank for U in all);
 *          the scratch grows for what this rank receives (a verdict round,
 *          so a rank out of memory fails every rank); the all-to-all
 *          (gpi_shuffle_move) of keys, values and lengths; a stable local
 *          sort of the p received runs (source order kept for equal keys)
 *          and the final reduce-by-key / unique into scratch; a last round
 *          trades the result counts: when one exceeds its rank's capacity,
 *          every rank fails before any output is written; else each copies
 *          its result out.
 * Keys travel once, already aggregated: a key held by every rank crosses
 * the links at most p times whatever its multiplicity.
 * One rank: the local pre-aggregation is the result (it is the
 * single-context call: a stable sort, then the reduce); after the verdicts
 * only the capacity check and the copy out remain (no images, splitters,
 * exchange or final reduce). */
#include "comm_internal.h"

#include <gpuprim/permute.h>
#include <gpuprim/runs.h>

#include <stdlib.h>
#include <string.h>

typedef struct group_args {
    const char *fn;
    int unique;
    gp_dtype kd, vd;
    gp_op op;
    const void *keys_in, *values_in;
    size_t n;
    void *keys_out, *values_out;
    uint64_t *lengths_out;
    size_t capacity;
    gp_dist_count *count;
    /* made by the check */
    size_t ks, vs, u;     /* key and value sizes (vs 0: unique), aggregated entries */
    size_t off_sv, off_sl, off_img, off_split, bytes_a; /* scratch regions (offsets) */
    gpi_key_split split;
    uint64_t *matrix, *row; /* host: p x p counts; p x 3 outcome records */
    gpi_p2p *ops;
} group_args;

static gp_status check_args(gp_context *ctx, const group_args *a)
{
    const char *fn = a->fn;
    size_t kin, vin, kout, vout, lout;
    gp_status s;
    if (!gpi_valid_dtype(a->kd))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)a->kd);
    if (!a->unique && !gpi_valid_dtype(a->vd))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown value dtype %d", fn, (int)a->vd);
    if (!a->unique && !gpi_valid_op(a->op))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown operator %d", fn, (int)a->op);
    if (!a->count) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: count is NULL", fn);
    if (gpi_mul_size(a->n, a->ks, &kin) || gpi_mul_size(a->n, a->vs, &vin) ||
        gpi_mul_size(a->capacity, a->ks, &kout) || gpi_mul_size(a->capacity, a->vs, &vout) ||
        gpi_mul_size(a->capacity, 8, &lout))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: a byte count overflows", fn);
    if ((s = gpi_check_buffer(ctx, a->keys_in, kin, a->unique ? "in" : "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->keys_out, kout, a->unique ? "out" : "keys_out"))) return s;
    if ((a->n && (uintptr_t)a->keys_in % a->ks) || (a->capacity && (uintptr_t)a->keys_out % a->ks))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a key buffer is not aligned to its element size", fn);
    if (gpi_overlap(a->keys_out, kout, a->keys_in, kin))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input", fn);
    if (a->unique) return GP_SUCCESS;
    if ((s = gpi_check_buffer(ctx, a->values_in, vin, "values_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->values_out, vout, "values_out"))) return s;
    if (a->lengths_out && (s = gpi_check_buffer(ctx, a->lengths_out, lout, "lengths_out"))) return s;
    if ((a->n && (uintptr_t)a->values_in % a->vs) || (a->capacity && (uintptr_t)a->values_out % a->vs) ||
        (a->capacity && a->lengths_out && (uintptr_t)a->lengths_out % 8))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a buffer is not aligned to its element size", fn);
    if (!a->lengths_out) lout = 0;
    if (gpi_overlap(a->values_out, vout, a->keys_in, kin) || gpi_overlap(a->values_out, vout, a->values_in, vin) ||
        gpi_overlap(a->keys_out, kout, a->values_in, vin) || gpi_overlap(a->lengths_out, lout, a->keys_in, kin) ||
        gpi_overlap(a->lengths_out, lout, a->values_in, vin))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input", fn);
    if (gpi_overlap(a->keys_out, kout, a->values_out, vout) || gpi_overlap(a->keys_out, kout, a->lengths_out, lout) ||
        gpi_overlap(a->values_out, vout, a->lengths_out, lout))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: two outputs overlap", fn);
    return GP_SUCCESS;
}

/* The local pre-aggregation into scratch region A (keys at its start). */
static gp_status aggregate(gp_comm *comm, group_args *a, unsigned char *base)
{
    gp_context *ctx = comm->ctx;
    unsigned char *sk = base, *sv = base + a->off_sv;
    uint64_t *sl = (uint64_t *)(base + a->off_sl);
    gp_status s;
    a->u = 0;
    if (a->n == 0) return GP_SUCCESS;
    if (a->unique) {
        if ((s = gp_sort_keys(ctx, a->kd, GP_SORT_ASCENDING, a->keys_in, sk, a->n, 0, (int)(8 * a->ks))))
            return s;
        s = gp_unique(ctx, a->kd, sk, a->n, sk, &a->u);
    } else {
        if ((s = gp_sort_pairs(ctx, a->kd, GP_SORT_ASCENDING, a->keys_in, sk, a->vs, a->values_in, sv, a->n, 0,
                               (int)(8 * a->ks))))
            return s;
        s = gp_reduce_by_key(ctx, a->kd, a->vd, a->op, sk, sv, a->n, sk, sv, a->lengths_out ? sl : NULL, &a->u);
    }
    return s;
}

static gp_status group_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    group_args *a = (group_args *)arg;
    const size_t n = a->n, p = (size_t)comm->size;
    unsigned char *base = NULL;
    gp_status s;
    (void)part;
    mine->n = n;
    if ((s = check_args(comm->ctx, a))) return s;
    a->off_sv = gpi_round256(n * a->ks);
    a->off_sl = a->off_sv + gpi_round256(n * a->vs);
    a->off_img = a->off_sl + (a->lengths_out ? gpi_round256(n * 8) : 0);
    a->off_split = a->off_img + gpi_round256(n * 8);
    /* One rank needs the aggregation's regions only. */
    a->bytes_a = gpi_dist_one_rank(comm) ? a->off_img : a->off_split + gpi_key_split_backend_bytes(comm->size);
    if ((s = gpi_comm_scratch(comm, a->bytes_a, (void **)&base))) return s;
    if ((s = aggregate(comm, a, base))) return s;
    mine->count = a->u;
    if (gpi_dist_one_rank(comm)) return GP_SUCCESS;
    if ((s = gpi_key_split_init(comm, a->fn, &a->split, base + a->off_split))) return s;
    a->matrix = (uint64_t *)calloc(p * p + 3 * p, sizeof *a->matrix);
    a->ops = (gpi_p2p *)calloc(4 * p, sizeof *a->ops);
    if (!a->matrix || !a->ops) return gpi_error(comm->ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", a->fn);
    a->row = a->matrix + p * p;
    return gpi_dist_key_images(comm->ctx, a->kd, 0, base, a->u, 0, (int)(8 * a->ks), (uint64_t *)(base + a->off_img));
}

/* The image +0.0 has (after -0.0's): no key range may start there. */
static uint64_t zero_image(gp_dtype d)
{
    if (d == GP_FLOAT32) return gpi_f32_image(0);
    if (d == GP_FLOAT64) return gpi_f64_image(0);
    return 0;
}

/* Sort the r received entries (p ascending runs, in source order) stably
 * and reduce them; *c: the result count. Regions as group_run lays them. */
static gp_status finish(gp_comm *comm, group_args *a, size_t r, unsigned char *rk, unsigned char *rv, uint64_t *rl,
                        unsigned char *fk, unsigned char *fv, uint64_t *fl, uint64_t *perm, size_t *c)
{
    gp_context *ctx = comm->ctx;
    const int bits = (int)(8 * a->ks);
    size_t c2 = 0;
    gp_status s;
    *c = 0;
    if (r == 0) return GP_SUCCESS;
    if (a->unique) {
        if ((s = gp_sort_keys(ctx, a->kd, GP_SORT_ASCENDING, rk, fk, r, 0, bits))) return s;
        return gp_unique(ctx, a->kd, fk, r, fk, c);
    }
    if (!a->lengths_out) {
        if ((s = gp_sort_pairs(ctx, a->kd, GP_SORT_ASCENDING, rk, fk, a->vs, rv, fv, r, 0, bits))) return s;
        return gp_reduce_by_key(ctx, a->kd, a->vd, a->op, fk, fv, r, fk, fv, NULL, c);
    }
    /* Values and lengths both follow the sort's permutation; the lengths
     * of a group's partials add up (rk, no longer needed, takes the keys
     * that pass writes). */
    if ((s = gp_sort_pairs(ctx, a->kd, GP_SORT_ASCENDING, rk, fk, 8, NULL, perm, r, 0, bits))) return s;
    if ((s = gp_gather(ctx, a->vs, rv, r, perm, fv, r, GP_INDEX_SKIP))) return s;
    if ((s = gp_gather(ctx, 8, rl, r, perm, fl, r, GP_INDEX_SKIP))) return s;
    if ((s = gp_reduce_by_key(ctx, a->kd, GP_UINT64, GP_OP_SUM, fk, fl, r, rk, fl, NULL, &c2))) return s;
    if ((s = gp_reduce_by_key(ctx, a->kd, a->vd, a->op, fk, fv, r, fk, fv, NULL, c))) return s;
    return c2 == *c ? GP_SUCCESS : gpi_error(ctx, GP_ERROR_INTERNAL, "%s: group counts differ", a->fn);
}

/* This rank's c results are more than its capacity. */
static gp_status over_capacity(gp_comm *comm, const group_args *a, uint64_t c)
{
    return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                     "%s: capacity %zu, but %llu results fall on this rank; nothing was written", a->fn, a->capacity,
                     (unsigned long long)c);
}

/* The c results (keys, values, lengths in scratch) into the outputs, and
 * the counts. */
static gp_status copy_out(gp_comm *comm, group_args *a, const unsigned char *k, const unsigned char *v,
                          const uint64_t *l, size_t c, uint64_t offset, uint64_t total)
{
    gp_status s;
    if ((s = gpi_copy(comm->ctx, a->keys_out, k, c * a->ks, 2))) return s;
    if (a->vs && (s = gpi_copy(comm->ctx, a->values_out, v, c * a->vs, 2))) return s;
    if (a->lengths_out && (s = gpi_copy(comm->ctx, a->lengths_out, l, c * 8, 2))) return s;
    a->count->local = c;
    a->count->offset = offset;
    a->count->total = total;
    return GP_SUCCESS;
}

static gp_status group_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    group_args *a = (group_args *)arg;
    const int p = comm->size, me = comm->rank;
    const size_t ks = a->ks, vs = a->vs, ls = a->lengths_out ? 8 : 0;
    uint64_t total = 0, offset = 0, sum = 0;
    unsigned char *base = NULL;
    size_t r = 0, c = 0, off_rv, off_rl, off_fk, off_fv, off_fl, off_perm, bytes;
    gp_status s;
    int q;
    (void)found;
    base = (unsigned char *)comm->scratch;
    if (gpi_dist_one_rank(comm)) { /* the aggregation is the result */
        if (a->u > a->capacity) return over_capacity(comm, a, a->u);
        return copy_out(comm, a, base, base + a->off_sv, (const uint64_t *)(base + a->off_sl), a->u, 0, a->u);
    }
    for (q = 0; q < p; q++) total += all[q].count;
    s = gpi_key_split_run(comm, a->fn, &a->split, (const uint64_t *)(base + a->off_img), a->u, total,
                          ks == 4 ? 0xffffffffull : ~(uint64_t)0, zero_image(a->kd), GP_SUCCESS, a->matrix);
    if (s) return s;
    for (q = 0; q < p; q++) r += (size_t)a->matrix[(size_t)q * p + me];
    /* Region B, behind A: received keys, values, lengths; the sorted ones;
     * the permutation. */
    off_rv = a->bytes_a + gpi_round256(r * ks);
    off_rl = off_rv + gpi_round256(r * vs);
    off_fk = off_rl + gpi_round256(r * ls);
    off_fv = off_fk + gpi_round256(r * ks);
    off_fl = off_fv + gpi_round256(r * vs);
    off_perm = off_fl + gpi_round256(r * ls);
    bytes = off_perm + (ls ? gpi_round256(r * 8) : 0);
    s = gpi_comm_scratch_keep(comm, a->bytes_a, bytes, (void **)&base);
    if ((s = gpi_dist_agree_step(comm, a->fn, "preparing the exchange; nothing was written", s, a->row))) return s;
    if ((s = gpi_shuffle_move(comm, ks, base, vs, base + a->off_sv, a->matrix, base + a->bytes_a, base + off_rv,
                              a->ops)))
        return s;
    if (ls && (s = gpi_shuffle_move(comm, 8, base + a->off_sl, 0, NULL, a->matrix, base + off_rl, NULL, a->ops)))
        return s;
    s = finish(comm, a, r, base + a->bytes_a, base + off_rv, (uint64_t *)(base + off_rl), base + off_fk, base + off_fv,
               (uint64_t *)(base + off_fl), (uint64_t *)(base + off_perm), &c);
    /* The outcomes: statuses, result counts and capacities, before any
     * output is written. */
    {
        uint64_t mine[3] = {(uint64_t)s, c, a->capacity};
        gp_status t;
        if ((t = gpi_comm_allgather(comm, mine, NULL, sizeof mine, a->row))) return t;
        if (s) return s;
        for (q = 0; q < p; q++)
            if (a->row[3 * q])
                return gpi_error(comm->ctx, GP_ERROR_COMM, "%s: rank %d failed (%s); nothing was written", a->fn, q,
                                 gp_status_string((gp_status)a->row[3 * q]));
        for (q = 0; q < p; q++) {
            const uint64_t got = a->row[3 * q + 1], room = a->row[3 * q + 2];
            if (got <= room) continue;
            if (q == me) return over_capacity(comm, a, got);
            return gpi_error(comm->ctx, GP_ERROR_COMM,
                             "%s: rank %d's capacity (%llu) cannot hold its %llu results; nothing was written", a->fn,
                             q, (unsigned long long)room, (unsigned long long)got);
        }
        for (q = 0; q < p; q++) {
            if (q < me) offset += a->row[3 * q + 1];
            sum += a->row[3 * q + 1];
        }
    }
    return copy_out(comm, a, base + off_fk, base + off_fv, (const uint64_t *)(base + off_fl), c, offset, sum);
}

static gp_status group_call(gp_comm *comm, group_args *a)
{
    /* Whether lengths are asked for is each rank's own choice; dtypes and
     * operator must agree. */
    gpi_dist_call call = {a->fn, a->unique ? GPI_DIST_UNIQUE : GPI_DIST_REDUCE_BY_KEY,
                          {(int32_t)a->kd, a->unique ? 0 : (int32_t)a->vd, a->unique ? 0 : (int32_t)a->op},
                          0, 0, group_check, group_run, NULL};
    gp_status s;
    a->ks = gpi_valid_dtype(a->kd) ? gp_dtype_size(a->kd) : 0;
    a->vs = !a->unique && gpi_valid_dtype(a->vd) ? gp_dtype_size(a->vd) : 0;
    s = gpi_dist_call_run(comm, &call, a);
    gpi_key_split_free(&a->split);
    free(a->matrix);
    free(a->ops);
    return s;
}

gp_status gp_dist_reduce_by_key(gp_comm *comm, gp_dtype key_dtype, gp_dtype value_dtype, gp_op op,
                                const void *keys_in, const void *values_in, size_t n, void *keys_out,
                                void *values_out, uint64_t *lengths_out, size_t capacity, gp_dist_count *count)
{
    group_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_reduce_by_key";
    a.kd = key_dtype;
    a.vd = value_dtype;
    a.op = op;
    a.keys_in = keys_in;
    a.values_in = values_in;
    a.n = n;
    a.keys_out = keys_out;
    a.values_out = values_out;
    a.lengths_out = lengths_out;
    a.capacity = capacity;
    a.count = count;
    return group_call(comm, &a);
}

gp_status gp_dist_unique(gp_comm *comm, gp_dtype dtype, const void *in, size_t n, void *out, size_t capacity,
                         gp_dist_count *count)
{
    group_args a;
    memset(&a, 0, sizeof a);
    a.fn = "gp_dist_unique";
    a.unique = 1;
    a.kd = dtype;
    a.keys_in = in;
    a.n = n;
    a.keys_out = out;
    a.capacity = capacity;
    a.count = count;
    return group_call(comm, &a);
}
