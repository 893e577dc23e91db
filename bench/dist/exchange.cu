/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_dist's all-to-all rows on p GPUs (see world.h): the distributed
 * sort, shuffle, group-by and top-k, each against the 1-GPU call on the same
 * work, timed by world.cu's loop (a host barrier to the last stream idle).
 *
 * Shards hold slices of one global array: a key is a hash of its GLOBAL
 * index, so rank r's shard [lo, hi) equals that slice of the array the
 * 1-GPU call gets. Strong-scaling results are compared with the 1-GPU
 * results bit for bit on the host; weak-scaling sorts are checked sorted
 * (every rank, and across rank boundaries). test_dist_* check every call
 * against the CPU reference; these checks guard against timing a broken run.
 */
#include "world.h"

#include <cstring>

namespace {

/* ---- inputs ---------------------------------------------------------------------- */

/* u32 keys of global indices [lo, lo + n): uniform over 32 bits, or over
 * [0, mod) when mod is not 0; skewed: half of them (by an independent bit
 * of the hash) are one value. */
__global__ void keys_kernel(uint32_t *p, size_t n, uint64_t lo, uint32_t salt, uint32_t mod, bool skewed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (lo + i) * 0x9e3779b97f4a7c15ULL + salt * 0xd1b54a32d192ed03ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        uint32_t k = mod ? (uint32_t)((z & 0xffffffffu) % mod) : (uint32_t)z;
        p[i] = skewed && (z >> 63) ? 0x9e3779b9u : k;
    }
}

enum Keys { UNIFORM, SKEWED };
const char *const keys_name[] = {"uniform", "skewed (half one key)"};

void fill_keys(void *p, size_t n, uint64_t lo, uint32_t salt, uint32_t mod = 0, bool skewed = false)
{
    keys_kernel<<<4096, 256>>>((uint32_t *)p, n, lo, salt, mod, skewed);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
}

__global__ void count_descents(const uint32_t *a, size_t n, unsigned long long *out)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x + 1; i < n; i += (size_t)gridDim.x * blockDim.x)
        mine += a[i] < a[i - 1];
    if (mine) atomicAdd(out, mine);
}

/* ---- buffers: up to four arrays a rank ----------------------------------------- */

struct Shards {
    int p = 0;
    size_t total = 0, lo[8] = {}, n[8] = {};
    void *buf[4][8] = {};

    Shards(int p_, size_t total_) : p(p_), total(total_)
    {
        for (int r = 0; r < p; r++) lo[r] = total * r / p, n[r] = total * (r + 1) / p - lo[r];
    }
    /* Array a: `per_elem` bytes an element plus `extra` bytes on every rank. */
    void alloc(int a, size_t per_elem, size_t extra = 0)
    {
        for (int r = 0; r < p; r++) {
            CK(cudaSetDevice(r));
            CK(cudaMalloc(&buf[a][r], n[r] * per_elem + extra + 4));
        }
    }
    ~Shards()
    {
        for (int a = 0; a < 4; a++)
            for (int r = 0; r < p; r++)
                if (buf[a][r]) {
                    CK(cudaSetDevice(r));
                    CK(cudaFree(buf[a][r]));
                }
    }
};

std::vector<uint32_t> download(const void *d, size_t n, int device)
{
    std::vector<uint32_t> h(n);
    CK(cudaSetDevice(device));
    if (n) CK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return h;
}

/* Dies unless rank r's n u32 at d equal want[at, at + n). */
void expect_slice(const char *what, int r, const void *d, size_t n, const std::vector<uint32_t> &want, size_t at)
{
    std::vector<uint32_t> got = download(d, n, r);
    if (n && memcmp(got.data(), want.data() + at, n * 4) != 0)
        die("%s: rank %d's %zu results differ from the 1-GPU call's [%zu, %zu)", what, r, n, at, at + n);
}

