/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/topk.c - gp_dist_top_k: the first k keys of the global array in a
 * stable sort's order, the same k results on every rank.
 *   check  the arguments; gp_top_k on the shard (min(k, n) candidates with
 *          their positions in the shard, or their values gathered by those
 *          positions) into the communicator's scratch.
 *   run    the global checks (k within the global n, the values' form);
 *          the scratch grows for every rank's candidates (a verdict round);
 *          an all-gather of the candidates (one group of point-to-point
 *          transfers: each rank's block to every rank, landing in rank
 *          order); gp_top_k over them on every rank.
 * Why the ties come out right: the candidates lie in rank order, each
 * rank's in its own top-k order, so among equal keys a lower candidate
 * position is a lower global index, and gp_top_k takes the lower position
 * first. The candidates are every rank's own first k, so the global first
 * k are among them.
 * One rank: the global checks after the verdicts, then gp_top_k on the
 * shard straight into the outputs (no candidates, no gather, no second
 * round). */
#include "comm_internal.h"

#include <gpuprim/permute.h>
#include <gpuprim/search.h>

#include <stdlib.h>
#include <string.h>

enum { FORM_NONE = 0, FORM_VALUES = 1, FORM_INDICES = 2 };

typedef struct topk_args {
    const char *fn;
    gp_dtype kd;
    gp_sort_order order;
    const void *keys_in;
    size_t n, k;
    void *keys_out;
    size_t vs;
    const void *values_in;
    void *values_out;
    /* made by the check */
    size_t ks, kl;                   /* key size, this rank's candidates */
    size_t off_pos, off_val, bytes_a; /* scratch: candidate keys at 0, positions, values */
    uint64_t *row;                   /* host: p entries */
    gpi_p2p *ops;                    /* host: 4p */
} topk_args;

static gp_status check_args(gp_context *ctx, const topk_args *a)
{
    const char *fn = a->fn;
    size_t kin, kout, vin = 0, vout = 0;
    gp_status s;
    if (!gpi_valid_dtype(a->kd))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)a->kd);
    if (a->order != GP_SORT_ASCENDING && a->order != GP_SORT_DESCENDING)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown sort order %d", fn, (int)a->order);
    if (a->k == 0) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: k is 0 (1 <= k <= the global n)", fn);
    if (a->vs != 0 && a->vs != 4 && a->vs != 8)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: value_size %zu (0, 4 or 8)", fn, a->vs);
    if (gpi_mul_size(a->n, a->ks, &kin) || gpi_mul_size(a->k, a->ks, &kout) || gpi_mul_size(a->n, a->vs, &vin) ||
        gpi_mul_size(a->k, a->vs, &vout))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: a byte count overflows", fn);
    if ((s = gpi_check_buffer(ctx, a->keys_in, kin, "keys_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->keys_out, kout, "keys_out"))) return s;
    if ((a->n && (uintptr_t)a->keys_in % a->ks) || (uintptr_t)a->keys_out % a->ks)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a key buffer is not aligned to its element size", fn);
    if (gpi_overlap(a->keys_out, kout, a->keys_in, kin))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_out overlaps keys_in", fn);
    if (!a->vs) return GP_SUCCESS;
    if (a->values_in && (s = gpi_check_buffer(ctx, a->values_in, vin, "values_in"))) return s;
    if ((s = gpi_check_buffer(ctx, a->values_out, vout, "values_out"))) return s;
    if ((a->values_in && a->n && (uintptr_t)a->values_in % a->vs) || (uintptr_t)a->values_out % a->vs)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: a value buffer is not aligned to its size", fn);
    if (gpi_overlap(a->values_out, vout, a->keys_in, kin) ||
        (a->values_in && gpi_overlap(a->values_out, vout, a->values_in, vin)) ||
        (a->values_in && gpi_overlap(a->keys_out, kout, a->values_in, vin)))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: an output overlaps an input", fn);
    if (gpi_overlap(a->values_out, vout, a->keys_out, kout))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_out overlaps values_out", fn);
    return GP_SUCCESS;
}

static gp_status topk_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    topk_args *a = (topk_args *)arg;
    const size_t p = (size_t)comm->size;
    unsigned char *base = NULL;
    gp_context *ctx = comm->ctx;
    gp_status s;
    (void)part;
    mine->n = a->n;
    /* The values' form: given values or global indices (an empty shard's
     * values_in says nothing: it follows the others). */
    mine->count = !a->vs || !a->n ? FORM_NONE : a->values_in ? FORM_VALUES : FORM_INDICES;
    if ((s = check_args(ctx, a))) return s;
    if (gpi_dist_one_rank(comm)) return GP_SUCCESS; /* all the work follows the verdicts */
    a->kl = a->n < a->k ? a->n : a->k;
    a->off_pos = gpi_round256(a->kl * a->ks);
    a->off_val = a->off_pos + gpi_round256(a->kl * 8);
    a->bytes_a = a->off_val + gpi_round256(a->kl * a->vs);
    a->row = (uint64_t *)calloc(p, sizeof *a->row);
    a->ops = (gpi_p2p *)calloc(4 * p, sizeof *a->ops);
    if (!a->row || !a->ops) return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "%s: out of host memory", a->fn);
    if ((s = gpi_comm_scratch(comm, a->bytes_a, (void **)&base))) return s;
    if (a->kl == 0) return GP_SUCCESS;
    s = gp_top_k(ctx, a->kd, a->order, a->keys_in, a->n, a->kl, base, 8, NULL, base + a->off_pos);
    if (!s && a->vs && a->values_in)
        s = gp_gather(ctx, a->vs, a->values_in, a->n, (const uint64_t *)(base + a->off_pos), base + a->off_val, a->kl,
                      GP_INDEX_SKIP);
    return s;
}

