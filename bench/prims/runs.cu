/* SPDX-License-Identifier: BSD-3-Clause */
/* runs: gp_reduce_by_key (int32 keys, int32 values, SUM), gp_run_length_encode
 * and gp_unique over 2^28 int32 keys in runs of fixed length L = 1, 10,
 * 1000, of random lengths 1..20, and all equal, against
 * cub::DeviceReduce::ReduceByKey, cub::DeviceRunLengthEncode::Encode and
 * cub::DeviceSelect::Unique. Every call returns its run count to the host:
 * the anchors copy theirs and synchronize too. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "../harness.cuh"
#include "gpuprim/runs.h"

#include <cinttypes>

/* Run lengths uniform in 1..20. */
__global__ void k_random_lengths(uint64_t *len, size_t runs, uint64_t seed)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < runs; r += (size_t)gridDim.x * blockDim.x)
        len[r] = 1 + mix64(seed * 0x100000001B3ull + r) % 20;
}

/* keys[start[r] .. start[r] + len[r]) = run_key(r), clipped to n. */
__global__ void k_write_runs(int32_t *keys, size_t n, const uint64_t *start, const uint64_t *len, size_t runs)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < runs; r += (size_t)gridDim.x * blockDim.x) {
        const uint64_t s = start[r], e = min(s + len[r], (uint64_t)n);
        for (uint64_t j = s; j < e; ++j)
            keys[j] = run_key(r);
    }
}

/* n keys in runs of random lengths 1..20 (mean 10.5). */
static void fill_random_runs(int32_t *keys, size_t n)
{
    const size_t runs = n / 4 + 1; /* covers n unless the mean length falls below 4: checked below */
    DevBuf len(runs * 8), start(runs * 8);
    k_random_lengths<<<fill_blocks(runs), 256, 0, g_stream>>>(len.as<uint64_t>(), runs, 4242);
    CK_LAUNCH();
    size_t tb = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, tb, len.as<uint64_t>(), start.as<uint64_t>(), (int64_t)runs, g_stream));
    DevBuf temp(std::max<size_t>(tb, 16));
    CK(cub::DeviceScan::ExclusiveSum(temp.p, tb, len.as<uint64_t>(), start.as<uint64_t>(), (int64_t)runs, g_stream));
    k_write_runs<<<fill_blocks(runs), 256, 0, g_stream>>>(keys, n, start.as<uint64_t>(), len.as<uint64_t>(), runs);
    CK_LAUNCH();
    uint64_t last_start = 0, last_len = 0;
    CK(cudaMemcpyAsync(&last_start, start.as<uint64_t>() + runs - 1, 8, cudaMemcpyDeviceToHost, g_stream));
    CK(cudaMemcpyAsync(&last_len, len.as<uint64_t>() + runs - 1, 8, cudaMemcpyDeviceToHost, g_stream));
    CK(cudaStreamSynchronize(g_stream));
    if (last_start + last_len < n)
        die("runs: random run lengths cover %" PRIu64 " of %zu keys (a bench bug)", last_start + last_len, n);
}

/* The buffers of one key shape: inputs, our outputs, the anchor's. */
struct RunsBufs {
    size_t n;
    DevBuf keys, vals, ko, vo, lens, kr, vr, lr, dnum{16}, temp;
    size_t temp_bytes = 0;
    HostScalar hnum;
    explicit RunsBufs(size_t n_)
        : n(n_), keys(n * 4), vals(n * 4), ko(n * 4), vo(n * 4), lens(n * 8), kr(n * 4), vr(n * 4), lr(n * 8)
    {
    }
    int64_t count_to_host()
    {
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    }
    /* temp storage of at least `bytes` (queried before the first call) */
    void need_temp(size_t bytes)
    {
        if (bytes > temp.bytes)
            temp.alloc(bytes);
        temp_bytes = temp.bytes;
    }
};

/* One row: ours and the anchor each return the run count (both synchronize);
 * diff compares their outputs over that many runs. */
static void runs_row(const char *op, const std::string &size, const char *anchor_name,
                     const std::function<size_t()> &ours, const std::function<int64_t()> &anchor,
                     const std::function<DiffCount(size_t)> &diff, double in_bytes, double bytes_per_run,
                     const char *note)
{
    Row r;
    const size_t c_ours = ours();
    const int64_t c_ref = anchor();
    if ((int64_t)c_ours != c_ref)
        r.status = check_failed("%s %s: count ours %zu, CUB %" PRId64, op, size.c_str(), c_ours, c_ref);
    else
        r.status = check_status(diff(c_ours), strf("%s %s vs CUB", op, size.c_str()).c_str());
    r.op = op;
    r.size = size;
    r.bytes = in_bytes + bytes_per_run * (double)c_ref;
    time_pair(r, anchor_name, [&](long) { (void)ours(); }, [&](long) { (void)anchor(); });
    r.note = strf("%s; %" PRId64 " runs; both include count copy + sync", note, c_ref);
    add_row(r);
}

