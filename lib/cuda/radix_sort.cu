/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/radix_sort.cu - gpuprim's own LSD radix sort: the host side.
 *
 * One sort: a memset of the control block, the histogram kernel (every
 * digit position at once; its last block plans the passes on the device),
 * a onesweep kernel per digit pass of 8 bits (a pass whose digit is
 * constant returns at once), and a finishing copy for what did not end in
 * the outputs (in place with an odd number of active passes, or no active
 * pass at all). The host never waits. Keys travel as their raw bits: each
 * kernel takes a key's digit from its order image (order_image.cuh), so
 * float, signed and descending keys need no extra passes.
 *
 * Workspace (each part 256-byte aligned): control, digit offsets, plan,
 * two look-back status buffers of tiles x 256 words (the pass with active
 * ordinal j uses buffer j % 2 and clears its tile's row of the other for
 * pass j + 1), and a second buffer of n keys (and n values). */
#include "radix/radix_sort.h"

#include "radix/histogram.cuh"
#include "radix/onesweep.cuh"

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

namespace {

using namespace gpi_radix;

constexpr size_t kAlign = 256;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

int items_for(size_t ks, size_t vs)
{
    if (ks == 4) return vs == 0 ? pass_items<4, 0>::value : vs == 4 ? pass_items<4, 4>::value : pass_items<4, 8>::value;
    return vs == 0 ? pass_items<8, 0>::value : vs == 4 ? pass_items<8, 4>::value : pass_items<8, 8>::value;
}

struct layout {
    size_t control, offsets, plan, status0, status1, keys_alt, vals_alt, total;
    size_t tiles;
};

/* alts: the workspace holds the second key (and value) buffer. */
layout make_layout(size_t n, size_t ks, size_t vs, bool alts)
{
    layout L = {};
    size_t off = 0;
    auto take = [&](size_t bytes) {
        const size_t at = off;
        off = align_up(off + bytes);
        return at;
    };
    const size_t tile = (size_t)kThreads * items_for(ks, vs);
    L.tiles = (n + tile - 1) / tile;
    L.control = take(sizeof(control));
    L.offsets = take((size_t)kMaxPasses * kBins * sizeof(uint32_t));
    L.plan = take(sizeof(plan));
    L.status0 = take(L.tiles * kBins * sizeof(uint32_t));
    L.status1 = take(L.tiles * kBins * sizeof(uint32_t));
    if (alts) {
        L.keys_alt = take(n * ks);
        if (vs) L.vals_alt = take(n * vs);
    }
    L.total = off;
    return L;
}

/* ws: 256-byte aligned, L.total bytes. finish: launch the finishing copy. */
template <typename K, int KIND, typename V>
cudaError_t run(cudaStream_t st, int sm_count, const buffers &b, size_t n_, int begin_bit, int end_bit, K flip,
                char *ws, const layout &L, bool finish)
{
    constexpr int ITEMS = pass_items<sizeof(K), std::is_same<V, no_value>::value ? 0 : sizeof(V)>::value;
    const uint32_t n = (uint32_t)n_;
    control *ctl = (control *)(ws + L.control);
    uint32_t *offsets = (uint32_t *)(ws + L.offsets);
    plan *pl = (plan *)(ws + L.plan);
    uint32_t *status0 = (uint32_t *)(ws + L.status0), *status1 = (uint32_t *)(ws + L.status1);
    const int passes = pass_count(begin_bit, end_bit);

    cudaError_t e = cudaMemsetAsync(ctl, 0, sizeof(control), st);
    if (e != cudaSuccess) return e;
    const size_t hist_tile = (size_t)kThreads * hist_items<sizeof(K)>::value;
    const size_t hist_tiles = (n_ + hist_tile - 1) / hist_tile;
    const size_t hist_cap = (size_t)(sm_count > 0 ? sm_count : 1) * GPI_RADIX_HIST_BLOCKS_PER_SM;
    const unsigned hist_grid = (unsigned)(hist_tiles < hist_cap ? hist_tiles : hist_cap);
    histogram_kernel<K, KIND><<<hist_grid, kThreads, 0, st>>>((const K *)b.keys_in, n, flip, begin_bit, end_bit, ctl,
                                                              offsets, pl, b, status0,
                                                              (uint32_t)(L.tiles * kBins));
    for (int p = 0; p < passes; p++) {
        pass_args pa;
        pa.pl = pl;
        pa.n = n;
        pa.pass = p;
        pa.shift = pass_shift(begin_bit, p);
        pa.mask = pass_mask(begin_bit, end_bit, p);
        pa.tile_counter = &ctl->tile_counter[p];
        pa.offsets = offsets + p * kBins;
        pa.status0 = status0;
        pa.status1 = status1;
        onesweep_kernel<K, V, KIND, ITEMS><<<(unsigned)L.tiles, kThreads, 0, st>>>(pa, flip);
    }
    if (finish) { /* a grid that fits the GPU: mostly it has nothing to do and returns at once */
        const unsigned blocks = gpi_stride_blocks(n_, 256), cap = (unsigned)hist_cap * 2;
        finish_kernel<K, V><<<blocks < cap ? blocks : cap, 256, 0, st>>>(pl, (K *)b.keys_out, (V *)b.vals_out, n_);
    }
    return cudaGetLastError();
}

template <typename K, int KIND>
gp_status sort_keyed(gp_context *ctx, const gpi_sort_args *a)
{
    const size_t vs = a->value_size;
    const layout L = make_layout(a->n, sizeof(K), vs, true);
    char *ws = NULL;
    gp_status s;
    if ((s = gpi_workspace_aligned(ctx, L.total, (void **)&ws))) return s;
    buffers b;
    b.keys_in = a->keys_in;
    b.keys_out = a->keys_out;
    b.keys_alt = ws + L.keys_alt;
    b.vals_in = vs ? a->values_in : NULL;
    b.vals_out = vs ? a->values_out : NULL;
    b.vals_alt = vs ? ws + L.vals_alt : NULL;
    b.allow_skip = 1;
    const K flip = gpi_order::flip_for<K>(a->descending);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    cudaError_t e;
    if (vs == 0) e = run<K, KIND, no_value>(st, ctx->sm_count, b, a->n, a->begin_bit, a->end_bit, flip, ws, L, true);
    else if (vs == 4) e = run<K, KIND, uint32_t>(st, ctx->sm_count, b, a->n, a->begin_bit, a->end_bit, flip, ws, L, true);
    else e = run<K, KIND, uint64_t>(st, ctx->sm_count, b, a->n, a->begin_bit, a->end_bit, flip, ws, L, true);
    return gpi_cuda_status(ctx, e, "radix sort");
}

template <typename K, int KIND>
gp_status double_buffer_keyed(gp_context *ctx, int descending, void *keys, void *alt, size_t n, int begin_bit,
                              int end_bit, void *scratch, int *in_alt)
{
    const layout L = make_layout(n, sizeof(K), 0, false);
    char *ws = (char *)(((uintptr_t)scratch + kAlign - 1) / kAlign * kAlign);
    const int odd = pass_count(begin_bit, end_bit) & 1;
    buffers b;
    b.keys_in = keys;
    b.keys_out = odd ? alt : keys;
    b.keys_alt = odd ? keys : alt; /* the input, once the first pass has read it */
    b.vals_in = NULL;
    b.vals_out = b.vals_alt = NULL;
    b.allow_skip = 0; /* where the keys end must not depend on them */
    const cudaError_t e = run<K, KIND, no_value>((cudaStream_t)ctx->stream, ctx->sm_count, b, n, begin_bit, end_bit,
                                                 gpi_order::flip_for<K>(descending), ws, L, false);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "radix sort");
    *in_alt = odd;
    return GP_SUCCESS;
}

}  // namespace

