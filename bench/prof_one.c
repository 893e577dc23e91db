/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_one: run one primitive at one size a few times, for profilers
 * (ncu -k regex:NAME -s 2 -c 1 prof_one scan 268435456). Public API only.
 *   prof_one OP N [reps]
 * OP: scan find_repeats stencil transpose sort, or one of the by-key and
 * selection rows of bench_prims: reduce_by_key unique rle scan_by_key (int32
 * keys in runs of 10, int32 values), segmented_reduce and segmented_sort
 * (100 equal segments), segmented_reduce_small (segments of 0 to 512
 * elements, random lengths), partition (uint8 flags, half set at random),
 * merge (the even and the odd numbers below N, N/2 keys each).
 * Random int32 data (values in [0, 32) for find_repeats; uint32 keys, all 32
 * bits, for sort); for stencil and transpose N is the side of an N x N float
 * matrix. */
#include <gpuprim/gpuprim.h>
#include <gpuprim/permute.h>
#include <gpuprim/runs.h>
#include <gpuprim/search.h>
#include <gpuprim/segmented.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(gp_status s, gp_context *ctx, const char *what)
{
    if (s == GP_SUCCESS) return;
    fprintf(stderr, "%s: %s %s\n", what, gp_status_string(s), gp_context_last_error(ctx));
    exit(1);
}

