/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist_mp.c - one process per GPU, joined by a unique id: the way
 * gpuprim spans machines. The test (the parent) makes the id and starts
 * this same program once per rank (`test_dist_mp --rank R --ranks N --id HEX
 * --seed S`); each child builds the same global arrays from the seed, runs
 * the distributed calls on its shard and checks its part against the CPU
 * reference, and exits 0 when all agree; mismatched calls and an injected
 * check failure on one rank fail every rank; the collective calls (sort,
 * shuffle, reduce-by-key, unique, the even histogram, top-k) are checked
 * against the single-context calls on the whole array (also on CPU ranks of
 * one process, where no GPU is needed). Every rank count from 2 to the GPUs
 * found runs. Also: a rank whose peer never comes gives up with
 * GP_ERROR_TIMEOUT instead of hanging. Multi-process communicators are CUDA
 * only (NCCL), one GPU a process: one rank alone needs one GPU, the other
 * cases two (skipped otherwise; GP_TEST_REQUIRE_MULTI_GPU=1 makes that a
 * failure). */
#include "test_util.h"

#include "internal.h"
#include "comm/comm_internal.h" /* gpi_comm_inject_fault (testing only) */

#include <gpuprim/dist.h>
#include <gpuprim/render.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the child: one rank ---------------------------------------------------- */
#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "rank %d: ", rank);                                       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, " [%s]\n", gp_context_last_error(ctx));                   \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Rank r's shard [*first, *first + *n) of total: uneven, the last rank largest. */
static void shard(size_t total, int rank, int ranks, size_t *first, size_t *n)
{
    size_t weight = 0, before = 0;
    int q;
    for (q = 0; q < ranks; q++) weight += (size_t)q + 1;
    for (q = 0; q < rank; q++) before += total * ((size_t)q + 1) / weight;
    *first = before;
    *n = rank == ranks - 1 ? total - before : total * ((size_t)rank + 1) / weight;
}

/* Up to four device buffers of `bytes` each (NULL entries skipped); 0 when one fails. */
static int alloc_all(gp_context *ctx, size_t bytes, void **p0, void **p1, void **p2, void **p3)
{
    void **ps[4] = {p0, p1, p2, p3};
    int i;
    for (i = 0; i < 4; i++)
        if (ps[i] && gp_malloc(ctx, ps[i], bytes) != GP_SUCCESS) return 0;
    return 1;
}

static void free_all(gp_context *ctx, void *p0, void *p1, void *p2, void *p3)
{
    gp_free(ctx, p0), gp_free(ctx, p1), gp_free(ctx, p2), gp_free(ctx, p3);
}

/* The ranks' (local, offset) tile [0, total) in rank order: each offset is
 * the sum of the locals before it (an exclusive gp_dist_scan of one count a
 * rank) and the locals add up to total (gp_dist_reduce). */
static int check_tiling(int rank, gp_context *ctx, gp_comm *comm, void *d_scratch, const gp_dist_count *c,
                        const char *what)
{
    int64_t local = (int64_t)c->local, before = -1, sum = -1;
    CHECK(gp_upload(ctx, d_scratch, &local, 8) == GP_SUCCESS, "upload");
    CHECK(gp_dist_scan(comm, GP_INT64, GP_OP_SUM, GP_SCAN_EXCLUSIVE, d_scratch, (int64_t *)d_scratch + 1, 1) ==
              GP_SUCCESS, "%s: gp_dist_scan of the counts", what);
    CHECK(gp_download(ctx, &before, (int64_t *)d_scratch + 1, 8) == GP_SUCCESS, "download");
    CHECK(gp_dist_reduce(comm, GP_INT64, GP_OP_SUM, d_scratch, 1, &sum) == GP_SUCCESS, "%s: gp_dist_reduce", what);
    CHECK((uint64_t)before == c->offset, "%s: offset %llu, the ranks before hold %lld", what,
          (unsigned long long)c->offset, (long long)before);
    CHECK((uint64_t)sum == c->total, "%s: the ranks hold %lld of %llu results", what, (long long)sum,
          (unsigned long long)c->total);
    return 0;
}

/* gp_dist_sort_keys (in place) and gp_dist_sort_pairs with global positions
 * against gp_sort_keys / gp_sort_pairs of the whole array on this rank's own
 * context. Few distinct keys: equal keys straddle every shard, so a rank
 * that broke stability across processes shows in the positions. */
