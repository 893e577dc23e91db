/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/segmented_sort_global.cu - the segmented sort's fallback for shapes
 * the per-segment plan (segmented_sort.cu) would run slowly: many segments
 * too long for one block.
 *
 * Every segment at once, by two stable radix sorts (CUB's DeviceRadixSort)
 * instead of one sort per segment: the cost is that of sorting n pairs
 * twice whatever the segment shapes, and nothing is quadratic.
 *   1. the keys' order images (gp_sort's, all bits complemented for
 *      descending), paired with their positions, sorted on [begin_bit,
 *      end_bit): every key in its final order within the whole array;
 *   2. each element's segment number (0 before offsets[0], s + 1 in
 *      segment s, n_segments + 1 after the last; found by binary search
 *      over the offsets), paired with its place in sort 1's order, sorted
 *      on as many bits as the numbers need: segments in order, and inside
 *      each the order of sort 1, since the sort is stable;
 *   3. a gather writes positions [offsets[0], offsets[n_segments]) of the
 *      outputs: the key rebuilt from its image (so keys sorted in place
 *      need no copy), the value read at the key's original position (values
 *      sorted in place are read from a copy).
 * Offsets are clamped as gpi_segment_bounds does: broken ones give
 * unspecified order but no access out of bounds. */
#include "segmented_sort.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <type_traits>

namespace {

constexpr int kThreads = 256;
size_t align256(size_t b) { return (b + 255) / 256 * 256; }

template <typename K, typename I>
__global__ void images_kernel(gp_dtype dt, const K *keys, uint64_t n, K flip, K *img, I *pos)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        img[i] = gpi_segsort::to_image<K>(dt, keys[i], flip);
        pos[i] = (I)i;
    }
}

/* seg[j]: the segment number of the element sort 1 put at j; place[j] = j. */
template <typename I>
__global__ void segment_numbers_kernel(const uint64_t *offsets, uint64_t segments, uint64_t n, const I *pos, I *seg,
                                       I *place)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n; j += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t i = pos[j];
        uint64_t lo = 0, hi = segments + 1; /* how many clamped offsets are <= i */
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            const uint64_t o = offsets[mid] < n ? offsets[mid] : n;
            if (o <= i) lo = mid + 1;
            else hi = mid;
        }
        seg[j] = (I)lo;
        place[j] = (I)j;
    }
}

/* V: the value type (uint32/uint64), or void for keys only. */
template <typename K, typename I, typename V>
__global__ void gather_kernel(gp_dtype dt, const uint64_t *offsets, uint64_t segments, uint64_t n, const I *place,
                              const K *img, const I *pos, K flip, K *keys_out, const V *values, V *values_out)
{
    const uint64_t lo = offsets[0] < n ? offsets[0] : n;
    const uint64_t hi = offsets[segments] < n ? offsets[segments] : n;
    for (uint64_t p = lo + blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < hi;
         p += (uint64_t)gridDim.x * blockDim.x) {
        const I j = place[p];
        keys_out[p] = gpi_segsort::from_image<K>(dt, img[j], flip);
        if constexpr (!std::is_void<V>::value) {
            const I i = pos[j];
            values_out[p] = values ? values[i] : (V)i;
        }
    }
}

int bits_for(uint64_t x) /* bits to hold 0..x */
{
    int b = 1;
    while (b < 64 && (x >> b)) b++;
    return b;
}

