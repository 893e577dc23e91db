/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_sort.cu - gp_segmented_sort_keys / _pairs on the device.
 *
 * Each segment is sorted on its own, by a method that fits its length:
 *   1. classification (two passes over the offsets): a segment of up to
 *      kSmallMax items belongs to the smallest block tier that holds it
 *      (policy/segmented_sort.cuh), a longer one is large, an empty one is
 *      skipped. Per-block class counts, an exclusive scan of them laid out
 *      class by class, and a second pass that writes each segment's id into
 *      its class's list and the bounds of the first kMaxLarge large
 *      segments next to the class starts;
 *   2. the class starts and the large bounds come back to the host (the
 *      call's one synchronization): they size the launches;
 *   3. each tier's list is one launch of the block kernel
 *      (segmented_sort_small.cuh): a block per segment;
 *   4. each large segment is one CUB DeviceRadixSort over its range, on the
 *      keys' order images (identical to the keys for unsigned ascending
 *      keys, which are then sorted straight from keys_in), its values (or
 *      indices) sorted along.
 * When launching a device sort per large segment would cost more than the
 * fallback (segmented_sort_global.cu: two radix sorts of all n items,
 * whatever the shapes), by the cost model of the policy, or when more than
 * kMaxLarge segments are large, the fallback runs instead.
 * GP_CUDA_SEGSORT=split or =global in the environment (read at each call,
 * for tests) forces the per-segment plan (where it can run) or the
 * fallback.
 * Offsets are clamped as gpi_segment_bounds does: broken ones give
 * unspecified order but no access out of bounds (the large segments'
 * lengths must add up to at most n, else the fallback runs). */
#include "policy/segmented_sort.cuh"
#include "segmented_sort.cuh"
#include "segmented_sort_small.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace gpi_segsort;

namespace {

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* GP_CUDA_SEGSORT=split / global (a testing knob, read at each call):
 * 1 forces the per-segment plan where it can run, 2 the fallback, 0 lets
 * the cost model choose. */
int forced_plan()
{
    const char *v = getenv("GP_CUDA_SEGSORT");
    if (!v) return 0;
    if (!strcmp(v, "split")) return 1;
    if (!strcmp(v, "global")) return 2;
    return 0;
}

__device__ __forceinline__ int class_of(uint64_t len)
{
    /* The limits as compile-time constants: the policy's arrays exist on the
     * host only, and reading them from a kernel traps. */
    constexpr uint64_t limit[kTiers] = {tier_tile(0), tier_tile(1), tier_tile(2), tier_tile(3),
                                        tier_tile(4), tier_tile(5), tier_tile(6)};
    static_assert(kTiers == 7, "one limit per tier");
    if (len == 0) return -1;
#pragma unroll
    for (int t = 0; t < kTiers; t++)
        if (len <= limit[t]) return t;
    return kLarge;
}

/* counts[c * blocks + block]: the segments of class c in the block's chunk. */
__global__ void __launch_bounds__(kClassifyThreads)
    class_count_kernel(const uint64_t *offsets, uint64_t n, uint64_t segments, uint32_t *counts)
{
    __shared__ uint32_t cnt[kClasses];
    if (threadIdx.x < kClasses) cnt[threadIdx.x] = 0;
    __syncthreads();
    const uint64_t base = blockIdx.x * kClassifyChunk;
    for (int i = 0; i < kClassifyItems; i++) {
        const uint64_t s = base + (uint64_t)i * kClassifyThreads + threadIdx.x;
        if (s >= segments) break;
        uint64_t b, e;
        gpi_segment_bounds(offsets, s, n, &b, &e);
        const int c = class_of(e - b);
        if (c >= 0) atomicAdd(&cnt[c], 1u);
    }
    __syncthreads();
    if (threadIdx.x < kClasses) counts[threadIdx.x * gridDim.x + blockIdx.x] = cnt[threadIdx.x];
}

/* ids[starts[c * blocks + block] + k]: the block's k-th segment of class c
 * (in no particular order within the block). back: the class starts
 * (kClasses + 1 of them, the last the total), then the bounds (begin, end)
 * of the large segments of rank below kMaxLarge. */
__global__ void __launch_bounds__(kClassifyThreads)
    class_scatter_kernel(const uint64_t *offsets, uint64_t n, uint64_t segments, const uint32_t *counts,
                         const uint32_t *starts, uint32_t *ids, uint64_t *back)
{
    __shared__ uint32_t cnt[kClasses];
    const unsigned blocks = gridDim.x;
    if (threadIdx.x < kClasses) cnt[threadIdx.x] = 0;
    if (blockIdx.x == 0 && threadIdx.x <= kClasses)
        back[threadIdx.x] = threadIdx.x < kClasses ? starts[threadIdx.x * blocks]
                                                   : (uint64_t)starts[kClasses * blocks - 1] +
                                                         counts[kClasses * blocks - 1];
    __syncthreads();
    const uint32_t large_start = starts[kLarge * blocks];
    const uint64_t base = blockIdx.x * kClassifyChunk;
    for (int i = 0; i < kClassifyItems; i++) {
        const uint64_t s = base + (uint64_t)i * kClassifyThreads + threadIdx.x;
        if (s >= segments) break;
        uint64_t b, e;
        gpi_segment_bounds(offsets, s, n, &b, &e);
        const int c = class_of(e - b);
        if (c < 0) continue;
        const uint32_t at = starts[c * blocks + blockIdx.x] + atomicAdd(&cnt[c], 1u);
        ids[at] = (uint32_t)s;
        if (c == kLarge && at - large_start < (uint32_t)kMaxLarge) {
            back[kClasses + 1 + 2 * (size_t)(at - large_start)] = b;
            back[kClasses + 2 + 2 * (size_t)(at - large_start)] = e;
        }
    }
}

template <typename K, bool TO_IMAGE>
__global__ void image_kernel(gp_dtype dt, const K *in, K *out, uint64_t len, K flip)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < len; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = TO_IMAGE ? to_image<K>(dt, in[i], flip) : from_image<K>(dt, in[i], flip);
}