static int check_sort(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    const size_t total = 1000003;
    size_t first, n, i;
    int32_t *keys = malloc(total * 4), *want = malloc(total * 4), *got = malloc(total * 4);
    uint64_t *want_pos = malloc(total * 8), *got_pos = malloc(total * 8);
    void *d_all = NULL, *d_sorted = NULL, *d_pos = NULL, *d_shard = NULL;
    CHECK(keys && want && got && want_pos && got_pos, "host allocation");
    for (i = 0; i < total; i++) keys[i] = (int32_t)(mix(st) % 2001) - 1000;
    shard(total, rank, ranks, &first, &n);
    CHECK(alloc_all(ctx, total * 8, &d_all, &d_sorted, &d_pos, &d_shard), "gp_malloc");
    CHECK(gp_upload(ctx, d_all, keys, total * 4) == GP_SUCCESS, "upload");
    CHECK(gp_sort_keys(ctx, GP_INT32, GP_SORT_ASCENDING, d_all, d_sorted, total, 0, 32) == GP_SUCCESS, "gp_sort_keys");
    CHECK(gp_download(ctx, want, d_sorted, total * 4) == GP_SUCCESS, "download");
    CHECK(gp_sort_pairs(ctx, GP_INT32, GP_SORT_ASCENDING, d_all, d_sorted, 8, NULL, d_pos, total, 0, 32) == GP_SUCCESS,
          "gp_sort_pairs");
    CHECK(gp_download(ctx, want_pos, d_pos, total * 8) == GP_SUCCESS, "download");

    CHECK(gp_upload(ctx, d_shard, keys + first, n * 4) == GP_SUCCESS, "upload");
    CHECK(gp_dist_sort_keys(comm, GP_INT32, GP_SORT_ASCENDING, d_shard, d_shard, n, 0, 32) == GP_SUCCESS,
          "gp_dist_sort_keys");
    CHECK(gp_download(ctx, got, d_shard, n * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(got, want + first, n * 4) == 0, "gp_dist_sort_keys differs from gp_sort_keys");

    memset(got, 0x5a, total * 4);
    CHECK(gp_upload(ctx, d_shard, keys + first, n * 4) == GP_SUCCESS, "upload");
    CHECK(gp_dist_sort_pairs(comm, GP_INT32, GP_SORT_ASCENDING, d_shard, d_sorted, 8, NULL, d_pos, n, 0, 32) ==
              GP_SUCCESS, "gp_dist_sort_pairs");
    CHECK(gp_download(ctx, got, d_sorted, n * 4) == GP_SUCCESS && gp_download(ctx, got_pos, d_pos, n * 8) == GP_SUCCESS,
          "download");
    CHECK(memcmp(got, want + first, n * 4) == 0, "gp_dist_sort_pairs: keys differ from gp_sort_pairs");
    CHECK(memcmp(got_pos, want_pos + first, n * 8) == 0, "gp_dist_sort_pairs: global positions differ (stability)");
    free_all(ctx, d_all, d_sorted, d_pos, d_shard);
    free(keys), free(want), free(got), free(want_pos), free(got_pos);
    return 0;
}

/* gp_dist_shuffle_counts and gp_dist_shuffle (per-element destinations,
 * elements with their global index as a value) against a stable
 * gp_sort_pairs on the destinations of the whole array: rank r must receive
 * the run of destination r, in that order. */
static int check_shuffle(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    const size_t total = 1000003;
    size_t first, n, i, off = 0, want_n = 0, got_n = 0, from[8], want_from[8];
    uint32_t *dest = malloc(total * 4), *elems = malloc(total * 4), *got = malloc(total * 4);
    uint64_t *index = malloc(total * 8), *perm = malloc(total * 8), *got_index = malloc(total * 8);
    void *d_dest = NULL, *d_sorted = NULL, *d_perm = NULL, *d_elems = NULL, *d_index = NULL, *d_out = NULL,
         *d_vout = NULL;
    int q;
    CHECK(dest && elems && got && index && perm && got_index, "host allocation");
    for (i = 0; i < total; i++) {
        dest[i] = (uint32_t)(mix(st) % (uint64_t)ranks);
        elems[i] = (uint32_t)mix(st);
        index[i] = i;
    }
    /* the single-context result */
    CHECK(alloc_all(ctx, total * 8, &d_dest, &d_sorted, &d_perm, NULL), "gp_malloc");
    CHECK(gp_upload(ctx, d_dest, dest, total * 4) == GP_SUCCESS, "upload");
    CHECK(gp_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, d_dest, d_sorted, 8, NULL, d_perm, total, 0, 32) ==
              GP_SUCCESS, "gp_sort_pairs");
    CHECK(gp_download(ctx, perm, d_perm, total * 8) == GP_SUCCESS, "download");
    for (i = 0; i < total; i++) {
        off += dest[i] < (uint32_t)rank;
        want_n += dest[i] == (uint32_t)rank;
    }
    for (q = 0; q < ranks; q++) {
        size_t f, m;
        shard(total, q, ranks, &f, &m);
        for (want_from[q] = 0, i = f; i < f + m; i++) want_from[q] += dest[i] == (uint32_t)rank;
    }
    /* distributed */
    shard(total, rank, ranks, &first, &n);
    CHECK(alloc_all(ctx, total * 8, &d_elems, &d_index, &d_out, &d_vout), "gp_malloc");
    CHECK(gp_upload(ctx, d_dest, dest + first, n * 4) == GP_SUCCESS && gp_upload(ctx, d_elems, elems + first, n * 4) ==
              GP_SUCCESS && gp_upload(ctx, d_index, index + first, n * 8) == GP_SUCCESS, "upload");
    CHECK(gp_dist_shuffle_counts(comm, d_dest, NULL, n, &got_n, from) == GP_SUCCESS, "gp_dist_shuffle_counts");
    CHECK(got_n == want_n, "gp_dist_shuffle_counts: %zu to receive, want %zu", got_n, want_n);
    for (q = 0; q < ranks; q++) CHECK(from[q] == want_from[q], "gp_dist_shuffle_counts: %zu from rank %d", from[q], q);
    got_n = 0;
    memset(from, 0, sizeof from);
    CHECK(gp_dist_shuffle(comm, 4, d_elems, 8, d_index, n, d_dest, NULL, d_out, d_vout, total, &got_n, from) ==
              GP_SUCCESS, "gp_dist_shuffle");
    CHECK(got_n == want_n, "gp_dist_shuffle: received %zu, want %zu", got_n, want_n);
    for (q = 0; q < ranks; q++) CHECK(from[q] == want_from[q], "gp_dist_shuffle: %zu from rank %d", from[q], q);
    CHECK(gp_download(ctx, got, d_out, got_n * 4) == GP_SUCCESS &&
              gp_download(ctx, got_index, d_vout, got_n * 8) == GP_SUCCESS, "download");
    for (i = 0; i < got_n; i++) {
        CHECK(got_index[i] == perm[off + i], "gp_dist_shuffle: entry %zu came from %llu, want %llu (stability)", i,
              (unsigned long long)got_index[i], (unsigned long long)perm[off + i]);
        CHECK(got[i] == elems[perm[off + i]], "gp_dist_shuffle: entry %zu's element differs", i);
    }
    free_all(ctx, d_dest, d_sorted, d_perm, NULL);
    free_all(ctx, d_elems, d_index, d_out, d_vout);
    free(dest), free(elems), free(got), free(index), free(perm), free(got_index);
    return 0;
}

