/* cuda/histogram.cu - even-bin and boundary histograms.
 *
 * The counts are cleared (cudaMemsetAsync), then one kernel adds into them.
 *
 * Privatized kernel (up to GPI_HIST_MAX_CHUNKS chunks of bins): the bins
 * are cut into chunks that fit a block's shared memory; block b counts
 * chunk b % chunks over the contiguous segment b / chunks of the samples
 * into shared-memory counters, then adds its non-zero counters to the
 * global counts with one atomic each. Blocks of one segment are adjacent
 * in launch order, so the chunks' re-reads of a segment mostly hit L2.
 * With few bins each warp group has its own copy of the counters (fewer
 * same-address collisions); a warp whose lanes all fall in one bin adds
 * once (skewed inputs). A segment holds at most 2^30 samples, so 32-bit
 * shared counters never wrap. Samples are read as 16-byte vectors, several
 * in flight per thread, where the buffer is 16-byte aligned.
 *
 * Global kernel (more bins than that: few samples a bin, privatization
 * cannot pay): each sample is one atomic on its global counter.
 *
 * Boundary bins keep the boundaries in shared memory when they fit
 * GPI_HIST_TABLE_BYTES, else read them through the read-only cache. The bin
 * formulas are histogram_internal.h's (float ones without contraction,
 * through __dmul_rn and friends), the same the CPU backend evaluates. */
#include "histogram_internal.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace {

/* Tuning knobs for runs on the GPU machine (-D at build time). */
#ifndef GPI_HIST_THREADS
#define GPI_HIST_THREADS 512
#endif
#ifndef GPI_HIST_UNROLL
#define GPI_HIST_UNROLL 4 /* 16-byte vectors in flight per thread */
#endif
#ifndef GPI_HIST_MAX_CHUNKS
#define GPI_HIST_MAX_CHUNKS 8 /* past this many chunks of bins: the global kernel */
#endif
#ifndef GPI_HIST_COPIES_BYTES
#define GPI_HIST_COPIES_BYTES 32768 /* room for per-warp-group copies of few bins */
#endif
#ifndef GPI_HIST_TABLE_BYTES
#define GPI_HIST_TABLE_BYTES 16384 /* boundaries kept in shared memory up to this */
#endif
struct hist_policy {
    static constexpr int threads = GPI_HIST_THREADS;
    static constexpr int warps = threads / 32;
    static constexpr int unroll = GPI_HIST_UNROLL;
    static constexpr long long max_segment = 1ll << 30; /* samples a block counts in 32-bit counters */
};

/* ---- binners: sample -> bin, or GPI_HIST_NONE ---------------------------------------- */
template <typename T>
struct even_binner {
    gpi_hist_even p;
    static constexpr bool has_table = false;
    __device__ __forceinline__ const void *load_table(void *) const { return nullptr; }
    __device__ __forceinline__ uint32_t operator()(T x, const void *) const
    {
        if constexpr (std::is_floating_point<T>::value) return gpi_hist_float_bin(&p, (double)x);
        else if constexpr (std::is_signed<T>::value) return gpi_hist_signed_bin(&p, (int64_t)x);
        else return gpi_hist_unsigned_bin(&p, (uint64_t)x);
    }
};

