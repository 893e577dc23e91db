/* SPDX-License-Identifier: BSD-3-Clause */
/* segmented.c - gp_segmented_reduce / _scan / _sort_keys / _sort_pairs and
 * gp_scan_by_key: argument checks, then the backend. */
#include "segmented_internal.h"

/* offsets: a buffer of n_segments + 1 uint64, 8-byte aligned; *bytes gets
 * its size. */
static gp_status check_offsets(gp_context *ctx, const char *fn, const uint64_t *offsets, size_t n_segments, size_t n,
                               size_t *bytes)
{
    gp_status s;
    (void)n;
    if (n_segments == SIZE_MAX || gpi_mul_size(n_segments + 1, sizeof(uint64_t), bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu segments overflow a byte count", fn, n_segments);
    if (!offsets) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: offsets is NULL", fn);
    if ((s = gpi_check_buffer(ctx, offsets, *bytes, "offsets"))) return s;
    if ((uintptr_t)offsets % sizeof(uint64_t))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: offsets not aligned to 8 bytes", fn);
    return GP_SUCCESS;
}

/* The last check, after the overlap checks: on the CPU backend the offsets
 * are ascending and within n. On CUDA they are the caller's promise
 * (segmented.h). */
static gp_status validate_offsets(gp_context *ctx, const char *fn, const uint64_t *offsets, size_t n_segments,
                                  size_t n)
{
    size_t i;
    if (ctx->backend == GP_BACKEND_CUDA) return GP_SUCCESS;
    for (i = 0; i < n_segments; i++)
        if (offsets[i] > offsets[i + 1])
            return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: offsets[%zu] = %llu > offsets[%zu] = %llu", fn, i,
                             (unsigned long long)offsets[i], i + 1, (unsigned long long)offsets[i + 1]);
    if (offsets[n_segments] > n)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: offsets[%zu] = %llu is past n = %zu", fn, n_segments,
                         (unsigned long long)offsets[n_segments], n);
    return GP_SUCCESS;
}

/* dtype, op and a buffer of n elements; *bytes gets its size. */
static gp_status check_array(gp_context *ctx, const char *fn, const char *name, gp_dtype dtype, const void *p,
                             size_t n, size_t *bytes)
{
    gp_status s;
    const size_t es = gp_dtype_size(dtype);
    if (gpi_mul_size(n, es, bytes))
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: %zu elements overflow a byte count", fn, n);
    if ((s = gpi_check_buffer(ctx, p, *bytes, name))) return s;
    if (n && (uintptr_t)p % es)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: %s not aligned to the %zu-byte element", fn, name, es);
    return GP_SUCCESS;
}

