/* dist/select.c - gp_dist_compact, gp_dist_compact_indices and
 * gp_dist_find_repeats: selections whose results stay on the rank that
 * found them. Each makes two exchanges: the verdicts and shard sizes
 * before anything is written (which also give the global index base), and
 * the result counts after (which give offsets and totals). No element
 * crosses a link, so these scale with the ranks' own bandwidth. */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

static gpi_dist_rec *new_recs(gp_comm *comm)
{
    return (gpi_dist_rec *)calloc((size_t)comm->size, sizeof(gpi_dist_rec));
}

/* Second exchange: every rank's status and count; fills *count. */
static gp_status finish(gp_comm *comm, const char *fn, gp_status local, size_t found, gpi_dist_rec *recs,
                        gp_dist_count *count)
{
    gpi_dist_rec mine;
    uint64_t offset = 0, total = 0;
    int q;
    gp_status s;
    memset(&mine, 0, sizeof mine);
    mine.status = local;
    mine.count = found;
    if ((s = gpi_dist_exchange(comm, fn, &mine, recs))) return s;
    for (q = 0; q < comm->size; q++) {
        if (q < comm->rank) offset += recs[q].count;
        total += recs[q].count;
    }
    count->local = found;
    count->offset = offset;
    count->total = total;
    return GP_SUCCESS;
}

/* First exchange: verdicts and sizes. *base: elements of the ranks before. */
static gp_status start(gp_comm *comm, const char *fn, gpi_dist_rec *mine, gpi_dist_rec *recs, uint64_t *base)
{
    int q;
    gp_status s = gpi_dist_exchange(comm, fn, mine, recs);
    *base = 0;
    for (q = 0; q < comm->rank && !s; q++) *base += recs[q].n;
    return s;
}

gp_status gp_dist_compact(gp_comm *comm, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, gp_dist_count *count)
{
    static const char fn[] = "gp_dist_compact";
    gpi_dist_rec mine, *recs;
    uint64_t base;
    size_t found = 0;
    gp_status s = gpi_comm_enter(comm), local;
    if (s) return s;
    memset(&mine, 0, sizeof mine);
    mine.status = gpi_compact_check(comm->ctx, fn, dtype, in, flags, flag_type, out, n, count);
    mine.args[0] = dtype;
    mine.args[1] = flag_type;
    mine.n = n;
    if (!(recs = new_recs(comm))) return GP_ERROR_OUT_OF_MEMORY;
    if (!(s = start(comm, fn, &mine, recs, &base))) {
        local = gpi_compact_run(comm->ctx, dtype, in, flags, flag_type, out, n, &found);
        s = finish(comm, fn, local, found, recs, count);
    }
    free(recs);
    return s;
}

gp_status gp_dist_compact_indices(gp_comm *comm, const void *flags, gp_flag_type flag_type, uint64_t *indices_out,
                                  size_t n, gp_dist_count *count)
{
    static const char fn[] = "gp_dist_compact_indices";
    gpi_dist_rec mine, *recs;
    uint64_t base;
    size_t found = 0;
    gp_status s = gpi_comm_enter(comm), local;
    if (s) return s;
    memset(&mine, 0, sizeof mine);
    mine.status = gpi_compact_indices_check(comm->ctx, fn, flags, flag_type, indices_out, n, count);
    mine.args[0] = flag_type;
    mine.n = n;
    if (!(recs = new_recs(comm))) return GP_ERROR_OUT_OF_MEMORY;
    if (!(s = start(comm, fn, &mine, recs, &base))) {
        local = gpi_compact_indices_run(comm->ctx, flags, flag_type, indices_out, n, &found);
        if (!local) local = gpi_add_u64(comm->ctx, indices_out, found, base);
        s = finish(comm, fn, local, found, recs, count);
    }
    free(recs);
    return s;
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

gp_status gp_dist_find_repeats(gp_comm *comm, gp_dtype dtype, const void *in, size_t n, uint64_t *indices_out,
                               gp_dist_count *count)
{
    static const char fn[] = "gp_dist_find_repeats";
    gpi_dist_rec mine, *recs;
    uint64_t base;
    size_t found = 0, es = gp_dtype_size(dtype);
    gp_status s = gpi_comm_enter(comm), local;
    gp_context *ctx;
    if (s) return s;
    ctx = comm->ctx;
    memset(&mine, 0, sizeof mine);
    /* Room for n: the n - 1 pairs inside the shard and the straddling one. */
    mine.status = gpi_find_repeats_check(ctx, fn, dtype, in, n, indices_out, n, count);
    mine.args[0] = dtype;
    mine.n = n;
    /* The shard's first and last elements go to the neighbours. */
    if (!mine.status && n) {
        mine.status = gpi_copy(ctx, mine.v[1], in, es, 1);
        if (!mine.status) mine.status = gpi_copy(ctx, mine.v[2], (const char *)in + (n - 1) * es, es, 1);
    }
    if (!(recs = new_recs(comm))) return GP_ERROR_OUT_OF_MEMORY;
    if (!(s = start(comm, fn, &mine, recs, &base))) {
        int next = comm->rank + 1;
        while (next < comm->size && recs[next].n == 0) next++;
        local = gpi_find_repeats_run(ctx, dtype, in, n, indices_out, &found);
        if (!local) local = gpi_add_u64(ctx, indices_out, found, base);
        /* The pair (last of this shard, first of the next non-empty one) is
         * this rank's: its index is the largest here, so order holds. */
        if (!local && n && next < comm->size && same(dtype, mine.v[2], recs[next].v[1])) {
            uint64_t straddle = base + n - 1;
            local = gpi_copy(ctx, indices_out + found, &straddle, sizeof straddle, 0);
            if (!local) found++;
        }
        s = finish(comm, fn, local, found, recs, count);
    }
    free(recs);
    return s;
}