/* gp_dist_reduce_by_key (int32 sums, with lengths) and gp_dist_unique
 * against gp_sort_pairs then gp_reduce_by_key on the whole array on this
 * rank's context; every key occurs on every rank. */
static int check_group_by(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    const size_t total = 1000003;
    size_t first, n, i, groups = 0;
    int32_t *keys = malloc(total * 4), *vals = malloc(total * 4), *wk = malloc(total * 4), *wv = malloc(total * 4);
    int32_t *gk = malloc(total * 4), *gv = malloc(total * 4);
    uint64_t *wl = malloc(total * 8), *gl = malloc(total * 8);
    void *d_k = NULL, *d_v = NULL, *d_sk = NULL, *d_sv = NULL, *d_rk = NULL, *d_rv = NULL, *d_len = NULL;
    gp_dist_count c;
    CHECK(keys && vals && wk && wv && gk && gv && wl && gl, "host allocation");
    for (i = 0; i < total; i++) {
        keys[i] = (int32_t)(mix(st) % 3001) - 1500;
        vals[i] = (int32_t)(mix(st) % 201) - 100;
    }
    CHECK(alloc_all(ctx, total * 8, &d_k, &d_v, &d_sk, &d_sv) && alloc_all(ctx, total * 8, &d_rk, &d_rv, &d_len, NULL),
          "gp_malloc");
    CHECK(gp_upload(ctx, d_k, keys, total * 4) == GP_SUCCESS && gp_upload(ctx, d_v, vals, total * 4) == GP_SUCCESS,
          "upload");
    CHECK(gp_sort_pairs(ctx, GP_INT32, GP_SORT_ASCENDING, d_k, d_sk, 4, d_v, d_sv, total, 0, 32) == GP_SUCCESS,
          "gp_sort_pairs");
    CHECK(gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, d_sk, d_sv, total, d_rk, d_rv, (uint64_t *)d_len,
                           &groups) == GP_SUCCESS, "gp_reduce_by_key");
    CHECK(gp_download(ctx, wk, d_rk, groups * 4) == GP_SUCCESS && gp_download(ctx, wv, d_rv, groups * 4) == GP_SUCCESS &&
              gp_download(ctx, wl, d_len, groups * 8) == GP_SUCCESS, "download");

    shard(total, rank, ranks, &first, &n);
    CHECK(gp_upload(ctx, d_k, keys + first, n * 4) == GP_SUCCESS && gp_upload(ctx, d_v, vals + first, n * 4) ==
              GP_SUCCESS, "upload");
    CHECK(gp_dist_reduce_by_key(comm, GP_INT32, GP_INT32, GP_OP_SUM, d_k, d_v, n, d_rk, d_rv, (uint64_t *)d_len, total,
                                &c) == GP_SUCCESS, "gp_dist_reduce_by_key");
    CHECK(c.total == groups && c.offset + c.local <= groups, "gp_dist_reduce_by_key: %zu at %llu of %llu, want %zu groups",
          c.local, (unsigned long long)c.offset, (unsigned long long)c.total, groups);
    CHECK(gp_download(ctx, gk, d_rk, c.local * 4) == GP_SUCCESS && gp_download(ctx, gv, d_rv, c.local * 4) ==
              GP_SUCCESS && gp_download(ctx, gl, d_len, c.local * 8) == GP_SUCCESS, "download");
    CHECK(memcmp(gk, wk + c.offset, c.local * 4) == 0, "gp_dist_reduce_by_key: keys differ");
    CHECK(memcmp(gv, wv + c.offset, c.local * 4) == 0, "gp_dist_reduce_by_key: sums differ");
    CHECK(memcmp(gl, wl + c.offset, c.local * 8) == 0, "gp_dist_reduce_by_key: lengths differ");
    if (check_tiling(rank, ctx, comm, d_sk, &c, "gp_dist_reduce_by_key")) return 1;

    CHECK(gp_dist_unique(comm, GP_INT32, d_k, n, d_rk, total, &c) == GP_SUCCESS, "gp_dist_unique");
    CHECK(c.total == groups && c.offset + c.local <= groups, "gp_dist_unique: %zu at %llu of %llu, want %zu", c.local,
          (unsigned long long)c.offset, (unsigned long long)c.total, groups);
    CHECK(gp_download(ctx, gk, d_rk, c.local * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(gk, wk + c.offset, c.local * 4) == 0, "gp_dist_unique differs");
    if (check_tiling(rank, ctx, comm, d_sk, &c, "gp_dist_unique")) return 1;
    free_all(ctx, d_k, d_v, d_sk, d_sv);
    free_all(ctx, d_rk, d_rv, d_len, NULL);
    free(keys), free(vals), free(wk), free(wv), free(gk), free(gv), free(wl), free(gl);
    return 0;
}

