/* cpu/segmented.c - the reference segmented reduce, scan and sort: each
 * segment handed to the one-array reference (cpu/reduce.c, cpu/scan.c,
 * cpu/sort.c) on its own. The offsets were validated by lib/segmented.c
 * (ascending, within n). Float sums of segmented reduce replay the CUDA
 * backend's fixed tree (segmented.h), so both backends give the same bits. */
#include "segmented_internal.h"

#include <stdlib.h>
#include <string.h>

/* gp_reduce's tree over x[0, n): blocks of 4096; in each, 256 "threads"
 * t adding x[t + 256 j] (j = 0..15) in order from -0.0, lanes of each warp
 * of 32 folded 16, 8, 4, 2, 1 apart (lane l += lane l + d), the 8 warp sums
 * combined ((w0+w4) + (w2+w6)) + ((w1+w5) + (w3+w7)); then the same over the
 * block sums until one is left. n == 0 gives the identity +0.0. */
#define DEFINE_TREE_SUM(NAME, T)                                                                  \
    static T NAME##_block(const T *x, size_t m)                                                   \
    {                                                                                             \
        T w[8], lanes[32];                                                                        \
        size_t wi, l, j, d;                                                                       \
        for (wi = 0; wi < 8; wi++) {                                                              \
            for (l = 0; l < 32; l++) {                                                            \
                T s = (T)-0.0;                                                                    \
                for (j = 0; j < 16; j++) {                                                        \
                    const size_t i = wi * 32 + l + 256 * j;                                       \
                    if (i < m) s = s + x[i];                                                      \
                }                                                                                 \
                lanes[l] = s;                                                                     \
            }                                                                                     \
            for (d = 16; d > 0; d >>= 1)                                                          \
                for (l = 0; l < d; l++) lanes[l] = lanes[l] + lanes[l + d];                       \
            w[wi] = lanes[0];                                                                     \
        }                                                                                         \
        return ((w[0] + w[4]) + (w[2] + w[6])) + ((w[1] + w[5]) + (w[3] + w[7]));                 \
    }                                                                                             \
    gp_status gpi_cpu_tree_sum_##NAME(const T *x, size_t n, T *sum)                                \
    {                                                                                             \
        T *level;                                                                                 \
        size_t blocks, b;                                                                         \
        gp_status st;                                                                             \
        if (n == 0) return *sum = (T)0, GP_SUCCESS;                                               \
        if (n <= 4096) return *sum = NAME##_block(x, n), GP_SUCCESS;                              \
        blocks = (n + 4095) / 4096;                                                               \
        if (!(level = (T *)malloc(blocks * sizeof *level))) return GP_ERROR_OUT_OF_MEMORY;        \
        for (b = 0; b < blocks; b++)                                                              \
            level[b] = NAME##_block(x + b * 4096, n - b * 4096 < 4096 ? n - b * 4096 : 4096);     \
        st = gpi_cpu_tree_sum_##NAME(level, blocks, sum);                                         \
        free(level);                                                                              \
        return st;                                                                                \
    }

DEFINE_TREE_SUM(f32, float)
DEFINE_TREE_SUM(f64, double)

gp_status gpi_cpu_segmented_reduce(gp_dtype dtype, gp_op op, const void *in, const uint64_t *offsets,
                                   size_t n_segments, void *out)
{
    const size_t es = gp_dtype_size(dtype);
    size_t s;
    for (s = 0; s < n_segments; s++) {
        const size_t b = (size_t)offsets[s], m = (size_t)(offsets[s + 1] - offsets[s]);
        const char *x = (const char *)in + b * es;
        char *o = (char *)out + s * es;
        gp_status st;
        if (op == GP_OP_SUM && dtype == GP_FLOAT32) {
            float v;
            if ((st = gpi_cpu_tree_sum_f32((const float *)x, m, &v))) return st;
            memcpy(o, &v, sizeof v);
        } else if (op == GP_OP_SUM && dtype == GP_FLOAT64) {
            double v;
            if ((st = gpi_cpu_tree_sum_f64((const double *)x, m, &v))) return st;
            memcpy(o, &v, sizeof v);
        } else if ((st = gpi_cpu_reduce(dtype, op, x, m, o))) {
            return st;
        }
    }
    return GP_SUCCESS;
}

/* Is keys[i] == keys[i - 1] (the type's ==: NaN never equal, -0.0 == +0.0)? */
static int same_key(gp_dtype d, const void *k, size_t i)
{
    switch (d) {
    case GP_INT32:
    case GP_UINT32: return ((const uint32_t *)k)[i] == ((const uint32_t *)k)[i - 1];
    case GP_INT64:
    case GP_UINT64: return ((const uint64_t *)k)[i] == ((const uint64_t *)k)[i - 1];
    case GP_FLOAT32: return ((const float *)k)[i] == ((const float *)k)[i - 1];
    default: return ((const double *)k)[i] == ((const double *)k)[i - 1];
    }
}

gp_status gpi_cpu_segmented_scan(const gpi_segscan_args *a)
{
    const size_t es = gp_dtype_size(a->dtype);
    const gp_scan_kind kind = a->inclusive ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
    size_t s, b, e;
    gp_status st;
    if (a->offsets) {
        for (s = 0; s < a->n_segments; s++) {
            b = (size_t)a->offsets[s];
            e = (size_t)a->offsets[s + 1];
            st = gpi_cpu_scan(a->dtype, a->op, kind, (const char *)a->in + b * es, (char *)a->out + b * es, e - b);
            if (st) return st;
        }
        return GP_SUCCESS;
    }
    for (b = 0; b < a->n; b = e) { /* each run of equal keys */
        for (e = b + 1; e < a->n && same_key(a->key_dtype, a->keys, e); e++) {
        }
        st = gpi_cpu_scan(a->dtype, a->op, kind, (const char *)a->in + b * es, (char *)a->out + b * es, e - b);
        if (st) return st;
    }
    return GP_SUCCESS;
}

gp_status gpi_cpu_segmented_sort(const gpi_segsort_args *sa)
{
    const gpi_sort_args *a = &sa->sort;
    const size_t ks = gp_dtype_size(a->key_dtype), vs = a->value_size;
    size_t s, i;
    for (s = 0; s < sa->n_segments; s++) {
        const size_t b = (size_t)sa->offsets[s], m = (size_t)(sa->offsets[s + 1] - sa->offsets[s]);
        gpi_sort_args seg = *a;
        gp_status st;
        if (m == 0) continue;
        seg.keys_in = (const char *)a->keys_in + b * ks;
        seg.keys_out = (char *)a->keys_out + b * ks;
        if (vs) {
            seg.values_in = a->values_in ? (const char *)a->values_in + b * vs : NULL;
            seg.values_out = (char *)a->values_out + b * vs;
        }
        seg.n = m;
        if ((st = gpi_cpu_sort(&seg, 1))) return st;
        if (vs && !a->values_in) /* positions within the segment -> in the array */
            for (i = 0; i < m; i++) {
                if (vs == 4) ((uint32_t *)seg.values_out)[i] += (uint32_t)b;
                else ((uint64_t *)seg.values_out)[i] += (uint64_t)b;
            }
    }
    return GP_SUCCESS;
}
