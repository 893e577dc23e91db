/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bench_prims harness: what every primitive's benchmark file uses.
 *
 *   - run-wide state: the options, the gp_context on one non-blocking
 *     stream, cuBLAS on the same stream, the L2 size, the copy ceiling;
 *   - device buffers, random fills (a hash of the index, never all zeros),
 *     poisoning, and bitwise / tolerance comparisons on the device;
 *   - timing: ours and its anchor side by side after a warm-up, median of
 *     alternating samples; CUDA-graph replays for tiny sizes;
 *   - rotation among input/output sets so that no call finds its data in L2;
 *   - rows: printed, written to the CSV, judged against the targets table;
 *   - the group registry: a primitive's file registers itself with
 *     BENCH_GROUP and nothing else needs editing (bench/README.md).
 *
 * Any CUDA/cuBLAS error or gp_status other than GP_SUCCESS aborts the run
 * with a message (this is a benchmark, not the library).
 */
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "common.h"
#include "gpuprim/gpuprim.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

/* ---- run-wide state ------------------------------------------------------------ */

struct Options {
    std::string csv = "bench_prims.csv";
    std::vector<std::string> only; /* empty: all groups */
    bool quick = false;
    int device = 0;
    int reps = 30;
    int warmup = 5;
};

extern Options g_opt;
extern gp_context *g_ctx;
extern cudaStream_t g_stream;
extern cublasHandle_t g_cublas;
extern size_t g_l2_bytes;
extern double g_copy_gbps; /* the ceiling row's GB/s: the frac column's reference */

void check_cublas(cublasStatus_t s, const char *what, const char *file, int line);
#define CKB(call) check_cublas((call), #call, __FILE__, __LINE__)
#define GP(call) check_gp((call), g_ctx, #call, __FILE__, __LINE__)

/* The standard sizes: the large size most rows use (2^28; quick 2^24) and
 * the ladder the scan and copy rows run (10,000 .. 2^28; quick .. 2^22). */
size_t large_n();
std::vector<size_t> size_ladder();

/* ---- device buffers ---------------------------------------------------------------- */

struct DevBuf {
    void *p = nullptr;
    size_t bytes = 0;
    DevBuf() = default;
    explicit DevBuf(size_t b) { alloc(b); }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
    DevBuf(DevBuf &&o) noexcept : p(o.p), bytes(o.bytes)
    {
        o.p = nullptr;
        o.bytes = 0;
    }
    void alloc(size_t b);
    void release();
    ~DevBuf() { release(); }
    template <class T> T *as() const { return static_cast<T *>(p); }
};

/* Pinned host scalar (64 bytes) for results copied back from the anchors. */
struct HostScalar {
    void *p = nullptr;
    HostScalar();
    ~HostScalar();
    HostScalar(const HostScalar &) = delete;
    HostScalar &operator=(const HostScalar &) = delete;
    template <class T> T *as() const { return static_cast<T *>(p); }
};

/* `count` buffers of `bytes` each. */
std::vector<DevBuf> alloc_sets(int count, size_t bytes);
/* `count` input and output buffers, allocated in pairs (in 0, out 0, in 1, ...). */
void alloc_in_out(int count, size_t in_bytes, size_t out_bytes, std::vector<DevBuf> *in, std::vector<DevBuf> *out);

/* Number of input/output sets to rotate among so that consecutive calls do
 * not find their data in L2: enough sets of bytes_per_set to cover 3x the
 * L2 size, at most 64. */
int rotation_sets(size_t bytes_per_set);

/* ---- random fills, on g_stream (bench/fill_check.cu) ---------------------------------- */

/* splitmix64's finaliser: the hash behind the fills, for a group's own generators. */
__device__ __forceinline__ uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The int32 key of run number r: r times an odd number (a bijection mod
 * 2^32) plus a constant, so consecutive runs never share a key and keys are
 * not in ascending order. */
__device__ __forceinline__ int32_t run_key(uint64_t r) { return (int32_t)(uint32_t)(r * 0x9E3779B1u + 0x7F4A7C15u); }

/* Grid size for a grid-stride kernel of 256 threads over n items. */
unsigned fill_blocks(size_t n);
/* int32: lo + hash % range; range 0 is the full int32 range. */
void fill_i32(void *p, size_t n, int64_t lo, uint64_t range);
/* uint8 flags: non-zero (1..255, varied) with probability percent/100. */
void fill_flags(void *p, size_t n, unsigned percent);
/* Uniform in [-1, 1), no denormals. */
void fill_f32(void *p, size_t n);
void fill_f64(void *p, size_t n);
/* int32 keys in runs of run_len equal keys: keys[i] = run_key(i / run_len);
 * run_len >= n gives a single run. */