std::string pow2(size_t n)
{
    const int e = 63 - __builtin_clzll(n);
    return ((size_t)1 << e) == n ? strf("2^%d", e) : strf("%zu", n);
}

/* The 1-GPU world: one context, its call timed, then torn down (freeing
 * its workspace before the p-GPU world takes the memory). */
template <class Setup> double time_one_gpu(Setup setup)
{
    World w;
    open_world(w, 1);
    CK(cudaSetDevice(0));
    double t = setup(w);
    close_world(w);
    return t;
}

/* ---- the sort ----------------------------------------------------------------------- */

/* u32 keys (and u32 values): 1 GPU on n1 keys against p GPUs on `total`
 * (shards of total / p). Strong (n1 == total): each rank's result equals its
 * slice of the 1-GPU result. Weak (n1 = total / p): the result is sorted. */
Row sort_row(int p, Keys keys, bool pairs, size_t total, bool weak)
{
    const size_t n1 = weak ? total / p : total;
    const bool skew = keys == SKEWED;
    std::vector<uint32_t> want_k, want_v;
    const double t1 = time_one_gpu([&](World &w) {
        Shards s(1, n1);
        s.alloc(0, 4), s.alloc(1, 4);
        if (pairs) s.alloc(2, 4), s.alloc(3, 4);
        fill_keys(s.buf[0][0], n1, 0, 1, 0, skew);
        if (pairs) fill_keys(s.buf[2][0], n1, 0, 2);
        w.call = [&](int) {
            if (pairs)
                gp_ok(gp_sort_pairs(w.ctx[0], GP_UINT32, GP_SORT_ASCENDING, s.buf[0][0], s.buf[1][0], 4, s.buf[2][0],
                                    s.buf[3][0], n1, 0, 32),
                      w.ctx[0], "gp_sort_pairs");
            else
                gp_ok(gp_sort_keys(w.ctx[0], GP_UINT32, GP_SORT_ASCENDING, s.buf[0][0], s.buf[1][0], n1, 0, 32),
                      w.ctx[0], "gp_sort_keys");
        };
        const double t = timed(w, CALL, 10);
        if (!weak) {
            want_k = download(s.buf[1][0], n1, 0);
            if (pairs) want_v = download(s.buf[3][0], n1, 0);
        }
        return t;
    });

    World w;
    open_world(w, p);
    Shards s(p, total);
    s.alloc(0, 4), s.alloc(1, 4);
    if (pairs) s.alloc(2, 4), s.alloc(3, 4);
    for (int r = 0; r < p; r++) {
        CK(cudaSetDevice(r));
        fill_keys(s.buf[0][r], s.n[r], s.lo[r], 1, 0, skew);
        if (pairs) fill_keys(s.buf[2][r], s.n[r], s.lo[r], 2);
    }
    w.call = [&](int r) {
        if (pairs)
            gp_ok(gp_dist_sort_pairs(w.comm[r], GP_UINT32, GP_SORT_ASCENDING, s.buf[0][r], s.buf[1][r], 4, s.buf[2][r],
                                     s.buf[3][r], s.n[r], 0, 32),
                  w.ctx[r], "gp_dist_sort_pairs");
        else
            gp_ok(gp_dist_sort_keys(w.comm[r], GP_UINT32, GP_SORT_ASCENDING, s.buf[0][r], s.buf[1][r], s.n[r], 0, 32),
                  w.ctx[r], "gp_dist_sort_keys");
    };
    const double tp = timed(w, CALL, 10);
    const char *what = pairs ? "gp_dist_sort_pairs" : "gp_dist_sort_keys";
    uint32_t prev_last = 0;
    for (int r = 0; r < p; r++) {
        if (!weak) {
            expect_slice(what, r, s.buf[1][r], s.n[r], want_k, s.lo[r]);
            if (pairs) expect_slice(what, r, s.buf[3][r], s.n[r], want_v, s.lo[r]);
            continue;
        }
        unsigned long long *bad = nullptr, nbad = 0;
        uint32_t first = 0, last = 0;
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&bad, sizeof *bad));
        CK(cudaMemset(bad, 0, sizeof *bad));
        count_descents<<<2048, 256>>>((const uint32_t *)s.buf[1][r], s.n[r], bad);
        CK_LAUNCH();
        CK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
        CK(cudaFree(bad));
        CK(cudaMemcpy(&first, s.buf[1][r], 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, (const uint32_t *)s.buf[1][r] + s.n[r] - 1, 4, cudaMemcpyDeviceToHost));
        if (nbad || (r > 0 && first < prev_last)) die("%s: rank %d's keys are not in order", what, r);
        prev_last = last;
    }
    close_world(w);
    return {strf("sort %s u32, %s", pairs ? "pairs u32 /" : "keys", keys_name[keys]), pow2(total), t1, tp, (double)p};
}

