/*
 * bench_prims - gpuprim's primitives timed side by side with their anchors
 * (cudaMemcpy, CUB, cuBLAS, a naive stencil kernel) in one run.
 *
 * Method (see bench/README.md):
 *   - one non-blocking stream; the gp_context runs on it (GP_BACKEND_CUDA);
 *   - inputs are random (a hash of the index, never all zeros), filled on the
 *     device;
 *   - every row is verified once (ours against the anchor, exact for integers
 *     and transposes, a tolerance for the float stencil) before it is timed;
 *     our output is poisoned first so that unwritten elements show; a row
 *     whose check fails is marked FAIL;
 *   - ours and its anchor timed side by side (samples alternate; see
 *     time_side_by_side for why);
 *   - warm-up calls, then the MEDIAN of the timed samples; each sample is a
 *     cudaEvent pair around the region on the stream (for tiny sizes, around
 *     a batch of back-to-back calls or one CUDA-graph replay of a batch,
 *     divided by the batch size);
 *   - where one input set would sit in L2, the calls rotate among enough
 *     input/output sets to cover several times the L2 size.
 *
 * Any CUDA/cuBLAS error or gp_status other than GP_SUCCESS aborts the run
 * with a message (this is a benchmark, not the library).
 */
#include <cuda_runtime.h>
#include <cublas_v2.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/version.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "gpuprim/gpuprim.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

/* ---- error handling ------------------------------------------------------ */

static gp_context *g_ctx = nullptr;

[[noreturn]] static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "bench_prims: FATAL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess)
        die("%s:%d: %s -> %s (%s)", file, line, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static void check_cublas(cublasStatus_t s, const char *what, const char *file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        die("%s:%d: %s -> cuBLAS status %d (%s)", file, line, what, (int)s, cublasGetStatusString(s));
}

static void check_gp(gp_status s, const char *what, const char *file, int line)
{
    if (s != GP_SUCCESS)
        die("%s:%d: %s -> gp_status %d (%s); context says: \"%s\"", file, line, what, (int)s,
            gp_status_string(s), gp_context_last_error(g_ctx));
}

#define CK(call) check_cuda((call), #call, __FILE__, __LINE__)
#define CKB(call) check_cublas((call), #call, __FILE__, __LINE__)
#define GP(call) check_gp((call), #call, __FILE__, __LINE__)
#define CK_LAUNCH() check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* ---- options and globals ----------------------------------------------------- */

struct Options {
    std::string csv = "bench_prims.csv";
    std::vector<std::string> only; /* empty: all groups */
    bool quick = false;
    int device = 0;
    int reps = 30;
    int warmup = 5;
};

static Options g_opt;
static cudaStream_t g_stream = nullptr;
static cublasHandle_t g_cublas = nullptr;
static size_t g_l2_bytes = 0;
static double g_copy_gbps = 0.0; /* the 2^28 (quick: 2^24) copy ceiling */
static FILE *g_csv = nullptr;

static const char *const k_groups[] = {"copy", "scan", "reduce", "compact", "find_repeats", "transpose",
                                       "stencil", "sort"};

static bool group_on(const char *name)
{
    if (g_opt.only.empty())
        return true;
    for (const std::string &s : g_opt.only)
        if (s == name)
            return true;
    return false;
}

/* ---- device buffers -------------------------------------------------------------- */

struct DevBuf {
    void *p = nullptr;
    size_t bytes = 0;
    DevBuf() = default;
    explicit DevBuf(size_t b) { alloc(b); }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
    DevBuf(DevBuf &&o) noexcept : p(o.p), bytes(o.bytes) { o.p = nullptr; o.bytes = 0; }
    void alloc(size_t b)
    {
        release();
        bytes = b;
        if (b)
            CK(cudaMalloc(&p, b));
    }
    void release()
    {
        if (p)
            CK(cudaFree(p));
        p = nullptr;
        bytes = 0;
    }
    ~DevBuf() { release(); }
    template <class T> T *as() const { return static_cast<T *>(p); }
};

/* Pinned host scalar for results copied back from the anchors. */
struct HostScalar {
    void *p = nullptr;
    HostScalar() { CK(cudaMallocHost(&p, 64)); }
    ~HostScalar() { CK(cudaFreeHost(p)); }
    template <class T> T *as() const { return static_cast<T *>(p); }
};

/* ---- random fills (hash of the index; never all zeros) -------------------- */

__device__ __forceinline__ uint64_t mix64(uint64_t x)
{
    /* splitmix64 finaliser */
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* v = lo + hash % range (range 0 means the full 2^32 range) */
__global__ void k_fill_i32(int32_t *p, size_t n, uint64_t seed, int64_t lo, uint64_t range)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = range ? (int32_t)(lo + (int64_t)(h % range)) : (int32_t)(uint32_t)h;
    }
}

/* flags: non-zero (1..255, varied) with probability percent/100 */
__global__ void k_fill_flags_u8(uint8_t *p, size_t n, uint64_t seed, unsigned percent)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = ((h & 0xFFFFFFFFu) % 100u < percent) ? (uint8_t)(1u + (h >> 32) % 255u) : (uint8_t)0;
    }
}

/* uniform in [-1, 1), no denormals */
__global__ void k_fill_f32(float *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = (float)(h >> 40) * (1.0f / 8388608.0f) - 1.0f;
    }
}

__global__ void k_fill_f64(double *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = (double)(h >> 11) * (1.0 / 4503599627370496.0) - 1.0;
    }
}

static uint64_t g_seed = 20261122;

static unsigned fill_blocks(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)std::min<size_t>(std::max<size_t>(b, 1), 65536);
}

static void fill_i32(void *p, size_t n, int64_t lo, uint64_t range)
{
    k_fill_i32<<<fill_blocks(n), 256, 0, g_stream>>>((int32_t *)p, n, ++g_seed, lo, range);
    CK_LAUNCH();
}
static void fill_flags(void *p, size_t n, unsigned percent)
{
    k_fill_flags_u8<<<fill_blocks(n), 256, 0, g_stream>>>((uint8_t *)p, n, ++g_seed, percent);
    CK_LAUNCH();
}
static void fill_f32(void *p, size_t n)
{
    k_fill_f32<<<fill_blocks(n), 256, 0, g_stream>>>((float *)p, n, ++g_seed);
    CK_LAUNCH();
}
static void fill_f64(void *p, size_t n)
{
    k_fill_f64<<<fill_blocks(n), 256, 0, g_stream>>>((double *)p, n, ++g_seed);
    CK_LAUNCH();
}

