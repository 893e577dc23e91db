/* SPDX-License-Identifier: BSD-3-Clause */
/* search: gp_lower_bound / gp_upper_bound of 2^24 random needles in 2^28
 * sorted uint32 keys, against thrust::lower_bound / upper_bound (the
 * vectorized forms, uint64 positions) on the same stream. */
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include "../harness.cuh"
#include "gpuprim/search.h"

/* keys[i] = 8i + (hash(i) & 7): sorted, with gaps and no repeats. */
__global__ void k_sorted_keys(uint32_t *keys, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        keys[i] = (uint32_t)(8 * i + ((z >> 33) & 7));
    }
}

static void search_row(size_t n, size_t m, bool upper)
{
    DevBuf keys(n * 4), needles(m * 4), out(m * 8), ref(m * 8);
    k_sorted_keys<<<fill_blocks(n), 256, 0, g_stream>>>(keys.as<uint32_t>(), n, 1);
    CK_LAUNCH();
    fill_i32(needles.p, m, 0, 8 * n + 16); /* a few past the last key */
    const uint32_t *k = keys.as<uint32_t>(), *q = needles.as<uint32_t>();
    auto ours = [&](long) {
        if (upper) GP(gp_upper_bound(g_ctx, GP_UINT32, GP_SORT_ASCENDING, k, n, q, m, out.as<uint64_t>()));
        else GP(gp_lower_bound(g_ctx, GP_UINT32, GP_SORT_ASCENDING, k, n, q, m, out.as<uint64_t>()));
    };
    auto anchor = [&](uint64_t *dst) {
        if (upper) thrust::upper_bound(thrust::cuda::par_nosync.on(g_stream), k, k + n, q, q + m, dst);
        else thrust::lower_bound(thrust::cuda::par_nosync.on(g_stream), k, k + n, q, q + m, dst);
    };
    poison(out.p, m * 8);
    ours(0);
    anchor(ref.as<uint64_t>());
    Row r;
    r.op = "search";
    r.size = strf("%s in %s %s", pow2_or_dec(m).c_str(), pow2_or_dec(n).c_str(), upper ? "upper" : "lower");
    r.bytes = (double)m * (4 + 8);
    r.status = check_status(diff_exact(out.p, ref.p, m * 8), "search vs thrust");
    time_pair(r, upper ? "thrust::upper_bound" : "thrust::lower_bound", ours,
              [&](long) { anchor(out.as<uint64_t>()); });
    r.note = "uint32 keys 8i+[0,8), random needles; GB/s counts needles read + positions written";
    add_row(r);
}

static void run_search()
{
    const size_t n = large_n(), m = large_n() >> 4;
    search_row(n, m, false);
    search_row(n, m, true);
}

BENCH_GROUP("search", 100, run_search, "lower_bound upper_bound");