/* ---- the shuffle -------------------------------------------------------------------- */

__global__ void dest_kernel(uint32_t *d, size_t n, uint64_t lo, uint32_t p)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (lo + i + 77) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
        d[i] = (uint32_t)((z >> 32) % p);
    }
}

/* `total` u32 elements, total / p a rank: grouped (n / p of each rank's
 * elements to every rank, one count a destination) or routed by a random
 * destination an element. Beside it, NCCL's all-to-all of the same bytes
 * a rank in equal slices (t1 of the row). Every element must arrive. */
Row shuffle_row(int p, size_t total, bool grouped)
{
    World w;
    open_world(w, p);
    Shards s(p, total);
    const size_t slack = total / p / 16 + 4096; /* room past n for a random destination's surplus */
    s.alloc(0, 4), s.alloc(1, 4, slack * 4);
    if (!grouped) s.alloc(2, 4);
    std::vector<std::vector<size_t>> counts(p, std::vector<size_t>(p));
    size_t got[8] = {};
    for (int r = 0; r < p; r++) {
        CK(cudaSetDevice(r));
        fill_keys(s.buf[0][r], s.n[r], s.lo[r], 3);
        if (!grouped) {
            dest_kernel<<<4096, 256>>>((uint32_t *)s.buf[2][r], s.n[r], s.lo[r], (uint32_t)p);
            CK_LAUNCH();
            CK(cudaDeviceSynchronize());
        }
        for (int q = 0; q < p; q++) counts[r][q] = s.n[r] * (q + 1) / p - s.n[r] * q / p;
    }
    w.call = [&](int r) {
        gp_ok(gp_dist_shuffle(w.comm[r], 4, s.buf[0][r], 0, nullptr, s.n[r], grouped ? nullptr : (uint32_t *)s.buf[2][r],
                              grouped ? counts[r].data() : nullptr, s.buf[1][r], nullptr, s.n[r] + slack, &got[r],
                              nullptr),
              w.ctx[r], "gp_dist_shuffle");
    };
    const double tp = timed(w, CALL, 10);
    size_t sum = 0;
    for (int r = 0; r < p; r++) sum += got[r];
    if (sum != total) die("gp_dist_shuffle: %zu of %zu elements arrived", sum, total);
    if (grouped)
        for (int r = 0; r < p; r++) {
            size_t want = 0;
            for (int q = 0; q < p; q++) want += counts[q][r];
            if (got[r] != want) die("gp_dist_shuffle: rank %d received %zu, want %zu", r, got[r], want);
        }
    close_world(w);
    const double t_nccl = nccl_all_to_all_ms(p, total / p * 4);
    return {grouped ? "shuffle u32, grouped (n/p to each rank)" : "shuffle u32, a random destination an element",
            pow2(total), t_nccl, tp, 0};
}

/* ---- group-by ------------------------------------------------------------------------ */

/* Reduce-by-key of unsorted u32 keys (~2^20 distinct) with int32 sums: on
 * 1 GPU a stable sort by key then gp_reduce_by_key (the distributed call's
 * definition); on p GPUs gp_dist_reduce_by_key. Every group's key and sum
 * equal. */