static void poison(void *p, size_t bytes)
{
    CK(cudaMemsetAsync(p, 0xA5, bytes, g_stream));
}

/* ---- verification ------------------------------------------------------------------ */

struct DiffCount {
    unsigned long long count;
    unsigned long long first;
};

__global__ void k_diff_words(const uint32_t *a, const uint32_t *b, size_t nwords, DiffCount *out)
{
    unsigned long long local = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nwords; i += (size_t)gridDim.x * blockDim.x)
        if (a[i] != b[i]) {
            if (!local)
                first = i;
            ++local;
        }
    if (local) {
        atomicAdd(&out->count, local);
        atomicMin(&out->first, first);
    }
}

/* |a-b| <= tol * (1 + |b|); NaN never passes */
__global__ void k_diff_f32_tol(const float *a, const float *b, size_t n, float tol, DiffCount *out)
{
    unsigned long long local = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (!(fabsf(a[i] - b[i]) <= tol * (1.0f + fabsf(b[i])))) {
            if (!local)
                first = i;
            ++local;
        }
    if (local) {
        atomicAdd(&out->count, local);
        atomicMin(&out->first, first);
    }
}

static DiffCount *g_diff_dev = nullptr;
static DiffCount *g_diff_host = nullptr;

static void diff_reset()
{
    DiffCount z = {0, ~0ull};
    CK(cudaMemcpyAsync(g_diff_dev, &z, sizeof z, cudaMemcpyHostToDevice, g_stream));
}

static DiffCount diff_fetch()
{
    CK(cudaMemcpyAsync(g_diff_host, g_diff_dev, sizeof(DiffCount), cudaMemcpyDeviceToHost, g_stream));
    CK(cudaStreamSynchronize(g_stream));
    return *g_diff_host;
}

/* Bitwise comparison of `bytes` bytes (a multiple of 4). */
static DiffCount diff_exact(const void *a, const void *b, size_t bytes)
{
    if (bytes % 4)
        die("diff_exact: %zu bytes is not a multiple of 4", bytes);
    diff_reset();
    size_t nw = bytes / 4;
    if (nw) {
        k_diff_words<<<fill_blocks(nw), 256, 0, g_stream>>>((const uint32_t *)a, (const uint32_t *)b, nw, g_diff_dev);
        CK_LAUNCH();
    }
    return diff_fetch();
}

static DiffCount diff_f32(const float *a, const float *b, size_t n, float tol)
{
    diff_reset();
    if (n) {
        k_diff_f32_tol<<<fill_blocks(n), 256, 0, g_stream>>>(a, b, n, tol, g_diff_dev);
        CK_LAUNCH();
    }
    return diff_fetch();
}

/* ---- timing ---------------------------------------------------------------------- */

struct Timing {
    double med_ms = 0, min_ms = 0;
    int samples = 0;
    int batch = 1;
};

static cudaEvent_t g_ev0, g_ev1;

static double median_of(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/* Each f(i) enqueues (or, for host-returning primitives, runs) one call on
 * the stream; i counts that caller's calls, for rotating buffers. A sample is
 * the event time around `batch` consecutive calls, divided by batch.
 *
 * The callers are timed side by side: warm-up calls for each, then one
 * sample of each in turn (A B A B ...), so that ours and its anchor see the
 * same conditions; and warm-up lasts at least kSettleMs as well as
 * g_opt.warmup calls. Right after large cudaFree calls (the previous row's
 * or group's buffers) every kernel and cudaMemcpy runs ~11% slower for
 * 10-20 ms (H200, bench/RESULTS.md, eleventh session); timing ours first
 * and the anchor after put that window on ours alone. */
static const double kSettleMs = 40.0;

static double host_ms()
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static std::vector<Timing> time_side_by_side(const std::vector<std::function<void(long)>> &fs, int batch)
{
    std::vector<long> it(fs.size(), 0);
    const int per_warmup = batch > 1 ? std::max(1, batch / 4) : 1;
    const double t0 = host_ms();
    for (int w = 0; w < g_opt.warmup || host_ms() - t0 < kSettleMs; ++w) {
        for (size_t k = 0; k < fs.size(); ++k)
            for (int b = 0; b < per_warmup; ++b)
                fs[k](it[k]++);
        CK(cudaStreamSynchronize(g_stream));
    }
    std::vector<std::vector<double>> s(fs.size());
    for (int r = 0; r < g_opt.reps; ++r)
        for (size_t k = 0; k < fs.size(); ++k) {
            CK(cudaEventRecord(g_ev0, g_stream));
            for (int b = 0; b < batch; ++b)
                fs[k](it[k]++);
            CK(cudaEventRecord(g_ev1, g_stream));
            CK(cudaEventSynchronize(g_ev1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, g_ev0, g_ev1));
            s[k].push_back((double)ms / batch);
        }
    std::vector<Timing> out(fs.size());
    for (size_t k = 0; k < fs.size(); ++k) {
        out[k].med_ms = median_of(s[k]);
        out[k].min_ms = *std::min_element(s[k].begin(), s[k].end());
        out[k].samples = (int)s[k].size();
        out[k].batch = batch;
    }
    return out;
}

static Timing time_calls(const std::function<void(long)> &f, int batch)
{
    return time_side_by_side({f}, batch)[0];
}

/* Ours and its anchor, side by side. */
static void time_pair(const std::function<void(long)> &ours, const std::function<void(long)> &anchor, int batch,
                      Timing *t_ours, Timing *t_anchor)
{
    std::vector<Timing> t = time_side_by_side({ours, anchor}, batch);
    *t_ours = t[0];
    *t_anchor = t[1];
}

/* Capture `batch` calls into a CUDA graph and time its replays. f returns
 * false (and a reason) when a call cannot be captured; then no graph row is
 * produced and *why says why. */
static bool time_graph(const std::function<bool(long, std::string *)> &f, int batch, Timing *out, std::string *why)
{
    CK(cudaStreamSynchronize(g_stream));
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeRelaxed);
    if (e != cudaSuccess) {
        *why = std::string("cudaStreamBeginCapture: ") + cudaGetErrorString(e);
        (void)cudaGetLastError();
        return false;
    }
    bool ok = true;
    for (int b = 0; b < batch && ok; ++b)
        ok = f(b, why);
    e = cudaStreamEndCapture(g_stream, &graph);
    if (ok && e != cudaSuccess) {
        ok = false;
        *why = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(e);
    }
    (void)cudaGetLastError();
    cudaGraphExec_t exec = nullptr;
    if (ok) {
        e = cudaGraphInstantiate(&exec, graph, 0);
        if (e != cudaSuccess) {
            ok = false;
            *why = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(e);
            (void)cudaGetLastError();
        }
    }
    if (graph)
        CK(cudaGraphDestroy(graph));
    if (!ok)
        return false;
    *out = time_calls([&](long) { CK(cudaGraphLaunch(exec, g_stream)); }, 1);
    out->med_ms /= batch;
    out->min_ms /= batch;
    out->batch = batch;
    CK(cudaGraphExecDestroy(exec));
    return true;
}

