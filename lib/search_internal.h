/* SPDX-License-Identifier: BSD-3-Clause */
/* search_internal.h - what sorted search, merge and top-k share between
 * their checks (lib/search.c, merge.c, topk.c) and their backends
 * (lib/cpu/, lib/cuda/). Never installed. */
#ifndef GPUPRIM_SEARCH_INTERNAL_H
#define GPUPRIM_SEARCH_INTERNAL_H

#include "internal.h"
#include <gpuprim/search.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ascending order image of an integer key's word (the float ones are
 * gpi_f32_image / gpi_f64_image), for loops typed per dtype. */
static inline GPI_HOSTDEV uint32_t gpi_u32_image(uint32_t x) { return x; }
static inline GPI_HOSTDEV uint32_t gpi_i32_image(uint32_t x) { return x ^ 0x80000000u; }
static inline GPI_HOSTDEV uint64_t gpi_u64_image(uint64_t x) { return x; }
static inline GPI_HOSTDEV uint64_t gpi_i64_image(uint64_t x) { return x ^ 0x8000000000000000ull; }

/* The order image of key i of a buffer of dtype, as 64 bits, complemented
 * (within the key's width) for descending order: keys in `order` are
 * exactly the images in ascending unsigned order. */
static inline GPI_HOSTDEV uint64_t gpi_order_image(gp_dtype dt, int descending, const void *keys, size_t i)
{
    uint64_t u;
    switch (dt) {
    case GP_UINT32: u = gpi_u32_image(((const uint32_t *)keys)[i]); break;
    case GP_INT32: u = gpi_i32_image(((const uint32_t *)keys)[i]); break;
    case GP_UINT64: u = gpi_u64_image(((const uint64_t *)keys)[i]); break;
    case GP_INT64: u = gpi_i64_image(((const uint64_t *)keys)[i]); break;
    case GP_FLOAT32: u = gpi_f32_image(((const uint32_t *)keys)[i]); break;
    default: u = gpi_f64_image(((const uint64_t *)keys)[i]); break;
    }
    if (descending) u ^= (dt == GP_UINT32 || dt == GP_INT32 || dt == GP_FLOAT32) ? 0xffffffffull : ~0ull;
    return u;
}

/* A checked sorted-search call. */
typedef struct gpi_search_args {
    gp_dtype key_dtype;
    int descending;
    int upper;           /* 0: lower bound, 1: upper bound */
    const void *keys;
    size_t n;
    const void *needles;
    size_t m;            /* > 0 */
    uint64_t *positions;
} gpi_search_args;

/* A checked merge call; value_size 0: keys only. */
typedef struct gpi_merge_args {
    gp_dtype key_dtype;
    int descending;
    const void *a_keys, *a_values;
    size_t na;
    const void *b_keys, *b_values;
    size_t nb;           /* na + nb > 0 and does not overflow */
    size_t value_size;
    void *keys_out, *values_out;
} gpi_merge_args;

/* A checked top-k call; value_size 0: keys only; values_in NULL with
 * value_size != 0: the indices. 1 <= k <= n. */
typedef struct gpi_topk_args {
    gp_dtype key_dtype;
    int descending;
    const void *keys_in;
    size_t n, k;
    void *keys_out;
    size_t value_size;
    const void *values_in;
    void *values_out;
} gpi_topk_args;

gp_status gpi_cpu_search(const gpi_search_args *a);
gp_status gpi_cpu_merge(const gpi_merge_args *a);
gp_status gpi_cpu_topk(const gpi_topk_args *a);
/* The same on `threads` threads (gpi_cpu_threads): bit for bit the
 * sequential reference's result whatever the count. */
gp_status gpi_cpu_search_threads(const gpi_search_args *a, int threads);
gp_status gpi_cpu_merge_threads(const gpi_merge_args *a, int threads);
gp_status gpi_cpu_topk_threads(const gpi_topk_args *a, int threads);

gp_status gpi_cuda_search(gp_context *ctx, const gpi_search_args *a);
gp_status gpi_cuda_merge(gp_context *ctx, const gpi_merge_args *a);
gp_status gpi_cuda_topk(gp_context *ctx, const gpi_topk_args *a);

#ifdef __cplusplus
}
#endif

#endif