/* The three rows for the keys now in b.keys. */
static void runs_rows(RunsBufs &b, const std::string &shape)
{
    const size_t n = b.n;
    const int32_t *keys = b.keys.as<int32_t>(), *vals = b.vals.as<int32_t>();
    const std::string size = pow2_or_dec(n) + " " + shape;

    /* reduce-by-key: keys + values read, a key and a sum written per run */
    size_t tb = 0;
    CK(cub::DeviceReduce::ReduceByKey(nullptr, tb, keys, b.kr.as<int32_t>(), vals, b.vr.as<int32_t>(),
                                      b.dnum.as<int64_t>(), cuda::std::plus<>{}, (int64_t)n, g_stream));
    b.need_temp(tb);
    poison(b.ko.p, n * 4);
    poison(b.vo.p, n * 4);
    runs_row(
        "reduce_by_key", size, "cub::DeviceReduce::ReduceByKey+D2H",
        [&]() {
            size_t c = 0;
            GP(gp_reduce_by_key(g_ctx, GP_INT32, GP_INT32, GP_OP_SUM, keys, vals, n, b.ko.p, b.vo.p, nullptr, &c));
            return c;
        },
        [&]() {
            CK(cub::DeviceReduce::ReduceByKey(b.temp.p, b.temp_bytes, keys, b.kr.as<int32_t>(), vals,
                                              b.vr.as<int32_t>(), b.dnum.as<int64_t>(), cuda::std::plus<>{},
                                              (int64_t)n, g_stream));
            return b.count_to_host();
        },
        [&](size_t c) {
            DiffCount d = diff_exact(b.ko.p, b.kr.p, c * 4);
            return d.count ? d : diff_exact(b.vo.p, b.vr.p, c * 4);
        },
        8.0 * (double)n, 8.0, "int32 keys, int32 values, SUM");

    /* run-length encoding: keys read, a key and a uint64 length written per run */
    CK(cub::DeviceRunLengthEncode::Encode(nullptr, tb, keys, b.kr.as<int32_t>(), b.lr.as<uint64_t>(),
                                          b.dnum.as<int64_t>(), (int)n, g_stream));
    b.need_temp(tb);
    poison(b.ko.p, n * 4);
    poison(b.lens.p, n * 8);
    runs_row(
        "rle", size, "cub::DeviceRunLengthEncode::Encode+D2H",
        [&]() {
            size_t c = 0;
            GP(gp_run_length_encode(g_ctx, GP_INT32, keys, n, b.ko.p, b.lens.as<uint64_t>(), &c));
            return c;
        },
        [&]() {
            CK(cub::DeviceRunLengthEncode::Encode(b.temp.p, b.temp_bytes, keys, b.kr.as<int32_t>(),
                                                  b.lr.as<uint64_t>(), b.dnum.as<int64_t>(), (int)n, g_stream));
            return b.count_to_host();
        },
        [&](size_t c) {
            DiffCount d = diff_exact(b.ko.p, b.kr.p, c * 4);
            return d.count ? d : diff_exact(b.lens.p, b.lr.p, c * 8);
        },
        4.0 * (double)n, 12.0, "int32 values, uint64 lengths (both sides)");

    /* unique: keys read, a key written per run */
    CK(cub::DeviceSelect::Unique(nullptr, tb, keys, b.kr.as<int32_t>(), b.dnum.as<int64_t>(), (int64_t)n, g_stream));
    b.need_temp(tb);
    poison(b.ko.p, n * 4);
    runs_row(
        "unique", size, "cub::DeviceSelect::Unique+D2H",
        [&]() {
            size_t c = 0;
            GP(gp_unique(g_ctx, GP_INT32, keys, n, b.ko.p, &c));
            return c;
        },
        [&]() {
            CK(cub::DeviceSelect::Unique(b.temp.p, b.temp_bytes, keys, b.kr.as<int32_t>(), b.dnum.as<int64_t>(),
                                         (int64_t)n, g_stream));
            return b.count_to_host();
        },
        [&](size_t c) { return diff_exact(b.ko.p, b.kr.p, c * 4); }, 4.0 * (double)n, 4.0, "int32");
}

static void run_runs()
{
    RunsBufs b(large_n());
    fill_i32(b.vals.p, b.n, 0, 0);
    for (size_t len : {size_t(1), size_t(10), size_t(1000)}) {
        fill_run_keys(b.keys.p, b.n, len);
        runs_rows(b, strf("L=%zu", len));
    }
    fill_random_runs(b.keys.as<int32_t>(), b.n);
    runs_rows(b, "L=1..20");
    fill_run_keys(b.keys.p, b.n, b.n);
    runs_rows(b, "one run");
}

BENCH_GROUP("runs", 130, run_runs, "reduce_by_key rle run_length_encode unique");