/* Number of input/output sets to rotate among so that consecutive calls do
 * not find their data in L2: enough sets to cover 3x the L2 size. */
static int rotation_sets(size_t bytes_per_set)
{
    size_t want = 3 * g_l2_bytes;
    size_t k = (want + bytes_per_set - 1) / std::max<size_t>(bytes_per_set, 1);
    return (int)std::min<size_t>(std::max<size_t>(k, 1), 64);
}

/* ---- results ------------------------------------------------------------------------ */

struct Row {
    std::string op, size;
    double bytes = 0;
    Timing ours;
    std::string anchor; /* "-" when none */
    Timing anc;
    bool has_anchor = false;
    std::string status; /* OK or FAIL */
    std::string note;
    std::string variant; /* "graph" for the CUDA-graph row; matched by the target summary */
};

static std::vector<Row> g_rows;

static double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

static std::string csv_field(std::string s)
{
    for (char &c : s)
        if (c == ',' || c == '\n' || c == '"')
            c = ';';
    return s;
}

static void print_header_line()
{
    printf("%-13s %-20s %10s %9s %6s  %-28s %10s %9s %7s %-4s  %s\n", "op", "size", "ours_ms", "ours_GBps", "frac",
           "anchor_name", "anchor_ms", "anch_GBps", "ratio", "chk", "note");
}

static void print_row(const Row &r)
{
    double og = gbps(r.bytes, r.ours.med_ms);
    char anc_ms[32] = "-", anc_g[32] = "-", ratio[32] = "-";
    if (r.has_anchor) {
        snprintf(anc_ms, sizeof anc_ms, "%.4g", r.anc.med_ms);
        snprintf(anc_g, sizeof anc_g, "%.0f", gbps(r.bytes, r.anc.med_ms));
        snprintf(ratio, sizeof ratio, "%.3f", r.anc.med_ms / r.ours.med_ms);
    }
    printf("%-13s %-20s %10.4g %9.0f %6.3f  %-28s %10s %9s %7s %-4s  %s\n", r.op.c_str(), r.size.c_str(),
           r.ours.med_ms, og, g_copy_gbps > 0 ? og / g_copy_gbps : 0.0, r.anchor.c_str(), anc_ms, anc_g, ratio,
           r.status.c_str(), r.note.c_str());
    fflush(stdout);
}

static void add_row(const Row &r)
{
    g_rows.push_back(r);
    print_row(r);
    double og = gbps(r.bytes, r.ours.med_ms);
    fprintf(g_csv, "%s,%s,%.6g,%.6g,%.4f,%s,", csv_field(r.op).c_str(), csv_field(r.size).c_str(), r.ours.med_ms, og,
            g_copy_gbps > 0 ? og / g_copy_gbps : 0.0, csv_field(r.anchor).c_str());
    if (r.has_anchor)
        fprintf(g_csv, "%.6g,%.6g,%.4f,", r.anc.med_ms, gbps(r.bytes, r.anc.med_ms), r.anc.med_ms / r.ours.med_ms);
    else
        fprintf(g_csv, ",,,");
    fprintf(g_csv, "%s,%.0f,%.6g,", r.status.c_str(), r.bytes, r.ours.min_ms);
    if (r.has_anchor)
        fprintf(g_csv, "%.6g,", r.anc.min_ms);
    else
        fprintf(g_csv, ",");
    fprintf(g_csv, "%d,%d,%s\n", r.ours.samples, r.ours.batch, csv_field(r.note).c_str());
    fflush(g_csv);
}

static std::string pow2_or_dec(size_t n)
{
    char buf[64];
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((size_t(1) << k) < n)
            ++k;
        snprintf(buf, sizeof buf, "2^%d", k);
    } else if (n == 1000000) {
        snprintf(buf, sizeof buf, "1e6");
    } else {
        snprintf(buf, sizeof buf, "%zu", n);
    }
    return buf;
}

static std::string check_status(const DiffCount &d, const char *what)
{
    if (d.count == 0)
        return "OK";
    fprintf(stderr, "bench_prims: CHECK FAILED: %s: %llu mismatching words, first at word %llu\n", what, d.count,
            d.first);
    return "FAIL";
}

/* ---- copy ---------------------------------------------------------------------------- */

/* Device-to-device copy of n int32, rotating among sets; bytes = 2*n*4. */
static Row bench_copy(size_t n, const char *note_extra)
{
    size_t bytes = n * 4;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> src, dst;
    for (int k = 0; k < sets; ++k) {
        src.emplace_back(bytes);
        dst.emplace_back(bytes);
        fill_i32(src.back().p, n, 0, 0);
    }
    int batch = n <= 1000000 ? 100 : 1;
    Row r;
    r.op = "copy";
    r.size = pow2_or_dec(n);
    r.bytes = 2.0 * bytes;
    r.ours = time_calls(
        [&](long i) {
            int k = (int)(i % sets);
            CK(cudaMemcpyAsync(dst[k].p, src[k].p, bytes, cudaMemcpyDeviceToDevice, g_stream));
        },
        batch);
    r.anchor = "-";
    /* the copy is its own reference: check it anyway */
    DiffCount d = diff_exact(dst[0].p, src[0].p, bytes);
    r.status = check_status(d, "copy");
    char note[160];
    snprintf(note, sizeof note, "cudaMemcpyAsync D2D; %d set(s)%s%s", sets,
             batch > 1 ? "; mean of 100 back-to-back per sample" : "", note_extra);
    r.note = note;
    return r;
}

static void group_copy_ceiling()
{
    size_t n = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
    /* the scan group skips its copy row at this size */
    Row r = bench_copy(n, "; the ceiling (frac column)");
    g_copy_gbps = gbps(r.bytes, r.ours.med_ms);
    add_row(r);
}

/* ---- scan ---------------------------------------------------------------------------- */