bool gpi_radix_selected(void)
{
    static const bool own = [] {
        const char *v = getenv("GP_CUDA_SORT");
        return v && strcmp(v, "own") == 0;
    }();
    return own;
}

size_t gpi_radix_max_keys(void) { return kMaxKeys; }

gp_status gpi_radix_sort(gp_context *ctx, const gpi_sort_args *a)
{
    switch (a->key_dtype) {
    case GP_UINT32: return sort_keyed<uint32_t, gpi_order::kUnsigned>(ctx, a);
    case GP_INT32: return sort_keyed<uint32_t, gpi_order::kSigned>(ctx, a);
    case GP_UINT64: return sort_keyed<uint64_t, gpi_order::kUnsigned>(ctx, a);
    case GP_INT64: return sort_keyed<uint64_t, gpi_order::kSigned>(ctx, a);
    case GP_FLOAT32: return sort_keyed<uint32_t, gpi_order::kFloat>(ctx, a);
    case GP_FLOAT64: return sort_keyed<uint64_t, gpi_order::kFloat>(ctx, a);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_sort: unchecked key dtype %d", (int)a->key_dtype);
}

size_t gpi_radix_double_buffer_scratch(gp_dtype key_dtype, size_t n)
{
    if (n > kMaxKeys) return 0; /* CUB sorts those */
    return make_layout(n, gp_dtype_size(key_dtype), 0, false).total + kAlign;
}

gp_status gpi_radix_sort_double_buffer(gp_context *ctx, gp_dtype key_dtype, int descending, void *keys, void *alt,
                                       size_t n, int begin_bit, int end_bit, void *scratch, int *in_alt)
{
    switch (key_dtype) {
    case GP_UINT32:
        return double_buffer_keyed<uint32_t, gpi_order::kUnsigned>(ctx, descending, keys, alt, n, begin_bit, end_bit,
                                                                   scratch, in_alt);
    case GP_INT32:
        return double_buffer_keyed<uint32_t, gpi_order::kSigned>(ctx, descending, keys, alt, n, begin_bit, end_bit,
                                                                 scratch, in_alt);
    case GP_UINT64:
        return double_buffer_keyed<uint64_t, gpi_order::kUnsigned>(ctx, descending, keys, alt, n, begin_bit, end_bit,
                                                                   scratch, in_alt);
    case GP_INT64:
        return double_buffer_keyed<uint64_t, gpi_order::kSigned>(ctx, descending, keys, alt, n, begin_bit, end_bit,
                                                                 scratch, in_alt);
    default: break;
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gp_sort_keys_double_buffer: key dtype %d", (int)key_dtype);
}
