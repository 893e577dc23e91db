/* SPDX-License-Identifier: BSD-3-Clause */
/* comm/select.c - gp_dist_compact, gp_dist_compact_indices and
 * gp_dist_find_repeats: selections whose results stay on the rank that
 * found them. Each makes two exchanges (gpi_dist_call with a count): the
 * verdicts and shard sizes before anything is written (which also give the
 * global index base), and the outcomes and result counts after (which give
 * offsets and totals). No element crosses a link, so these scale with the
 * ranks' own bandwidth. */
#include "comm_internal.h"

#include <string.h>

typedef struct select_args {
    gp_dtype dtype;
    const void *in, *flags;
    gp_flag_type flag_type;
    void *out;
    size_t n;
    gp_dist_count *count;
} select_args;

/* Elements of the ranks before this one: the shard's global index base. */
static uint64_t index_base(const gp_comm *comm, const gpi_dist_rec *all)
{
    uint64_t base = 0;
    int q;
    for (q = 0; q < comm->rank; q++) base += all[q].n;
    return base;
}

static gp_status compact_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    select_args *a = (select_args *)arg;
    (void)part;
    mine->n = a->n;
    return gpi_compact_check(comm->ctx, "gp_dist_compact", a->dtype, a->in, a->flags, a->flag_type, a->out, a->n,
                             a->count);
}

static gp_status compact_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    select_args *a = (select_args *)arg;
    (void)all;
    return gpi_compact_run(comm->ctx, a->dtype, a->in, a->flags, a->flag_type, a->out, a->n, found);
}

gp_status gp_dist_compact(gp_comm *comm, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, gp_dist_count *count)
{
    select_args a = {dtype, in, flags, flag_type, out, n, count};
    gpi_dist_call call = {"gp_dist_compact", GPI_DIST_COMPACT, {dtype, flag_type, 0}, 0, 0, compact_check, compact_run,
                          count};
    return gpi_dist_call_run(comm, &call, &a);
}

static gp_status indices_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    select_args *a = (select_args *)arg;
    (void)part;
    mine->n = a->n;
    return gpi_compact_indices_check(comm->ctx, "gp_dist_compact_indices", a->flags, a->flag_type,
                                     (uint64_t *)a->out, a->n, a->count);
}

static gp_status indices_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    select_args *a = (select_args *)arg;
    gp_status s = gpi_compact_indices_run(comm->ctx, a->flags, a->flag_type, (uint64_t *)a->out, a->n, found);
    if (!s) s = gpi_add_u64(comm->ctx, (uint64_t *)a->out, *found, index_base(comm, all));
    return s;
}

gp_status gp_dist_compact_indices(gp_comm *comm, const void *flags, gp_flag_type flag_type, uint64_t *indices_out,
                                  size_t n, gp_dist_count *count)
{
    select_args a = {GP_INT32, NULL, flags, flag_type, indices_out, n, count};
    gpi_dist_call call = {"gp_dist_compact_indices", GPI_DIST_COMPACT_INDICES, {flag_type, 0, 0}, 0, 0,
                          indices_check, indices_run, count};
    return gpi_dist_call_run(comm, &call, &a);
}

/* a == b as gp_find_repeats compares: floats by value (NaN never equal,
 * -0.0 == +0.0), integers by bits. */
static int same(gp_dtype dtype, const unsigned char *a, const unsigned char *b)
{
    if (dtype == GP_FLOAT32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    if (dtype == GP_FLOAT64) {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    return memcmp(a, b, gp_dtype_size(dtype)) == 0;
}

/* The check, then the shard's first and last elements for the neighbours. */
static gp_status repeats_check(gp_comm *comm, void *arg, gpi_dist_rec *mine, gpi_backend_part *part)
{
    select_args *a = (select_args *)arg;
    size_t es = gp_dtype_size(a->dtype);
    /* Room for n: the n - 1 pairs inside the shard and the straddling one. */
    gp_status s = gpi_find_repeats_check(comm->ctx, "gp_dist_find_repeats", a->dtype, a->in, a->n,
                                         (uint64_t *)a->out, a->n, a->count);
    (void)part;
    mine->n = a->n;
    if (s || a->n == 0) return s;
    if ((s = gpi_copy(comm->ctx, mine->v[1], a->in, es, 1))) return s;
    return gpi_copy(comm->ctx, mine->v[2], (const char *)a->in + (a->n - 1) * es, es, 1);
}

static gp_status repeats_run(gp_comm *comm, void *arg, const gpi_dist_rec *all, size_t *found)
{
    select_args *a = (select_args *)arg;
    uint64_t *out = (uint64_t *)a->out, base = index_base(comm, all);
    int next = comm->rank + 1;
    gp_status s;
    while (next < comm->size && all[next].n == 0) next++;
    if ((s = gpi_find_repeats_run(comm->ctx, a->dtype, a->in, a->n, out, found))) return s;
    if ((s = gpi_add_u64(comm->ctx, out, *found, base))) return s;
    /* The pair (last of this shard, first of the next non-empty one) is
     * this rank's: its index is the largest here, so order holds. */
    if (a->n && next < comm->size && same(a->dtype, all[comm->rank].v[2], all[next].v[1])) {
        uint64_t straddle = base + a->n - 1;
        if ((s = gpi_copy(comm->ctx, out + *found, &straddle, sizeof straddle, 0))) return s;
        ++*found;
    }
    return GP_SUCCESS;
}

gp_status gp_dist_find_repeats(gp_comm *comm, gp_dtype dtype, const void *in, size_t n, uint64_t *indices_out,
                               gp_dist_count *count)
{
    select_args a = {dtype, in, NULL, GP_UINT8_FLAGS, indices_out, n, count};
    gpi_dist_call call = {"gp_dist_find_repeats", GPI_DIST_FIND_REPEATS, {dtype, 0, 0}, 0, 0, repeats_check,
                          repeats_run, count};
    return gpi_dist_call_run(comm, &call, &a);
}