/* The copy at each scan size, then (when the scan group is on) the scans. */
static void group_scan()
{
    std::vector<size_t> sizes = g_opt.quick ? std::vector<size_t>{10000, 1000000, size_t(1) << 22}
                                            : std::vector<size_t>{10000, 1000000, size_t(1) << 24, size_t(1) << 28};
    size_t ceiling_n = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
    for (size_t n : sizes) {
        /* the copy at this size, for reference (the ceiling row already has its size) */
        if (n != ceiling_n)
            add_row(bench_copy(n, ""));
        if (!group_on("scan"))
            continue;

        size_t bytes = n * 4;
        int sets = rotation_sets(2 * bytes);
        std::vector<DevBuf> in, out;
        for (int k = 0; k < sets; ++k) {
            in.emplace_back(bytes);
            out.emplace_back(bytes);
            fill_i32(in.back().p, n, 0, 0); /* full int32 range: sums wrap, exactly */
        }
        DevBuf ref(bytes);
        size_t temp_bytes = 0;
        CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in[0].as<int>(), ref.as<int>(), (int)n, g_stream));
        DevBuf temp(std::max<size_t>(temp_bytes, 16));

        /* check */
        poison(out[0].p, bytes);
        GP(gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[0].p, out[0].p, n));
        CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[0].as<int>(), ref.as<int>(), (int)n, g_stream));
        CK(cudaGetLastError());
        std::string st = check_status(diff_exact(out[0].p, ref.p, bytes), "scan vs CUB");

        auto ours = [&](long i) {
            int k = (int)(i % sets);
            GP(gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[k].p, out[k].p, n));
        };
        auto cub_scan = [&](long i) {
            int k = (int)(i % sets);
            CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[k].as<int>(), out[k].as<int>(), (int)n,
                                             g_stream));
        };
        int batch = n <= 1000000 ? 100 : 1;
        Row r;
        r.op = "scan";
        r.size = pow2_or_dec(n);
        r.bytes = 2.0 * bytes;
        time_pair(ours, cub_scan, batch, &r.ours, &r.anc);
        r.has_anchor = true;
        r.anchor = "cub::DeviceScan::ExclusiveSum";
        r.status = st;
        char note[160];
        snprintf(note, sizeof note, "int32 sum exclusive; %d set(s)%s", sets,
                 batch > 1 ? "; mean of 100 back-to-back launches per sample" : "");
        r.note = note;
        add_row(r);
        Row b2b = r;

        if (n <= 100000) {
            /* the same calls replayed from a CUDA graph (no launch gaps) */
            const int gbatch = 100;
            Row g = r;
            g.variant = "graph";
            g.note = "int32 sum exclusive; CUDA graph of 100 calls, per call";
            std::string why_ours, why_cub;
            bool ok_ours = time_graph(
                [&](long i, std::string *why) {
                    int k = (int)(i % sets);
                    gp_status s = gp_scan(g_ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in[k].p, out[k].p, n);
                    if (s != GP_SUCCESS) {
                        *why = std::string("gp_scan under capture: ") + gp_status_string(s) + " (" +
                               gp_context_last_error(g_ctx) + ")";
                        return false;
                    }
                    return true;
                },
                gbatch, &g.ours, &why_ours);
            bool ok_cub = time_graph(
                [&](long i, std::string *why) {
                    int k = (int)(i % sets);
                    cudaError_t e = cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, in[k].as<int>(),
                                                                  out[k].as<int>(), (int)n, g_stream);
                    if (e != cudaSuccess) {
                        *why = std::string("CUB under capture: ") + cudaGetErrorString(e);
                        return false;
                    }
                    return true;
                },
                gbatch, &g.anc, &why_cub);
            if (ok_ours && ok_cub) {
                add_row(g);
                printf("  -> scan %zu items: ours %.2f us (graph) / %.2f us (back-to-back); CUB %.2f us (graph) / "
                       "%.2f us (back-to-back); target <= 8 us\n",
                       n, g.ours.med_ms * 1e3, b2b.ours.med_ms * 1e3, g.anc.med_ms * 1e3, b2b.anc.med_ms * 1e3);
            } else {
                printf("  -> scan %zu items: no graph row (%s%s%s); back-to-back: ours %.2f us, CUB %.2f us",
                       n, why_ours.c_str(), (!why_ours.empty() && !why_cub.empty()) ? "; " : "", why_cub.c_str(),
                       b2b.ours.med_ms * 1e3, b2b.anc.med_ms * 1e3);
                if (ok_cub)
                    printf("; CUB graph %.2f us", g.anc.med_ms * 1e3);
                if (ok_ours)
                    printf("; ours graph %.2f us", g.ours.med_ms * 1e3);
                printf("; target <= 8 us\n");
            }
            /* a failed capture may leave the stream unusable only if something is badly wrong: check */
            CK(cudaStreamSynchronize(g_stream));
        }
    }
}

/* ---- reduce ---------------------------------------------------------------------------- */

/* CUB's sum of set i % sets to host: the reduce rows' anchor (the result
 * copy and the synchronization included, as gp_reduce does them). */
