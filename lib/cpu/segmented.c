/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/segmented.c - the reference segmented reduce, scan and sort: each
 * segment handed to the one-array reference (cpu/reduce.c, cpu/scan.c,
 * cpu/sort.c) on its own. The offsets were validated by lib/segmented.c
 * (ascending, within n). Float sums of segmented reduce replay the CUDA
 * backend's fixed tree (segmented.h, cpu/tree_sum.c), so both backends give
 * the same bits. Each segment runs on the calling thread; the forms on the
 * context's threads are in cpu/segmented_threads.c. */
#include "segmented_internal.h"

gp_status gpi_cpu_segmented_reduce(gp_dtype dtype, gp_op op, const void *in, const uint64_t *offsets,
                                   size_t n_segments, void *out)
{
    const size_t es = gp_dtype_size(dtype);
    size_t s;
    for (s = 0; s < n_segments; s++) {
        const size_t b = (size_t)offsets[s], m = (size_t)(offsets[s + 1] - offsets[s]);
        const char *x = (const char *)in + b * es;
        char *o = (char *)out + s * es;
        /* Float sums: the tree (cpu/tree_sum.c). */
        gp_status st = gpi_cpu_reduce(dtype, op, x, m, o, 1);
        if (st) return st;
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
            st = gpi_cpu_scan_in_order(a->dtype, a->op, kind, (const char *)a->in + b * es, (char *)a->out + b * es, e - b);
            if (st) return st;
        }
        return GP_SUCCESS;
    }
    for (b = 0; b < a->n; b = e) { /* each run of equal keys */
        for (e = b + 1; e < a->n && same_key(a->key_dtype, a->keys, e); e++) {
        }
        st = gpi_cpu_scan_in_order(a->dtype, a->op, kind, (const char *)a->in + b * es, (char *)a->out + b * es, e - b);
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
