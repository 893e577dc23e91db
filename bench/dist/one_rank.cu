/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_dist --ranks 1: what the distributed layer costs where it buys
 * nothing. Each gp_dist_* call runs on a communicator of ONE CUDA rank and
 * is timed against the single-context call that gives the same result, on
 * the same data, in the same run (the samples alternate: a single-context
 * call, then the distributed one). Reported: overhead = dist / single - 1,
 * the difference in microseconds, and whether dist <= 1.05 x single + one
 * collective's latency (an all-reduce of one float through NCCL, on a
 * one-rank NCCL communicator on the same GPU and stream, timed here too).
 *
 * The communicator is made by gp_comm_init_all (the small records go
 * through host memory), or with --via-id through a unique id
 * (gp_comm_init_rank: the records go through NCCL, as between processes).
 * Every row checks the distributed result against the single-context one
 * (bit for bit, on the GPU) before it is reported.
 */
#include <nccl.h>

#include "world.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

struct OneRank {
    gp_context *ctx = nullptr;
    gp_comm *comm = nullptr;
    cudaStream_t stream = nullptr;
    unsigned long long *ndiff = nullptr; /* device counter for same() */
};

struct OneRow {
    std::string work, size;
    double single_ms = 0, dist_ms = 0;
};

const double kSettleMs = 100.0; /* as timed(): wait out the slow window after the previous row's frees */
const int kIters = 15;

/* Milliseconds from the call to the moment the context's stream is idle. */
template <class F> double sample(OneRank &o, F &call)
{
    const double t0 = now_ms();
    call();
    gp_ok(gp_context_synchronize(o.ctx), o.ctx, "synchronize");
    return now_ms() - t0;
}

/* Medians of the single-context and distributed calls, sampled alternately
 * after a shared warm-up, so drift (clocks, the allocator) hits both alike. */
template <class S, class D> void time_pair(OneRank &o, S single, D dist, OneRow &row, int iters = kIters)
{
    const Settle settle(2, kSettleMs);
    int done = 0;
    do {
        sample(o, single);
        sample(o, dist);
    } while (settle.warming(++done));
    std::vector<double> t1, t2;
    for (int it = 0; it < iters; it++) {
        t1.push_back(sample(o, single));
        t2.push_back(sample(o, dist));
    }
    row.single_ms = median_of(t1);
    row.dist_ms = median_of(t2);
}

__global__ void count_differences(const uint32_t *a, const uint32_t *b, size_t words, unsigned long long *ndiff)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] != b[i];
    if (mine) atomicAdd(ndiff, mine);
}

/* Dies unless the two device buffers hold the same `bytes` (a multiple of 4). */
void same(OneRank &o, const void *single, const void *dist, size_t bytes, const char *what)
{
    unsigned long long n = 0;
    CK(cudaStreamSynchronize(o.stream));
    CK(cudaMemsetAsync(o.ndiff, 0, sizeof n, o.stream));
    count_differences<<<2048, 256, 0, o.stream>>>((const uint32_t *)single, (const uint32_t *)dist, bytes / 4, o.ndiff);
    CK_LAUNCH();
    CK(cudaMemcpyAsync(&n, o.ndiff, sizeof n, cudaMemcpyDeviceToHost, o.stream));
    CK(cudaStreamSynchronize(o.stream));
    if (n) die("%s: the one-rank result differs from the single-context one in %llu of %zu words", what, n, bytes / 4);
}

void *dmalloc(size_t bytes)
{
    void *p = nullptr;
    CK(cudaMalloc(&p, bytes ? bytes : 4));
    return p;
}

void dfree(std::initializer_list<void *> ps)
{
    for (void *p : ps) CK(cudaFree(p));
}

std::string pow2(size_t n) { return strf("2^%d", 63 - __builtin_clzll(n)); }