template <typename T>
struct CubSumToHost {
    const std::vector<DevBuf> &in;
    size_t n;
    DevBuf dres{16}, temp;
    HostScalar hres;
    size_t temp_bytes = 0;
    CubSumToHost(const std::vector<DevBuf> &in_, size_t n_) : in(in_), n(n_)
    {
        CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in[0].as<T>(), dres.as<T>(), (int)n, g_stream));
        temp.alloc(std::max<size_t>(temp_bytes, 16));
    }
    T operator()(long i)
    {
        const int k = (int)(i % (long)in.size());
        CK(cub::DeviceReduce::Sum(temp.p, temp_bytes, in[k].as<T>(), dres.as<T>(), (int)n, g_stream));
        CK(cudaMemcpyAsync(hres.p, dres.p, sizeof(T), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hres.as<T>();
    }
};

/* One reduce row: gp_reduce (SUM of dtype d, to host) against cub_sum, both
 * over the rotated sets. */
template <typename T>
static void add_reduce_row(gp_dtype d, const std::vector<DevBuf> &in, size_t n, CubSumToHost<T> &cub_sum,
                           const char *variant, const std::string &status, const std::string &note)
{
    const long sets = (long)in.size();
    Row r;
    r.op = "reduce";
    r.variant = variant;
    r.size = pow2_or_dec(n);
    r.bytes = (double)(n * sizeof(T));
    time_pair(
        [&](long i) {
            T v;
            GP(gp_reduce(g_ctx, d, GP_OP_SUM, in[i % sets].p, n, &v));
        },
        [&](long i) { (void)cub_sum(i); }, 1, &r.ours, &r.anc);
    r.has_anchor = true;
    r.anchor = "cub::DeviceReduce::Sum+D2H";
    r.status = status;
    r.note = note;
    add_row(r);
}

static void group_reduce()
{
    size_t n = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
    size_t bytes = n * 4;
    int sets = rotation_sets(bytes);
    std::vector<DevBuf> in;
    for (int k = 0; k < sets; ++k) {
        in.emplace_back(bytes);
        fill_i32(in.back().p, n, 0, 0);
    }

    CubSumToHost<int32_t> cub_isum(in, n);
    int32_t ours_v = 0x5A5A5A5A;
    GP(gp_reduce(g_ctx, GP_INT32, GP_OP_SUM, in[0].p, n, &ours_v));
    int32_t ref_v = cub_isum(0);
    std::string st = "OK";
    if (ours_v != ref_v) {
        fprintf(stderr, "bench_prims: CHECK FAILED: reduce: ours %" PRId32 ", CUB %" PRId32 "\n", ours_v, ref_v);
        st = "FAIL";
    }
    char note[200];
    snprintf(note, sizeof note,
             "int32 sum to host; both sides include result copy + stream sync; %d set(s)", sets);
    add_reduce_row<int32_t>(GP_INT32, in, n, cub_isum, "", st, note);

    /* float32 sums: ours adds in the documented fixed tree (scalar loads,
     * the same bits at any address); CUB in its own order. The check: the
     * two agree to rounding, and ours gives the same bits for the same
     * values one element past a 16-byte boundary. */
    for (int k = 0; k < sets; ++k) fill_f32(in[k].p, n);
    DevBuf shifted(bytes + 16);
    CK(cudaMemcpyAsync((char *)shifted.p + 4, in[0].p, bytes, cudaMemcpyDeviceToDevice, g_stream));
    CubSumToHost<float> cub_fsum(in, n);
    float f_ours = 0, f_shift = 1, f_cub = cub_fsum(0);
    GP(gp_reduce(g_ctx, GP_FLOAT32, GP_OP_SUM, in[0].p, n, &f_ours));
    GP(gp_reduce(g_ctx, GP_FLOAT32, GP_OP_SUM, (char *)shifted.p + 4, n, &f_shift));
    st = "OK";
    if (memcmp(&f_ours, &f_shift, 4) != 0 || !(fabs((double)f_ours - f_cub) <= 1e-3 * (fabs((double)f_cub) + n))) {
        fprintf(stderr, "bench_prims: CHECK FAILED: float sum: ours %.9g (shifted %.9g), CUB %.9g\n", f_ours, f_shift,
                f_cub);
        st = "FAIL";
    }
    add_reduce_row<float>(GP_FLOAT32, in, n, cub_fsum, "float32", st,
                          "float32 sum to host: ours the fixed tree (same bits at any address), CUB vectorized");
}

/* ---- compact ---------------------------------------------------------------------------- */

static void group_compact()
{
    size_t n = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
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

    poison(out[0].p, n * 4);
    size_t ours_count = 0;
    GP(gp_compact(g_ctx, GP_INT32, in[0].p, flags[0].p, GP_UINT8_FLAGS, out[0].p, n, &ours_count));
    int64_t ref_count = cub_compact(0, ref.p);
    std::string st = "OK";
    if ((int64_t)ours_count != ref_count) {
        fprintf(stderr, "bench_prims: CHECK FAILED: compact: count ours %zu, CUB %" PRId64 "\n", ours_count,
                ref_count);
        st = "FAIL";
    } else {
        st = check_status(diff_exact(out[0].p, ref.p, (size_t)ref_count * 4), "compact vs CUB");
    }

    Row r;
    r.op = "compact";
    r.size = pow2_or_dec(n);
    r.bytes = (double)n * 5 + (double)ref_count * 4;
    time_pair(
        [&](long i) {
            int k = (int)(i % sets);
            size_t c;
            GP(gp_compact(g_ctx, GP_INT32, in[k].p, flags[k].p, GP_UINT8_FLAGS, out[k].p, n, &c));
        },
        [&](long i) { (void)cub_compact(i, out[i % sets].p); }, 1, &r.ours, &r.anc);
    r.has_anchor = true;
    r.anchor = "cub::DeviceSelect::Flagged+D2H";
    r.status = st;
    char note[200];
    snprintf(note, sizeof note, "int32 data, uint8 flags %.1f%% set; both include count copy + sync; %d set(s)",
             100.0 * (double)ref_count / (double)n, sets);
    r.note = note;
    add_row(r);
}

/* ---- find-repeats ------------------------------------------------------------------------ */

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

static void bench_find_repeats(size_t n, uint64_t range)
{
    size_t m = n - 1; /* candidate positions */
    int sets = rotation_sets(n * 4);
    std::vector<DevBuf> in;
    for (int k = 0; k < sets; ++k) {
        in.emplace_back(n * 4);
        fill_i32(in.back().p, n, 0, range);
    }
    DevBuf out(n * 8), ref(n * 8), base(n * 8), dnum(16), fl(m * 4), pos(m * 4);
    HostScalar hnum;

    size_t temp_if = 0, temp_scan = 0;
    thrust::counting_iterator<int64_t> idx(0);
    CK(cub::DeviceSelect::If(nullptr, temp_if, idx, ref.as<int64_t>(), dnum.as<int64_t>(), (int64_t)m,
                             RepeatPred{in[0].as<int32_t>()}, g_stream));
    CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_scan, fl.as<int32_t>(), pos.as<int32_t>(), (int)m, g_stream));
    DevBuf temp(std::max<size_t>(std::max(temp_if, temp_scan), 16));

    auto cub_if = [&](long i, int64_t *dst) -> int64_t {
        int k = (int)(i % sets);
        CK(cub::DeviceSelect::If(temp.p, temp_if, idx, dst, dnum.as<int64_t>(), (int64_t)m,
                                 RepeatPred{in[k].as<int32_t>()}, g_stream));
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    };
    auto flag_scan_scatter = [&](long i, int64_t *dst) -> int64_t {
        int k = (int)(i % sets);
        k_repeat_flags<<<fill_blocks(m), 256, 0, g_stream>>>(in[k].as<int32_t>(), fl.as<int32_t>(), m);
        CK_LAUNCH();
        CK(cub::DeviceScan::ExclusiveSum(temp.p, temp_scan, fl.as<int32_t>(), pos.as<int32_t>(), (int)m, g_stream));
        k_repeat_scatter<<<fill_blocks(m), 256, 0, g_stream>>>(fl.as<int32_t>(), pos.as<int32_t>(), dst, m,
                                                                dnum.as<int64_t>());
        CK_LAUNCH();
        CK(cudaMemcpyAsync(hnum.p, dnum.p, sizeof(int64_t), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        return *hnum.as<int64_t>();
    };

    /* check: ours and the flag+scan+scatter baseline against CUB Select::If */
    poison(out.p, n * 8);
    size_t ours_count = 0;
    GP(gp_find_repeats(g_ctx, GP_INT32, in[0].p, n, out.as<uint64_t>(), &ours_count));
    int64_t ref_count = cub_if(0, ref.as<int64_t>());
    int64_t base_count = flag_scan_scatter(0, base.as<int64_t>());
    if (base_count != ref_count || diff_exact(base.p, ref.p, (size_t)ref_count * 8).count)
        die("find-repeats: the bench's flag+scan+scatter baseline disagrees with CUB (a bench bug)");
    std::string st = "OK";
    if ((int64_t)ours_count != ref_count) {
        fprintf(stderr, "bench_prims: CHECK FAILED: find_repeats: count ours %zu, CUB %" PRId64 "\n", ours_count,
                ref_count);
        st = "FAIL";
    } else {
        st = check_status(diff_exact(out.p, ref.p, (size_t)ref_count * 8), "find_repeats vs CUB");
    }

    std::vector<Timing> t = time_side_by_side(
        {[&](long i) {
             size_t c;
             GP(gp_find_repeats(g_ctx, GP_INT32, in[i % sets].p, n, out.as<uint64_t>(), &c));
         },
         [&](long i) { (void)cub_if(i, out.as<int64_t>()); },
         [&](long i) { (void)flag_scan_scatter(i, out.as<int64_t>()); }},
        1);
    const Timing &t_ours = t[0], &t_if = t[1], &t_fss = t[2];

    double frac = 100.0 * (double)ref_count / (double)m;
    char size[64], note[200];
    snprintf(size, sizeof size, "%s %.1f%%rep", pow2_or_dec(n).c_str(), frac);
    snprintf(note, sizeof note,
             "int32 values in [0,%" PRIu64 "); uint64/int64 indices; all include count copy + sync; %d set(s)", range,
             sets);
    Row r;
    r.op = "find_repeats";
    r.size = size;
    r.bytes = (double)n * 4 + (double)ref_count * 8;
    r.ours = t_ours;
    r.anc = t_if;
    r.has_anchor = true;
    r.anchor = "cub::DeviceSelect::If(cnt)";
    r.status = st;
    r.note = note;
    add_row(r);
    r.anc = t_fss;
    r.anchor = "flag+cub-scan+scatter";
    add_row(r);
}

static void group_find_repeats()
{
    size_t n = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
    bench_find_repeats(n, 32); /* ~3.1% repeats */
    bench_find_repeats(n, 2);  /* ~50% repeats */
}

/* ---- transpose ------------------------------------------------------------------------------- */

static void bench_transpose(size_t rows, size_t cols, size_t es)
{
    size_t count = rows * cols, bytes = count * es;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> in, out;
    for (int k = 0; k < sets; ++k) {
        in.emplace_back(bytes);
        out.emplace_back(bytes);
        if (es == 4)
            fill_f32(in.back().p, count);
        else
            fill_f64(in.back().p, count);
    }
    DevBuf ref(bytes);
    const float one_f = 1.0f, zero_f = 0.0f;
    const double one_d = 1.0, zero_d = 0.0;
    /* row-major rows x cols = column-major cols x rows (ld cols); its
     * transpose, column-major rows x cols (ld rows), is the row-major
     * cols x rows result. B = C with beta = 0 (geam's in-place form). */
    auto geam = [&](const void *src, void *dst) {
        int m = (int)rows, nn = (int)cols;
        if (es == 4)
            CKB(cublasSgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &one_f, (const float *)src, nn, &zero_f,
                            (const float *)dst, m, (float *)dst, m));
        else
            CKB(cublasDgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, nn, &one_d, (const double *)src, nn, &zero_d,
                            (const double *)dst, m, (double *)dst, m));
    };

    poison(out[0].p, bytes);
    GP(gp_transpose(g_ctx, es, in[0].p, out[0].p, rows, cols));
    poison(ref.p, bytes);
    geam(in[0].p, ref.p);
    std::string st = check_status(diff_exact(out[0].p, ref.p, bytes), "transpose vs cuBLAS geam");

    Row r;
    r.op = "transpose";
    char size[64], note[160];
    snprintf(size, sizeof size, "%zux%zu %zuB", rows, cols, es);
    r.size = size;
    r.bytes = 2.0 * bytes;
    time_pair(
        [&](long i) {
            int k = (int)(i % sets);
            GP(gp_transpose(g_ctx, es, in[k].p, out[k].p, rows, cols));
        },
        [&](long i) {
            int k = (int)(i % sets);
            geam(in[k].p, out[k].p);
        },
        1, &r.ours, &r.anc);
    r.has_anchor = true;
    r.anchor = es == 4 ? "cublasSgeam(T)" : "cublasDgeam(T)";
    r.status = st;
    snprintf(note, sizeof note, "row-major in, alpha=1 beta=0; %d set(s)", sets);
    r.note = note;
    add_row(r);
}