/* gp_dist_histogram_even (float32 samples in [-1.25, 1.25], both bounds
 * hit exactly, some NaNs; 256 uint64 bins of [-1, 1)) against
 * gp_histogram_even on the whole array: every rank holds the global counts. */
static int check_histogram(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    const size_t total = 1000003, bins = 256;
    const float lower = -1.0f, upper = 1.0f;
    size_t first, n, i, inside = 0, counted = 0;
    float *samples = malloc(total * 4);
    uint64_t want[256], got[256];
    void *d_all = NULL, *d_shard = NULL, *d_counts = NULL;
    CHECK(samples != NULL, "host allocation");
    for (i = 0; i < total; i++) {
        uint64_t z = mix(st);
        samples[i] = z % 512 == 0 ? (z & 512 ? NAN : -NAN) : (float)((int)((z >> 10) % 2501) - 1250) / 1000.0f;
        inside += samples[i] >= lower && samples[i] < upper;
    }
    shard(total, rank, ranks, &first, &n);
    CHECK(alloc_all(ctx, total * 4, &d_all, &d_shard, &d_counts, NULL), "gp_malloc");
    CHECK(gp_upload(ctx, d_all, samples, total * 4) == GP_SUCCESS &&
              gp_upload(ctx, d_shard, samples + first, n * 4) == GP_SUCCESS, "upload");
    CHECK(gp_histogram_even(ctx, GP_FLOAT32, d_all, total, &lower, &upper, bins, GP_UINT64, d_counts) == GP_SUCCESS,
          "gp_histogram_even");
    CHECK(gp_download(ctx, want, d_counts, sizeof want) == GP_SUCCESS, "download");
    for (i = 0; i < bins; i++) counted += want[i];
    CHECK(counted == inside && inside < total, "gp_histogram_even counted %zu, %zu in range", counted, inside);

    memset(got, 0x5a, sizeof got);
    CHECK(gp_upload(ctx, d_counts, got, sizeof got) == GP_SUCCESS, "upload");
    CHECK(gp_dist_histogram_even(comm, GP_FLOAT32, d_shard, n, &lower, &upper, bins, GP_UINT64, d_counts) ==
              GP_SUCCESS, "gp_dist_histogram_even");
    CHECK(gp_download(ctx, got, d_counts, sizeof got) == GP_SUCCESS, "download");
    for (i = 0; i < bins; i++)
        CHECK(got[i] == want[i], "gp_dist_histogram_even: bin %zu holds %llu, want %llu", i,
              (unsigned long long)got[i], (unsigned long long)want[i]);
    free_all(ctx, d_all, d_shard, d_counts, NULL);
    free(samples);
    return 0;
}