Row group_by_row(int p, Keys keys, size_t total)
{
    const uint32_t distinct = 1u << 20;
    std::vector<uint32_t> want_k, want_v;
    size_t groups = 0;
    const double t1 = time_one_gpu([&](World &w) {
        Shards s(1, total);
        Shards o(1, total);
        for (int a = 0; a < 4; a++) s.alloc(a, 4);
        o.alloc(0, 4), o.alloc(1, 4);
        fill_keys(s.buf[0][0], total, 0, 4, distinct, keys == SKEWED);
        fill_keys(s.buf[1][0], total, 0, 5, 1000);
        gp_context *c = w.ctx[0];
        w.call = [&](int) {
            gp_ok(gp_sort_pairs(c, GP_UINT32, GP_SORT_ASCENDING, s.buf[0][0], s.buf[2][0], 4, s.buf[1][0], s.buf[3][0],
                                total, 0, 32),
                  c, "gp_sort_pairs");
            gp_ok(gp_reduce_by_key(c, GP_UINT32, GP_INT32, GP_OP_SUM, s.buf[2][0], s.buf[3][0], total, o.buf[0][0],
                                   o.buf[1][0], nullptr, &groups),
                  c, "gp_reduce_by_key");
        };
        const double t = timed(w, CALL, 10);
        want_k = download(o.buf[0][0], groups, 0);
        want_v = download(o.buf[1][0], groups, 0);
        return t;
    });

    World w;
    open_world(w, p);
    Shards s(p, total);
    s.alloc(0, 4), s.alloc(1, 4), s.alloc(2, 4), s.alloc(3, 4);
    gp_dist_count count[8] = {};
    for (int r = 0; r < p; r++) {
        CK(cudaSetDevice(r));
        fill_keys(s.buf[0][r], s.n[r], s.lo[r], 4, distinct, keys == SKEWED);
        fill_keys(s.buf[1][r], s.n[r], s.lo[r], 5, 1000);
    }
    w.call = [&](int r) {
        gp_ok(gp_dist_reduce_by_key(w.comm[r], GP_UINT32, GP_INT32, GP_OP_SUM, s.buf[0][r], s.buf[1][r], s.n[r],
                                    s.buf[2][r], s.buf[3][r], nullptr, s.n[r], &count[r]),
              w.ctx[r], "gp_dist_reduce_by_key");
    };
    const double tp = timed(w, CALL, 10);
    if (count[0].total != groups)
        die("gp_dist_reduce_by_key: %llu groups, 1 GPU %zu", (unsigned long long)count[0].total, groups);
    for (int r = 0; r < p; r++) {
        expect_slice("gp_dist_reduce_by_key (keys)", r, s.buf[2][r], count[r].local, want_k, count[r].offset);
        expect_slice("gp_dist_reduce_by_key (sums)", r, s.buf[3][r], count[r].local, want_v, count[r].offset);
    }
    close_world(w);
    return {strf("reduce-by-key u32 / int32 sum, %s, %zu groups", keys_name[keys], groups), pow2(total), t1, tp,
            (double)p};
}

/* ---- top-k --------------------------------------------------------------------------- */