static void group_transpose()
{
    if (g_opt.quick) {
        bench_transpose(4096, 4096, 4);
        bench_transpose(4096, 4096, 8);
        bench_transpose(1234, 2011, 4);
    } else {
        bench_transpose(16384, 16384, 4);
        bench_transpose(16384, 16384, 8);
        bench_transpose(12345, 20011, 4);
    }
}

/* ---- stencil --------------------------------------------------------------------------------- */

/* The naive anchor: one thread per point, five global loads, CLAMP
 * boundary, the library's evaluation order without FMA. */
__global__ void k_naive_laplacian(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows)
        return;
    size_t row = (size_t)y * cols;
    float c = in[row + x];
    float nn = in[(size_t)max(y - 1, 0) * cols + x];
    float s = in[(size_t)min(y + 1, rows - 1) * cols + x];
    float w = in[row + max(x - 1, 0)];
    float e = in[row + min(x + 1, cols - 1)];
    float v = __fmul_rn(-4.0f, c);
    v = __fadd_rn(v, nn);
    v = __fadd_rn(v, s);
    v = __fadd_rn(v, w);
    v = __fadd_rn(v, e);
    out[row + x] = v;
}

static void group_stencil()
{
    size_t rows = g_opt.quick ? 4096 : 16384, cols = rows;
    size_t count = rows * cols, bytes = count * 4;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> in, out;
    for (int k = 0; k < sets; ++k) {
        in.emplace_back(bytes);
        out.emplace_back(bytes);
        fill_f32(in.back().p, count);
    }
    DevBuf ref(bytes);
    dim3 blk(32, 8), grd((unsigned)((cols + 31) / 32), (unsigned)((rows + 7) / 8));
    auto naive = [&](const void *src, void *dst) {
        k_naive_laplacian<<<grd, blk, 0, g_stream>>>((const float *)src, (float *)dst, (int)rows, (int)cols);
        CK_LAUNCH();
    };

    poison(out[0].p, bytes);
    GP(gp_laplacian_2d(g_ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in[0].p, out[0].p, rows, cols));
    naive(in[0].p, ref.p);
    std::string st = check_status(diff_f32(out[0].as<float>(), ref.as<float>(), count, 1e-5f),
                                  "laplacian_2d vs naive (tolerance 1e-5*(1+|ref|))");

    Row r;
    r.op = "stencil";
    char size[64], note[160];
    snprintf(size, sizeof size, "%zux%zu f32", rows, cols);
    r.size = size;
    r.bytes = 2.0 * bytes;
    time_pair(
        [&](long i) {
            int k = (int)(i % sets);
            GP(gp_laplacian_2d(g_ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in[k].p, out[k].p, rows, cols));
        },
        [&](long i) {
            int k = (int)(i % sets);
            naive(in[k].p, out[k].p);
        },
        1, &r.ours, &r.anc);
    r.has_anchor = true;
    r.anchor = "naive 5-point kernel";
    r.status = st;
    snprintf(note, sizeof note, "gp_laplacian_2d CLAMP; %d set(s)", sets);
    r.note = note;
    add_row(r);
}