/* Keys: uniform over [0, 2^32 - 1), or over 1..mod. */
void fill_keys(void *p, size_t n, uint32_t salt, uint32_t mod = 0xffffffffu) { fill_mod(p, n, salt, mod); }

/* ---- one function per call ------------------------------------------------------------ */

OneRow scan_row(OneRank &o, size_t n)
{
    OneRow row{"scan int32 (excl. sum)", pow2(n)};
    void *in = dmalloc(n * 4), *o1 = dmalloc(n * 4), *o2 = dmalloc(n * 4);
    fill(in, n * 4, 1, INTS);
    time_pair(
        o, [&] { gp_ok(gp_scan(o.ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in, o1, n), o.ctx, "gp_scan"); },
        [&] { gp_ok(gp_dist_scan(o.comm, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in, o2, n), o.ctx, "gp_dist_scan"); },
        row);
    same(o, o1, o2, n * 4, "scan");
    dfree({in, o1, o2});
    return row;
}

OneRow reduce_row(OneRank &o, size_t n)
{
    OneRow row{"reduce int32", pow2(n)};
    void *in = dmalloc(n * 4);
    int64_t r1 = 0, r2 = 1;
    fill(in, n * 4, 2, INTS);
    time_pair(
        o, [&] { gp_ok(gp_reduce(o.ctx, GP_INT32, GP_OP_SUM, in, n, &r1), o.ctx, "gp_reduce"); },
        [&] { gp_ok(gp_dist_reduce(o.comm, GP_INT32, GP_OP_SUM, in, n, &r2), o.ctx, "gp_dist_reduce"); }, row);
    if ((int32_t)r1 != (int32_t)r2) die("reduce: one rank %d, single context %d", (int32_t)r2, (int32_t)r1);
    dfree({in});
    return row;
}

OneRow compact_row(OneRank &o, size_t n)
{
    OneRow row{"compact int32 (u8 flags 50%)", pow2(n)};
    void *in = dmalloc(n * 4), *fl = dmalloc(n), *o1 = dmalloc(n * 4), *o2 = dmalloc(n * 4);
    size_t c1 = 0;
    gp_dist_count c2{};
    fill(in, n * 4, 3, INTS);
    fill(fl, n, 3, FLAGS);
    time_pair(
        o, [&] { gp_ok(gp_compact(o.ctx, GP_INT32, in, fl, GP_UINT8_FLAGS, o1, n, &c1), o.ctx, "gp_compact"); },
        [&] { gp_ok(gp_dist_compact(o.comm, GP_INT32, in, fl, GP_UINT8_FLAGS, o2, n, &c2), o.ctx, "gp_dist_compact"); },
        row);
    if (c2.total != c1) die("compact: one rank kept %llu, single context %zu", (unsigned long long)c2.total, c1);
    same(o, o1, o2, c1 * 4, "compact");
    dfree({in, fl, o1, o2});
    return row;
}

OneRow sort_keys_row(OneRank &o, size_t n)
{
    OneRow row{"sort keys u32", pow2(n)};
    void *in = dmalloc(n * 4), *o1 = dmalloc(n * 4), *o2 = dmalloc(n * 4);
    fill_keys(in, n, 4);
    time_pair(
        o, [&] { gp_ok(gp_sort_keys(o.ctx, GP_UINT32, GP_SORT_ASCENDING, in, o1, n, 0, 32), o.ctx, "gp_sort_keys"); },
        [&] {
            gp_ok(gp_dist_sort_keys(o.comm, GP_UINT32, GP_SORT_ASCENDING, in, o2, n, 0, 32), o.ctx, "gp_dist_sort_keys");
        },
        row);
    same(o, o1, o2, n * 4, "sort keys");
    dfree({in, o1, o2});
    return row;
}

