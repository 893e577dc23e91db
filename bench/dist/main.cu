/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_dist - gpuprim on 1 GPU against p GPUs of one host, same total work
 * (strong scaling), and with the same work per GPU (weak scaling), with
 * NCCL's own all-reduce and all-gather bandwidth measured in the same run as
 * the link ceiling.
 *
 *   bench_dist [--ranks P] [--quick] [--only prims,render,exchange] [--csv FILE]
 *   bench_dist --ranks 1 [--via-id] [--quick] [--csv FILE]
 *
 * --ranks 1 (the default on a machine with one GPU): every distributed call
 * on a communicator of one CUDA rank against the single-context call, with
 * one collective's latency (one_rank.cu); --via-id makes that communicator
 * through a unique id, as separate processes do.
 *
 * One process drives every GPU, one thread per rank (gp_comm_run). A sample
 * is the wall time from a host barrier that all ranks pass to the moment the
 * last rank's stream is idle (each rank synchronizes, then all meet again):
 * what a caller waits for. Warm-up runs first (at least 100 ms: see
 * rank_main); the median of the samples is reported. The 1-GPU rows call
 * the ordinary gp_* functions on one context; the p-GPU rows call gp_dist_*
 * (the renderer: gp_dist_renderer, with and without the 8-bit gather to
 * rank 0); the all-to-all calls (sort, shuffle, group-by, top-k) in
 * exchange.cu, the shuffle beside NCCL's own all-to-all. Every distributed result was checked
 * against the CPU reference by test_dist / test_dist_mp; here a cheap check
 * (the reduce against the 1-GPU reduce, the scan's last element) guards
 * against timing a broken run. Inputs are random (an index hash), never 0.
 * Set NCCL_NVLS_ENABLE=0 on machines whose GPUs others share.
 */
#include <nccl.h>

#include "world.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

/* ---- main ------------------------------------------------------------------------------ */

static void run_primitives(int p, bool quick, bool weak, std::vector<Row> &rows)
{
    const size_t per = quick ? (size_t)1 << 26 : (size_t)1 << 30; /* elements per GPU, weak scaling */
    const size_t total = weak ? per * p : per * 2;                 /* strong: 2^31 (2^27 quick) in all */
    const size_t side = quick ? 8192 : 32768;                      /* Laplacian, strong */
    const size_t lap_rows = weak ? side / 2 * p : side;
    World w1, wp;
    open_world(w1, 1);
    open_world(wp, p);
    struct Case {
        Work work;
        double ideal;
    } cases[] = {{REDUCE, (double)p}, {SCAN, 2.0 * p / 3.0}, {COMPACT, 2.0 * p / 3.0}, {LAPLACIAN, (double)p}};
    for (const Case &c : cases) {
        const bool lap = c.work == LAPLACIAN;
        const size_t es = 4, n_all = lap ? lap_rows : total;
        w1.cols = wp.cols = lap ? side : 0;
        const size_t unit = lap ? side : 1;
        /* the 1-GPU run: all of it (strong), or one GPU's share (weak) */
        const size_t n1 = weak ? n_all / p : n_all;
        alloc_shards(w1, n1 * unit, es, c.work != REDUCE, c.work == COMPACT);
        if (lap) w1.n[0] = n1;
        double t1 = timed(w1, c.work, 10);
        int64_t r1 = w1.result[0];
        /* the strong Laplacian is compared bit for bit with the one-GPU grid */
        std::vector<float> grid1;
        if (lap && !weak) {
            grid1.resize(n1 * side);
            CK(cudaSetDevice(0));
            CK(cudaMemcpy(grid1.data(), w1.out[0], grid1.size() * 4, cudaMemcpyDeviceToHost));
        }
        free_bufs(w1);
        /* p GPUs */
        if (lap) {
            for (int r = 0; r < p; r++) {
                size_t lo = n_all * r / p, hi = n_all * (r + 1) / p;
                CK(cudaSetDevice(r));
                CK(cudaMalloc(&wp.in[r], (hi - lo) * side * 4));
                CK(cudaMalloc(&wp.out[r], (hi - lo) * side * 4));
                fill(wp.in[r], (hi - lo) * side * 4, (uint32_t)(lo * side), FLOATS);
                wp.n[r] = hi - lo;
            }
        } else {
            alloc_shards(wp, n_all, es, c.work != REDUCE, c.work == COMPACT);
        }
        double tp = timed(wp, c.work, 10);
        if (!grid1.empty()) {
            size_t row = 0;
            std::vector<float> part;
            for (int r = 0; r < p; r++) {
                part.resize(wp.n[r] * side);
                CK(cudaSetDevice(r));
                CK(cudaMemcpy(part.data(), wp.out[r], part.size() * 4, cudaMemcpyDeviceToHost));
                if (memcmp(part.data(), grid1.data() + row * side, part.size() * 4) != 0)
                    die("Laplacian: rank %d's rows differ from the one-GPU grid", r);
                row += wp.n[r];
            }
            printf("  (Laplacian on %d GPUs: identical to the one-GPU grid, all %zu rows)\n", p, row);
        }
        if (!weak && ((c.work == COMPACT && wp.result[0] != r1) || (c.work == REDUCE && (int32_t)wp.result[0] != (int32_t)r1)))
            die("%s: %d GPUs gave %lld, one GPU %lld", work_name[c.work], p, (long long)wp.result[0], (long long)r1);
        free_bufs(wp);
        char size[64];
        if (lap) snprintf(size, sizeof size, "%zux%zu", n_all, side);
        else snprintf(size, sizeof size, "2^%d", 63 - __builtin_clzll(n_all));
        rows.push_back({work_name[c.work], size, t1, tp, c.ideal});
        if (weak)
            printf("  %-30s %-12s 1 GPU (1/%d of it) %9.3f ms   %d GPUs %9.3f ms   efficiency %.1f%%\n",
                   work_name[c.work], size, p, t1, p, tp, 100.0 * t1 / tp);
        else
            printf("  %-30s %-12s 1 GPU %9.3f ms   %d GPUs %9.3f ms   speedup %.2fx (bound %.2fx)\n",
                   work_name[c.work], size, t1, p, tp, t1 / tp, c.ideal);
        fflush(stdout);
    }
    close_world(w1);
    close_world(wp);
}

static void run_renderer(int p, bool quick, std::vector<Row> &rows)
{
    const int side = quick ? 2048 : 8192;
    const char *scenes[] = {"rand100k", "rand1M", "biglittle"};
    World w1, wp;
    open_world(w1, 1);
    open_world(wp, p);
    wp.rgb.resize((size_t)side * side * 3);
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&wp.frame, (size_t)side * side * 3));
    for (const char *name : scenes) {
        gp_scene *scene = nullptr;
        gp_ok(gp_scene_create(&scene, name, 0), w1.ctx[0], "scene");
        gp_ok(gp_renderer_create(&w1.single, w1.ctx[0], side, side), w1.ctx[0], "renderer");
        gp_ok(gp_renderer_set_scene(w1.single, scene), w1.ctx[0], "set_scene");
        double t1 = timed(w1, RENDER, 5);
        /* the 1-GPU frame, as 8 bits, is what the gathered frame must equal */
        std::vector<float> rgba((size_t)side * side * 4);
        std::vector<unsigned char> ref((size_t)side * side * 3);
        gp_ok(gp_renderer_read_image(w1.single, rgba.data()), w1.ctx[0], "read");
        gp_image_to_rgb8(rgba.data(), side, side, ref.data());
        gp_renderer_destroy(w1.single);
        w1.single = nullptr;
        for (int r = 0; r < p; r++) {
            gp_ok(gp_dist_renderer_create(&wp.dr[r], wp.comm[r], side, side), wp.ctx[r], "dist renderer");
            gp_ok(gp_dist_renderer_set_scene(wp.dr[r], scene), wp.ctx[r], "dist set_scene");
        }
        double tp = timed(wp, RENDER, 5);
        double tg = timed(wp, RENDER_GATHER, 5);
        CK(cudaSetDevice(0));
        CK(cudaMemcpy(wp.rgb.data(), wp.frame, wp.rgb.size(), cudaMemcpyDeviceToHost));
        bool same = memcmp(wp.rgb.data(), ref.data(), ref.size()) == 0;
        for (int r = 0; r < p; r++) gp_dist_renderer_destroy(wp.dr[r]);
        gp_scene_destroy(scene);
        char size[64];
        snprintf(size, sizeof size, "%s %d^2", name, side);
        rows.push_back({"renderer, slowest band", size, t1, tp, (double)p});
        rows.push_back({"renderer + 8-bit gather on rank 0's GPU", size, t1, tg, (double)p});
        printf("  renderer %-22s 1 GPU %9.3f ms   %d GPUs %9.3f ms (%.2fx), with gather %9.3f ms (%.2fx)   image %s\n",
               size, t1, p, tp, t1 / tp, tg, t1 / tg, same ? "identical to 1 GPU" : "DIFFERS");
        if (!same) die("the gathered %s frame differs from the one-GPU frame", name);
        fflush(stdout);
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(wp.frame));
    close_world(w1);
    close_world(wp);
}