/* ---- sort ------------------------------------------------------------------------------ */

/* One sort row: gp_sort_keys / gp_sort_pairs against cub::DeviceRadixSort's
 * (in, out) form with preallocated temp storage, same input, same bits.
 * bytes = keys (and values) read and written once: a lower bound on the
 * traffic (an LSD sort makes a pass per 8 bits). */
template <typename K>
static void bench_sort(size_t n, int end_bit, bool pairs, const char *what)
{
    const size_t kb = n * sizeof(K), vb = pairs ? n * 4 : 0;
    DevBuf kin(kb), kout(kb), kref(kb), vin(std::max<size_t>(vb, 16)), vout(std::max<size_t>(vb, 16)),
        vref(std::max<size_t>(vb, 16));
    fill_i32(kin.p, kb / 4, 0, 0);
    if (pairs)
        fill_i32(vin.p, n, 0, 0);
    const gp_dtype dt = sizeof(K) == 4 ? GP_UINT32 : GP_UINT64;
    size_t temp_bytes = 0;
    if (pairs)
        CK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kin.as<K>(), kref.as<K>(), vin.as<uint32_t>(),
                                           vref.as<uint32_t>(), n, 0, end_bit, g_stream));
    else
        CK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, kin.as<K>(), kref.as<K>(), n, 0, end_bit, g_stream));
    DevBuf temp(std::max<size_t>(temp_bytes, 16));
    auto cub_sort = [&]() {
        if (pairs)
            CK(cub::DeviceRadixSort::SortPairs(temp.p, temp_bytes, kin.as<K>(), kref.as<K>(), vin.as<uint32_t>(),
                                               vref.as<uint32_t>(), n, 0, end_bit, g_stream));
        else
            CK(cub::DeviceRadixSort::SortKeys(temp.p, temp_bytes, kin.as<K>(), kref.as<K>(), n, 0, end_bit,
                                              g_stream));
    };
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
    cub_sort();
    DiffCount d = diff_exact(kout.p, kref.p, kb);
    if (pairs && d.count == 0)
        d = diff_exact(vout.p, vref.p, vb);
    Row r;
    r.op = "sort";
    char size[64];
    snprintf(size, sizeof size, "%s %s", pow2_or_dec(n).c_str(), what);
    r.size = size;
    r.bytes = 2.0 * (double)(kb + vb);
    r.status = check_status(d, "sort");
    time_pair([&](long) { ours(); }, [&](long) { cub_sort(); }, 1, &r.ours, &r.anc);
    r.has_anchor = true;
    r.anchor = pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
    char note[160];
    snprintf(note, sizeof note, "bits [0,%d); GB/s counts one read + one write of keys%s", end_bit,
             pairs ? " and values" : "");
    r.note = note;
    add_row(r);
}

static void group_sort()
{
    const size_t n28 = g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28);
    const size_t n26 = g_opt.quick ? (size_t(1) << 22) : (size_t(1) << 26);
    bench_sort<uint32_t>(n28, 32, false, "u32 keys");
    bench_sort<uint32_t>(n28, 16, false, "u32 keys 16 bits");
    bench_sort<uint32_t>(n28, 32, true, "u32+u32 pairs");
    bench_sort<uint64_t>(n26, 64, false, "u64 keys");
}

/* ---- targets (DESIGN.md section 5), full-size runs only ---------------------------------------- */

static const Row *find_row(const char *op, const char *size_prefix, const char *anchor_prefix, const char *variant)
{
    for (const Row &r : g_rows)
        if (r.op == op && r.size.rfind(size_prefix, 0) == 0 && r.anchor.rfind(anchor_prefix, 0) == 0 &&
            r.variant == variant)
            return &r;
    return nullptr;
}

static void target_line(const char *what, const Row *r, bool met, const char *fmt, ...)
{
    if (!r)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("  %-34s %-48s %s\n", what, buf, r->status == "FAIL" ? "FAIL (wrong result)" : met ? "met" : "NOT met");
}

