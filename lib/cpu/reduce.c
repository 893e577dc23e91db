/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/reduce.c - the CPU reduction, on the context's threads. Operators as
 * in cpu/ops.h. Integer sums, min and max: each thread folds a contiguous
 * piece, the pieces' results are folded in order (the same value as one
 * left-to-right pass). Float sums: the fixed tree of gpuprim.h
 * (cpu/tree_sum.c), the same bits as the CUDA backend. n == 0 gives the
 * identity. */
#include "ops.h"
#include "pool.h"
#include "vec_kernels.h"

#include <string.h>

typedef struct reduce_job {
    gp_dtype dtype;
    gp_op op;
    const void *in;
    size_t n;
    int avx2_sum32; /* a 32-bit integer sum: the AVX2 kernel */
    uint64_t part_result[GPI_POOL_MAX_PARTS]; /* raw bytes of each piece's result */
} reduce_job;

#define FOLD_CASE(DT, SUF, T)                                                                        \
    case DT: {                                                                                       \
        T a = SUF##_fold(op, (const T *)in + lo, hi - lo, SUF##_identity(op));                       \
        memcpy(to, &a, sizeof a);                                                                    \
        return;                                                                                      \
    }

/* *to = the fold of in[lo, hi) from the identity, left to right. */
static void fold_piece(gp_dtype dtype, gp_op op, const void *in, size_t lo, size_t hi, void *to)
{
    switch (dtype) {
        FOLD_CASE(GP_INT32, ops_i32, int32_t)
        FOLD_CASE(GP_UINT32, ops_u32, uint32_t)
        FOLD_CASE(GP_INT64, ops_i64, int64_t)
        FOLD_CASE(GP_UINT64, ops_u64, uint64_t)
        FOLD_CASE(GP_FLOAT32, ops_f32, float)
        FOLD_CASE(GP_FLOAT64, ops_f64, double)
    default: return;
    }
}

/* Pack the pieces' results (raw, 8 bytes apart) into an array of the
 * dtype and fold it in order. */
static void fold_results(gp_dtype dtype, gp_op op, const uint64_t *results, int parts, void *to)
{
    const size_t es = gp_dtype_size(dtype);
    unsigned char packed[GPI_POOL_MAX_PARTS * 8];
    int p;
    for (p = 0; p < parts; p++) memcpy(packed + (size_t)p * es, &results[p], es);
    fold_piece(dtype, op, packed, 0, (size_t)parts, to);
}

static void reduce_part(void *arg, int part, int parts)
{
    reduce_job *j = (reduce_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->n, part, parts, 64, &lo, &hi);
#if GPI_HAVE_AVX2_KERNELS
    if (j->avx2_sum32) {
        const uint32_t s = gpi_avx2_sum_u32((const uint32_t *)j->in + lo, hi - lo, 0);
        memcpy(&j->part_result[part], &s, sizeof s);
        return;
    }
#endif
    fold_piece(j->dtype, j->op, j->in, lo, hi, &j->part_result[part]);
}

static int valid(gp_dtype dtype)
{
    return dtype >= GP_INT32 && dtype <= GP_FLOAT64;
}

gp_status gpi_cpu_reduce_in_order(gp_dtype dtype, gp_op op, const void *in, size_t n, void *result)
{
    if (!valid(dtype)) return GP_ERROR_INTERNAL;
    fold_piece(dtype, op, in, 0, n, result); /* result is host memory, maybe unaligned: written by memcpy */
    return GP_SUCCESS;
}

gp_status gpi_cpu_reduce(gp_dtype dtype, gp_op op, const void *in, size_t n, void *result, int threads)
{
    reduce_job j;
    int parts;
    if (!valid(dtype)) return GP_ERROR_INTERNAL; /* the public entry checked dtype */
    if (op == GP_OP_SUM && dtype == GP_FLOAT32) {
        float s;
        gp_status st = gpi_cpu_tree_sum_f32((const float *)in, n, &s, threads);
        if (!st) memcpy(result, &s, sizeof s); /* result is host memory, maybe unaligned */
        return st;
    }
    if (op == GP_OP_SUM && dtype == GP_FLOAT64) {
        double s;
        gp_status st = gpi_cpu_tree_sum_f64((const double *)in, n, &s, threads);
        if (!st) memcpy(result, &s, sizeof s);
        return st;
    }
    parts = gpi_pool_parts(n, threads);
    j.dtype = dtype;
    j.op = op;
    j.in = in;
    j.n = n;
    /* n >= 64: short ranges (a segmented reduce's segments) skip the check's getenv */
    j.avx2_sum32 = op == GP_OP_SUM && (dtype == GP_INT32 || dtype == GP_UINT32) && n >= 64 && gpi_cpu_avx2();
    gpi_pool_run(parts, reduce_part, &j);
    fold_results(dtype, op, j.part_result, parts, result); /* in order: the value of one pass */
    return GP_SUCCESS;
}