/* gp_dist_top_k (int32 keys with many ties, descending, values_in NULL:
 * global indices as uint64) against gp_top_k on the whole array, for
 * k = total (checked as a stable descending order of every key), 1000 and 1
 * (each the first k of k = total): every rank holds the same k results. */
static int check_top_k(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    const size_t total = 1000003, ks[3] = {total, 1000, 1};
    size_t first, n, i, t, k;
    int32_t *keys = malloc(total * 4), *want = malloc(total * 4), *got = malloc(total * 4);
    uint64_t *want_i = malloc(total * 8), *got_i = malloc(total * 8);
    void *d_all = NULL, *d_shard = NULL, *d_k = NULL, *d_i = NULL;
    CHECK(keys && want && got && want_i && got_i, "host allocation");
    for (i = 0; i < total; i++) keys[i] = (int32_t)(mix(st) % 101) - 50;
    shard(total, rank, ranks, &first, &n);
    CHECK(alloc_all(ctx, total * 8, &d_all, &d_shard, &d_k, &d_i), "gp_malloc");
    CHECK(gp_upload(ctx, d_all, keys, total * 4) == GP_SUCCESS &&
              gp_upload(ctx, d_shard, keys + first, n * 4) == GP_SUCCESS, "upload");
    for (t = 0; t < 3; t++) {
        k = ks[t];
        CHECK(gp_top_k(ctx, GP_INT32, GP_SORT_DESCENDING, d_all, total, k, d_k, 8, NULL, d_i) == GP_SUCCESS,
              "gp_top_k (k = %zu)", k);
        CHECK(gp_download(ctx, t ? got : want, d_k, k * 4) == GP_SUCCESS &&
                  gp_download(ctx, t ? got_i : want_i, d_i, k * 8) == GP_SUCCESS, "download");
        for (i = 0; i < k && !t; i++)
            CHECK(want_i[i] < total && keys[want_i[i]] == want[i] &&
                      (i == 0 || want[i - 1] > want[i] || (want[i - 1] == want[i] && want_i[i - 1] < want_i[i])),
                  "gp_top_k (k = total): entry %zu is out of order", i);
        CHECK(!t || (memcmp(got, want, k * 4) == 0 && memcmp(got_i, want_i, k * 8) == 0),
              "gp_top_k (k = %zu) is not the first k of k = total", k);

        memset(got, 0x5a, k * 4), memset(got_i, 0x5a, k * 8);
        CHECK(gp_upload(ctx, d_k, got, k * 4) == GP_SUCCESS && gp_upload(ctx, d_i, got_i, k * 8) == GP_SUCCESS,
              "upload");
        CHECK(gp_dist_top_k(comm, GP_INT32, GP_SORT_DESCENDING, d_shard, n, k, d_k, 8, NULL, d_i) == GP_SUCCESS,
              "gp_dist_top_k (k = %zu)", k);
        CHECK(gp_download(ctx, got, d_k, k * 4) == GP_SUCCESS && gp_download(ctx, got_i, d_i, k * 8) == GP_SUCCESS,
              "download");
        CHECK(memcmp(got, want, k * 4) == 0, "gp_dist_top_k (k = %zu): keys differ from gp_top_k", k);
        CHECK(memcmp(got_i, want_i, k * 8) == 0, "gp_dist_top_k (k = %zu): global indices differ from gp_top_k", k);
    }
    free_all(ctx, d_all, d_shard, d_k, d_i);
    free(keys), free(want), free(got), free(want_i), free(got_i);
    return 0;
}

/* The collective calls against the single-context calls on this rank's
 * context; every rank draws the same arrays from *st. */
static int collective_checks(int rank, int ranks, gp_context *ctx, gp_comm *comm, uint64_t *st)
{
    return check_sort(rank, ranks, ctx, comm, st) || check_shuffle(rank, ranks, ctx, comm, st) ||
           check_group_by(rank, ranks, ctx, comm, st) || check_histogram(rank, ranks, ctx, comm, st) ||
           check_top_k(rank, ranks, ctx, comm, st);
}