void fill_run_keys(void *p, size_t n, size_t run_len);
/* Every byte 0xA5, so that an element the primitive fails to write shows. */
void poison(void *p, size_t bytes);

/* ---- checks ----------------------------------------------------------------------- */

struct DiffCount {
    unsigned long long count;
    unsigned long long first;
};

/* Bitwise comparison of `bytes` bytes (a multiple of 4), counted in 4-byte words. */
DiffCount diff_exact(const void *a, const void *b, size_t bytes);
/* |a-b| <= tol * (1 + |b|) for each of n floats; NaN never passes. */
DiffCount diff_f32(const float *a, const float *b, size_t n, float tol);
/* "OK", or "FAIL" after a line on stderr naming `what` and the first bad word. */
std::string check_status(const DiffCount &d, const char *what);
/* "FAIL" after printing the message to stderr (a scalar or count mismatch). */
std::string check_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The comparison's counters: made before the first row, freed at the end. */
void init_checks();
void free_checks();

/* Attributes of a kernel of this binary: which PTX / SASS it runs. */
cudaFuncAttributes bench_kernel_attributes();

/* ---- timing ------------------------------------------------------------------------- */

struct Timing {
    double med_ms = 0, min_ms = 0;
    int samples = 0;
    int batch = 1;
};

/* One call on g_stream (or, for host-returning primitives, one call run to
 * completion); i counts this caller's calls, for rotating among sets. */
using Call = std::function<void(long)>;

/* The callers timed side by side: warm-up calls for each (g_opt.warmup
 * rounds and at least 40 ms), then one sample of each in turn (A B A B ...)
 * so that ours and its anchor see the same conditions; the median and the
 * minimum of g_opt.reps samples each. A sample is the event time around
 * `batch` consecutive calls, divided by batch. */
std::vector<Timing> time_side_by_side(const std::vector<Call> &calls, int batch);
Timing time_calls(const Call &call, int batch);

/* Capture `batch` calls into a CUDA graph and time its replays, per call.
 * f returns false (and a reason) when a call cannot be captured; then
 * time_graph returns false and *why says why. */
bool time_graph(const std::function<bool(long, std::string *)> &f, int batch, Timing *out, std::string *why);

/* ---- rows ------------------------------------------------------------------------------- */

struct Row {
    std::string op, size;
    double bytes = 0; /* the fewest bytes the work must move: inputs read once, outputs written once */
    Timing ours;
    std::string anchor = "-"; /* "-" when none */
    Timing anc;
    bool has_anchor = false;
    std::string status = "OK"; /* OK or FAIL */
    std::string note;
    std::string variant; /* e.g. "graph" for a CUDA-graph row; part of the targets' key */
};

/* Ours and its anchor side by side; fills r.ours, r.anc and r.anchor. */
void time_pair(Row &r, const char *anchor, const Call &ours, const Call &anchor_call, int batch = 1);

/* Print the row (and its targets' verdicts) and write it to the CSV. */
void add_row(const Row &r);
const std::vector<Row> &all_rows();

double gbps(double bytes, double ms);
/* 2^k for powers of two from 1024, 1e6, else the decimal number. */
std::string pow2_or_dec(size_t n);

/* The copy of n int32 (cudaMemcpyAsync D2D) beside rows of size n; measured
 * once a run per size, whichever group asks first. */
void copy_reference(size_t n);
/* The copy ceiling at large_n(), run before every group; sets g_copy_gbps. */
void measure_copy_ceiling();

/* ---- groups -------------------------------------------------------------------------------- */

/* A group of rows, selected with --only NAME. Groups run in ascending
 * `order` (ties by name); aliases are other names --only accepts,
 * space-separated. */
struct Group {
    const char *name;
    int order;
    void (*run)();
    const char *aliases;
};

std::vector<Group> &registered_groups();

struct GroupRegistrar {
    GroupRegistrar(const char *name, int order, void (*run)(), const char *aliases = "");
};

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
/* In a primitive's file, at namespace scope: BENCH_GROUP("scan", 20, run_scan); */
#define BENCH_GROUP(...) static const GroupRegistrar BENCH_CAT(bench_group_, __LINE__)(__VA_ARGS__)
