/* SPDX-License-Identifier: BSD-3-Clause */
/* prof_one: run one primitive at one size a few times, for profilers
 * (ncu -k regex:NAME -s 2 -c 1 prof_one scan 268435456). Public API only.
 *   prof_one scan|find_repeats|stencil|transpose|sort N [reps]
 * Random int32 data (values in [0, 32) for find_repeats; uint32 keys, all 32
 * bits, for sort); for stencil and
 * transpose N is the side of an N x N float matrix. */
#include <gpuprim/gpuprim.h>

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
    void *in, *out;
    size_t count;
    if (n == 0 || reps < 1) {
        fprintf(stderr, "usage: prof_one scan|find_repeats|stencil|transpose|sort N [reps]\n");
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
    check(gp_malloc(ctx, &in, elems * 4), ctx, "malloc");
    check(gp_malloc(ctx, &out, elems * 8), ctx, "malloc");
    check(gp_upload(ctx, in, host, elems * 4), ctx, "upload");
    for (r = 0; r < reps; r++) {
        if (strcmp(op, "scan") == 0) check(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, in, out, n), ctx, op);
        else if (strcmp(op, "find_repeats") == 0) check(gp_find_repeats(ctx, GP_INT32, in, n, out, &count), ctx, op);
        else if (strcmp(op, "stencil") == 0) check(gp_laplacian_2d(ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, in, out, n, n), ctx, op);
        else if (strcmp(op, "transpose") == 0) check(gp_transpose(ctx, 4, in, out, n, n), ctx, op);
        else if (strcmp(op, "sort") == 0)
            check(gp_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, in, out, n, 0, 32), ctx, op);
        else { fprintf(stderr, "unknown primitive '%s'\n", op); return 2; }
    }
    check(gp_context_synchronize(ctx), ctx, "synchronize");
    gp_free(ctx, in);
    gp_free(ctx, out);
    gp_context_destroy(ctx);
    free(host);
    return 0;
}
