/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_prims - gpuprim's primitives timed side by side with their anchors
 * (cudaMemcpy, CUB, cuBLAS, a naive stencil kernel) in one run.
 *
 * This file: the command line, the run's setup and header, the groups in
 * order, the summary. The method is in harness.cuh and bench/README.md;
 * each primitive's rows are in prims/<primitive>.cu.
 */
#include <cub/version.cuh>

#include "harness.cuh"
#include "report.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>

/* ---- command line --------------------------------------------------------------- */

static std::vector<Group> sorted_groups()
{
    std::vector<Group> g = registered_groups();
    std::sort(g.begin(), g.end(), [](const Group &a, const Group &b) {
        return a.order != b.order ? a.order < b.order : strcmp(a.name, b.name) < 0;
    });
    return g;
}

static std::string group_names()
{
    std::string s;
    for (const Group &g : sorted_groups())
        s += std::string(s.empty() ? "" : " ") + g.name;
    return s;
}

static void usage(const char *argv0)
{
    printf("usage: %s [--csv FILE] [--quick] [--only GROUP[,GROUP...]] [--reps N] [--warmup N] [--device N]\n"
           "  groups: %s\n"
           "  (the copy ceiling row is always measured: it is the frac column's reference)\n",
           argv0, group_names().c_str());
}

/* The registered group that `name` (or one of its aliases) names; '-' reads as '_'. */
static const char *canonical_group(std::string name)
{
    std::replace(name.begin(), name.end(), '-', '_');
    for (const Group &g : registered_groups()) {
        if (name == g.name)
            return g.name;
        std::string aliases = std::string(" ") + g.aliases + " ";
        if (aliases.find(" " + name + " ") != std::string::npos)
            return g.name;
    }
    die("--only: unknown group '%s' (%s)", name.c_str(), group_names().c_str());
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto need = [&]() -> const char * {
            if (i + 1 >= argc)
                die("%s needs a value", a.c_str());
            return argv[++i];
        };
        if (a == "--csv")
            g_opt.csv = need();
        else if (a == "--quick")
            g_opt.quick = true;
        else if (a == "--only") {
            std::string v = need();
            for (size_t p = 0; p <= v.size();) {
                size_t q = std::min(v.find(',', p), v.size());
                if (q > p)
                    g_opt.only.push_back(canonical_group(v.substr(p, q - p)));
                p = q + 1;
            }
        } else if (a == "--reps")
            g_opt.reps = atoi(need());
        else if (a == "--warmup")
            g_opt.warmup = atoi(need());
        else if (a == "--device")
            g_opt.device = atoi(need());
        else if (a == "-h" || a == "--help") {
            usage(argv[0]);
            exit(0);
        } else {
            usage(argv[0]);
            die("unknown argument '%s'", a.c_str());
        }
    }
    if (g_opt.quick) {
        if (g_opt.reps == 30)
            g_opt.reps = 5;
        if (g_opt.warmup == 5)
            g_opt.warmup = 2;
    }
    if (g_opt.reps < 1 || g_opt.warmup < 1)
        die("--reps and --warmup must be >= 1");
}

static bool group_on(const char *name)
{
    return g_opt.only.empty() || std::find(g_opt.only.begin(), g_opt.only.end(), name) != g_opt.only.end();
}

/* ---- the header ------------------------------------------------------------------------- */

#define GP_STR2(x) #x
#define GP_STR(x) GP_STR2(x)
#ifdef __CUDA_ARCH_LIST__
static const char k_arch_list[] = GP_STR(__CUDA_ARCH_LIST__);
#else
static const char k_arch_list[] = "?";
#endif

