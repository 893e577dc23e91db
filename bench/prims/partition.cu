/* SPDX-License-Identifier: BSD-3-Clause */
/* partition: gp_partition of 2^28 int32 by uint8 flags (50% set) against
 * cub::DevicePartition::Flagged + the count's copy to host + a stream sync;
 * gp_gather / gp_scatter of 2^28 elements of 4 and 16 bytes by uint64
 * indices, random (a permutation) and sorted (ascending), GP_INDEX_SKIP and
 * GP_INDEX_CHECK, beside thrust::gather / thrust::scatter; their target is a
 * fraction of the copy ceiling. */
#include <cub/device/device_partition.cuh>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include "../harness.cuh"
#include "gpuprim/permute.h"

#include <cinttypes>

/* Reverse a[0, m) in place: CUB writes the rejected items back to front,
 * ours keeps their input order. */
__global__ void k_reverse_i32(int32_t *a, size_t m)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m / 2; i += (size_t)gridDim.x * blockDim.x) {
        const int32_t t = a[i];
        a[i] = a[m - 1 - i];
        a[m - 1 - i] = t;
    }
}

static void partition_row(size_t n)
{
    DevBuf in(n * 4), flags(n), out(n * 4), ref(n * 4), dnum(16);
    HostScalar hnum;
    fill_i32(in.p, n, 0, 0);
    fill_flags(flags.p, n, 50);
    size_t tb = 0;
    CK(cub::DevicePartition::Flagged(nullptr, tb, in.as<int32_t>(), flags.as<uint8_t>(), ref.as<int32_t>(),
                                     dnum.as<int64_t>(), (int64_t)n, g_stream));
    DevBuf temp(std::max<size_t>(tb, 16));
    auto cub_partition = [&](long) -> int64_t {
        CK(cub::DevicePartition::Flagged(temp.p, tb, in.as<int32_t>(), flags.as<uint8_t>(), ref.as<int32_t>(),
                                         dnum.as<int64_t>(), (int64_t)n, g_stream));
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    };
    auto ours = [&](long) -> size_t {
        size_t sel = 0;
        GP(gp_partition(g_ctx, GP_INT32, in.p, flags.p, GP_UINT8_FLAGS, out.p, n, &sel));
        return sel;
    };
    /* check: the selected part as CUB writes it, the rejected part reversed */
    poison(out.p, n * 4);
    const size_t sel = ours(0);
    const int64_t ref_sel = cub_partition(0);
    Row r;
    if ((int64_t)sel != ref_sel) {
        r.status = check_failed("partition: selected ours %zu, CUB %" PRId64, sel, ref_sel);
    } else {
        k_reverse_i32<<<fill_blocks((n - sel) / 2), 256, 0, g_stream>>>(ref.as<int32_t>() + sel, n - sel);
        CK_LAUNCH();
        r.status = check_status(diff_exact(out.p, ref.p, n * 4), "partition vs CUB (rejected part reversed)");
    }
    r.op = "partition";
    r.size = pow2_or_dec(n);
    r.bytes = 9.0 * (double)n;
    time_pair(r, "cub::DevicePartition::Flagged+D2H", [&](long i) { (void)ours(i); },
              [&](long i) { (void)cub_partition(i); });
    r.note = strf("int32 data, uint8 flags %.1f%% set; CUB writes the rejected part reversed; both include count "
                  "copy + sync",
                  100.0 * (double)ref_sel / (double)n);
    add_row(r);
}

/* ---- gather / scatter --------------------------------------------------------------- */

/* A bijection of [0, 2^bits): rounds of add, xor-shift right and multiply by
 * an odd number, each a bijection modulo 2^bits. */
__device__ __forceinline__ uint64_t permute_bits(uint64_t x, int bits)
{
    const uint64_t mask = (bits == 64) ? ~0ull : ((1ull << bits) - 1);
    const uint64_t mul[3] = {0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull};
    for (int r = 0; r < 3; ++r) {
        x = (x + 0x632BE59BD9B4E019ull * (r + 1)) & mask;
        x ^= x >> (bits / 2 + 1);
        x = (x * mul[r]) & mask;
    }
    return x;
}

__global__ void k_indices(uint64_t *idx, size_t n, int bits, bool sorted)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        idx[i] = sorted ? (uint64_t)i : permute_bits(i, bits);
}

/* thrust's element of `size` bytes */
template <size_t E> struct Elem;
template <> struct Elem<4> { using type = uint32_t; };
template <> struct Elem<16> { using type = uint4; };

template <size_t E>
static void permute_row(bool scatter, const DevBuf &in, const DevBuf &idx, DevBuf &out, DevBuf &ref, size_t n,
                        bool sorted, gp_index_check mode)
{
    using T = typename Elem<E>::type;
    const uint64_t *ix = idx.as<uint64_t>();
    const T *src = in.as<T>();
    auto ours = [&](long) {
        if (scatter)
            GP(gp_scatter(g_ctx, E, in.p, ix, n, out.p, n, mode));
        else
            GP(gp_gather(g_ctx, E, in.p, n, ix, out.p, n, mode));
    };
    auto anchor = [&](long) {
        if (scatter)
            thrust::scatter(thrust::cuda::par_nosync.on(g_stream), src, src + n, ix, ref.as<T>());
        else
            thrust::gather(thrust::cuda::par_nosync.on(g_stream), ix, ix + n, src, ref.as<T>());
    };
    poison(out.p, n * E);
    ours(0);
    anchor(0);
    const char *op = scatter ? "scatter" : "gather";
    const char *pattern = sorted ? "sorted" : "rand";
    const char *check = mode == GP_INDEX_CHECK ? "check" : "skip";
    Row r;
    r.op = op;
    r.size = strf("%s %zuB %s %s", pow2_or_dec(n).c_str(), E, pattern, check);
    r.bytes = 8.0 * (double)n + 2.0 * (double)E * (double)n;
    r.status = check_status(diff_exact(out.p, ref.p, n * E), strf("%s %s vs thrust", op, r.size.c_str()).c_str());
    time_pair(r, scatter ? "thrust::scatter" : "thrust::gather", ours, anchor);
    const bool checked = mode == GP_INDEX_CHECK;
    r.note = strf("%s uint64 indices (%s); GP_INDEX_%s%s; GB/s counts indices + one read + one write of the "
                  "elements",
                  sorted ? "ascending" : "random", sorted ? "0..n-1" : "a permutation", checked ? "CHECK" : "SKIP",
                  checked ? " (ours checks first and synchronizes; thrust does not)" : "");
    add_row(r);
}

template <size_t E>
static void permute_rows(size_t n, int bits)
{
    DevBuf in(n * E), out(n * E), ref(n * E), idx(n * 8);
    fill_i32(in.p, n * E / 4, 0, 0);
    for (bool sorted : {false, true}) {
        k_indices<<<fill_blocks(n), 256, 0, g_stream>>>(idx.as<uint64_t>(), n, bits, sorted);
        CK_LAUNCH();
        for (bool scatter : {false, true})
            for (gp_index_check mode : {GP_INDEX_SKIP, GP_INDEX_CHECK})
                permute_row<E>(scatter, in, idx, out, ref, n, sorted, mode);
    }
}

static void run_partition()
{
    const size_t n = large_n();
    partition_row(n);
    int bits = 0;
    while ((size_t(1) << bits) < n)
        ++bits;
    if ((size_t(1) << bits) != n)
        die("partition: gather/scatter sizes must be powers of two (the random indices are a bijection)");
    permute_rows<4>(n, bits);
    permute_rows<16>(n, bits);
}

BENCH_GROUP("partition", 170, run_partition, "permute gather scatter");