template <typename T>
struct range_binner {
    const T *bounds; /* bins + 1 boundaries (global memory) */
    uint32_t bins;
    bool in_smem;    /* copy them into shared memory first */
    static constexpr bool has_table = true;
    size_t table_bytes() const { return in_smem ? ((size_t)(bins + 1) * sizeof(T) + 15) / 16 * 16 : 0; }
    /* Where the search reads: the copy in smem, or the boundaries themselves. */
    __device__ __forceinline__ const void *load_table(void *smem) const
    {
        if (!in_smem) return bounds;
        T *s = static_cast<T *>(smem);
        for (uint32_t i = threadIdx.x; i <= bins; i += blockDim.x) s[i] = __ldg(bounds + i);
        return s; /* read after the caller's barrier */
    }
    __device__ __forceinline__ uint32_t operator()(T x, const void *table) const
    {
        const T *b = static_cast<const T *>(table);
        if (x < b[0] || !(x < b[bins])) return GPI_HIST_NONE; /* NaN fails x < b[bins] */
        uint32_t lo = 0, len = bins + 1;                       /* upper bound: boundaries <= x */
        while (len > 0) {
            const uint32_t half = len / 2;
            if (!(x < b[lo + half])) {
                lo += half + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        return lo - 1;
    }
};

/* Add one to counter r of h (r >= nb: nothing). A warp whose active lanes
 * all hold the same r adds their number once. */
template <typename C>
__device__ __forceinline__ void add_one(C *h, uint32_t r, uint32_t nb)
{
    const unsigned mask = __activemask();
    const int leader = __ffs(mask) - 1;
    const uint32_t lr = __shfl_sync(mask, r, leader);
    if (__all_sync(mask, r == lr)) {
        if (lr < nb && (int)(threadIdx.x & 31) == leader) atomicAdd(h + lr, (C)__popc(mask));
    } else if (r < nb) {
        atomicAdd(h + r, (C)1);
    }
}

/* Count samples [start, end) into h (counters for bins [lo_bin, lo_bin +
 * nb)); vec: samples + start is 16-byte aligned. Every thread of the
 * block calls it with the same range. U: 16-byte vectors in flight per
 * thread. */
template <typename T, int U, typename Binner, typename C>
__device__ __forceinline__ void count_range(const T *__restrict__ samples, long long start, long long end, bool vec,
                                            const Binner &binner, const void *table, C *h, uint32_t lo_bin, uint32_t nb,
                                            long long thread, long long stride)
{
    constexpr int VI = 16 / (int)sizeof(T);
    long long tail = start;
    if (vec) {
        const long long nv = (end - start) / VI;
        const uint4 *v4 = reinterpret_cast<const uint4 *>(samples + start);
        for (long long v0 = thread; v0 < nv; v0 += stride * U) {
            uint4 raw[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const long long v = v0 + u * stride;
                raw[u] = v < nv ? __ldg(v4 + v) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int u = 0; u < U; u++) {
                const bool valid = v0 + u * stride < nv;
                const T *x = reinterpret_cast<const T *>(&raw[u]);
#pragma unroll
                for (int j = 0; j < VI; j++) add_one(h, valid ? binner(x[j], table) - lo_bin : GPI_HIST_NONE, nb);
            }
        }
        tail = start + nv * VI;
    }
    for (long long e = tail + thread; e < end; e += stride) add_one(h, binner(__ldg(samples + e), table) - lo_bin, nb);
}

template <typename T, typename Binner, typename CT>
__global__ void __launch_bounds__(hist_policy::threads)
hist_private_kernel(const T *samples, long long n, long long per_block, bool vec, Binner binner, uint32_t bins,
                    uint32_t chunk_bins, uint32_t chunks, uint32_t copies, size_t table_bytes, CT *counts)
{
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *h = reinterpret_cast<uint32_t *>(smem + table_bytes);
    const void *table = binner.load_table(smem);
    const uint32_t chunk = blockIdx.x % chunks;
    const long long seg = blockIdx.x / chunks;
    const uint32_t lo_bin = chunk * chunk_bins;
    const uint32_t nb = min(chunk_bins, bins - lo_bin);
    for (uint32_t i = threadIdx.x; i < nb * copies; i += hist_policy::threads) h[i] = 0;
    __syncthreads();
    const long long start = seg * per_block, end = min(n, start + per_block);
    if (start < end)
        count_range<T, hist_policy::unroll>(samples, start, end, vec, binner, table, h + (threadIdx.x / 32 % copies) * nb, lo_bin, nb,
                       threadIdx.x, hist_policy::threads);
    __syncthreads();
    for (uint32_t r = threadIdx.x; r < nb; r += hist_policy::threads) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < copies; c++) sum += h[c * nb + r];
        if (sum) atomicAdd(counts + lo_bin + r, (CT)sum);
    }
}

template <typename T, typename Binner, typename CT>
__global__ void __launch_bounds__(hist_policy::threads)
hist_global_kernel(const T *samples, long long n, bool vec, Binner binner, uint32_t bins, CT *counts)
{
    const long long thread = (long long)blockIdx.x * hist_policy::threads + threadIdx.x;
    const void *table = binner.load_table(nullptr); /* in_smem is false here */
    count_range<T, 1>(samples, 0, n, vec, binner, table, counts, 0, bins, thread, (long long)gridDim.x * hist_policy::threads);
}