template <typename V>
__global__ void iota_kernel(V *out, uint64_t len, uint64_t first)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < len; i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = (V)(first + i);
}

/* One tier's launch over its list of segment ids. */
template <typename K, bool PAIRS, int TIER>
gp_status launch_tier(gp_context *ctx, const SmallArgs<K> &a, const uint32_t *ids, uint32_t count)
{
    constexpr int kThreads = kTierThreads[TIER], kItems = kTierItems[TIER];
    using S = SmallSort<K, PAIRS, kThreads, kItems>;
    auto kernel = small_sort_kernel<K, PAIRS, kThreads, kItems>;
    cudaError_t e = cudaSuccess;
    if (S::kSmem > 48 * 1024) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)S::kSmem);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort block kernel attribute");
    const unsigned grid = count < (1u << 30) ? count : (1u << 30);
    kernel<<<grid, kThreads, S::kSmem, (cudaStream_t)ctx->stream>>>(a, ids, count);
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort block kernel launch");
}

template <typename K, bool PAIRS>
gp_status launch_tiers(gp_context *ctx, const SmallArgs<K> &a, const uint32_t *ids, const uint64_t *starts)
{
    gp_status s = GP_SUCCESS;
    const uint32_t *l[kTiers];
    uint32_t c[kTiers];
    for (int t = 0; t < kTiers; t++) l[t] = ids + starts[t], c[t] = (uint32_t)(starts[t + 1] - starts[t]);
    static_assert(kTiers == 7, "one launch_tier per tier");
    if (!s && c[0]) s = launch_tier<K, PAIRS, 0>(ctx, a, l[0], c[0]);
    if (!s && c[1]) s = launch_tier<K, PAIRS, 1>(ctx, a, l[1], c[1]);
    if (!s && c[2]) s = launch_tier<K, PAIRS, 2>(ctx, a, l[2], c[2]);
    if (!s && c[3]) s = launch_tier<K, PAIRS, 3>(ctx, a, l[3], c[3]);
    if (!s && c[4]) s = launch_tier<K, PAIRS, 4>(ctx, a, l[4], c[4]);
    if (!s && c[5]) s = launch_tier<K, PAIRS, 5>(ctx, a, l[5], c[5]);
    if (!s && c[6]) s = launch_tier<K, PAIRS, 6>(ctx, a, l[6], c[6]);
    return s;
}

/* CUB's (in, out) sort of one range: keys, or keys and values V. */
template <typename K, typename V, typename N>
cudaError_t cub_range_sort(void *tmp, size_t &bytes, const K *kin, K *kout, const V *vin, V *vout, N len, int b,
                           int e, cudaStream_t st)
{
    if constexpr (std::is_void<V>::value)
        return cub::DeviceRadixSort::SortKeys(tmp, bytes, kin, kout, len, b, e, st);
    else
        return cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, len, b, e, st);
}

/* The per-segment plan's device memory. */
struct Layout {
    size_t counts, starts, scan_tmp, ids, back, kalt, valt, sort_tmp, total;
};

