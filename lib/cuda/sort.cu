/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/sort.cu - radix sort on CUB's DeviceRadixSort (onesweep for large
 * inputs), which already does what gp_sort promises for integer keys: a
 * stable LSD sort on a bit range of the key's order image, signed keys
 * with their sign bit flipped. What this file adds:
 *   - float keys: CUB orders -0.0 and +0.0 as equal and negative NaNs
 *     first, gpuprim promises IEEE total order with every NaN last; so the
 *     keys are turned into their order images (gpi_f32_image, a bijection),
 *     sorted as unsigned integers and turned back;
 *   - in place and index values: sorted in the output buffers, ping-ponging
 *     with a second buffer from the workspace (CUB's DoubleBuffer form);
 *   - begin_bit == end_bit copies; n past 2^32 uses 64-bit offsets.
 * Out of place with integer keys calls CUB's (in, out) form directly: its
 * first pass reads the input, so no copy is made.
 *
 * With GP_CUDA_SORT=own in the environment (read once), gpuprim's own
 * onesweep sort (radix_sort.cu) runs instead, for up to
 * gpi_radix_max_keys() keys and a non-empty bit range; CUB otherwise. */
#include "internal.h"
#include "radix/radix_sort.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <type_traits>

namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

template <typename U, bool TO_IMAGE>
__global__ void float_image_kernel(const U *in, U *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        if (sizeof(U) == 4)
            out[i] = TO_IMAGE ? gpi_f32_image((uint32_t)in[i]) : gpi_f32_from_image((uint32_t)in[i]);
        else
            out[i] = TO_IMAGE ? gpi_f64_image((uint64_t)in[i]) : gpi_f64_from_image((uint64_t)in[i]);
    }
}

template <typename V>
__global__ void iota_kernel(V *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = (V)i;
}

/* CUB's four entry points (keys / pairs, ascending / descending) in two
 * forms: (in, out) and DoubleBuffer. V = cub::NullType: keys only. */
template <typename K, typename V, typename N>
cudaError_t cub_sort(bool desc, void *tmp, size_t &bytes, const K *kin, K *kout, const V *vin, V *vout, N n, int b,
                     int e, cudaStream_t st)
{
    if constexpr (std::is_same<V, cub::NullType>::value) {
        return desc ? cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, kin, kout, n, b, e, st)
                    : cub::DeviceRadixSort::SortKeys(tmp, bytes, kin, kout, n, b, e, st);
    } else {
        return desc ? cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, kin, kout, vin, vout, n, b, e, st)
                    : cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, b, e, st);
    }
}

template <typename K, typename V, typename N>
cudaError_t cub_sort_db(bool desc, void *tmp, size_t &bytes, cub::DoubleBuffer<K> &kd, cub::DoubleBuffer<V> &vd, N n,
                        int b, int e, cudaStream_t st)
{
    if constexpr (std::is_same<V, cub::NullType>::value) {
        return desc ? cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, kd, n, b, e, st)
                    : cub::DeviceRadixSort::SortKeys(tmp, bytes, kd, n, b, e, st);
    } else {
        return desc ? cub::DeviceRadixSort::SortPairsDescending(tmp, bytes, kd, vd, n, b, e, st)
                    : cub::DeviceRadixSort::SortPairs(tmp, bytes, kd, vd, n, b, e, st);
    }
}

/* K: the key type CUB sees (the unsigned image type for floats), V: the
 * value type or cub::NullType, N: the item count type. */