template <typename T, typename Binner, typename CT>
gp_status run_hist(gp_context *ctx, const T *samples, long long n, Binner binner, uint32_t bins, CT *counts)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    gp_status s;
    if ((s = gpi_cuda_status(ctx, cudaMemsetAsync(counts, 0, (size_t)bins * sizeof(CT), stream),
                             "histogram cudaMemsetAsync")))
        return s;
    if (n == 0) return GP_SUCCESS;
    const bool vec = (uintptr_t)samples % 16 == 0;
    int optin = 0;
    if ((s = gpi_cuda_status(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device),
                             "histogram cudaDeviceGetAttribute")))
        return s;
    /* the boundaries' table, then counters for half of what a block may have
     * (two blocks an SM even with the largest chunks) */
    size_t table_bytes = 0;
    if constexpr (Binner::has_table) {
        binner.in_smem = (size_t)(bins + 1) * sizeof(T) <= GPI_HIST_TABLE_BYTES;
        table_bytes = binner.table_bytes();
    }
    const size_t budget = ((size_t)optin / 2 - table_bytes) / 4096 * 4096;
    const uint32_t chunk_bins = (uint32_t)std::min<size_t>(bins, budget / 4);
    const uint32_t chunks = (uint32_t)(((uint64_t)bins + chunk_bins - 1) / chunk_bins);
    const long long vectors_per_block = (long long)hist_policy::threads * hist_policy::unroll;
    const long long min_samples = vectors_per_block * (16 / (long long)sizeof(T)); /* a block's first round */
    if (chunks > GPI_HIST_MAX_CHUNKS) {
        if constexpr (Binner::has_table) binner.in_smem = false;
        const long long blocks = std::min<long long>((n + min_samples - 1) / min_samples, 32ll * ctx->sm_count);
        hist_global_kernel<T, Binner, CT>
            <<<(unsigned)blocks, hist_policy::threads, 0, stream>>>(samples, n, vec, binner, bins, counts);
        return gpi_cuda_status(ctx, cudaGetLastError(), "histogram kernel launch");
    }
    uint32_t copies = 1;
    while (copies * 2 <= (uint32_t)hist_policy::warps && (size_t)copies * 2 * chunk_bins * 4 <= GPI_HIST_COPIES_BYTES)
        copies *= 2;
    const size_t smem = table_bytes + (size_t)copies * chunk_bins * 4;
    auto kernel = hist_private_kernel<T, Binner, CT>;
    int per_sm = 0;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, hist_policy::threads, smem);
    if ((s = gpi_cuda_status(ctx, e, "histogram occupancy"))) return s;
    if (per_sm < 1) return gpi_error(ctx, GP_ERROR_INTERNAL, "histogram: %zu bytes of shared memory do not fit", smem);
    /* segments: enough blocks to fill the GPU once, each at most max_segment
     * samples, none without a first round of work */
    long long segs = std::max<long long>(1, (long long)per_sm * ctx->sm_count / chunks);
    segs = std::min(segs, (n + min_samples - 1) / min_samples);
    segs = std::max(segs, (n + hist_policy::max_segment - 1) / hist_policy::max_segment);
    long long per_block = (n + segs - 1) / segs;
    per_block = (per_block + 3) / 4 * 4; /* whole vectors: every segment starts 16-byte aligned */
    segs = (n + per_block - 1) / per_block;
    if (segs * chunks > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "histogram: too many blocks");
    kernel<<<(unsigned)(segs * chunks), hist_policy::threads, smem, stream>>>(
        samples, n, per_block, vec, binner, bins, chunk_bins, chunks, copies, table_bytes, counts);
    return gpi_cuda_status(ctx, cudaGetLastError(), "histogram kernel launch");
}

template <typename T, typename Binner>
gp_status hist_counts(gp_context *ctx, const void *samples, size_t n, const Binner &binner, size_t bins,
                      gp_dtype count_dtype, void *counts)
{
    if (count_dtype == GP_UINT32)
        return run_hist<T>(ctx, (const T *)samples, (long long)n, binner, (uint32_t)bins, (unsigned *)counts);
    return run_hist<T>(ctx, (const T *)samples, (long long)n, binner, (uint32_t)bins, (unsigned long long *)counts);
}

template <typename T>
gp_status even_typed(gp_context *ctx, const gpi_hist_even *p, const void *samples, size_t n, gp_dtype count_dtype,
                     void *counts)
{
    even_binner<T> b;
    b.p = *p;
    return hist_counts<T>(ctx, samples, n, b, (size_t)p->bins, count_dtype, counts);
}

template <typename T>
gp_status range_typed(gp_context *ctx, const void *samples, size_t n, const void *boundaries, size_t bins,
                      gp_dtype count_dtype, void *counts)
{
    range_binner<T> b;
    b.bounds = (const T *)boundaries;
    b.bins = (uint32_t)bins;
    b.in_smem = false;
    return hist_counts<T>(ctx, samples, n, b, bins, count_dtype, counts);
}

} // namespace

extern "C" gp_status gpi_cuda_histogram_even(gp_context *ctx, const gpi_hist_even *p, const void *samples, size_t n,
                                             gp_dtype count_dtype, void *counts)
{
    switch (p->dtype) {
    case GP_INT32: return even_typed<int32_t>(ctx, p, samples, n, count_dtype, counts);
    case GP_UINT32: return even_typed<uint32_t>(ctx, p, samples, n, count_dtype, counts);
    case GP_INT64: return even_typed<long long>(ctx, p, samples, n, count_dtype, counts);
    case GP_UINT64: return even_typed<unsigned long long>(ctx, p, samples, n, count_dtype, counts);
    case GP_FLOAT32: return even_typed<float>(ctx, p, samples, n, count_dtype, counts);
    default: return even_typed<double>(ctx, p, samples, n, count_dtype, counts);
    }
}

extern "C" gp_status gpi_cuda_histogram_range(gp_context *ctx, gp_dtype dtype, const void *samples, size_t n,
                                              const void *boundaries, size_t bins, gp_dtype count_dtype,
                                              void *counts)
{
    switch (dtype) {
    case GP_INT32: return range_typed<int32_t>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    case GP_UINT32: return range_typed<uint32_t>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    case GP_INT64: return range_typed<long long>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    case GP_UINT64: return range_typed<unsigned long long>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    case GP_FLOAT32: return range_typed<float>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    default: return range_typed<double>(ctx, samples, n, boundaries, bins, count_dtype, counts);
    }
}
