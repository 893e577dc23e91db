/* SPDX-License-Identifier: BSD-3-Clause */
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
 * Few bins (a chunk fits two blocks an SM): two blocks an SM; more: one
 * block an SM with the largest chunk, so fewer chunks re-read the samples.
 * The counters come in `copies` interleaved copies, copy = lane % copies,
 * counter of bin r in copy c at r * copies + c: with 32 copies (up to 256
 * bins) no two lanes of a warp ever touch the same word or bank, whatever
 * the samples (skewed inputs included), and an add is one plain shared
 * atomic. With fewer copies a warp whose lanes all fall in one bin adds
 * once. A segment holds at most 2^30 samples, so 32-bit shared counters
 * never wrap. Samples are read as 16-byte vectors, several in flight per
 * thread, where the buffer is 16-byte aligned.
 *
 * Global kernel (more bins than that: few samples a bin, privatization
 * cannot pay): each sample is one atomic on its global counter.
 *
 * Boundary bins keep the boundaries in shared memory when they fit
 * GPI_HIST_TABLE_BYTES, else read them through the read-only cache. The bin
 * formulas are histogram_internal.h's (float ones without contraction,
 * through __dmul_rn and friends), the same the CPU backend evaluates; the
 * common float form (t = (x - lo) * scale) is picked once on the host, not
 * per sample. */
#include "histogram_internal.h"
#include "policy/histogram.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace {

using gpi::hist_policy;

/* ---- binners: sample -> bin, or GPI_HIST_NONE ---------------------------------------- */
/* FORM picks a common form once for the whole launch: kFloatScaled, a
 * float histogram of form GPI_HIST_FLOAT_SCALE without halving; kIntShift,
 * an integer one of form GPI_HIST_INT_SHIFT. Each is evaluated straight:
 * the same operations histogram_internal.h's functions perform for it,
 * without their per-sample choice of form. */
enum { kAnyForm = 0, kFloatScaled = 1, kIntShift = 2 };
template <typename T, int FORM = kAnyForm>
struct even_binner {
    gpi_hist_even p;
    static constexpr bool has_table = false;
    __device__ __forceinline__ const void *load_table(void *) const { return nullptr; }
    __device__ __forceinline__ uint32_t operator()(T x, const void *) const
    {
        if constexpr (FORM == kIntShift) {
            if constexpr (std::is_signed<T>::value) {
                if ((int64_t)x < p.lo_s || (int64_t)x >= p.hi_s) return GPI_HIST_NONE;
                return (uint32_t)(((uint64_t)(int64_t)x - (uint64_t)p.lo_s) >> p.shift);
            } else {
                if ((uint64_t)x < p.lo_u || (uint64_t)x >= p.hi_u) return GPI_HIST_NONE;
                return (uint32_t)(((uint64_t)x - p.lo_u) >> p.shift);
            }
        } else if constexpr (FORM == kFloatScaled) {
            const double xd = (double)x;
            if (!(xd >= p.lo && xd < p.hi)) return GPI_HIST_NONE; /* NaN fails both */
            const uint64_t b = (uint64_t)__dmul_rn(__dsub_rn(xd, p.lo_term), p.scale);
            return (uint32_t)(b < p.bins ? b : p.bins - 1);
        } else if constexpr (std::is_floating_point<T>::value) return gpi_hist_float_bin(&p, (double)x);
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

/* Add one to bin r (r >= nb: nothing) of counters h in COPIES
 * interleaved copies (bin r of copy c at h[r * COPIES + c]; h already
 * points at this lane's copy). 32 copies: no two lanes of a warp share a
 * word or a bank, so a plain atomic. Fewer: a warp whose active lanes all
 * hold the same r adds their number once (into the leader's copy). */
template <int COPIES, typename C>
__device__ __forceinline__ void add_one(C *h, uint32_t r, uint32_t nb)
{
    if constexpr (COPIES == 32) {
        if (r < nb) atomicAdd(h + r * COPIES, (C)1);
    } else {
        const unsigned mask = __activemask();
        const int leader = __ffs(mask) - 1;
        const uint32_t lr = __shfl_sync(mask, r, leader);
        if (__all_sync(mask, r == lr)) {
            if (lr < nb && (int)(threadIdx.x & 31) == leader) atomicAdd(h + (size_t)lr * COPIES, (C)__popc(mask));
        } else if (r < nb) {
            atomicAdd(h + (size_t)r * COPIES, (C)1);
        }
    }
}

/* Count samples [start, end) into h (counters for bins [lo_bin, lo_bin +
 * nb)); vec: samples + start is 16-byte aligned. Every thread of the
 * block calls it with the same range. U: 16-byte vectors in flight per
 * thread. */
template <typename T, int U, int COPIES, typename Binner, typename C>
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
                for (int j = 0; j < VI; j++) add_one<COPIES>(h, valid ? binner(x[j], table) - lo_bin : GPI_HIST_NONE, nb);
            }
        }
        tail = start + nv * VI;
    }
    for (long long e = tail + thread; e < end; e += stride) add_one<COPIES>(h, binner(__ldg(samples + e), table) - lo_bin, nb);
}