OneRow sort_pairs_row(OneRank &o, size_t n)
{
    OneRow row{"sort pairs u32 / u32", pow2(n)};
    void *k = dmalloc(n * 4), *v = dmalloc(n * 4);
    void *k1 = dmalloc(n * 4), *v1 = dmalloc(n * 4), *k2 = dmalloc(n * 4), *v2 = dmalloc(n * 4);
    fill_keys(k, n, 5);
    fill(v, n * 4, 6, INTS);
    time_pair(
        o,
        [&] {
            gp_ok(gp_sort_pairs(o.ctx, GP_UINT32, GP_SORT_ASCENDING, k, k1, 4, v, v1, n, 0, 32), o.ctx, "gp_sort_pairs");
        },
        [&] {
            gp_ok(gp_dist_sort_pairs(o.comm, GP_UINT32, GP_SORT_ASCENDING, k, k2, 4, v, v2, n, 0, 32), o.ctx,
                  "gp_dist_sort_pairs");
        },
        row);
    same(o, k1, k2, n * 4, "sort pairs (keys)");
    same(o, v1, v2, n * 4, "sort pairs (values)");
    dfree({k, v, k1, v1, k2, v2});
    return row;
}

/* With one rank every destination is rank 0 and the result is the input.
 * grouped (one send count): the single-context equivalent is a copy. With a
 * destination per element the call must also refuse a destination other
 * than 0 before writing anything, so the single-context equivalent is that
 * check (a max over dest) and the copy; the row's name says so. */
OneRow shuffle_row(OneRank &o, size_t n, bool grouped)
{
    OneRow row{grouped ? "shuffle u32 (grouped counts)" : "shuffle u32 (per-element dest: max + copy)", pow2(n)};
    void *in = dmalloc(n * 4), *o1 = dmalloc(n * 4), *o2 = dmalloc(n * 4);
    uint32_t *dest = grouped ? nullptr : (uint32_t *)dmalloc(n * 4);
    const size_t counts[1] = {n};
    size_t got = 0;
    fill_keys(in, n, 7);
    if (dest) CK(cudaMemset(dest, 0, n * 4));
    time_pair(
        o,
        [&] {
            uint32_t most = 0;
            if (dest) gp_ok(gp_reduce(o.ctx, GP_UINT32, GP_OP_MAX, dest, n, &most), o.ctx, "gp_reduce");
            if (most != 0) die("shuffle: destination %u on one rank", most);
            gp_ok(gp_copy(o.ctx, o1, in, n * 4), o.ctx, "gp_copy");
        },
        [&] {
            gp_ok(gp_dist_shuffle(o.comm, 4, in, 0, nullptr, n, dest, grouped ? counts : nullptr, o2, nullptr, n, &got,
                                  nullptr),
                  o.ctx, "gp_dist_shuffle");
        },
        row);
    if (got != n) die("shuffle: received %zu of %zu", got, n);
    same(o, o1, o2, n * 4, "shuffle");
    dfree({in, o1, o2, dest});
    return row;
}

OneRow histogram_row(OneRank &o, size_t n)
{
    const size_t bins = 256;
    const float lo = -1.f, hi = 1.f;
    OneRow row{"histogram even f32, 256 bins", pow2(n)};
    void *in = dmalloc(n * 4), *c1 = dmalloc(bins * 4), *c2 = dmalloc(bins * 4);
    fill(in, n * 4, 8, FLOATS);
    time_pair(
        o,
        [&] {
            gp_ok(gp_histogram_even(o.ctx, GP_FLOAT32, in, n, &lo, &hi, bins, GP_UINT32, c1), o.ctx,
                  "gp_histogram_even");
        },
        [&] {
            gp_ok(gp_dist_histogram_even(o.comm, GP_FLOAT32, in, n, &lo, &hi, bins, GP_UINT32, c2), o.ctx,
                  "gp_dist_histogram_even");
        },
        row);
    same(o, c1, c2, bins * 4, "histogram");
    dfree({in, c1, c2});
    return row;
}

