/* SPDX-License-Identifier: BSD-3-Clause */
/* segmented: gp_segmented_reduce (int32 SUM) and gp_segmented_sort_keys
 * (uint32) over two shapes, 10^6 segments of random length 0..512 and 100
 * segments of 2^28/100, against cub::DeviceSegmentedReduce::Sum and
 * cub::DeviceSegmentedSort::SortKeys; gp_scan_by_key (int32 keys in runs of
 * 10, int32 values, inclusive SUM) against cub::DeviceScan::InclusiveSumByKey.
 * All asynchronous: no count comes back to the host. */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "../harness.cuh"
#include "gpuprim/segmented.h"

#include <random>

/* n_segments + 1 ascending uint64 offsets on the device, covering [0, n). */
struct Segments {
    std::string label;
    size_t n = 0, count = 0;
    DevBuf offsets;
};

/* `count` segments of lengths uniform in [0, max_len] (a fixed seed). */
static Segments random_segments(size_t count, unsigned max_len)
{
    std::mt19937_64 rng(1234567);
    std::uniform_int_distribution<unsigned> len(0, max_len);
    std::vector<uint64_t> off(count + 1, 0);
    for (size_t s = 0; s < count; ++s)
        off[s + 1] = off[s] + len(rng);
    Segments sg;
    sg.label = strf("%s segs 0..%u", pow2_or_dec(count).c_str(), max_len);
    sg.n = (size_t)off[count];
    sg.count = count;
    sg.offsets.alloc(off.size() * 8);
    CK(cudaMemcpy(sg.offsets.p, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    return sg;
}

/* `count` segments splitting n evenly (lengths differ by at most one). */
static Segments even_segments(size_t n, size_t count)
{
    std::vector<uint64_t> off(count + 1);
    for (size_t s = 0; s <= count; ++s)
        off[s] = (uint64_t)(s * n / count);
    Segments sg;
    sg.label = strf("%zu segs %s", count, pow2_or_dec(n).c_str());
    sg.n = n;
    sg.count = count;
    sg.offsets.alloc(off.size() * 8);
    CK(cudaMemcpy(sg.offsets.p, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    return sg;
}

/* The reduce and the sort rows of one shape. */
static void segmented_rows(const Segments &sg)
{
    const size_t n = sg.n, ns = sg.count;
    const uint64_t *off = sg.offsets.as<uint64_t>();
    DevBuf in(n * 4), out(n * 4), ref(n * 4);
    fill_i32(in.p, n, 0, 0);

    /* segmented reduce: the values and the offsets read, a sum per segment written */
    size_t tb = 0;
    CK(cub::DeviceSegmentedReduce::Sum(nullptr, tb, in.as<int32_t>(), ref.as<int32_t>(), (int64_t)ns, off, off + 1,
                                       g_stream));
    DevBuf temp(std::max<size_t>(tb, 16));
    auto cub_reduce = [&](long) {
        CK(cub::DeviceSegmentedReduce::Sum(temp.p, tb, in.as<int32_t>(), ref.as<int32_t>(), (int64_t)ns, off,
                                           off + 1, g_stream));
    };
    auto ours_reduce = [&](long) { GP(gp_segmented_reduce(g_ctx, GP_INT32, GP_OP_SUM, in.p, n, off, ns, out.p)); };
    poison(out.p, ns * 4);
    ours_reduce(0);
    cub_reduce(0);
    Row r;
    r.op = "seg_reduce";
    r.size = sg.label;
    r.bytes = 4.0 * (double)n + 8.0 * (double)(ns + 1) + 4.0 * (double)ns;
    r.status = check_status(diff_exact(out.p, ref.p, ns * 4), "segmented reduce vs CUB");
    time_pair(r, "cub::DeviceSegmentedReduce::Sum", ours_reduce, cub_reduce);
    r.note = strf("int32 SUM; %zu items; uint64 offsets (CUB: begin = offsets, end = offsets + 1)", n);
    add_row(r);
    temp.release();

    /* segmented sort: the keys and the offsets read, the keys written */
    CK(cub::DeviceSegmentedSort::SortKeys(nullptr, tb, in.as<uint32_t>(), ref.as<uint32_t>(), (int64_t)n,
                                          (int64_t)ns, off, off + 1, g_stream));
    temp.alloc(std::max<size_t>(tb, 16));
    auto cub_sort = [&](long) {
        CK(cub::DeviceSegmentedSort::SortKeys(temp.p, tb, in.as<uint32_t>(), ref.as<uint32_t>(), (int64_t)n,
                                              (int64_t)ns, off, off + 1, g_stream));
    };
    auto ours_sort = [&](long) {
        GP(gp_segmented_sort_keys(g_ctx, GP_UINT32, GP_SORT_ASCENDING, in.p, out.p, n, off, ns, 0, 32));
    };
    poison(out.p, n * 4);
    ours_sort(0);
    cub_sort(0);
    Row s;
    s.op = "seg_sort";
    s.size = sg.label;
    s.bytes = 8.0 * (double)n + 8.0 * (double)(ns + 1);
    s.status = check_status(diff_exact(out.p, ref.p, n * 4), "segmented sort vs CUB");
    time_pair(s, "cub::DeviceSegmentedSort::SortKeys", ours_sort, cub_sort);
    s.note = strf("uint32 keys, all 32 bits; %zu items; GB/s counts one read + one write of the keys", n);
    add_row(s);
}

/* Scan by key: keys, values read, sums written (12 bytes an item). */
static void scan_by_key_row(size_t n, size_t run_len)
{
    DevBuf keys(n * 4), vals(n * 4), out(n * 4), ref(n * 4);
    fill_run_keys(keys.p, n, run_len);
    fill_i32(vals.p, n, 0, 0);
    const int32_t *k = keys.as<int32_t>(), *v = vals.as<int32_t>();
    size_t tb = 0;
    CK(cub::DeviceScan::InclusiveSumByKey(nullptr, tb, k, v, ref.as<int32_t>(), (int64_t)n,
                                          cuda::std::equal_to<>{}, g_stream));
    DevBuf temp(std::max<size_t>(tb, 16));
    auto cub_scan = [&](long) {
        CK(cub::DeviceScan::InclusiveSumByKey(temp.p, tb, k, v, ref.as<int32_t>(), (int64_t)n,
                                              cuda::std::equal_to<>{}, g_stream));
    };
    auto ours = [&](long) {
        GP(gp_scan_by_key(g_ctx, GP_INT32, k, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, v, out.p, n));
    };
    poison(out.p, n * 4);
    ours(0);
    cub_scan(0);
    Row r;
    r.op = "scan_by_key";
    r.size = strf("%s runs of %zu", pow2_or_dec(n).c_str(), run_len);
    r.bytes = 12.0 * (double)n;
    r.status = check_status(diff_exact(out.p, ref.p, n * 4), "scan by key vs CUB");
    time_pair(r, "cub::DeviceScan::InclusiveSumByKey", ours, cub_scan);
    r.note = "int32 keys, int32 values, inclusive SUM";
    add_row(r);
}

static void run_segmented()
{
    const size_t n = large_n();
    /* 10^6 segments of 0..512 hold about 2^28 items; --quick keeps the
     * lengths and takes 2^16 segments (about 2^24 items) */
    segmented_rows(random_segments(g_opt.quick ? 65536 : 1000000, 512));
    segmented_rows(even_segments(n, 100));
    scan_by_key_row(n, 10);
}

BENCH_GROUP("segmented", 140, run_segmented, "seg_reduce seg_sort segmented_reduce segmented_sort scan_by_key");