/* The k largest of `total` uniform u32 keys: every rank holds the 1-GPU result. */
Row top_k_row(int p, size_t total, size_t k)
{
    std::vector<uint32_t> want;
    const double t1 = time_one_gpu([&](World &w) {
        Shards s(1, total);
        s.alloc(0, 4), s.alloc(1, 0, k * 4);
        fill_keys(s.buf[0][0], total, 0, 6);
        w.call = [&](int) {
            gp_ok(gp_top_k(w.ctx[0], GP_UINT32, GP_SORT_DESCENDING, s.buf[0][0], total, k, s.buf[1][0], 0, nullptr,
                           nullptr),
                  w.ctx[0], "gp_top_k");
        };
        const double t = timed(w, CALL, 10);
        want = download(s.buf[1][0], k, 0);
        return t;
    });
    World w;
    open_world(w, p);
    Shards s(p, total);
    s.alloc(0, 4), s.alloc(1, 0, k * 4);
    for (int r = 0; r < p; r++) {
        CK(cudaSetDevice(r));
        fill_keys(s.buf[0][r], s.n[r], s.lo[r], 6);
    }
    w.call = [&](int r) {
        gp_ok(gp_dist_top_k(w.comm[r], GP_UINT32, GP_SORT_DESCENDING, s.buf[0][r], s.n[r], k, s.buf[1][r], 0, nullptr,
                            nullptr),
              w.ctx[r], "gp_dist_top_k");
    };
    const double tp = timed(w, CALL, 10);
    for (int r = 0; r < p; r++) expect_slice("gp_dist_top_k", r, s.buf[1][r], k, want, 0);
    close_world(w);
    return {strf("top-k u32 (largest %zu)", k), pow2(total), t1, tp, (double)p};
}

void print_row(const Row &r, int p, bool weak)
{
    if (weak)
        printf("  %-52s %-8s 1 GPU (1/%d of it) %9.3f ms   %d GPUs %9.3f ms   efficiency %.1f%%\n", r.work.c_str(),
               r.size.c_str(), p, r.t1, p, r.tp, 100.0 * r.t1 / r.tp);
    else
        printf("  %-52s %-8s 1 GPU %9.3f ms   %d GPUs %9.3f ms   speedup %.2fx\n", r.work.c_str(), r.size.c_str(),
               r.t1, p, r.tp, r.t1 / r.tp);
    fflush(stdout);
}

} // namespace

void run_exchange(int p, bool quick, std::vector<Row> &strong, std::vector<Row> &weak, std::vector<Row> &shuffle)
{
    const size_t total = quick ? (size_t)1 << 27 : (size_t)1 << 31; /* sort, shuffle, top-k: strong */
    const size_t per = quick ? (size_t)1 << 26 : (size_t)1 << 30;   /* sort: weak, a GPU */
    const size_t group_total = quick ? (size_t)1 << 26 : (size_t)1 << 30;
    printf("all-to-all calls, strong scaling (same total work):\n");
    for (Keys k : {UNIFORM, SKEWED}) strong.push_back(sort_row(p, k, false, total, false)), print_row(strong.back(), p, false);
    strong.push_back(sort_row(p, UNIFORM, true, total, false)), print_row(strong.back(), p, false);
    for (Keys k : {UNIFORM, SKEWED})
        strong.push_back(group_by_row(p, k, group_total)), print_row(strong.back(), p, false);
    strong.push_back(top_k_row(p, total, 1000)), print_row(strong.back(), p, false);
    printf("all-to-all calls, weak scaling (2^%d a GPU):\n", 63 - __builtin_clzll(per));
    for (Keys k : {UNIFORM, SKEWED})
        weak.push_back(sort_row(p, k, false, per * p, true)), print_row(weak.back(), p, true);
    weak.push_back(sort_row(p, UNIFORM, true, per * p, true)), print_row(weak.back(), p, true);

    printf("shuffle against NCCL's all-to-all of the same bytes a rank (%d GPUs):\n", p);
    for (bool grouped : {true, false}) {
        Row r = shuffle_row(p, total, grouped);
        /* bytes a rank sends to the other ranks, a second */
        const double off = (double)(total / p) * 4 * (p - 1) / p;
        printf("  %-52s %-8s NCCL %9.3f ms (%.1f GB/s a GPU)   gp_dist_shuffle %9.3f ms (%.1f GB/s a GPU)   %.0f%% of NCCL\n",
               r.work.c_str(), r.size.c_str(), r.t1, off / r.t1 / 1e6, r.tp, off / r.tp / 1e6, 100.0 * r.t1 / r.tp);
        fflush(stdout);
        shuffle.push_back(r);
    }
}