/* Unsorted keys: the single-context group-by is a stable sort, then the
 * reduce over runs (what gp_dist_reduce_by_key's result is defined as). */
OneRow reduce_by_key_row(OneRank &o, size_t n, uint32_t distinct)
{
    OneRow row{strf("reduce-by-key u32 / int32 sum, ~2^%d keys", 31 - __builtin_clz(distinct)), pow2(n)};
    void *k = dmalloc(n * 4), *v = dmalloc(n * 4), *sk = dmalloc(n * 4), *sv = dmalloc(n * 4);
    void *k1 = dmalloc(n * 4), *v1 = dmalloc(n * 4), *k2 = dmalloc(n * 4), *v2 = dmalloc(n * 4);
    size_t c1 = 0;
    gp_dist_count c2{};
    fill_keys(k, n, 9, distinct);
    fill(v, n * 4, 10, INTS);
    time_pair(
        o,
        [&] {
            gp_ok(gp_sort_pairs(o.ctx, GP_UINT32, GP_SORT_ASCENDING, k, sk, 4, v, sv, n, 0, 32), o.ctx, "gp_sort_pairs");
            gp_ok(gp_reduce_by_key(o.ctx, GP_UINT32, GP_INT32, GP_OP_SUM, sk, sv, n, k1, v1, nullptr, &c1), o.ctx,
                  "gp_reduce_by_key");
        },
        [&] {
            gp_ok(gp_dist_reduce_by_key(o.comm, GP_UINT32, GP_INT32, GP_OP_SUM, k, v, n, k2, v2, nullptr, n, &c2), o.ctx,
                  "gp_dist_reduce_by_key");
        },
        row);
    if (c2.total != c1) die("reduce-by-key: one rank %llu groups, single context %zu", (unsigned long long)c2.total, c1);
    same(o, k1, k2, c1 * 4, "reduce-by-key (keys)");
    same(o, v1, v2, c1 * 4, "reduce-by-key (values)");
    row.size += strf(" (%zu groups)", c1);
    dfree({k, v, sk, sv, k1, v1, k2, v2});
    return row;
}

OneRow unique_row(OneRank &o, size_t n, uint32_t distinct)
{
    OneRow row{strf("unique u32, ~2^%d distinct", 31 - __builtin_clz(distinct)), pow2(n)};
    void *k = dmalloc(n * 4), *sk = dmalloc(n * 4), *o1 = dmalloc(n * 4), *o2 = dmalloc(n * 4);
    size_t c1 = 0;
    gp_dist_count c2{};
    fill_keys(k, n, 11, distinct);
    time_pair(
        o,
        [&] {
            gp_ok(gp_sort_keys(o.ctx, GP_UINT32, GP_SORT_ASCENDING, k, sk, n, 0, 32), o.ctx, "gp_sort_keys");
            gp_ok(gp_unique(o.ctx, GP_UINT32, sk, n, o1, &c1), o.ctx, "gp_unique");
        },
        [&] { gp_ok(gp_dist_unique(o.comm, GP_UINT32, k, n, o2, n, &c2), o.ctx, "gp_dist_unique"); }, row);
    if (c2.total != c1) die("unique: one rank %llu keys, single context %zu", (unsigned long long)c2.total, c1);
    same(o, o1, o2, c1 * 4, "unique");
    dfree({k, sk, o1, o2});
    return row;
}

OneRow top_k_row(OneRank &o, size_t n, size_t k)
{
    OneRow row{strf("top-k u32 (largest %zu)", k), pow2(n)};
    void *in = dmalloc(n * 4), *o1 = dmalloc(k * 4), *o2 = dmalloc(k * 4);
    fill_keys(in, n, 12);
    time_pair(
        o,
        [&] {
            gp_ok(gp_top_k(o.ctx, GP_UINT32, GP_SORT_DESCENDING, in, n, k, o1, 0, nullptr, nullptr), o.ctx, "gp_top_k");
        },
        [&] {
            gp_ok(gp_dist_top_k(o.comm, GP_UINT32, GP_SORT_DESCENDING, in, n, k, o2, 0, nullptr, nullptr), o.ctx,
                  "gp_dist_top_k");
        },
        row);
    same(o, o1, o2, k * 4, "top-k");
    dfree({in, o1, o2});
    return row;
}

