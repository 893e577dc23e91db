/* SPDX-License-Identifier: BSD-3-Clause */
/* The bench_prims harness: timing, rows, the copy reference and the group
 * registry (see harness.cuh). */
#include "harness.cuh"
#include "report.h"

#include <algorithm>
#include <set>

Options g_opt;
gp_context *g_ctx = nullptr;
cudaStream_t g_stream = nullptr;
cublasHandle_t g_cublas = nullptr;
size_t g_l2_bytes = 0;
double g_copy_gbps = 0.0;

void check_cublas(cublasStatus_t s, const char *what, const char *file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        die("%s:%d: %s -> cuBLAS status %d (%s)", file, line, what, (int)s, cublasGetStatusString(s));
}

size_t large_n() { return g_opt.quick ? (size_t(1) << 24) : (size_t(1) << 28); }

std::vector<size_t> size_ladder()
{
    if (g_opt.quick)
        return {10000, 1000000, size_t(1) << 22};
    return {10000, 1000000, size_t(1) << 24, size_t(1) << 28};
}

/* ---- buffers ------------------------------------------------------------------------ */

void DevBuf::alloc(size_t b)
{
    release();
    bytes = b;
    if (b)
        CK(cudaMalloc(&p, b));
}

void DevBuf::release()
{
    if (p)
        CK(cudaFree(p));
    p = nullptr;
    bytes = 0;
}

HostScalar::HostScalar() { CK(cudaMallocHost(&p, 64)); }
HostScalar::~HostScalar() { CK(cudaFreeHost(p)); }

std::vector<DevBuf> alloc_sets(int count, size_t bytes)
{
    std::vector<DevBuf> v;
    for (int k = 0; k < count; ++k)
        v.emplace_back(bytes);
    return v;
}

void alloc_in_out(int count, size_t in_bytes, size_t out_bytes, std::vector<DevBuf> *in, std::vector<DevBuf> *out)
{
    for (int k = 0; k < count; ++k) {
        in->emplace_back(in_bytes);
        out->emplace_back(out_bytes);
    }
}

int rotation_sets(size_t bytes_per_set)
{
    size_t want = 3 * g_l2_bytes;
    size_t k = (want + bytes_per_set - 1) / std::max<size_t>(bytes_per_set, 1);
    return (int)std::min<size_t>(std::max<size_t>(k, 1), 64);
}

/* ---- timing ---------------------------------------------------------------------------- */

/* Warm-up lasts at least this long as well as g_opt.warmup rounds. Timing
 * ours first and the anchor after once put the slow window after the
 * previous row's cudaFree calls (common.h, Settle) on ours alone; hence the
 * settle and the alternating samples. */
static const double kSettleMs = 40.0;

static cudaEvent_t event_pair(int k)
{
    static cudaEvent_t ev[2] = {nullptr, nullptr};
    if (!ev[k])
        CK(cudaEventCreate(&ev[k]));
    return ev[k];
}

std::vector<Timing> time_side_by_side(const std::vector<Call> &fs, int batch)
{
    cudaEvent_t ev0 = event_pair(0), ev1 = event_pair(1);
    std::vector<long> it(fs.size(), 0);
    const int per_warmup = batch > 1 ? std::max(1, batch / 4) : 1;
    const Settle settle(g_opt.warmup, kSettleMs);
    for (int w = 0; settle.warming(w); ++w) {
        for (size_t k = 0; k < fs.size(); ++k)
            for (int b = 0; b < per_warmup; ++b)
                fs[k](it[k]++);
        CK(cudaStreamSynchronize(g_stream));
    }
    std::vector<std::vector<double>> s(fs.size());
    for (int r = 0; r < g_opt.reps; ++r)
        for (size_t k = 0; k < fs.size(); ++k) {
            CK(cudaEventRecord(ev0, g_stream));
            for (int b = 0; b < batch; ++b)
                fs[k](it[k]++);
            CK(cudaEventRecord(ev1, g_stream));
            CK(cudaEventSynchronize(ev1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev0, ev1));
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

Timing time_calls(const Call &f, int batch) { return time_side_by_side({f}, batch)[0]; }

void time_pair(Row &r, const char *anchor, const Call &ours, const Call &anchor_call, int batch)
{
    std::vector<Timing> t = time_side_by_side({ours, anchor_call}, batch);
    r.ours = t[0];
    r.anc = t[1];
    r.anchor = anchor;
    r.has_anchor = true;
}

bool time_graph(const std::function<bool(long, std::string *)> &f, int batch, Timing *out, std::string *why)
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

/* ---- rows ------------------------------------------------------------------------------------ */

static std::vector<Row> g_rows;

const std::vector<Row> &all_rows() { return g_rows; }

double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

std::string pow2_or_dec(size_t n)
{
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((size_t(1) << k) < n)
            ++k;
        return strf("2^%d", k);
    }
    if (n == 1000000)
        return "1e6";
    return strf("%zu", n);
}

void add_row(const Row &r)
{
    g_rows.push_back(r);
    print_row(r);
    print_row_targets(r);
    fflush(stdout);
    write_csv_row(r);
}

/* ---- the copy reference ------------------------------------------------------------------------ */

/* Device-to-device copy of n int32, rotating among sets; bytes = 2*n*4. */
static Row copy_row(size_t n, const char *note_extra)
{
    size_t bytes = n * 4;
    int sets = rotation_sets(2 * bytes);
    std::vector<DevBuf> src, dst;
    alloc_in_out(sets, bytes, bytes, &src, &dst);
    for (DevBuf &s : src)
        fill_i32(s.p, n, 0, 0);
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
    /* the copy is its own reference: check it anyway */
    r.status = check_status(diff_exact(dst[0].p, src[0].p, bytes), "copy");
    r.note = strf("cudaMemcpyAsync D2D; %d set(s)%s%s", sets, batch > 1 ? "; mean of 100 back-to-back per sample" : "",
                  note_extra);
    return r;
}

static std::set<size_t> g_copied; /* sizes whose copy row this run has */

void copy_reference(size_t n)
{
    if (!g_copied.insert(n).second)
        return;
    add_row(copy_row(n, ""));
}

void measure_copy_ceiling()
{
    size_t n = large_n();
    g_copied.insert(n);
    Row r = copy_row(n, "; the ceiling (frac column)");
    g_copy_gbps = gbps(r.bytes, r.ours.med_ms);
    add_row(r);
}

/* ---- groups --------------------------------------------------------------------------------------- */

std::vector<Group> &registered_groups()
{
    static std::vector<Group> groups; /* built during static initialisation, in any order */
    return groups;
}

GroupRegistrar::GroupRegistrar(const char *name, int order, void (*run)(), const char *aliases)
{
    registered_groups().push_back(Group{name, order, run, aliases});
}