int main(int argc, char **argv)
{
    gp_context *ctx = NULL;
    const char *op = argc > 1 ? argv[1] : "";
    size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 0, elems, i;
    int reps = argc > 3 ? atoi(argv[3]) : 4, r;
    int square = strcmp(op, "stencil") == 0 || strcmp(op, "transpose") == 0;
    uint32_t *host, x = 12345;
    void *in, *out, *aux, *aux2;
    uint64_t offsets[101], *small = NULL;
    size_t count, small_segments = 0;
    /* segmented_reduce_small: the dtype and operator from GP_PROF_DTYPE (i32 u32 i64 u64 f32 f64) and
     * GP_PROF_OP (sum min max); `in` has room for n 8-byte elements */
    const char *dt = getenv("GP_PROF_DTYPE"), *po = getenv("GP_PROF_OP");
    gp_dtype sr_dtype = !dt ? GP_INT32 : !strcmp(dt, "u32") ? GP_UINT32 : !strcmp(dt, "i64") ? GP_INT64 :
                        !strcmp(dt, "u64") ? GP_UINT64 : !strcmp(dt, "f32") ? GP_FLOAT32 : !strcmp(dt, "f64") ? GP_FLOAT64 : GP_INT32;
    gp_op sr_op = !po ? GP_OP_SUM : !strcmp(po, "min") ? GP_OP_MIN : !strcmp(po, "max") ? GP_OP_MAX : GP_OP_SUM;
    if (n == 0 || reps < 1) {
        fprintf(stderr, "usage: prof_one OP N [reps] (OP: see the comment at the top of prof_one.c)\n");
        return 2;
    }
    elems = square ? n * n : n;
    check(gp_context_create(&ctx, GP_BACKEND_CUDA, 0), ctx, "context");
    host = malloc(elems * 4);
    if (!host) return 1;
    for (i = 0; i < elems; i++) { /* xorshift: cheap, never all zeros */
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        host[i] = strcmp(op, "find_repeats") == 0 ? x % 32 : x;
    }
    for (i = 0; i <= 100; i++) offsets[i] = (uint64_t)(n / 100 * i);
    offsets[100] = n;
    check(gp_malloc(ctx, &in, elems * 8), ctx, "malloc");
    check(gp_malloc(ctx, &out, elems * 8), ctx, "malloc");
    check(gp_upload(ctx, in, host, elems * 4), ctx, "upload");
    check(gp_upload(ctx, (char *)in + elems * 4, host, elems * 4), ctx, "upload"); /* 8-byte elements */
    /* aux: sorted keys in runs of 10 (by-key ops), uint8 flags (partition),
     * the evens then the odds (merge); aux2: offsets, or values out */
    check(gp_malloc(ctx, &aux, elems * 4), ctx, "malloc");
    check(gp_malloc(ctx, &aux2, elems * 8), ctx, "malloc");
    for (i = 0; i < elems; i++) {
        if (strcmp(op, "partition") == 0) ((uint8_t *)host)[i] = (uint8_t)((host[i] >> 7) & 1);
        else if (strcmp(op, "merge") == 0) host[i] = (uint32_t)(i < n / 2 ? 2 * i : 2 * (i - n / 2) + 1);
        else host[i] = (uint32_t)(i / 10);
    }
    check(gp_upload(ctx, aux, host, elems * 4), ctx, "upload");
    if (strcmp(op, "segmented_reduce") == 0 || strcmp(op, "segmented_sort") == 0)
        check(gp_upload(ctx, aux2, offsets, sizeof offsets), ctx, "upload");
    if (strcmp(op, "segmented_reduce_small") == 0) {
        small = malloc((n + 1) * sizeof *small);
        if (!small) return 1;
        for (i = 0; i < n; small_segments++) {
            small[small_segments] = i;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            i = i + x % 513 < n ? i + x % 513 : n;
        }
        small[small_segments] = n;
        check(gp_upload(ctx, aux2, small, (small_segments + 1) * sizeof *small), ctx, "upload");
    }
    for (r = 0; r < reps; r++) {
        if (strcmp(op, "scan") == 0) check(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in, out, n), ctx, op);
        else if (strcmp(op, "find_repeats") == 0) check(gp_find_repeats(ctx, GP_INT32, in, n, out, &count), ctx, op);
        else if (strcmp(op, "stencil") == 0) check(gp_laplacian_2d(ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in, out, n, n), ctx, op);
        else if (strcmp(op, "transpose") == 0) check(gp_transpose(ctx, 4, in, out, n, n), ctx, op);
        else if (strcmp(op, "sort") == 0)
            check(gp_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, in, out, n, 0, 32), ctx, op);
        else if (strcmp(op, "reduce_by_key") == 0)
            check(gp_reduce_by_key(ctx, GP_INT32, GP_INT32, GP_OP_SUM, aux, in, n, out, aux2, NULL, &count), ctx, op);
        else if (strcmp(op, "unique") == 0) check(gp_unique(ctx, GP_INT32, aux, n, out, &count), ctx, op);
        else if (strcmp(op, "rle") == 0) check(gp_run_length_encode(ctx, GP_INT32, aux, n, out, aux2, &count), ctx, op);
        else if (strcmp(op, "scan_by_key") == 0)
            check(gp_scan_by_key(ctx, GP_INT32, aux, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), ctx, op);
        else if (strcmp(op, "segmented_reduce") == 0)
            check(gp_segmented_reduce(ctx, GP_INT32, GP_OP_SUM, in, n, aux2, 100, out), ctx, op);
        else if (strcmp(op, "segmented_reduce_small") == 0)
            check(gp_segmented_reduce(ctx, sr_dtype, sr_op, in, n, aux2, small_segments, out), ctx, op);
        else if (strcmp(op, "segmented_sort") == 0)
            check(gp_segmented_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, in, out, n, aux2, 100, 0, 32), ctx, op);
        else if (strcmp(op, "partition") == 0)
            check(gp_partition(ctx, GP_INT32, in, aux, GP_UINT8_FLAGS, out, n, &count), ctx, op);
        else if (strcmp(op, "merge") == 0)
            check(gp_merge_keys(ctx, GP_INT32, GP_SORT_ASCENDING, aux, n / 2, (const uint32_t *)aux + n / 2, n - n / 2, out), ctx, op);
        else { fprintf(stderr, "unknown primitive '%s'\n", op); return 2; }
    }
    check(gp_context_synchronize(ctx), ctx, "synchronize");
    gp_free(ctx, in);
    gp_free(ctx, out);
    gp_free(ctx, aux);
    gp_free(ctx, aux2);
    gp_context_destroy(ctx);
    free(host);
    free(small);
    return 0;
}
