/* SPDX-License-Identifier: BSD-3-Clause */
/* sort: gp_sort_keys / gp_sort_pairs against cub::DeviceRadixSort's
 * (in, out) form with preallocated temp storage, same input, same bits.
 * gp_sort runs on CUB by default and on gpuprim's own onesweep sort when
 * the process starts with GP_CUDA_SORT=own (the library reads it once):
 * run the group both ways, e.g. `GP_CUDA_SORT=own bench_prims --only sort`;
 * each row's note says which sort gp_sort used. */
#include <cub/device/device_radix_sort.cuh>

#include <cstdlib>
#include <cstring>

#include "../harness.cuh"

/* bytes = keys (and values) read and written once: a lower bound on the
 * traffic (an LSD sort makes a pass per 8 bits). */
template <typename K>
static void sort_row(size_t n, int end_bit, bool pairs, const char *what)
{
    const size_t kb = n * sizeof(K), vb = pairs ? n * 4 : 0, vb_alloc = std::max<size_t>(vb, 16);
    DevBuf kin(kb), kout(kb), kref(kb), vin(vb_alloc), vout(vb_alloc), vref(vb_alloc);
    fill_i32(kin.p, kb / 4, 0, 0);
    if (pairs)
        fill_i32(vin.p, n, 0, 0);
    const gp_dtype dt = sizeof(K) == 4 ? GP_UINT32 : GP_UINT64;
    size_t temp_bytes = 0;
    /* temp null: the size query; else CUB's sort into kref / vref */
    auto cub_sort = [&](void *temp) {
        if (pairs)
            CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, kin.as<K>(), kref.as<K>(), vin.as<uint32_t>(),
                                               vref.as<uint32_t>(), n, 0, end_bit, g_stream));
        else
            CK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, kin.as<K>(), kref.as<K>(), n, 0, end_bit, g_stream));
    };
    cub_sort(nullptr);
    DevBuf temp(std::max<size_t>(temp_bytes, 16));
    auto ours = [&]() {
        if (pairs)
            GP(gp_sort_pairs(g_ctx, dt, GP_SORT_ASCENDING, kin.p, kout.p, 4, vin.p, vout.p, n, 0, end_bit));
        else
            GP(gp_sort_keys(g_ctx, dt, GP_SORT_ASCENDING, kin.p, kout.p, n, 0, end_bit));
    };
    poison(kout.p, kb);
    if (pairs)
        poison(vout.p, vb);
    ours();
    cub_sort(temp.p);
    DiffCount d = diff_exact(kout.p, kref.p, kb);
    if (pairs && d.count == 0)
        d = diff_exact(vout.p, vref.p, vb);
    Row r;
    r.op = "sort";
    r.size = strf("%s %s", pow2_or_dec(n).c_str(), what);
    r.bytes = 2.0 * (double)(kb + vb);
    r.status = check_status(d, "sort");
    time_pair(
        r, pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys", [&](long) { ours(); },
        [&](long) { cub_sort(temp.p); });
    const char *mode = std::getenv("GP_CUDA_SORT");
    const bool own = mode && std::strcmp(mode, "own") == 0;
    r.note = strf("gp_sort on %s; bits [0,%d); GB/s counts one read + one write of keys%s",
                  own ? "its own onesweep (GP_CUDA_SORT=own)" : "CUB", end_bit, pairs ? " and values" : "");
    add_row(r);
}

static void run_sort()
{
    const size_t n28 = large_n(), n26 = large_n() >> 2;
    sort_row<uint32_t>(n28, 32, false, "u32 keys");
    sort_row<uint32_t>(n28, 16, false, "u32 keys 16 bits");
    sort_row<uint32_t>(n28, 32, true, "u32+u32 pairs");
    sort_row<uint64_t>(n26, 64, false, "u64 keys");
    sort_row<uint32_t>(size_t(1) << 20, 32, false, "u32 keys"); /* launch-bound sizes */
    sort_row<uint32_t>(size_t(1) << 16, 32, false, "u32 keys");
}

BENCH_GROUP("sort", 80, run_sort);
