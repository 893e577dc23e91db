/* SPDX-License-Identifier: BSD-3-Clause */
/* topk: gp_top_k (the k smallest of 2^28 random uint32 keys, sorted)
 * against a full cub::DeviceRadixSort::SortKeys of the same keys, whose
 * first k are the check's reference. */
#include <cub/device/device_radix_sort.cuh>

#include "../harness.cuh"
#include "gpuprim/search.h"

static void topk_row(size_t n, size_t k, bool indices)
{
    DevBuf keys(n * 4), sorted(n * 4), out(k * 4), idx(std::max<size_t>(k * 8, 16));
    fill_i32(keys.p, n, 0, 0);
    size_t temp_bytes = 0;
    CK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys.as<uint32_t>(), sorted.as<uint32_t>(), n, 0, 32,
                                      g_stream));
    DevBuf temp(std::max<size_t>(temp_bytes, 16));
    auto cub_sort = [&](long) {
        CK(cub::DeviceRadixSort::SortKeys(temp.p, temp_bytes, keys.as<uint32_t>(), sorted.as<uint32_t>(), n, 0, 32,
                                          g_stream));
    };
    auto ours = [&](long) {
        GP(gp_top_k(g_ctx, GP_UINT32, GP_SORT_ASCENDING, keys.p, n, k, out.p, indices ? 8 : 0, nullptr,
                    indices ? idx.p : nullptr));
    };
    poison(out.p, k * 4);
    ours(0);
    cub_sort(0);
    Row r;
    r.op = "topk";
    r.size = strf("%s k=%zu%s", pow2_or_dec(n).c_str(), k, indices ? " +idx" : "");
    r.bytes = (double)n * 4 + (double)k * (indices ? 12 : 4);
    r.status = check_status(diff_exact(out.p, sorted.p, k * 4), "top-k vs the sorted prefix");
    time_pair(r, "cub::DeviceRadixSort::SortKeys(full)", ours, cub_sort);
    r.note = "k smallest of random uint32, sorted; anchor sorts all n; GB/s counts one read of the keys";
    add_row(r);
}

static void run_topk()
{
    const size_t n = large_n();
    topk_row(n, 10, false);
    topk_row(n, 1000, false);
    topk_row(n, 1000, true);
    topk_row(n, 1000000, false);
}

BENCH_GROUP("topk", 120, run_topk, "top_k top-k");
