/* SPDX-License-Identifier: BSD-3-Clause */
/* find_repeats: gp_find_repeats int32 (indices i with in[i] == in[i+1])
 * against two anchors timed side by side with it: cub::DeviceSelect::If
 * over a counting iterator, and flag + CUB exclusive scan + scatter. Values
 * uniform in [0,32) (~3.1% repeats) and in [0,2) (~50%). */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "../harness.cuh"

#include <cinttypes>

struct RepeatPred {
    const int32_t *in;
    __device__ __forceinline__ bool operator()(int64_t i) const { return in[i] == in[i + 1]; }
};

__global__ void k_repeat_flags(const int32_t *__restrict__ in, int32_t *__restrict__ flags, size_t m)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x)
        flags[i] = in[i] == in[i + 1];
}

__global__ void k_repeat_scatter(const int32_t *__restrict__ flags, const int32_t *__restrict__ pos,
                                 int64_t *__restrict__ out, size_t m, int64_t *count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x) {
        if (flags[i])
            out[pos[i]] = (int64_t)i;
        if (i == m - 1)
            *count = (int64_t)pos[i] + flags[i];
    }
}

static void find_repeats_rows(size_t n, uint64_t range)
{
    size_t m = n - 1; /* candidate positions */
    int sets = rotation_sets(n * 4);
    std::vector<DevBuf> in = alloc_sets(sets, n * 4);
    for (DevBuf &b : in)
        fill_i32(b.p, n, 0, range);
    DevBuf out(n * 8), ref(n * 8), base(n * 8), dnum(16), fl(m * 4), pos(m * 4);
    HostScalar hnum;

    size_t temp_if = 0, temp_scan = 0;
    thrust::counting_iterator<int64_t> idx(0);
    CK(cub::DeviceSelect::If(nullptr, temp_if, idx, ref.as<int64_t>(), dnum.as<int64_t>(), (int64_t)m,
                             RepeatPred{in[0].as<int32_t>()}, g_stream));
    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_scan, fl.as<int32_t>(), pos.as<int32_t>(), (int)m, g_stream));
    DevBuf temp(std::max<size_t>(std::max(temp_if, temp_scan), 16));

    auto count_to_host = [&]() -> int64_t {
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    };
    auto cub_if = [&](long i, int64_t *dst) -> int64_t {
        int k = (int)(i % sets);
        CK(cub::DeviceSelect::If(temp.p, temp_if, idx, dst, dnum.as<int64_t>(), (int64_t)m,
                                 RepeatPred{in[k].as<int32_t>()}, g_stream));
        return count_to_host();
    };
    auto flag_scan_scatter = [&](long i, int64_t *dst) -> int64_t {
        int k = (int)(i % sets);
        k_repeat_flags<<<fill_blocks(m), 256, 0, g_stream>>>(in[k].as<int32_t>(), fl.as<int32_t>(), m);
        CK_LAUNCH();
        CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_scan, fl.as<int32_t>(), pos.as<int32_t>(), (int)m, g_stream));
        k_repeat_scatter<<<fill_blocks(m), 256, 0, g_stream>>>(fl.as<int32_t>(), pos.as<int32_t>(), dst, m,
                                                                dnum.as<int64_t>());
        CK_LAUNCH();
        return count_to_host();
    };

    /* check: ours and the flag+scan+scatter baseline against CUB Select::If */
    Row r;
    poison(out.p, n * 8);
    size_t ours_count = 0;
    GP(gp_find_repeats(g_ctx, GP_INT32, in[0].p, n, out.as<uint64_t>(), &ours_count));
    int64_t ref_count = cub_if(0, ref.as<int64_t>());
    int64_t base_count = flag_scan_scatter(0, base.as<int64_t>());
    if (base_count != ref_count || diff_exact(base.p, ref.p, (size_t)ref_count * 8).count)
        die("find-repeats: the bench's flag+scan+scatter baseline disagrees with CUB (a bench bug)");
    if ((int64_t)ours_count != ref_count)
        r.status = check_failed("find_repeats: count ours %zu, CUB %" PRId64, ours_count, ref_count);
    else
        r.status = check_status(diff_exact(out.p, ref.p, (size_t)ref_count * 8), "find_repeats vs CUB");

    std::vector<Timing> t = time_side_by_side(
        {[&](long i) {
             size_t c;
             GP(gp_find_repeats(g_ctx, GP_INT32, in[i % sets].p, n, out.as<uint64_t>(), &c));
         },
         [&](long i) { (void)cub_if(i, out.as<int64_t>()); },
         [&](long i) { (void)flag_scan_scatter(i, out.as<int64_t>()); }},
        1);

    r.op = "find_repeats";
    r.size = strf("%s %.1f%%rep", pow2_or_dec(n).c_str(), 100.0 * (double)ref_count / (double)m);
    r.bytes = (double)n * 4 + (double)ref_count * 8;
    r.ours = t[0];
    r.anc = t[1];
    r.has_anchor = true;
    r.anchor = "cub::DeviceSelect::If(cnt)";
    r.note = strf("int32 values in [0,%" PRIu64 "); uint64/int64 indices; all include count copy + sync; %d set(s)",
                  range, sets);
    add_row(r);
    r.anc = t[2];
    r.anchor = "flag+cub-scan+scatter";
    add_row(r);
}

static void run_find_repeats()
{
    find_repeats_rows(large_n(), 32); /* ~3.1% repeats */
    find_repeats_rows(large_n(), 2);  /* ~50% repeats */
}

BENCH_GROUP("find_repeats", 50, run_find_repeats, "repeats findrepeats");
