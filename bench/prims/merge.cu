/* SPDX-License-Identifier: BSD-3-Clause */
/* merge: gp_merge_keys / gp_merge_pairs of two sorted halves (2 x 2^27
 * uint32 keys, uint32 values) against cub::DeviceMerge on the same stream. */
#include <cub/device/device_merge.cuh>

#include "../harness.cuh"
#include "gpuprim/search.h"

/* keys[i] = 4i + (hash(i, seed) & 3): sorted, and the two sides interleave
 * with some ties between them. */
__global__ void k_sorted_side(uint32_t *keys, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        keys[i] = (uint32_t)(4 * i + ((z >> 33) & 3));
    }
}

static void merge_row(size_t half, bool pairs)
{
    const size_t n = 2 * half, vb = pairs ? n * 4 : 16;
    DevBuf a(half * 4), b(half * 4), va(pairs ? half * 4 : 16), vbuf(pairs ? half * 4 : 16);
    DevBuf out(n * 4), ref(n * 4), vout(vb), vref(vb);
    k_sorted_side<<<fill_blocks(half), 256, 0, g_stream>>>(a.as<uint32_t>(), half, 1);
    k_sorted_side<<<fill_blocks(half), 256, 0, g_stream>>>(b.as<uint32_t>(), half, 977);
    CK_LAUNCH();
    if (pairs) fill_i32(va.p, half, 0, 0), fill_i32(vbuf.p, half, 0, 0);
    const uint32_t *ka = a.as<uint32_t>(), *kb = b.as<uint32_t>();
    size_t temp_bytes = 0;
    auto cub_merge = [&](void *temp, uint32_t *ko, uint32_t *vo) {
        if (pairs)
            CK(cub::DeviceMerge::MergePairs(temp, temp_bytes, ka, va.as<uint32_t>(), (int64_t)half, kb,
                                            vbuf.as<uint32_t>(), (int64_t)half, ko, vo, cuda::std::less<uint32_t>{},
                                            g_stream));
        else
            CK(cub::DeviceMerge::MergeKeys(temp, temp_bytes, ka, (int64_t)half, kb, (int64_t)half, ko,
                                           cuda::std::less<uint32_t>{}, g_stream));
    };
    cub_merge(nullptr, ref.as<uint32_t>(), vref.as<uint32_t>());
    DevBuf temp(std::max<size_t>(temp_bytes, 16));
    auto ours = [&](long) {
        if (pairs)
            GP(gp_merge_pairs(g_ctx, GP_UINT32, GP_SORT_ASCENDING, ka, va.p, half, kb, vbuf.p, half, 4, out.p,
                              vout.p));
        else
            GP(gp_merge_keys(g_ctx, GP_UINT32, GP_SORT_ASCENDING, ka, half, kb, half, out.p));
    };
    poison(out.p, n * 4);
    if (pairs) poison(vout.p, n * 4);
    ours(0);
    cub_merge(temp.p, ref.as<uint32_t>(), vref.as<uint32_t>());
    DiffCount d = diff_exact(out.p, ref.p, n * 4);
    if (pairs && d.count == 0) d = diff_exact(vout.p, vref.p, n * 4);
    Row r;
    r.op = "merge";
    r.size = strf("2x%s %s", pow2_or_dec(half).c_str(), pairs ? "u32+u32 pairs" : "u32 keys");
    r.bytes = 2.0 * (double)n * (pairs ? 8 : 4);
    r.status = check_status(d, "merge vs CUB");
    time_pair(r, pairs ? "cub::DeviceMerge::MergePairs" : "cub::DeviceMerge::MergeKeys", ours,
              [&](long) { cub_merge(temp.p, out.as<uint32_t>(), vout.as<uint32_t>()); });
    r.note = "sorted sides 4i+[0,4); GB/s counts one read + one write";
    add_row(r);
}

static void run_merge()
{
    const size_t half = large_n() >> 1;
    merge_row(half, false);
    merge_row(half, true);
}

BENCH_GROUP("merge", 110, run_merge);