template <typename K, typename I, typename V>
gp_status segsort_typed(gp_context *ctx, const gpi_segsort_args *sa)
{
    const gpi_sort_args *a = &sa->sort;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const uint64_t n = a->n, segments = sa->n_segments;
    const K flip = a->descending ? (K)~(K)0 : (K)0;
    constexpr bool kPairs = !std::is_void<V>::value;
    using VS = typename std::conditional<kPairs, V, uint32_t>::type; /* a value-sized type either way */
    const bool values_copied = kPairs && a->values_in && a->values_in == a->values_out;
    const int seg_bits = bits_for(segments + 1);
    const size_t kb = align256(n * sizeof(K)), ib = align256(n * sizeof(I));
    const size_t vb = values_copied ? align256(n * sizeof(VS)) : 0;
    size_t tmp1 = 0, tmp2 = 0;
    cudaError_t e;
    gp_status s;

    cub::DoubleBuffer<K> img;
    cub::DoubleBuffer<I> pos, seg, place;
    e = cub::DeviceRadixSort::SortPairs(nullptr, tmp1, img, pos, n, a->begin_bit, a->end_bit, st);
    if (e == cudaSuccess) e = cub::DeviceRadixSort::SortPairs(nullptr, tmp2, seg, place, n, 0, seg_bits, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort size query");
    const size_t tmp = align256(std::max(tmp1, tmp2));
    char *ws = nullptr;
    if ((s = gpi_workspace_aligned(ctx, 2 * kb + 6 * ib + vb + tmp, (void **)&ws))) return s;
    img = cub::DoubleBuffer<K>((K *)ws, (K *)(ws + kb));
    char *p = ws + 2 * kb;
    pos = cub::DoubleBuffer<I>((I *)p, (I *)(p + ib));
    seg = cub::DoubleBuffer<I>((I *)(p + 2 * ib), (I *)(p + 3 * ib));
    place = cub::DoubleBuffer<I>((I *)(p + 4 * ib), (I *)(p + 5 * ib));
    void *values_copy = p + 6 * ib;
    void *cub_tmp = p + 6 * ib + vb;
    const unsigned grid = gpi_stride_blocks(n, kThreads);

    if (values_copied) {
        e = cudaMemcpyAsync(values_copy, a->values_in, n * sizeof(VS), cudaMemcpyDeviceToDevice, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort values copy");
    }
    images_kernel<K, I><<<grid, kThreads, 0, st>>>(a->key_dtype, (const K *)a->keys_in, n, flip, img.Current(),
                                                   pos.Current());
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort images launch"))) return s;
    if (a->begin_bit < a->end_bit) {
        e = cub::DeviceRadixSort::SortPairs(cub_tmp, tmp1, img, pos, n, a->begin_bit, a->end_bit, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort (keys)");
    }
    segment_numbers_kernel<I><<<grid, kThreads, 0, st>>>(sa->offsets, segments, n, pos.Current(), seg.Current(),
                                                         place.Current());
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort segment numbers launch"))) return s;
    e = cub::DeviceRadixSort::SortPairs(cub_tmp, tmp2, seg, place, n, 0, seg_bits, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "segmented sort (segments)");
    const V *vals = nullptr;
    V *vout = nullptr;
    if constexpr (kPairs) {
        vals = values_copied ? (const V *)values_copy : (const V *)a->values_in;
        vout = (V *)a->values_out;
    }
    gather_kernel<K, I, V><<<grid, kThreads, 0, st>>>(a->key_dtype, sa->offsets, segments, n, place.Current(),
                                                      img.Current(), pos.Current(), flip, (K *)a->keys_out, vals,
                                                      vout);
    return gpi_cuda_status(ctx, cudaGetLastError(), "segmented sort gather launch");
}

template <typename K, typename I>
gp_status segsort_values(gp_context *ctx, const gpi_segsort_args *sa)
{
    if (sa->sort.value_size == 0) return segsort_typed<K, I, void>(ctx, sa);
    if (sa->sort.value_size == 4) return segsort_typed<K, I, uint32_t>(ctx, sa);
    return segsort_typed<K, I, uint64_t>(ctx, sa);
}

template <typename K>
gp_status segsort_index(gp_context *ctx, const gpi_segsort_args *sa)
{
    /* 32-bit positions and segment numbers while they fit: half the bytes
     * and half the radix passes of the second sort. */
    if (sa->sort.n <= UINT32_MAX && sa->n_segments < UINT32_MAX - 1) return segsort_values<K, uint32_t>(ctx, sa);
    return segsort_values<K, uint64_t>(ctx, sa);
}

} // namespace

gp_status gpi_cuda_segmented_sort_global(gp_context *ctx, const gpi_segsort_args *sa)
{
    if (gp_dtype_size(sa->sort.key_dtype) == 4) return segsort_index<uint32_t>(ctx, sa);
    return segsort_index<uint64_t>(ctx, sa);
}