/* K: key bits type, V: the value type (void: keys only), N: CUB's count. */
template <typename K, typename V, typename N>
gp_status segsort_split(gp_context *ctx, const gpi_segsort_args *sa)
{
    constexpr bool kPairs = !std::is_void<V>::value;
    using VS = typename std::conditional<kPairs, V, uint32_t>::type;
    const gpi_sort_args *a = &sa->sort;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uint64_t n = a->n, segments = sa->n_segments;
    const K flip = a->descending ? ~(K)0 : (K)0;
    const bool identity = (a->key_dtype == GP_UINT32 || a->key_dtype == GP_UINT64) && !a->descending;
    const bool keys_direct = identity && a->keys_in != a->keys_out; /* CUB reads keys_in itself */
    const bool values_direct = kPairs && a->values_in && a->values_in != a->values_out;
    const bool may_be_large = n > kSmallMax;
    const unsigned blocks = (unsigned)((segments + kClassifyChunk - 1) / kClassifyChunk);
    const int scan_items = kClasses * (int)blocks;
    gp_status s;
    cudaError_t e;

    /* everything this plan uses, asked for at once: the workspace is valid
     * until the next request */
    Layout L{};
    size_t scan_bytes = 0, sort_bytes = 0, at = 0;
    e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                      scan_items, st);
    if (e == cudaSuccess && may_be_large && a->begin_bit < a->end_bit)
        e = cub_range_sort<K, V, N>(nullptr, sort_bytes, nullptr, nullptr, nullptr, nullptr, (N)n, a->begin_bit,
                                    a->end_bit, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort size query");
    L.counts = at, at += align256((size_t)scan_items * 4);
    L.starts = at, at += align256((size_t)scan_items * 4);
    L.scan_tmp = at, at += align256(scan_bytes);
    L.ids = at, at += align256(segments * 4);
    L.back = at, at += align256((kClasses + 1 + 2 * (size_t)kMaxLarge) * 8);
    L.kalt = at, at += may_be_large && !keys_direct ? align256(n * sizeof(K)) : 0;
    L.valt = at, at += may_be_large && kPairs && !values_direct ? align256(n * sizeof(VS)) : 0;
    L.sort_tmp = at, at += align256(sort_bytes);
    L.total = at;
    char *ws = nullptr;
    if ((s = gpi_workspace_aligned(ctx, L.total, (void **)&ws))) return s;
    uint32_t *counts = (uint32_t *)(ws + L.counts), *starts = (uint32_t *)(ws + L.starts);
    uint32_t *ids = (uint32_t *)(ws + L.ids);
    uint64_t *back = (uint64_t *)(ws + L.back);

    class_count_kernel<<<blocks, kClassifyThreads, 0, st>>>(sa->offsets, n, segments, counts);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort class count launch"))) return s;
    e = cub::DeviceScan::ExclusiveSum(ws + L.scan_tmp, scan_bytes, counts, starts, scan_items, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort class scan");
    class_scatter_kernel<<<blocks, kClassifyThreads, 0, st>>>(sa->offsets, n, segments, counts, starts, ids, back);
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort class scatter launch"))) return s;
    std::vector<uint64_t> host(kClasses + 1 + 2 * (size_t)kMaxLarge);
    e = cudaMemcpyAsync(host.data(), back, host.size() * 8, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort class counts");

    /* the plan, or the fallback */
    const uint64_t *cls = host.data(), *bounds = host.data() + kClasses + 1;
    const uint64_t large = cls[kClasses] - cls[kLarge];
    uint64_t large_items = 0;
    for (uint64_t i = 0; i < large && i < (uint64_t)kMaxLarge; i++) large_items += bounds[2 * i + 1] - bounds[2 * i];
    const double split_ns = kLargeSortFixedNs * (double)large + kLargeNsPerItem * (double)large_items +
                            kSmallNsPerItem * (double)(n - std::min(n, large_items));
    const int forced = forced_plan();
    if (large > (uint64_t)kMaxLarge || large_items > n || forced == 2 ||
        (forced == 0 && split_ns > kGlobalNsPerItem * (double)n))
        return gpi_cuda_segmented_sort_global(ctx, sa);

    SmallArgs<K> sm{a->key_dtype, (const K *)a->keys_in, (K *)a->keys_out, a->values_in, a->values_out,
                    kPairs ? (int)sizeof(VS) : 0, sa->offsets, n, a->begin_bit, a->end_bit, flip};
    if ((s = launch_tiers<K, kPairs>(ctx, sm, ids, cls))) return s;

    /* large segments: one device radix sort each */
    const K *kin = (const K *)a->keys_in;
    K *kout = (K *)a->keys_out, *kalt = (K *)(ws + L.kalt);
    VS *valt = (VS *)(ws + L.valt);
    uint64_t alt_at = 0; /* the segment's place in kalt / valt */
    for (uint64_t i = 0; i < large; i++) {
        const uint64_t b = bounds[2 * i], len = bounds[2 * i + 1] - b;
        const unsigned grid = gpi_stride_blocks(len, 256);
        const VS *vin = kPairs ? (const VS *)a->values_in : nullptr;
        VS *vout = kPairs ? (VS *)a->values_out : nullptr;
        if (a->begin_bit == a->end_bit) { /* no bits: every segment keeps its order */
            e = a->keys_in != a->keys_out ? cudaMemcpyAsync(kout + b, kin + b, len * sizeof(K), cudaMemcpyDeviceToDevice, st)
                                          : cudaSuccess;
            if (kPairs && e == cudaSuccess) {
                if (!vin) iota_kernel<VS><<<grid, 256, 0, st>>>(vout + b, len, b);
                else if (vin != vout) e = cudaMemcpyAsync(vout + b, vin + b, len * sizeof(VS), cudaMemcpyDeviceToDevice, st);
            }
            if (e == cudaSuccess) e = cudaGetLastError();
            if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort copy");
            continue;
        }
        const K *ksrc = kin + b;
        if (!keys_direct) {
            if (identity) e = cudaMemcpyAsync(kalt + alt_at, kin + b, len * sizeof(K), cudaMemcpyDeviceToDevice, st);
            else image_kernel<K, true><<<grid, 256, 0, st>>>(a->key_dtype, kin + b, kalt + alt_at, len, flip);
            ksrc = kalt + alt_at;
        }
        const VS *vsrc = nullptr;
        if (kPairs) {
            vsrc = vin + b;
            if (!values_direct) {
                if (!vin) iota_kernel<VS><<<grid, 256, 0, st>>>(valt + alt_at, len, b);
                else if (e == cudaSuccess)
                    e = cudaMemcpyAsync(valt + alt_at, vin + b, len * sizeof(VS), cudaMemcpyDeviceToDevice, st);
                vsrc = valt + alt_at;
            }
        }
        if (e == cudaSuccess) e = cudaGetLastError();
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort large segment input");
        size_t bytes = 0;
        e = cub_range_sort<K, V, N>(nullptr, bytes, ksrc, kout + b, (const V *)vsrc, (V *)(vout ? vout + b : nullptr),
                                    (N)len, a->begin_bit, a->end_bit, st);
        if (e == cudaSuccess && bytes > L.total - L.sort_tmp) e = cudaErrorInvalidValue;
        if (e == cudaSuccess)
            e = cub_range_sort<K, V, N>(ws + L.sort_tmp, bytes, ksrc, kout + b, (const V *)vsrc,
                                        (V *)(vout ? vout + b : nullptr), (N)len, a->begin_bit, a->end_bit, st);
        if (e == cudaSuccess && !identity) {
            image_kernel<K, false><<<grid, 256, 0, st>>>(a->key_dtype, kout + b, kout + b, len, flip);
            e = cudaGetLastError();
        }
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort large segment");
        alt_at += len;
    }
    return GP_SUCCESS;
}

template <typename K, typename V>
gp_status segsort_count(gp_context *ctx, const gpi_segsort_args *sa)
{
    /* Segment ids are 32-bit in the lists; CUB's count type as gp_sort
     * picks it (64-bit for keys alone, 32-bit for pairs while n fits). */
    if (sa->n_segments > UINT32_MAX) return gpi_cuda_segmented_sort_global(ctx, sa);
    if (std::is_void<V>::value || sa->sort.n > UINT32_MAX) return segsort_split<K, V, unsigned long long>(ctx, sa);
    return segsort_split<K, V, uint32_t>(ctx, sa);
}

template <typename K>
gp_status segsort_values(gp_context *ctx, const gpi_segsort_args *sa)
{
    if (sa->sort.value_size == 0) return segsort_count<K, void>(ctx, sa);
    if (sa->sort.value_size == 4) return segsort_count<K, uint32_t>(ctx, sa);
    return segsort_count<K, uint64_t>(ctx, sa);
}

}  // namespace

extern "C" gp_status gpi_cuda_segmented_sort(gp_context *ctx, const gpi_segsort_args *sa)
{
    if (gp_dtype_size(sa->sort.key_dtype) == 4) return segsort_values<uint32_t>(ctx, sa);
    return segsort_values<uint64_t>(ctx, sa);
}