static int child(int rank, int ranks, const gp_comm_id *id, uint64_t seed, int timeout_ms)
{
    gp_context *ctx = NULL;
    gp_comm *comm = NULL;
    const size_t total = 3000017, rows = 1001, cols = 257;
    size_t first, n, i, want_n;
    int32_t *all = malloc(total * 4), *ref = malloc(total * 4), *mine = malloc(total * 4);
    uint64_t *wi = malloc(total * 8), *gi = malloc(total * 8);
    float *grid = malloc(rows * cols * 4), *lap = malloc(rows * cols * 4), *got = malloc(rows * cols * 4);
    void *d_in, *d_out;
    int64_t sum64 = 0, red64 = 0;
    gp_dist_count cnt;
    gp_status s;
    uint64_t st = seed;
    CHECK(all && ref && mine && wi && gi && grid && lap && got, "host allocation");
    s = gp_context_create(&ctx, GP_BACKEND_CUDA, rank);
    if (s) {
        fprintf(stderr, "rank %d: gp_context_create: %s\n", rank, gp_status_string(s));
        return 1;
    }
    s = gp_comm_init_rank(&comm, ctx, ranks, rank, id, timeout_ms);
    if (s == GP_ERROR_TIMEOUT) return 3; /* what the timeout case expects */
    CHECK(s == GP_SUCCESS, "gp_comm_init_rank: %s", gp_status_string(s));

    for (i = 0; i < total; i++) all[i] = (int32_t)(mix(&st) % 5) - 2; /* runs: repeats straddle shards */
    shard(total, rank, ranks, &first, &n);
    CHECK(gp_malloc(ctx, &d_in, total * 4) == GP_SUCCESS && gp_malloc(ctx, &d_out, total * 8) == GP_SUCCESS, "gp_malloc");
    CHECK(gp_upload(ctx, d_in, all + first, n * 4) == GP_SUCCESS, "upload");

    /* scan */
    gpi_cpu_scan(GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, all, ref, total, 1);
    CHECK(gp_dist_scan(comm, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_out, n) == GP_SUCCESS, "gp_dist_scan");
    CHECK(gp_download(ctx, mine, d_out, n * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(mine, ref + first, n * 4) == 0, "gp_dist_scan differs from the reference");

    /* reduce (int32 sum, wrapping) */
    gpi_cpu_reduce(GP_INT32, GP_OP_SUM, all, total, &sum64, 1);
    CHECK(gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &red64) == GP_SUCCESS, "gp_dist_reduce");
    CHECK((int32_t)red64 == (int32_t)sum64, "gp_dist_reduce: %d, want %d", (int)(int32_t)red64, (int)(int32_t)sum64);

    /* find-repeats: this rank's global indices */
    gpi_cpu_find_repeats(GP_INT32, all, total, wi, &want_n, 1);
    CHECK(gp_dist_find_repeats(comm, GP_INT32, d_in, n, (uint64_t *)d_out, &cnt) == GP_SUCCESS, "gp_dist_find_repeats");
    CHECK(cnt.total == want_n, "find-repeats total %llu, want %zu", (unsigned long long)cnt.total, want_n);
    CHECK(gp_download(ctx, gi, d_out, cnt.local * 8) == GP_SUCCESS, "download");
    CHECK(memcmp(gi, wi + cnt.offset, cnt.local * 8) == 0, "gp_dist_find_repeats differs");

    /* compact-indices over flags = (value > 0) as bytes */
    {
        unsigned char *fl = malloc(total);
        CHECK(fl != NULL, "host allocation");
        for (i = 0; i < total; i++) fl[i] = all[i] > 0;
        gpi_cpu_compact_indices(fl, GP_UINT8_FLAGS, wi, total, &want_n, 1);
        CHECK(gp_upload(ctx, d_in, fl + first, n) == GP_SUCCESS, "upload");
        CHECK(gp_dist_compact_indices(comm, d_in, GP_UINT8_FLAGS, (uint64_t *)d_out, n, &cnt) == GP_SUCCESS,
              "gp_dist_compact_indices");
        CHECK(cnt.total == want_n, "compact total");
        CHECK(gp_download(ctx, gi, d_out, cnt.local * 8) == GP_SUCCESS, "download");
        CHECK(memcmp(gi, wi + cnt.offset, cnt.local * 8) == 0, "gp_dist_compact_indices differs");
        free(fl);
    }

    /* Laplacian, rows split */
    for (i = 0; i < rows * cols; i++) grid[i] = (float)(mix(&st) % 1000) * .001f - .5f;
    gpi_cpu_stencil_2d(GP_FLOAT32, &(gp_stencil5){-4, 1, 1, 1, 1}, GP_BOUNDARY_PERIODIC, grid, lap, rows, cols, 1);
    shard(rows, rank, ranks, &first, &n);
    CHECK(gp_upload(ctx, d_in, grid + first * cols, n * cols * 4) == GP_SUCCESS, "upload");
    CHECK(gp_dist_laplacian_2d(comm, GP_FLOAT32, GP_BOUNDARY_PERIODIC, d_in, d_out, n, cols) == GP_SUCCESS,
          "gp_dist_laplacian_2d");
    CHECK(gp_download(ctx, got, d_out, n * cols * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(got, lap + first * cols, n * cols * 4) == 0, "gp_dist_laplacian_2d differs");

    /* the collective calls, against the single-context calls on this rank's context */
    if (collective_checks(rank, ranks, ctx, comm, &st)) return 1;

    /* Faults across processes (the records travel through NCCL): rank 0
     * reduces while the others compact indices: every rank rejects the
     * mismatch (with two ranks or more). Then the last rank's check fails
     * (injected): it returns the injected status, the others GP_ERROR_COMM,
     * and nobody waits for the timeout. After both, a reduce on every rank
     * succeeds. */
    {
        int64_t untouched = 0x5a5a5a5a5a5a5a5aLL, r64 = untouched;
        gp_dist_count c0;
        memset(&c0, 0x5a, sizeof c0);
        cnt = c0;
        if (ranks > 1) {
            s = rank == 0 ? gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64)
                          : gp_dist_compact_indices(comm, d_in, GP_UINT8_FLAGS, (uint64_t *)d_out, n, &cnt);
            CHECK(s == GP_ERROR_INVALID_ARGUMENT, "mismatched calls: %s", gp_status_string(s));
            CHECK(strstr(gp_context_last_error(ctx), "mismatched") != NULL, "mismatch detail");
            CHECK(r64 == untouched && memcmp(&cnt, &c0, sizeof cnt) == 0, "a mismatched call wrote its result");
        }
        if (rank == ranks - 1) gpi_comm_inject_fault(comm, GP_ERROR_OUT_OF_MEMORY);
        s = gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64);
        CHECK(s == (rank == ranks - 1 ? GP_ERROR_OUT_OF_MEMORY : GP_ERROR_COMM), "injected fault: %s",
              gp_status_string(s));
        CHECK(r64 == untouched, "a failed reduce wrote its result");
        CHECK(gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64) == GP_SUCCESS, "reduce after the faults");
    }

    /* renderer: bands gathered on rank 0 */
    {
        gp_scene *scene = NULL;
        gp_dist_renderer *dr = NULL;
        const int W = 512, H = 300;
        unsigned char *rgb = malloc((size_t)W * H * 3), *want = malloc((size_t)W * H * 3);
        float *rgba = malloc((size_t)W * H * 16);
        CHECK(rgb && want && rgba, "host allocation");
        CHECK(gp_scene_create(&scene, "rand10k", 0) == GP_SUCCESS, "scene");
        CHECK(gp_dist_renderer_create(&dr, comm, W, H) == GP_SUCCESS, "gp_dist_renderer_create");
        CHECK(gp_dist_renderer_set_scene(dr, scene) == GP_SUCCESS, "set_scene");
        CHECK(gp_dist_renderer_render(dr) == GP_SUCCESS, "render");
        CHECK(gp_dist_renderer_gather(dr, 0, rank == 0 ? d_out : NULL) == GP_SUCCESS, "gather");
        if (rank == 0) {
            CHECK(gp_download(ctx, rgb, d_out, (size_t)W * H * 3) == GP_SUCCESS, "download");
            CHECK(gp_render_reference(scene, W, H, rgba) == GP_SUCCESS, "reference");
            gp_image_to_rgb8(rgba, W, H, want);
            CHECK(memcmp(rgb, want, (size_t)W * H * 3) == 0, "gathered frame differs from the reference");
        }
        gp_dist_renderer_destroy(dr);
        gp_scene_destroy(scene);
        free(rgb);
        free(want);
        free(rgba);
    }
    gp_free(ctx, d_in);
    gp_free(ctx, d_out);
    gp_comm_destroy(comm);
    gp_context_destroy(ctx);
    free(all), free(ref), free(mine), free(wi), free(gi), free(grid), free(lap), free(got);
    return 0;
}