template <typename K, typename V, typename N>
gp_status sort_typed(gp_context *ctx, const gpi_sort_args *a, bool float_keys)
{
    constexpr bool kPairs = !std::is_same<V, cub::NullType>::value;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const N n = (N)a->n;
    const size_t kbytes = a->n * sizeof(K);
    const size_t vbytes = kPairs ? a->n * a->value_size : 0;
    const K *kin = (const K *)a->keys_in;
    K *kout = (K *)a->keys_out;
    const V *vin = (const V *)a->values_in;
    V *vout = (V *)a->values_out;
    size_t bytes = 0;
    char *ws = NULL;
    gp_status s;
    cudaError_t e = cudaSuccess;

    if (!float_keys && kin != kout && (!kPairs || (vin && vin != vout)) && a->begin_bit < a->end_bit) {
        e = cub_sort<K, V, N>(a->descending, NULL, bytes, kin, kout, vin, vout, n, a->begin_bit, a->end_bit, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort size query");
        if ((s = gpi_workspace_aligned(ctx, bytes, (void **)&ws))) return s;
        e = cub_sort<K, V, N>(a->descending, ws, bytes, kin, kout, vin, vout, n, a->begin_bit, a->end_bit, st);
        return gpi_cuda_status(ctx, e, "radix sort");
    }

    /* Sort in the output buffers: keys (as images) into keys_out, values
     * (or indices) into values_out. */
    if (float_keys) float_image_kernel<K, true><<<gpi_stride_blocks(a->n, 256), 256, 0, st>>>(kin, kout, a->n);
    else if (kin != kout) e = cudaMemcpyAsync(kout, kin, kbytes, cudaMemcpyDeviceToDevice, st);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (kPairs && e == cudaSuccess) {
        if (!vin) iota_kernel<V><<<gpi_stride_blocks(a->n, 256), 256, 0, st>>>(vout, a->n);
        else if (vin != vout) e = cudaMemcpyAsync(vout, vin, vbytes, cudaMemcpyDeviceToDevice, st);
        if (e == cudaSuccess) e = cudaGetLastError();
    }
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort input");
    if (a->begin_bit < a->end_bit) {
        cub::DoubleBuffer<K> kd(kout, NULL);
        cub::DoubleBuffer<V> vd(vout, NULL);
        size_t off_v = align_up(kbytes), off_t = off_v + align_up(vbytes);
        e = cub_sort_db<K, V, N>(a->descending, NULL, bytes, kd, vd, n, a->begin_bit, a->end_bit, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort size query");
        if ((s = gpi_workspace_aligned(ctx, off_t + bytes, (void **)&ws))) return s;
        kd = cub::DoubleBuffer<K>(kout, (K *)ws);
        vd = cub::DoubleBuffer<V>(vout, (V *)(ws + off_v));
        e = cub_sort_db<K, V, N>(a->descending, ws + off_t, bytes, kd, vd, n, a->begin_bit, a->end_bit, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort");
        if (kd.Current() != kout) {
            if (float_keys) float_image_kernel<K, false><<<gpi_stride_blocks(a->n, 256), 256, 0, st>>>(kd.Current(), kout, a->n);
            else e = cudaMemcpyAsync(kout, kd.Current(), kbytes, cudaMemcpyDeviceToDevice, st);
            if (e == cudaSuccess && kPairs)
                e = cudaMemcpyAsync(vout, vd.Current(), vbytes, cudaMemcpyDeviceToDevice, st);
            if (e == cudaSuccess) e = cudaGetLastError();
            return gpi_cuda_status(ctx, e, "radix sort result");
        }
    }
    if (float_keys) {
        float_image_kernel<K, false><<<gpi_stride_blocks(a->n, 256), 256, 0, st>>>(kout, kout, a->n);
        e = cudaGetLastError();
    }
    return gpi_cuda_status(ctx, e, "radix sort result");
}

template <typename K, typename V>
gp_status sort_n(gp_context *ctx, const gpi_sort_args *a, bool float_keys)
{
    /* CUB's item count type picks its offset width, and its speed: on an
     * H100, 2^28 uint32 keys sort in 5.56 ms with 64-bit counts against
     * 6.39 ms with 32-bit ones, while uint32 pairs take 8.89 ms with
     * 32-bit counts against 9.48 (bench/RESULTS.md). So keys go 64-bit,
     * pairs 32-bit while n allows. */
    if (std::is_same<V, cub::NullType>::value || a->n > UINT32_MAX)
        return sort_typed<K, V, unsigned long long>(ctx, a, float_keys);
    return sort_typed<K, V, uint32_t>(ctx, a, float_keys);
}

template <typename K>
gp_status sort_values(gp_context *ctx, const gpi_sort_args *a, bool float_keys)
{
    if (a->value_size == 0) return sort_n<K, cub::NullType>(ctx, a, float_keys);
    if (a->value_size == 4) return sort_n<K, uint32_t>(ctx, a, float_keys);
    return sort_n<K, uint64_t>(ctx, a, float_keys);
}

template <typename K>
cudaError_t double_buffer(bool query, bool desc, void *keys, void *alt, size_t n, int b, int e, void *tmp,
                          size_t &bytes, cudaStream_t st, int *in_alt)
{
    cub::DoubleBuffer<K> kd((K *)keys, (K *)alt);
    cub::DoubleBuffer<cub::NullType> vd;
    cudaError_t err;
    if (n <= UINT32_MAX) err = cub_sort_db<K, cub::NullType, uint32_t>(desc, query ? NULL : tmp, bytes, kd, vd,
                                                                       (uint32_t)n, b, e, st);
    else err = cub_sort_db<K, cub::NullType, unsigned long long>(desc, query ? NULL : tmp, bytes, kd, vd,
                                                                  (unsigned long long)n, b, e, st);
    if (!query && in_alt) *in_alt = kd.selector;
    return err;
}

template <typename K>
cudaError_t double_buffer_typed(gp_dtype dtype, bool query, bool desc, void *keys, void *alt, size_t n, int b, int e,
                                void *tmp, size_t &bytes, cudaStream_t st, int *in_alt)
{
    /* Signed keys: CUB flips their sign bit itself, as gp_sort promises. */
    if (dtype == GP_INT32 || dtype == GP_INT64)
        return double_buffer<typename std::make_signed<K>::type>(query, desc, keys, alt, n, b, e, tmp, bytes, st,
                                                                 in_alt);
    return double_buffer<K>(query, desc, keys, alt, n, b, e, tmp, bytes, st, in_alt);
}

}  // namespace

static bool use_own_sort(size_t n, int begin_bit, int end_bit)
{
    return begin_bit < end_bit && n <= gpi_radix_max_keys() && gpi_radix_selected();
}

extern "C" gp_status gpi_cuda_sort(gp_context *ctx, const gpi_sort_args *a)
{
    if (use_own_sort(a->n, a->begin_bit, a->end_bit)) return gpi_radix_sort(ctx, a);
    switch (a->key_dtype) {
    case GP_UINT32: return sort_values<uint32_t>(ctx, a, false);
    case GP_INT32: return sort_values<int32_t>(ctx, a, false);
    case GP_UINT64: return sort_values<uint64_t>(ctx, a, false);
    case GP_INT64: return sort_values<int64_t>(ctx, a, false);
    case GP_FLOAT32: return sort_values<uint32_t>(ctx, a, true);
    case GP_FLOAT64: return sort_values<uint64_t>(ctx, a, true);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_sort: unchecked key dtype %d", (int)a->key_dtype);
}

extern "C" gp_status gpi_cuda_sort_scratch_bytes(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit,
                                                 int end_bit, size_t *tmp_bytes)
{
    cudaError_t e;
    size_t bytes = 0;
    if (key_dtype == GP_UINT32 || key_dtype == GP_INT32)
        e = double_buffer_typed<uint32_t>(key_dtype, true, false, NULL, NULL, n, begin_bit, end_bit, NULL, bytes,
                                          NULL, NULL);
    else if (key_dtype == GP_UINT64 || key_dtype == GP_INT64)
        e = double_buffer_typed<uint64_t>(key_dtype, true, false, NULL, NULL, n, begin_bit, end_bit, NULL, bytes,
                                          NULL, NULL);
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_sort_scratch_bytes: key dtype %d", (int)key_dtype);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort size query");
    /* enough for either sort, whichever GP_CUDA_SORT picks */
    const size_t own = gpi_radix_double_buffer_scratch(key_dtype, n);
    *tmp_bytes = bytes > own ? bytes : own;
    return GP_SUCCESS;
}

extern "C" gp_status gpi_cuda_sort_double_buffer(gp_context *ctx, gp_dtype key_dtype, int descending, void *keys,
                                                 void *alt, size_t n, int begin_bit, int end_bit, void *tmp,
                                                 size_t tmp_bytes, int *in_alt)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    cudaError_t e;
    int sel = 0;
    if (use_own_sort(n, begin_bit, end_bit))
        return gpi_radix_sort_double_buffer(ctx, key_dtype, descending, keys, alt, n, begin_bit, end_bit, tmp, in_alt);
    if (key_dtype == GP_UINT32 || key_dtype == GP_INT32)
        e = double_buffer_typed<uint32_t>(key_dtype, false, descending != 0, keys, alt, n, begin_bit, end_bit, tmp,
                                          tmp_bytes, st, &sel);
    else if (key_dtype == GP_UINT64 || key_dtype == GP_INT64)
        e = double_buffer_typed<uint64_t>(key_dtype, false, descending != 0, keys, alt, n, begin_bit, end_bit, tmp,
                                          tmp_bytes, st, &sel);
    else return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_sort_keys_double_buffer: key dtype %d", (int)key_dtype);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort");
    *in_alt = sel; /* the output only on success */
    return GP_SUCCESS;
}
