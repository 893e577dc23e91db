/* SPDX-License-Identifier: BSD-3-Clause */
/* compact: gp_compact int32 data with uint8 flags (50% set) against
 * cub::DeviceSelect::Flagged + the count's copy to host + a stream sync. */
#include <cub/device/device_select.cuh>

#include "../harness.cuh"

#include <cinttypes>

static void run_compact()
{
    size_t n = large_n();
    int sets = rotation_sets(n * 9);
    std::vector<DevBuf> in, flags, out;
    for (int k = 0; k < sets; ++k) {
        in.emplace_back(n * 4);
        flags.emplace_back(n);
        out.emplace_back(n * 4);
        fill_i32(in.back().p, n, 0, 0);
        fill_flags(flags.back().p, n, 50);
    }
    DevBuf ref(n * 4), dnum(16);
    HostScalar hnum;
    size_t temp_bytes = 0;
    CK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, in[0].as<int>(), flags[0].as<uint8_t>(), ref.as<int>(),
                                  dnum.as<int64_t>(), (int64_t)n, g_stream));
    DevBuf temp(std::max<size_t>(temp_bytes, 16));

    auto cub_compact = [&](long i, void *dst) -> int64_t {
        int k = (int)(i % sets);
        CK(cub::DeviceSelect::Flagged(temp.p, temp_bytes, in[k].as<int>(), flags[k].as<uint8_t>(), (int *)dst,
                                      dnum.as<int64_t>(), (int64_t)n, g_stream));
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    };

    Row r;
    poison(out[0].p, n * 4);
    size_t ours_count = 0;
    GP(gp_compact(g_ctx, GP_INT32, in[0].p, flags[0].p, GP_UINT8_FLAGS, out[0].p, n, &ours_count));
    int64_t ref_count = cub_compact(0, ref.p);
    if ((int64_t)ours_count != ref_count)
        r.status = check_failed("compact: count ours %zu, CUB %" PRId64, ours_count, ref_count);
    else
        r.status = check_status(diff_exact(out[0].p, ref.p, (size_t)ref_count * 4), "compact vs CUB");

    r.op = "compact";
    r.size = pow2_or_dec(n);
    r.bytes = (double)n * 5 + (double)ref_count * 4;
    time_pair(
        r, "cub::DeviceSelect::Flagged+D2H",
        [&](long i) {
            int k = (int)(i % sets);
            size_t c;
            GP(gp_compact(g_ctx, GP_INT32, in[k].p, flags[k].p, GP_UINT8_FLAGS, out[k].p, n, &c));
        },
        [&](long i) { (void)cub_compact(i, out[i % sets].p); });
    r.note = strf("int32 data, uint8 flags %.1f%% set; both include count copy + sync; %d set(s)",
                  100.0 * (double)ref_count / (double)n, sets);
    add_row(r);
}

BENCH_GROUP("compact", 40, run_compact);