/* The fixed cost of a call: a reduce of nothing (one small all-gather) and a
 * Laplacian of 2 rows a rank (all-gather, halo send/recv, edge rows). */
static void run_latency(int p)
{
    World w;
    open_world(w, p);
    for (int r = 0; r < p; r++) {
        w.n[r] = 0;
        w.in[r] = nullptr;
    }
    double t0 = timed(w, REDUCE, 200);
    w.cols = 32768;
    for (int r = 0; r < p; r++) {
        w.n[r] = 2;
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&w.in[r], 2 * w.cols * 4));
        CK(cudaMalloc(&w.out[r], 2 * w.cols * 4));
        fill(w.in[r], 2 * w.cols * 4, r, FLOATS);
    }
    double t1 = timed(w, LAPLACIAN, 200);
    free_bufs(w);
    close_world(w);
    printf("per-call cost on %d GPUs: gp_dist_reduce of 0 elements %.1f us; gp_dist_laplacian_2d of 2x32768 a rank %.1f us\n",
           p, 1e3 * t0, 1e3 * t1);
    fflush(stdout);
}

static const char kUsage[] = "usage: bench_dist [--ranks P] [--via-id] [--quick] [--only GROUPS] [--csv FILE]\n"
                             "  GROUPS (p GPUs): comma-separated of prims, render, exchange (default: all)";