/* The same collective checks on CPU ranks of one process (threads): the
 * multi-process path is CUDA only, so this is where the checks themselves
 * run on a machine without a GPU. */
static uint64_t g_cpu_seed;

static gp_status all_to_all_rank(gp_comm *comm, void *arg)
{
    gp_context *ctx = NULL;
    int rank = 0, ranks = 0;
    uint64_t st = g_cpu_seed;
    (void)arg;
    gp_comm_rank(comm, &rank);
    gp_comm_size(comm, &ranks);
    gp_comm_context(comm, &ctx);
    return collective_checks(rank, ranks, ctx, comm, &st) ? GP_ERROR_INVALID_ARGUMENT : GP_SUCCESS;
}

static void all_to_all_checks_on_cpu_ranks(void **state)
{
    static const int counts[] = {1, 3, 4};
    size_t c;
    int r;
    (void)state;
    gpt_seed_once();
    for (c = 0; c < sizeof counts / sizeof *counts; c++) {
        gp_context *ctx[4] = {NULL};
        gp_comm *comm[4] = {NULL};
        const int n = counts[c];
        g_cpu_seed = gpt_rand64();
        for (r = 0; r < n; r++) assert_int_equal(gp_context_create(&ctx[r], GP_BACKEND_CPU, 0), GP_SUCCESS);
        assert_int_equal(gp_comm_init_all(comm, ctx, n, 0), GP_SUCCESS);
        assert_int_equal(gp_comm_run(comm, n, all_to_all_rank, NULL), GP_SUCCESS);
        for (r = 0; r < n; r++) gp_comm_destroy(comm[r]);
        for (r = 0; r < n; r++) gp_context_destroy(ctx[r]);
    }
}