/* ---- one collective's latency ------------------------------------------------------- */

#define NCCL(x)                                                                                       \
    do {                                                                                              \
        ncclResult_t r_ = (x);                                                                        \
        if (r_ != ncclSuccess) die("%s:%d %s -> %s", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
    } while (0)

/* An all-reduce of one float on a one-rank NCCL communicator, on the
 * context's stream, until the stream is idle: median of 200, microseconds. */
double nccl_allreduce_us(OneRank &o, int device)
{
    ncclComm_t nc;
    float *buf = (float *)dmalloc(2 * sizeof(float));
    NCCL(ncclCommInitAll(&nc, 1, &device));
    std::vector<double> t;
    for (int it = 0; it < 220; it++) {
        const double t0 = now_ms();
        NCCL(ncclAllReduce(buf, buf + 1, 1, ncclFloat, ncclSum, nc, o.stream));
        CK(cudaStreamSynchronize(o.stream));
        if (it >= 20) t.push_back(now_ms() - t0);
    }
    ncclCommDestroy(nc);
    dfree({buf});
    return 1e3 * median_of(t);
}

/* The library's own fixed costs on the one-rank communicator: gp_dist_agree
 * (the smallest collective: one record exchange) and a reduce of nothing. */
void library_latency_us(OneRank &o, double *agree_us, double *reduce0_us)
{
    std::vector<double> a, r;
    int64_t res = 0;
    for (int it = 0; it < 220; it++) {
        double t0 = now_ms();
        gp_ok(gp_dist_agree(o.comm, GP_SUCCESS), o.ctx, "gp_dist_agree");
        double t1 = now_ms();
        gp_ok(gp_dist_reduce(o.comm, GP_INT32, GP_OP_SUM, nullptr, 0, &res), o.ctx, "gp_dist_reduce");
        gp_ok(gp_context_synchronize(o.ctx), o.ctx, "synchronize");
        double t2 = now_ms();
        if (it >= 20) a.push_back(t1 - t0), r.push_back(t2 - t1);
    }
    *agree_us = 1e3 * median_of(a);
    *reduce0_us = 1e3 * median_of(r);
}

void open_one_rank(OneRank &o, int device, bool via_id)
{
    gp_status s = gp_context_create(&o.ctx, GP_BACKEND_CUDA, device);
    if (s) die("gp_context_create(%d): %s", device, gp_status_string(s));
    CK(cudaSetDevice(device));
    CK(cudaStreamCreateWithFlags(&o.stream, cudaStreamNonBlocking));
    gp_ok(gp_context_set_stream(o.ctx, o.stream), o.ctx, "set_stream");
    if (via_id) {
        gp_comm_id id;
        gp_ok(gp_comm_id_create(&id), o.ctx, "gp_comm_id_create");
        gp_ok(gp_comm_init_rank(&o.comm, o.ctx, 1, 0, &id, 0), o.ctx, "gp_comm_init_rank");
    } else {
        gp_ok(gp_comm_init_all(&o.comm, &o.ctx, 1, 0), o.ctx, "gp_comm_init_all");
    }
    CK(cudaMalloc(&o.ndiff, sizeof *o.ndiff));
}

void close_one_rank(OneRank &o)
{
    CK(cudaFree(o.ndiff));
    gp_comm_destroy(o.comm);
    gp_context_destroy(o.ctx);
    CK(cudaStreamDestroy(o.stream));
}

} // namespace