/* Whether --only (null: every group) names `group`. */
static bool wants(const char *only, const char *group)
{
    if (!only) return true;
    const std::string list = std::string(",") + only + ",";
    return list.find(std::string(",") + group + ",") != std::string::npos;
}

int main(int argc, char **argv)
{
    set_program_name("bench_dist");
    int p = 0;
    bool quick = false, via_id = false;
    const char *csv = nullptr, *only = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ranks") && i + 1 < argc) p = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--via-id")) via_id = true;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("%s\n", kUsage);
            return 0;
        } else die("%s", kUsage);
    }
    const int ndev = require_gpus(1);
    if (p == 0) p = ndev;
    if (p < 1 || p > ndev || p > 8) die("needs 1..8 GPUs (found %d, asked %d)", ndev, p);
    if (via_id && p != 1) die("--via-id goes with --ranks 1");
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int nv = 0;
    ncclGetVersion(&nv);
    printf("bench_dist: %d x %s, NCCL %d, NCCL_NVLS_ENABLE=%s\n", p, prop.name, nv,
           getenv("NCCL_NVLS_ENABLE") ? getenv("NCCL_NVLS_ENABLE") : "(unset)");
    if (p == 1) return run_one_rank(quick, via_id, csv);

    NcclBw bw = nccl_bandwidth(p, quick ? (size_t)1 << 28 : (size_t)1 << 30);
    printf("NCCL ceiling: all-reduce %zu MB %.3f ms, bus bandwidth %.1f GB/s; all-gather %.3f ms, bus bandwidth %.1f GB/s\n",
           (quick ? (size_t)1 << 28 : (size_t)1 << 30) >> 20, bw.allreduce_ms, bw.allreduce_busbw, bw.allgather_ms,
           bw.allgather_busbw);

    run_latency(p);
    std::vector<Row> strong, weak, shuffle;
    if (wants(only, "prims")) {
        printf("strong scaling (same total work):\n");
        run_primitives(p, quick, false, strong);
    }
    if (wants(only, "render")) run_renderer(p, quick, strong);
    if (wants(only, "prims")) {
        printf("weak scaling (same work per GPU):\n");
        run_primitives(p, quick, true, weak);
    }
    if (wants(only, "exchange")) run_exchange(p, quick, strong, weak, shuffle);

    printf("\n| work | size | 1 GPU ms | %d GPUs ms | speedup | bound |\n|---|---|---|---|---|---|\n", p);
    for (const Row &r : strong)
        printf("| %s | %s | %.3f | %.3f | %.2fx | %.2fx |\n", r.work.c_str(), r.size.c_str(), r.t1, r.tp, r.t1 / r.tp,
               r.ideal);
    printf("\n| weak scaling | size on %d GPUs | 1 GPU ms (1/%d of it) | %d GPUs ms | efficiency |\n|---|---|---|---|---|\n",
           p, p, p);
    for (const Row &r : weak)
        printf("| %s | %s | %.3f | %.3f | %.1f%% |\n", r.work.c_str(), r.size.c_str(), r.t1, r.tp,
               100.0 * r.t1 / r.tp);
    if (!shuffle.empty())
        printf("\n| shuffle on %d GPUs | elements in all | NCCL all-to-all ms | gp_dist_shuffle ms | of NCCL |\n"
               "|---|---|---|---|---|\n",
               p);
    for (const Row &r : shuffle)
        printf("| %s | %s | %.3f | %.3f | %.0f%% |\n", r.work.c_str(), r.size.c_str(), r.t1, r.tp, 100.0 * r.t1 / r.tp);
    if (csv) {
        CsvFile f;
        /* shuffle rows: t1 is NCCL's all-to-all of the same bytes */
        f.open(csv, "scaling,work,size,t1_ms,tp_ms,ranks");
        for (const Row &r : strong)
            f.row("strong,%s,%s,%.4f,%.4f,%d\n", csv_field(r.work).c_str(), r.size.c_str(), r.t1, r.tp, p);
        for (const Row &r : weak)
            f.row("weak,%s,%s,%.4f,%.4f,%d\n", csv_field(r.work).c_str(), r.size.c_str(), r.t1, r.tp, p);
        for (const Row &r : shuffle)
            f.row("shuffle_vs_nccl,%s,%s,%.4f,%.4f,%d\n", csv_field(r.work).c_str(), r.size.c_str(), r.t1, r.tp, p);
        f.commit();
    }
    return 0;
}
