/* SPDX-License-Identifier: BSD-3-Clause */
/* scan: gp_scan int32 SUM EXCLUSIVE against cub::DeviceScan::ExclusiveSum
 * at each size of the ladder, each beside the copy of the same size; tiny
 * sizes also replayed from a CUDA graph (no launch gaps). */
#include <cub/device/device_scan.cuh>

#include "../harness.cuh"

/* The same calls, ours and CUB's, captured into CUDA graphs of 100 calls:
 * a "graph" row, or a line saying why there is none. */
static void scan_graph_row(const Row &b2b, size_t n, std::vector<DevBuf> &in, std::vector<DevBuf> &out,
                           DevBuf &temp, size_t temp_bytes)
{
    const int sets = (int)in.size(), gbatch = 100;
    Row g = b2b;
    g.variant = "graph";
    g.note = "int32 sum exclusive; CUDA graph of 100 calls, per call";
    std::string why_ours, why_cub;
    bool ok_ours = time_graph(
        [&](long i, std::string *why) {
            int k = (int)(i % sets);
            gp_status s = gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[k].p, out[k].p, n);
            if (s != GP_SUCCESS)
                *why = std::string("gp_scan under capture: ") + gp_status_string(s) + " (" +
                       gp_context_last_error(g_ctx) + ")";
            return s == GP_SUCCESS;
        },
        gbatch, &g.ours, &why_ours);
    bool ok_cub = time_graph(
        [&](long i, std::string *why) {
            int k = (int)(i % sets);
            cudaError_t e = cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[k].as<int>(), out[k].as<int>(),
                                                          (int)n, g_stream);
            if (e != cudaSuccess)
                *why = std::string("CUB under capture: ") + cudaGetErrorString(e);
            return e == cudaSuccess;
        },
        gbatch, &g.anc, &why_cub);
    if (ok_ours && ok_cub) {
        add_row(g);
        printf("  -> scan %zu items: ours %.2f us (graph) / %.2f us (back-to-back); CUB %.2f us (graph) / "
               "%.2f us (back-to-back)\n",
               n, g.ours.med_ms * 1e3, b2b.ours.med_ms * 1e3, g.anc.med_ms * 1e3, b2b.anc.med_ms * 1e3);
    } else {
        printf("  -> scan %zu items: no graph row (%s%s%s); back-to-back: ours %.2f us, CUB %.2f us", n,
               why_ours.c_str(), (!why_ours.empty() && !why_cub.empty()) ? "; " : "", why_cub.c_str(),
               b2b.ours.med_ms * 1e3, b2b.anc.med_ms * 1e3);
        if (ok_cub)
            printf("; CUB graph %.2f us", g.anc.med_ms * 1e3);
        if (ok_ours)
            printf("; ours graph %.2f us", g.ours.med_ms * 1e3);
        printf("\n");
    }
    /* a failed capture may leave the stream unusable only if something is badly wrong: check */
    CK(cudaStreamSynchronize(g_stream));
}

static void scan_rows(size_t n)
{
    size_t bytes = n * 4;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> in, out;
    alloc_in_out(sets, bytes, bytes, &in, &out);
    for (DevBuf &b : in)
        fill_i32(b.p, n, 0, 0); /* full int32 range: sums wrap, exactly */
    DevBuf ref(bytes);
    size_t temp_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in[0].as<int>(), ref.as<int>(), (int)n, g_stream));
    DevBuf temp(std::max<size_t>(temp_bytes, 16));

    Row r;
    poison(out[0].p, bytes);
    GP(gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[0].p, out[0].p, n));
    CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[0].as<int>(), ref.as<int>(), (int)n, g_stream));
    CK(cudaGetLastError());
    r.status = check_status(diff_exact(out[0].p, ref.p, bytes), "scan vs CUB");

    int batch = n <= 1000000 ? 100 : 1;
    r.op = "scan";
    r.size = pow2_or_dec(n);
    r.bytes = 2.0 * bytes;
    time_pair(
        r, "cub::DeviceScan::ExclusiveSum",
        [&](long i) {
            int k = (int)(i % sets);
            GP(gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[k].p, out[k].p, n));
        },
        [&](long i) {
            int k = (int)(i % sets);
            CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[k].as<int>(), out[k].as<int>(), (int)n,
                                             g_stream));
        },
        batch);
    r.note = strf("int32 sum exclusive; %d set(s)%s", sets,
                  batch > 1 ? "; mean of 100 back-to-back launches per sample" : "");
    add_row(r);
    if (n <= 100000)
        scan_graph_row(r, n, in, out, temp, temp_bytes);
}

static void run_scan()
{
    for (size_t n : size_ladder()) {
        copy_reference(n);
        scan_rows(n);
    }
}

BENCH_GROUP("scan", 20, run_scan);