int run_one_rank(bool quick, bool via_id, const char *csv)
{
    const int device = 0;
    const size_t n = quick ? (size_t)1 << 24 : (size_t)1 << 28;      /* scan ... top-k */
    const size_t n_group = quick ? (size_t)1 << 22 : (size_t)1 << 26; /* reduce-by-key, unique */
    const uint32_t distinct = quick ? 1u << 16 : 1u << 20;
    const char *how = via_id ? "gp_comm_init_rank through a unique id" : "gp_comm_init_all";
    OneRank o;
    open_one_rank(o, device, via_id);
    printf("one CUDA rank (%s) against the single-context call, same data, alternating samples:\n", how);
    const double lat_us = nccl_allreduce_us(o, device);
    double agree_us = 0, reduce0_us = 0;
    library_latency_us(o, &agree_us, &reduce0_us);
    printf("one collective: NCCL all-reduce of 1 float on a one-rank communicator %.1f us; "
           "gp_dist_agree %.1f us; gp_dist_reduce of 0 elements %.1f us\n",
           lat_us, agree_us, reduce0_us);
    fflush(stdout);

    std::vector<OneRow> rows;
    auto add = [&](OneRow r) {
        const double diff_us = 1e3 * (r.dist_ms - r.single_ms);
        const bool ok = r.dist_ms <= 1.05 * r.single_ms + lat_us * 1e-3;
        printf("  %-42s %-20s single %9.3f ms   one rank %9.3f ms   overhead %+7.2f%% (%+9.1f us)   %s\n",
               r.work.c_str(), r.size.c_str(), r.single_ms, r.dist_ms, 100.0 * (r.dist_ms / r.single_ms - 1), diff_us,
               ok ? "within 5% + latency" : "OVER 5% + latency");
        fflush(stdout);
        rows.push_back(r);
    };
    add(scan_row(o, n));
    add(reduce_row(o, n));
    add(compact_row(o, n));
    add(sort_keys_row(o, n));
    add(sort_pairs_row(o, n));
    add(shuffle_row(o, n, false));
    add(shuffle_row(o, n, true));
    add(histogram_row(o, n));
    add(reduce_by_key_row(o, n_group, distinct));
    add(unique_row(o, n_group, distinct));
    add(top_k_row(o, n, 1000));
    close_one_rank(o);

    int within = 0;
    printf("\n| call (one rank, %s) | size | single ms | one rank ms | overhead | difference us | <= 5%% + %.1f us |\n"
           "|---|---|---|---|---|---|---|\n",
           via_id ? "unique id" : "init_all", lat_us);
    for (const OneRow &r : rows) {
        const bool ok = r.dist_ms <= 1.05 * r.single_ms + lat_us * 1e-3;
        within += ok;
        printf("| %s | %s | %.3f | %.3f | %+.2f%% | %+.1f | %s |\n", r.work.c_str(), r.size.c_str(), r.single_ms,
               r.dist_ms, 100.0 * (r.dist_ms / r.single_ms - 1), 1e3 * (r.dist_ms - r.single_ms), ok ? "yes" : "NO");
    }
    printf("\nwithin 5%% + one collective's latency (%.1f us): %d of %zu calls\n", lat_us, within, rows.size());
    if (csv) {
        CsvFile f;
        f.open(csv, "comm,work,size,single_ms,one_rank_ms,overhead_pct,difference_us,collective_us,within");
        for (const OneRow &r : rows)
            f.row("%s,%s,%s,%.4f,%.4f,%.3f,%.1f,%.1f,%d\n", via_id ? "unique_id" : "init_all",
                  csv_field(r.work).c_str(), csv_field(r.size).c_str(), r.single_ms, r.dist_ms,
                  100.0 * (r.dist_ms / r.single_ms - 1), 1e3 * (r.dist_ms - r.single_ms), lat_us,
                  r.dist_ms <= 1.05 * r.single_ms + lat_us * 1e-3);
        f.commit();
    }
    return 0;
}
