/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/runs.cu - runs of equal consecutive keys in one pass: reduce-by-key,
 * unique, unique-by-key, run-length encoding. Exact cases run
 * runs_kernel.cuh; float sums, whose bits must be the sequential sum, run
 * runs_ordered_kernel.cuh. This file picks the kernel and its types for a
 * call, lays out the look-back state in the workspace, launches, and
 * returns the count. */
#include "runs_internal.h"
#include "runs_kernel.cuh"
#include "runs_ordered_kernel.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace {

using gpi::runs_mode;

/* The count the kernel left in pinned memory, after the stream's work. */
gp_status runs_finish(gp_context *ctx, long long n, size_t *count_host)
{
    const unsigned long long *count_host_buf = (const unsigned long long *)ctx->pinned;
    gp_status s;
    if ((s = gpi_cuda_status(ctx, cudaGetLastError(), "runs kernel launch"))) return s;
    if ((s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream), "runs cudaStreamSynchronize")))
        return s;
    const unsigned long long count = *count_host_buf;
    if (count == 0 || count > (unsigned long long)n)
        return gpi_error(ctx, GP_ERROR_INTERNAL, "runs: impossible count %llu", count);
    *count_host = (size_t)count;
    return GP_SUCCESS;
}

/* Exact cases: the single-pass kernel (runs_kernel.cuh) carrying Pair. */
template <typename K, typename V, typename Op, runs_mode MODE, typename Pair>
gp_status launch_runs_pair(gp_context *ctx, const gpi_runs_args *a, V identity, size_t *count_host)
{
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long n = (long long)a->n;
    const long long tiles = (n + gpi::runs_tile_items<K>() - 1) / gpi::runs_tile_items<K>();
    void *ws = nullptr;
    gpi::pair_state<Pair> st;
    gp_status s;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "runs: too many tiles");
    if ((s = gpi_workspace_aligned(ctx, gpi::pair_state_bytes<Pair>(tiles), &ws))) return s;
    if ((s = gpi_cuda_status(ctx, gpi::pair_state_clear<Pair>(ws, tiles, stream, &st), "runs cudaMemsetAsync")))
        return s;
    *(unsigned long long *)ctx->pinned = ~0ull; /* impossible: caught if the kernel never wrote it */
    void (*kernel)(const K *, const V *, long long, K *, V *, unsigned long long *, gpi::pair_state<Pair>, V,
                   unsigned long long *);
    constexpr int min_blocks = gpi::runs_min_blocks<K, V, MODE, Pair>();
    if constexpr (min_blocks > 0) /* one of the two instantiated */
        kernel = gpi::runs_kernel_capped<K, V, Op, MODE, Pair, min_blocks>;
    else
        kernel = gpi::runs_kernel<K, V, Op, MODE, Pair>;
    kernel<<<(unsigned)tiles, gpi::runs_policy::threads, 0, stream>>>(
        (const K *)a->keys_in, (const V *)a->values_in, n, (K *)a->keys_out, (V *)a->values_out,
        (unsigned long long *)a->lengths_out, st, identity, (unsigned long long *)ctx->pinned_dev);
    return runs_finish(ctx, n, count_host);
}

/* The pair of a mode: reduce-by-key (count, value), plus pos with
 * lengths; unique and unique-by-key the count alone; run-length encoding
 * (count, pos). The 62-bit forms (one word with the flag, no fence) where
 * the counts and positions of n elements fit them. */
template <typename K, typename V, typename Op, runs_mode MODE>
gp_status launch_runs(gp_context *ctx, const gpi_runs_args *a, V identity, size_t *count_host)
{
    if constexpr (MODE == gpi::RUNS_REDUCE) {
        if constexpr (sizeof(V) == 4)
            if (!a->lengths_out && a->n < (1ull << 30))
                return launch_runs_pair<K, V, Op, MODE, gpi::run_count_value30<V>>(ctx, a, identity, count_host);
        return launch_runs_pair<K, V, Op, MODE, gpi::run_count_value<V>>(ctx, a, identity, count_host);
    } else if constexpr (MODE == gpi::RUNS_FIRST) {
        return launch_runs_pair<K, V, Op, MODE, gpi::run_count>(ctx, a, identity, count_host);
    } else if (a->lengths_out) {
        if (a->n < (1ull << 31))
            return launch_runs_pair<K, V, Op, MODE, gpi::run_count_pos31>(ctx, a, identity, count_host);
        return launch_runs_pair<K, V, Op, MODE, gpi::run_count_pos>(ctx, a, identity, count_host);
    } else {
        return launch_runs_pair<K, V, Op, MODE, gpi::run_count>(ctx, a, identity, count_host);
    }
}

