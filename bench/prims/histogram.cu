/* SPDX-License-Identifier: BSD-3-Clause */
/* histogram: gp_histogram_even over 2^28 int32 and float32 samples, 256 and
 * 65,536 bins, uniform samples and skewed ones (half of them in one bin),
 * against cub::DeviceHistogram::HistogramEven; gp_histogram_range with 256
 * bins of unequal widths against HistogramRange. uint32 counters on both
 * sides. The ranges are chosen so that every bin edge is exact in both
 * libraries' arithmetic: int32 samples in [0, 2^24), float32 samples in
 * [-1, 1) (bin widths powers of two). */
#include <cub/device/device_histogram.cuh>

#include "../harness.cuh"
#include "gpuprim/histogram.h"

static const int32_t kIntUpper = 1 << 24;

/* About half of the samples (a hash bit) become `value`. */
template <typename T>
__global__ void k_skew(T *p, size_t n, uint64_t seed, T value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (mix64(seed * 0x100000001B3ull + i) & 1)
            p[i] = value;
}

static std::string bins_label(size_t bins) { return bins == 65536 ? "64Ki" : strf("%zu", bins); }

/* One row: ours (writes counts) against CUB (writes ref); check, time, add. */
static void histogram_row(const std::string &size, const char *anchor_name, size_t n, size_t bins,
                          const std::function<void(void *temp, size_t *temp_bytes, unsigned *hist)> &cub_call,
                          const std::function<void(unsigned *counts)> &ours, const std::string &note)
{
    DevBuf counts(bins * 4), ref(bins * 4);
    size_t tb = 0;
    cub_call(nullptr, &tb, ref.as<unsigned>());
    DevBuf temp(std::max<size_t>(tb, 16));
    poison(counts.p, bins * 4);
    ours(counts.as<unsigned>());
    cub_call(temp.p, &tb, ref.as<unsigned>());
    Row r;
    r.op = "histogram";
    r.size = size;
    r.bytes = 4.0 * (double)n + 4.0 * (double)bins;
    r.status = check_status(diff_exact(counts.p, ref.p, bins * 4), strf("histogram %s vs CUB", size.c_str()).c_str());
    time_pair(r, anchor_name, [&](long) { ours(counts.as<unsigned>()); },
              [&](long) { cub_call(temp.p, &tb, ref.as<unsigned>()); });
    r.note = note;
    add_row(r);
}

template <typename T>
static void even_row(const T *samples, size_t n, size_t bins, T lower, T upper, gp_dtype dt, const char *tname,
                     const char *dist)
{
    const std::string size = strf("%s %s %s %s", pow2_or_dec(n).c_str(), tname, bins_label(bins).c_str(), dist);
    histogram_row(
        size, "cub::DeviceHistogram::HistogramEven", n, bins,
        [&](void *temp, size_t *tb, unsigned *hist) {
            CK(cub::DeviceHistogram::HistogramEven(temp, *tb, samples, hist, (int)bins + 1, lower, upper, (int64_t)n,
                                                   g_stream));
        },
        [&](unsigned *counts) {
            GP(gp_histogram_even(g_ctx, dt, samples, n, &lower, &upper, bins, GP_UINT32, counts));
        },
        strf("%s bins of even width; %s; uint32 counts", bins_label(bins).c_str(),
             dist[0] == 's' ? "half the samples in one bin" : "uniform samples"));
}

/* 256 bins between boundaries lower + (upper - lower) * (i / 256)^2: widths
 * from one value (or 2^-15) to 511 times that. */
template <typename T>
static void range_row(const T *samples, size_t n, T lower, T upper, gp_dtype dt, const char *tname)
{
    const size_t bins = 256;
    std::vector<T> b(bins + 1);
    for (size_t i = 0; i <= bins; ++i)
        b[i] = (T)((double)lower + ((double)upper - (double)lower) * (double)(i * i) / (double)(bins * bins));
    DevBuf levels(b.size() * sizeof(T));
    CK(cudaMemcpy(levels.p, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
    const T *lv = levels.as<T>();
    histogram_row(
        strf("%s %s %zu range", pow2_or_dec(n).c_str(), tname, bins), "cub::DeviceHistogram::HistogramRange", n,
        bins,
        [&](void *temp, size_t *tb, unsigned *hist) {
            CK(cub::DeviceHistogram::HistogramRange(temp, *tb, samples, hist, (int)bins + 1, lv, (int64_t)n,
                                                    g_stream));
        },
        [&](unsigned *counts) { GP(gp_histogram_range(g_ctx, dt, samples, n, lv, bins, GP_UINT32, counts)); },
        "256 bins of quadratically growing width (binary search); uniform samples; uint32 counts");
}

/* The rows of one sample type: uniform (even 256 and 64Ki, range 256),
 * then skewed (even 256 and 64Ki). */
template <typename T>
static void histogram_rows(DevBuf &buf, size_t n, T lower, T upper, T skew_value, gp_dtype dt, const char *tname)
{
    const T *s = buf.as<T>();
    for (size_t bins : {size_t(256), size_t(65536)})
        even_row<T>(s, n, bins, lower, upper, dt, tname, "unif");
    range_row<T>(s, n, lower, upper, dt, tname);
    k_skew<T><<<fill_blocks(n), 256, 0, g_stream>>>(buf.as<T>(), n, 777, skew_value);
    CK_LAUNCH();
    for (size_t bins : {size_t(256), size_t(65536)})
        even_row<T>(s, n, bins, lower, upper, dt, tname, "skew");
}

static void run_histogram()
{
    const size_t n = large_n();
    DevBuf samples(n * 4);
    fill_i32(samples.p, n, 0, kIntUpper);
    histogram_rows<int32_t>(samples, n, 0, kIntUpper, 1234567, GP_INT32, "i32");
    fill_f32(samples.p, n);
    histogram_rows<float>(samples, n, -1.0f, 1.0f, 0.3f, GP_FLOAT32, "f32");
}

BENCH_GROUP("histogram", 160, run_histogram, "histogram_even histogram_range");