gp_status gp_segmented_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                              const uint64_t *offsets, size_t n_segments, void *out)
{
    const char *fn = "gp_segmented_reduce";
    size_t in_bytes, out_bytes, off_bytes;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if (!gpi_valid_dtype(dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)dtype);
    if (!gpi_valid_op(op)) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown op %d", fn, (int)op);
    if ((s = check_array(ctx, fn, "in", dtype, in, n, &in_bytes))) return s;
    if ((s = check_array(ctx, fn, "out", dtype, out, n_segments, &out_bytes))) return s;
    if ((s = check_offsets(ctx, fn, offsets, n_segments, n, &off_bytes))) return s;
    if (gpi_overlap(out, out_bytes, in, in_bytes) || gpi_overlap(out, out_bytes, offsets, off_bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: out overlaps in or offsets", fn);
    if ((s = validate_offsets(ctx, fn, offsets, n_segments, n))) return s;
    if (n_segments == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA)
        return gpi_cuda_segmented_reduce(ctx, dtype, op, in, n, offsets, n_segments, out);
    return gpi_cpu_segmented_reduce_threads(dtype, op, in, offsets, n_segments, out, gpi_cpu_threads(ctx));
}

/* Shared by gp_segmented_scan and gp_scan_by_key. */
static gp_status segscan_run(gp_context *ctx, const char *fn, gpi_segscan_args *a, gp_scan_kind kind)
{
    size_t bytes, key_bytes = 0, off_bytes = 0;
    gp_status s;
    if (!gpi_valid_dtype(a->dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", fn, (int)a->dtype);
    if (!gpi_valid_op(a->op)) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown op %d", fn, (int)a->op);
    if (kind != GP_SCAN_EXCLUSIVE && kind != GP_SCAN_INCLUSIVE)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown scan kind %d", fn, (int)kind);
    if (!a->offsets && !gpi_valid_dtype(a->key_dtype))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s: unknown key dtype %d", fn, (int)a->key_dtype);
    if ((s = check_array(ctx, fn, "in", a->dtype, a->in, a->n, &bytes))) return s;
    if ((s = check_array(ctx, fn, "out", a->dtype, a->out, a->n, &bytes))) return s;
    if (a->in != a->out && gpi_overlap(a->in, bytes, a->out, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: in and out overlap (only in == out is allowed)", fn);
    if (a->offsets) {
        if ((s = check_offsets(ctx, fn, a->offsets, a->n_segments, a->n, &off_bytes))) return s;
        if (gpi_overlap(a->offsets, off_bytes, a->out, bytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: offsets overlap out", fn);
        if ((s = validate_offsets(ctx, fn, a->offsets, a->n_segments, a->n))) return s;
    } else {
        if ((s = check_array(ctx, fn, "keys", a->key_dtype, a->keys, a->n, &key_bytes))) return s;
        if (gpi_overlap(a->keys, key_bytes, a->out, bytes))
            return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys overlap out", fn);
    }
    a->inclusive = kind == GP_SCAN_INCLUSIVE;
    if (a->n == 0 || (a->offsets && a->n_segments == 0)) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_segmented_scan(ctx, a);
    return gpi_cpu_segmented_scan_threads(a, gpi_cpu_threads(ctx));
}

gp_status gp_segmented_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out,
                            size_t n, const uint64_t *offsets, size_t n_segments)
{
    gpi_segscan_args a = {dtype, op, 0, in, out, n, offsets, n_segments, (gp_dtype)0, NULL};
    gp_status s = gpi_enter(ctx, "gp_segmented_scan");
    if (s) return s;
    if (!offsets) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_segmented_scan: offsets is NULL");
    return segscan_run(ctx, "gp_segmented_scan", &a, kind);
}

gp_status gp_scan_by_key(gp_context *ctx, gp_dtype key_dtype, const void *keys, gp_dtype dtype, gp_op op,
                         gp_scan_kind kind, const void *in, void *out, size_t n)
{
    gpi_segscan_args a = {dtype, op, 0, in, out, n, NULL, 0, key_dtype, keys};
    gp_status s = gpi_enter(ctx, "gp_scan_by_key");
    if (s) return s;
    return segscan_run(ctx, "gp_scan_by_key", &a, kind);
}

/* pairs: gp_segmented_sort_pairs. The checks of gp_sort (lib/sort.c) plus
 * the offsets. */
static gp_status segsort_run(gp_context *ctx, const char *fn, gpi_segsort_args *sa, gp_sort_order order, int pairs)
{
    gpi_sort_args *a = &sa->sort;
    size_t kbytes, vbytes = 0, off_bytes;
    gp_status s = gpi_enter(ctx, fn);
    if (s) return s;
    if ((s = gpi_sort_key_check(ctx, fn, a->key_dtype, order, a->begin_bit, a->end_bit))) return s;
    if (pairs && (s = gpi_sort_value_size_check(ctx, fn, a->value_size, a->values_in, a->n, &vbytes))) return s;
    if ((s = check_array(ctx, fn, "keys_in", a->key_dtype, a->keys_in, a->n, &kbytes))) return s;
    if ((s = check_array(ctx, fn, "keys_out", a->key_dtype, a->keys_out, a->n, &kbytes))) return s;
    if (a->keys_in != a->keys_out && gpi_overlap(a->keys_in, kbytes, a->keys_out, kbytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: keys_in and keys_out overlap (only equal is allowed)", fn);
    if (pairs && (s = gpi_sort_values_buffers_check(ctx, fn, a->keys_in, a->keys_out, kbytes, a->values_in,
                                                    a->values_out, a->n, a->value_size, vbytes)))
        return s;
    if ((s = check_offsets(ctx, fn, sa->offsets, sa->n_segments, a->n, &off_bytes))) return s;
    if (gpi_overlap(sa->offsets, off_bytes, a->keys_out, kbytes) ||
        (pairs && gpi_overlap(sa->offsets, off_bytes, a->values_out, vbytes)))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "%s: offsets overlap an output", fn);
    if ((s = validate_offsets(ctx, fn, sa->offsets, sa->n_segments, a->n))) return s;
    a->descending = order == GP_SORT_DESCENDING;
    if (a->n == 0 || sa->n_segments == 0) return GP_SUCCESS;
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_segmented_sort(ctx, sa);
    return gpi_cpu_segmented_sort_threads(sa, gpi_cpu_threads(ctx));
}

gp_status gp_segmented_sort_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                                 void *keys_out, size_t n, const uint64_t *offsets, size_t n_segments, int begin_bit,
                                 int end_bit)
{
    gpi_segsort_args a = {{key_dtype, 0, keys_in, keys_out, 0, NULL, NULL, n, begin_bit, end_bit}, offsets, n_segments};
    return segsort_run(ctx, "gp_segmented_sort_keys", &a, order, 0);
}

gp_status gp_segmented_sort_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, const void *keys_in,
                                  void *keys_out, size_t value_size, const void *values_in, void *values_out, size_t n,
                                  const uint64_t *offsets, size_t n_segments, int begin_bit, int end_bit)
{
    gpi_segsort_args a = {{key_dtype, 0, keys_in, keys_out, value_size, values_in, values_out, n, begin_bit, end_bit},
                          offsets, n_segments};
    return segsort_run(ctx, "gp_segmented_sort_pairs", &a, order, 1);
}