/* Float sums: the ordered kernel (runs_ordered_kernel.cuh). */
template <typename K, typename V>
gp_status launch_runs_ordered(gp_context *ctx, const gpi_runs_args *a, size_t *count_host)
{
    namespace o = gpi::ordered;
    cudaStream_t stream = (cudaStream_t)ctx->stream;
    const long long n = (long long)a->n;
    const long long tiles = (n + o::runs_tile_items - 1) / o::runs_tile_items;
    void *ws = nullptr;
    o::runs_state<V> st;
    gp_status s;
    if (tiles > 0x7fffffffLL) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "runs: too many tiles");
    if ((s = gpi_workspace_aligned(ctx, o::runs_state_bytes<V>(tiles), &ws))) return s;
    if ((s = gpi_cuda_status(ctx, o::runs_state_clear<V>(ws, tiles, stream, &st), "runs cudaMemsetAsync"))) return s;
    *(unsigned long long *)ctx->pinned = ~0ull; /* impossible: caught if the kernel never wrote it */
    o::runs_kernel<K, V, gpi::OpSum<V>, gpi::RUNS_REDUCE, true, false><<<(unsigned)tiles, o::runs_threads, 0, stream>>>(
        (const K *)a->keys_in, (const V *)a->values_in, n, (K *)a->keys_out, (V *)a->values_out,
        (unsigned long long *)a->lengths_out, st, V(0), (unsigned long long *)ctx->pinned_dev);
    return runs_finish(ctx, n, count_host);
}

/* Reduce-by-key: the value type and operator. Integer sums run on the
 * unsigned type of the width (wrap without UB); float sums take the ordered
 * (sequential) kernel; min and max start from the identity. */
template <typename K, typename V>
gp_status reduce_op(gp_context *ctx, const gpi_runs_args *a, size_t *count_host)
{
    using U = typename gpi::sum_type<V>::type;
    switch (a->op) {
    case GP_OP_SUM:
        if constexpr (std::is_floating_point<V>::value)
            return launch_runs_ordered<K, V>(ctx, a, count_host);
        else
            return launch_runs<K, U, gpi::OpSum<U>, gpi::RUNS_REDUCE>(ctx, a, U(0), count_host);
    case GP_OP_MIN:
        return launch_runs<K, V, gpi::OpMin<V>, gpi::RUNS_REDUCE>(ctx, a, gpi::highest_value<V>(), count_host);
    case GP_OP_MAX:
        return launch_runs<K, V, gpi::OpMax<V>, gpi::RUNS_REDUCE>(ctx, a, gpi::lowest_value<V>(), count_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "runs: unchecked op");
}

template <typename K>
gp_status runs_keyed(gp_context *ctx, const gpi_runs_args *a, size_t *count_host)
{
    using None = gpi::OpFirst<uint32_t>;
    if (a->values == GPI_RUNS_NO_VALUES)
        return launch_runs<K, uint32_t, None, gpi::RUNS_NO_VALUES>(ctx, a, 0u, count_host);
    if (a->values == GPI_RUNS_FIRST) { /* values move as raw words */
        if (gp_dtype_size(a->value_dtype) == 4)
            return launch_runs<K, uint32_t, None, gpi::RUNS_FIRST>(ctx, a, 0u, count_host);
        return launch_runs<K, unsigned long long, gpi::OpFirst<unsigned long long>, gpi::RUNS_FIRST>(ctx, a, 0ull,
                                                                                                     count_host);
    }
    switch (a->value_dtype) {
    case GP_INT32: return reduce_op<K, int32_t>(ctx, a, count_host);
    case GP_UINT32: return reduce_op<K, uint32_t>(ctx, a, count_host);
    case GP_INT64: return reduce_op<K, long long>(ctx, a, count_host);
    case GP_UINT64: return reduce_op<K, unsigned long long>(ctx, a, count_host);
    case GP_FLOAT32: return reduce_op<K, float>(ctx, a, count_host);
    case GP_FLOAT64: return reduce_op<K, double>(ctx, a, count_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "runs: unchecked value dtype");
}

} // namespace

extern "C" gp_status gpi_cuda_runs(gp_context *ctx, const gpi_runs_args *a, size_t *count_host)
{
    if (a->n == 0) {
        /* No runs; still synchronize, as documented. */
        gp_status s = gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream),
                                      "runs cudaStreamSynchronize");
        if (s == GP_SUCCESS) *count_host = 0;
        return s;
    }
    /* Integer keys compare as raw words of their width (== is the same for
     * signed and unsigned); floats keep their own ==. */
    switch (a->key_dtype) {
    case GP_INT32:
    case GP_UINT32: return runs_keyed<uint32_t>(ctx, a, count_host);
    case GP_INT64:
    case GP_UINT64: return runs_keyed<unsigned long long>(ctx, a, count_host);
    case GP_FLOAT32: return runs_keyed<float>(ctx, a, count_host);
    case GP_FLOAT64: return runs_keyed<double>(ctx, a, count_host);
    }
    return gpi_error(ctx, GP_ERROR_INTERNAL, "gpi_cuda_runs: unchecked key dtype");
}