/* ---- the parent -------------------------------------------------------------- */
static const char *g_self;

static void hex(const gp_comm_id *id, char *out)
{
    int i;
    for (i = 0; i < GP_COMM_ID_BYTES; i++) sprintf(out + 2 * i, "%02x", id->bytes[i]);
}

static int unhex(const char *s, gp_comm_id *id)
{
    int i;
    unsigned v;
    if (strlen(s) != 2 * GP_COMM_ID_BYTES) return -1;
    for (i = 0; i < GP_COMM_ID_BYTES; i++) {
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        id->bytes[i] = (unsigned char)v;
    }
    return 0;
}

/* Start ranks [0, started) of `ranks`; returns how many exited with `want`. */
static int spawn_ranks(int ranks, int started, int timeout_ms, int want)
{
    gp_comm_id id;
    char idhex[2 * GP_COMM_ID_BYTES + 1], rs[16], ns[16], ss[32], ts[16];
    pid_t pids[8];
    int r, ok = 0, status;
    gp_status s = gp_comm_id_create(&id);
    if (s) fail_msg("gp_comm_id_create: %s", gp_status_string(s));
    hex(&id, idhex);
    snprintf(ss, sizeof ss, "%llu", (unsigned long long)gpt_rand64());
    snprintf(ns, sizeof ns, "%d", ranks);
    snprintf(ts, sizeof ts, "%d", timeout_ms);
    for (r = 0; r < started; r++) {
        snprintf(rs, sizeof rs, "%d", r);
        pids[r] = fork();
        if (pids[r] == 0) {
            execl(g_self, g_self, "--rank", rs, "--ranks", ns, "--id", idhex, "--seed", ss, "--timeout", ts, (char *)NULL);
            _exit(127);
        }
        assert_true(pids[r] > 0);
    }
    for (r = 0; r < started; r++) {
        assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
        if (WIFEXITED(status) && WEXITSTATUS(status) == want) ok++;
        else print_error("rank %d of %d exited with %d\n", r, ranks, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return ok;
}

static int gpus(void)
{
    int n = 0;
    const char *req = getenv("GP_TEST_REQUIRE_MULTI_GPU");
    gpt_require_gpu();
    gp_cuda_device_count(&n);
    if (n < 2) {
        if (req && *req && strcmp(req, "0") != 0) fail_msg("GP_TEST_REQUIRE_MULTI_GPU is set but %d GPU(s) were found", n);
        print_message("SKIPPED (one process per GPU needs 2 GPUs, found %d)\n", n);
        skip();
    }
    return n > 8 ? 8 : n;
}

/* Every rank count from 2 to the GPUs found (ranks 0 .. r - 1 on GPUs 0 .. r - 1). */
static void one_process_per_gpu(void **state)
{
    int n = gpus(), r, ok;
    (void)state;
    gpt_seed_once();
    for (r = 2; r <= n; r++) {
        ok = spawn_ranks(r, r, 60000, 0);
        if (ok != r) fail_msg("%d ranks (of %d GPUs): %d of %d ranks exited 0", r, n, ok, r);
    }
}

/* One rank through the unique id (the records go through NCCL, not host
 * memory): every call of the child on one GPU, so the multi-process path
 * runs where a machine has a single GPU (NCCL puts one rank on a GPU:
 * processes cannot share one). */
static void one_process_one_rank(void **state)
{
    (void)state;
    gpt_require_gpu();
    gpt_seed_once();
    assert_int_equal(spawn_ranks(1, 1, 60000, 0), 1);
}

static void a_peer_that_never_joins_times_out(void **state)
{
    int n = gpus();
    (void)state;
    (void)n;
    gpt_seed_once();
    /* rank 0 of 2 alone: its set-up must give up (exit 3 = GP_ERROR_TIMEOUT) */
    assert_int_equal(spawn_ranks(2, 1, 3000, 3), 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_to_all_checks_on_cpu_ranks),
        {"one_process_one_rank [cuda]", one_process_one_rank, NULL, NULL, NULL},
        {"one_process_per_gpu [cuda]", one_process_per_gpu, NULL, NULL, NULL},
        {"a_peer_that_never_joins_times_out [cuda]", a_peer_that_never_joins_times_out, NULL, NULL, NULL},
    };
    if (argc == 11 && strcmp(argv[1], "--rank") == 0) {
        gp_comm_id id;
        if (unhex(argv[6], &id)) return 2;
        return child(atoi(argv[2]), atoi(argv[4]), &id, strtoull(argv[8], NULL, 10), atoi(argv[10]));
    }
    g_self = "/proc/self/exe";
    return cmocka_run_group_tests(tests, NULL, NULL);
}