static void print_targets()
{
    if (g_opt.quick || g_copy_gbps <= 0)
        return;
    printf("\n==== targets (DESIGN.md section 5; ratio = anchor_ms / ours_ms) ====\n");
    auto frac = [](const Row *r) { return gbps(r->bytes, r->ours.med_ms) / g_copy_gbps; };
    auto ratio = [](const Row *r) { return r->anc.med_ms / r->ours.med_ms; };
    const Row *r;
    if ((r = find_row("scan", "2^28", "cub", "")))
        target_line("scan 2^28: >= 90% of copy", r, frac(r) >= 0.90, "%.1f%% of copy, %.3fx CUB", 100 * frac(r),
                    ratio(r));
    for (const char *v : {"graph", ""})
        if ((r = find_row("scan", "10000", "cub", v)))
            target_line(*v ? "scan 10000: <= CUB (graph)" : "scan 10000: <= CUB (back-to-back)", r,
                        r->ours.med_ms <= r->anc.med_ms, "%.2f us, CUB %.2f us", r->ours.med_ms * 1e3,
                        r->anc.med_ms * 1e3);
    if ((r = find_row("reduce", "2^28", "cub", "")))
        target_line("reduce 2^28: >= 1.0x CUB", r, ratio(r) >= 1.0, "%.3fx CUB", ratio(r));
    if ((r = find_row("compact", "2^28", "cub", "")))
        target_line("compact 2^28: >= 1.1x CUB", r, ratio(r) >= 1.1, "%.3fx CUB", ratio(r));
    if ((r = find_row("find_repeats", "2^28 3.", "cub", "")))
        target_line("find_repeats 3%: <= 0.32 ms", r, r->ours.med_ms <= 0.32, "%.3f ms, %.3fx CUB If",
                    r->ours.med_ms, ratio(r));
    if ((r = find_row("transpose", "16384x16384 4B", "cublas", "")))
        target_line("transpose 16384^2 f32: >= 1.05x geam", r, ratio(r) >= 1.05, "%.3fx cuBLAS", ratio(r));
    if ((r = find_row("stencil", "16384x16384", "naive", "")))
        target_line("stencil 16384^2 f32: >= 90% of copy", r, frac(r) >= 0.90, "%.1f%% of copy, %.2fx naive",
                    100 * frac(r), ratio(r));
    for (const Row &x : g_rows)
        if (x.op == "sort")
            target_line("sort: >= 1.0x CUB DeviceRadixSort", &x, ratio(&x) >= 1.0, "%s: %.3f ms, %.3fx CUB",
                        x.size.c_str(), x.ours.med_ms, ratio(&x));
}

/* ---- main ------------------------------------------------------------------------------------ */

static void usage(const char *argv0)
{
    printf("usage: %s [--csv FILE] [--quick] [--only GROUP[,GROUP...]] [--reps N] [--warmup N] [--device N]\n"
           "  groups: copy scan reduce compact find_repeats transpose stencil sort\n"
           "  (the copy ceiling row is always measured: it is the frac column's reference)\n",
           argv0);
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto need = [&](void) -> const char * {
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
            size_t p = 0;
            while (p <= v.size()) {
                size_t q = v.find(',', p);
                if (q == std::string::npos)
                    q = v.size();
                std::string g = v.substr(p, q - p);
                for (char &c : g)
                    if (c == '-')
                        c = '_';
                if (g == "repeats" || g == "findrepeats")
                    g = "find_repeats";
                if (!g.empty()) {
                    bool known = false;
                    for (const char *k : k_groups)
                        known = known || g == k;
                    if (!known)
                        die("--only: unknown group '%s' (copy scan reduce compact find_repeats transpose stencil)",
                            g.c_str());
                    g_opt.only.push_back(g);
                }
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
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_fill_i32));
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

int main(int argc, char **argv)
{
    parse_args(argc, argv);

    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    if (g_opt.device < 0 || g_opt.device >= ndev)
        die("device %d out of range (%d device(s))", g_opt.device, ndev);
    CK(cudaSetDevice(g_opt.device));
    CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g_ev0));
    CK(cudaEventCreate(&g_ev1));
    CKB(cublasCreate(&g_cublas));
    CKB(cublasSetStream(g_cublas, g_stream));
    CKB(cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST));
    CK(cudaMalloc(&g_diff_dev, sizeof(DiffCount)));
    CK(cudaMallocHost(&g_diff_host, sizeof(DiffCount)));

    if (gp_version_number() != GP_VERSION_NUMBER)
        fprintf(stderr, "bench_prims: warning: header version %u, library %u\n", (unsigned)GP_VERSION_NUMBER,
                gp_version_number());
    GP(gp_context_create(&g_ctx, GP_BACKEND_CUDA, g_opt.device));
    GP(gp_context_set_stream(g_ctx, (void *)g_stream));

    print_device_info();

    /* Rows go to FILE.partial as they finish (a crash keeps them there) and
     * the file is renamed over FILE at the end: an earlier FILE stays as it
     * was until a whole run replaces it. */
    const std::string csv_partial = g_opt.csv + ".partial";
    g_csv = fopen(csv_partial.c_str(), "w");
    if (!g_csv)
        die("cannot open %s for writing: %s", csv_partial.c_str(), strerror(errno));
    fprintf(g_csv, "op,size,ours_ms,ours_GBps,ours_frac_of_copy,anchor_name,anchor_ms,anchor_GBps,ratio,status,"
                   "bytes,ours_min_ms,anchor_min_ms,samples,batch,note\n");
    fflush(g_csv);

    print_header_line();
    group_copy_ceiling();
    if (group_on("scan") || group_on("copy"))
        group_scan();
    if (group_on("reduce"))
        group_reduce();
    if (group_on("compact"))
        group_compact();
    if (group_on("find_repeats"))
        group_find_repeats();
    if (group_on("transpose"))
        group_transpose();
    if (group_on("stencil"))
        group_stencil();
    if (group_on("sort"))
        group_sort();

    CK(cudaStreamSynchronize(g_stream));
    CK(cudaGetLastError());

    int fails = 0;
    for (const Row &r : g_rows)
        fails += r.status == "FAIL";
    printf("\n==== summary (%zu rows, copy ceiling %.0f GB/s) ====\n", g_rows.size(), g_copy_gbps);
    print_header_line();
    for (const Row &r : g_rows)
        print_row(r);
    print_targets();
    const bool csv_ok = !ferror(g_csv);
    if (fclose(g_csv) != 0 || !csv_ok || rename(csv_partial.c_str(), g_opt.csv.c_str()) != 0)
        die("cannot write %s (the rows are in %s; %s unchanged): %s", g_opt.csv.c_str(), csv_partial.c_str(),
            g_opt.csv.c_str(), strerror(errno));
    printf("\n%s; CSV written to %s\n", fails ? "SOME ROWS FAILED THEIR CHECK (status FAIL)" : "all checks passed",
           g_opt.csv.c_str());

    gp_context_destroy(g_ctx);
    CKB(cublasDestroy(g_cublas));
    CK(cudaFree(g_diff_dev));
    CK(cudaFreeHost(g_diff_host));
    CK(cudaEventDestroy(g_ev0));
    CK(cudaEventDestroy(g_ev1));
    CK(cudaStreamDestroy(g_stream));
    return fails ? 1 : 0;
}