static void print_device_info()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, g_opt.device));
    int clk = 0, memclk = 0, drv = 0, rt = 0, cublas_ver = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, g_opt.device));
    CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, g_opt.device));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    CKB(cublasGetVersion(g_cublas, &cublas_ver));
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    g_l2_bytes = (size_t)p.l2CacheSize;

    char date[64];
    time_t now = time(nullptr);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
    /* HBM/GDDR: two transfers per memory clock */
    double nominal = 2.0 * (double)memclk * 1e3 * (double)p.memoryBusWidth / 8.0 / 1e9;

    printf("bench_prims  %s\n", date);
    printf("device %d: %s (sm_%d%d), %d SMs, SM clock %.0f MHz (peak attr)\n", g_opt.device, p.name, p.major,
           p.minor, p.multiProcessorCount, clk / 1e3);
    printf("L2 %.1f MiB; memory %.1f GiB (%.1f GiB free), bus %d bit, mem clock %.0f MHz, nominal %.0f GB/s\n",
           p.l2CacheSize / 1048576.0, total_b / 1073741824.0, free_b / 1073741824.0, p.memoryBusWidth, memclk / 1e3,
           nominal);
    printf("driver %d.%d, runtime %d.%d, cuBLAS %d, CUB %d.%d.%d, gpuprim %s (header %s)\n", drv / 1000,
           (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, cublas_ver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
           CUB_SUBMINOR_VERSION, gp_version_string(), GP_VERSION_STRING);
    /* CUB picks its tuning from the PTX version it runs: a bench built for
     * an older architecture than the device's (JIT from PTX) handicaps the
     * CUB anchors. Say what this binary runs. */
    cudaFuncAttributes fa = bench_kernel_attributes();
    printf("bench built for CUDA arch list [%s]; its kernels run PTX %d, binary sm_%d\n", k_arch_list,
           fa.ptxVersion, fa.binaryVersion);
    if (fa.binaryVersion != p.major * 10 + p.minor || fa.ptxVersion < p.major * 10)
        printf("WARNING: this binary was not built for sm_%d%d (configure with -DCMAKE_CUDA_ARCHITECTURES=%d%d): "
               "CUB anchors run JIT code with older tuning policies, and so may the library\n",
               p.major, p.minor, p.major, p.minor);
    printf("method: cudaEvent pairs on one stream; %d warm-up call(s), then the median of %d samples; tiny sizes: a "
           "sample is a batch of back-to-back calls (or one CUDA-graph replay) / batch; inputs random, rotated "
           "among sets covering >= 3x L2 where one set is smaller; each row checked once before timing%s\n",
           g_opt.warmup, g_opt.reps, g_opt.quick ? "; QUICK mode (smaller sizes, fewer reps)" : "");
    printf("GBps = bytes moved (see README) / median time; frac = ours_GBps / copy ceiling; ratio = anchor_ms / "
           "ours_ms (> 1: ours faster)\n\n");
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    set_program_name("bench_prims");
    parse_args(argc, argv);

    int ndev = require_gpus(1);
    if (g_opt.device < 0 || g_opt.device >= ndev)
        die("device %d out of range (%d device(s))", g_opt.device, ndev);
    CK(cudaSetDevice(g_opt.device));
    CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CKB(cublasCreate(&g_cublas));
    CKB(cublasSetStream(g_cublas, g_stream));
    CKB(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST));
    init_checks();

    if (gp_version_number() != GP_VERSION_NUMBER)
        fprintf(stderr, "bench_prims: warning: header version %u, library %u\n", (unsigned)GP_VERSION_NUMBER,
                gp_version_number());
    GP(gp_context_create(&g_ctx, GP_BACKEND_CUDA, g_opt.device));
    GP(gp_context_set_stream(g_ctx, (void *)g_stream));

    print_device_info();
    open_csv(g_opt.csv);

    print_header_line();
    measure_copy_ceiling();
    for (const Group &g : sorted_groups())
        if (group_on(g.name))
            g.run();

    CK(cudaStreamSynchronize(g_stream));
    CK(cudaGetLastError());

    const std::vector<Row> &rows = all_rows();
    int fails = 0;
    for (const Row &r : rows)
        fails += r.status == "FAIL";
    printf("\n==== summary (%zu rows, copy ceiling %.0f GB/s) ====\n", rows.size(), g_copy_gbps);
    print_header_line();
    for (const Row &r : rows)
        print_row(r);
    print_targets(rows);
    commit_csv();
    printf("\n%s; CSV written to %s\n", fails ? "SOME ROWS FAILED THEIR CHECK (status FAIL)" : "all checks passed",
           g_opt.csv.c_str());

    gp_context_destroy(g_ctx);
    CKB(cublasDestroy(g_cublas));
    free_checks();
    CK(cudaStreamDestroy(g_stream));
    return fails ? 1 : 0;
}