/* COPIES: 32, or 1 (counter copies, see add_one). */
template <typename T, int COPIES, typename Binner, typename CT>
__global__ void __launch_bounds__(hist_policy::threads)
hist_private_kernel(const T *samples, long long n, long long per_block, bool vec, Binner binner, uint32_t bins,
                    uint32_t chunk_bins, uint32_t chunks, size_t table_bytes, CT *counts)
{
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *h = reinterpret_cast<uint32_t *>(smem + table_bytes);
    const void *table = binner.load_table(smem);
    const uint32_t chunk = blockIdx.x % chunks;
    const long long seg = blockIdx.x / chunks;
    const uint32_t lo_bin = chunk * chunk_bins;
    const uint32_t nb = min(chunk_bins, bins - lo_bin);
    for (uint32_t i = threadIdx.x; i < nb * COPIES; i += hist_policy::threads) h[i] = 0;
    __syncthreads();
    const long long start = seg * per_block, end = min(n, start + per_block);
    if (start < end)
        count_range<T, hist_policy::unroll, COPIES>(samples, start, end, vec, binner, table,
                                                    h + (threadIdx.x & 31) % COPIES, lo_bin, nb, threadIdx.x,
                                                    hist_policy::threads);
    __syncthreads();
    for (uint32_t r = threadIdx.x; r < nb; r += hist_policy::threads) {
        uint32_t sum = 0;
#pragma unroll
        for (int c = 0; c < COPIES; c++) sum += h[r * COPIES + ((c + r) % COPIES)]; /* rotated: no bank conflicts */
        if (sum) atomicAdd(counts + lo_bin + r, (CT)sum);
    }
}

template <typename T, typename Binner, typename CT>
__global__ void __launch_bounds__(hist_policy::threads)
hist_global_kernel(const T *samples, long long n, bool vec, Binner binner, uint32_t bins, CT *counts)
{
    const long long thread = (long long)blockIdx.x * hist_policy::threads + threadIdx.x;
    const void *table = binner.load_table(nullptr); /* in_smem is false here */
    count_range<T, 1, 1>(samples, 0, n, vec, binner, table, counts, 0, bins, thread, (long long)gridDim.x * hist_policy::threads);
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
    size_t table_bytes = 0;
    if constexpr (Binner::has_table) {
        binner.in_smem = (size_t)(bins + 1) * sizeof(T) <= hist_policy::table_bytes;
        table_bytes = binner.table_bytes();
    }
    /* counters: a chunk that fits half of what a block may have runs two
     * blocks an SM; more bins take one block an SM and the fewest chunks
     * of (nearly) equal size */
    const size_t half = ((size_t)optin / 2 - table_bytes) / 4096 * 4096;
    const size_t full = ((size_t)optin - table_bytes) / 4096 * 4096;
    uint32_t chunk_bins = bins, chunks = 1;
    if ((size_t)bins * 4 > half) {
        chunks = (uint32_t)(((uint64_t)bins * 4 + full - 1) / full);
        chunk_bins = (uint32_t)(((uint64_t)bins + chunks - 1) / chunks);
    }
    const long long vectors_per_block = (long long)hist_policy::threads * hist_policy::unroll;
    const long long min_samples = vectors_per_block * (16 / (long long)sizeof(T)); /* a block's first round */
    if (chunks > hist_policy::max_chunks) {
        if constexpr (Binner::has_table) binner.in_smem = false;
        const long long blocks = std::min<long long>((n + min_samples - 1) / min_samples, 32ll * ctx->sm_count);
        hist_global_kernel<T, Binner, CT>
            <<<(unsigned)blocks, hist_policy::threads, 0, stream>>>(samples, n, vec, binner, bins, counts);
        return gpi_cuda_status(ctx, cudaGetLastError(), "histogram kernel launch");
    }
    const bool lanes = (size_t)chunk_bins * 4 * 32 <= hist_policy::copies_bytes; /* 32 copies */
    const size_t smem = table_bytes + (size_t)(lanes ? 32 : 1) * chunk_bins * 4;
    auto kernel = lanes ? hist_private_kernel<T, 32, Binner, CT> : hist_private_kernel<T, 1, Binner, CT>;
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
    per_block = (per_block + 15) / 16 * 16; /* whole vectors: every segment starts 16-byte aligned */
    segs = (n + per_block - 1) / per_block;
    if (segs * chunks > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "histogram: too many blocks");
    kernel<<<(unsigned)(segs * chunks), hist_policy::threads, smem, stream>>>(
        samples, n, per_block, vec, binner, bins, chunk_bins, chunks, table_bytes, counts);
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
    if constexpr (std::is_floating_point<T>::value) {
        if (p->float_form == GPI_HIST_FLOAT_SCALE && !p->halve) {
            even_binner<T, kFloatScaled> b;
            b.p = *p;
            return hist_counts<T>(ctx, samples, n, b, (size_t)p->bins, count_dtype, counts);
        }
    } else if (p->int_form == GPI_HIST_INT_SHIFT) {
        even_binner<T, kIntShift> b;
        b.p = *p;
        return hist_counts<T>(ctx, samples, n, b, (size_t)p->bins, count_dtype, counts);
    }
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