/* The global checks every rank makes alike on the records. */
static gp_status global_check(gp_comm *comm, topk_args *a, const gpi_dist_rec *all, uint64_t *total, int *form)
{
    int q;
    *total = 0;
    *form = FORM_NONE;
    for (q = 0; q < comm->size; q++) {
        *total += all[q].n;
        if (all[q].count == FORM_NONE) continue;
        if (*form != FORM_NONE && (int)all[q].count != *form)
            return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT,
                             "%s: ranks with keys disagree on values_in (values on some, NULL for global indices on "
                             "others; rank %d differs); nothing was written", a->fn, q);
        *form = (int)all[q].count;
    }
    if (a->k > *total)
        return gpi_error(comm->ctx, GP_ERROR_INVALID_ARGUMENT, "%s: k = %zu exceeds the global n = %llu", a->fn, a->k,
                         (unsigned long long)*total);
    if (a->vs == 4 && *form == FORM_INDICES && *total > ((uint64_t)1 << 32))
        return gpi_error(comm->ctx, GP_ERROR_SIZE_OVERFLOW,
                         "%s: global indices of %llu keys do not fit value_size 4", a->fn, (unsigned long long)*total);
    return GP_SUCCESS;
}

static gp_status topk_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    topk_args *a = (topk_args *)arg;
    gp_context *ctx = comm->ctx;
    const int p = comm->size, me = comm->rank;
    const size_t ks = a->ks;
    uint64_t total, index_base = 0, c = 0;
    size_t ps, off_ak, off_ap, off_t, bytes;
    unsigned char *base;
    int q, form, nops = 0;
    gp_status s;
    (void)found;
    if ((s = global_check(comm, a, all, &total, &form))) return s;
    if (gpi_dist_one_rank(comm)) /* the shard's first k are the answer */
        return gp_top_k(ctx, a->kd, a->order, a->keys_in, a->n, a->k, a->keys_out, a->vs, a->values_in,
                        a->values_out);
    ps = !a->vs ? 0 : form == FORM_VALUES ? a->vs : 8; /* what travels with each candidate */
    for (q = 0; q < p; q++) {
        const uint64_t kq = all[q].n < a->k ? all[q].n : a->k;
        if (q < me) index_base += all[q].n;
        c += kq;
    }
    /* Region B, behind A: every rank's candidate keys and payloads, and the
     * chosen global indices when they must narrow to 4 bytes. */
    off_ak = a->bytes_a;
    off_ap = off_ak + gpi_round256((size_t)c * ks);
    off_t = off_ap + gpi_round256((size_t)c * ps);
    bytes = off_t + gpi_round256(a->k * 8) * 2;
    s = gpi_comm_scratch_keep(comm, a->bytes_a, bytes, (void **)&base);
    if (!s && form == FORM_INDICES && a->kl)
        s = gpi_add_u64(ctx, (uint64_t *)(base + a->off_pos), a->kl, index_base);
    if ((s = gpi_dist_agree_step(comm, a->fn, "preparing the exchange; nothing was written", s, a->row))) return s;
    {
        /* The all-gather: this rank's block to every rank, every rank's
         * block into its place (rank order). */
        const unsigned char *pay = base + (form == FORM_VALUES ? a->off_val : a->off_pos);
        uint64_t at = 0;
        int d;
        for (d = 0; d < p && a->kl; d++) {
            a->ops[nops++] = (gpi_p2p){d, 1, base, a->kl * ks};
            if (ps) a->ops[nops++] = (gpi_p2p){d, 1, (void *)pay, a->kl * ps};
        }
        for (q = 0; q < p; q++) {
            const size_t kq = (size_t)(all[q].n < a->k ? all[q].n : a->k);
            if (!kq) continue;
            a->ops[nops++] = (gpi_p2p){q, 0, base + off_ak + at * ks, kq * ks};
            if (ps) a->ops[nops++] = (gpi_p2p){q, 0, base + off_ap + at * ps, kq * ps};
            at += kq;
        }
        if ((s = gpi_comm_p2p(comm, a->ops, nops, GPI_P2P_QUEUE))) return s;
    }
    /* The final choice, alike on every rank. */
    if (ps == a->vs)
        s = gp_top_k(ctx, a->kd, a->order, base + off_ak, (size_t)c, a->k, a->keys_out, ps, ps ? base + off_ap : NULL,
                     a->values_out);
    else { /* 4-byte global indices: the low words of the 8-byte ones */
        unsigned char *wide = base + off_t, *halves = wide + gpi_round256(a->k * 8);
        s = gp_top_k(ctx, a->kd, a->order, base + off_ak, (size_t)c, a->k, a->keys_out, 8, base + off_ap, wide);
        if (!s) s = gp_transpose(ctx, 4, wide, halves, a->k, 2);
        if (!s) s = gpi_copy(ctx, a->values_out, halves, a->k * 4, 2);
    }
    /* Every rank learns whether all finished (outputs unspecified if not). */
    return gpi_dist_agree_step(comm, a->fn, "in the final selection", s, a->row);
}

gp_status gp_dist_top_k(gp_comm *comm, gp_dtype key_dtype, gp_sort_order order, const void *keys_in, size_t n,
                        size_t k, void *keys_out, size_t value_size, const void *values_in, void *values_out)
{
    const uint64_t agree[1] = {k};
    topk_args a;
    gpi_dist_call call = {"gp_dist_top_k", GPI_DIST_TOP_K, {(int32_t)key_dtype, (int32_t)order, (int32_t)value_size},
                          0, gpi_dist_digest(agree, sizeof agree), topk_check, topk_run, NULL};
    gp_status s;
    memset(&a, 0, sizeof a);
    a.fn = call.fn;
    a.kd = key_dtype;
    a.order = order;
    a.keys_in = keys_in;
    a.n = n;
    a.k = k;
    a.keys_out = keys_out;
    a.vs = value_size;
    a.values_in = values_in;
    a.values_out = values_out;
    a.ks = gpi_valid_dtype(key_dtype) ? gp_dtype_size(key_dtype) : 1;
    s = gpi_dist_call_run(comm, &call, &a);
    free(a.row);
    free(a.ops);
    return s;
}
