/* SPDX-License-Identifier: BSD-3-Clause */
/* scan_compact: prefix sums and stream compaction of user data.
 * Runs on the GPU when present, else on the CPU (GP_BACKEND=cpu|cuda|auto). */
#include <gpuprim/gpuprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

int main(void)
{
    enum { N = 10 };
    const int32_t data[N] = {5, -2, 7, 0, 3, 3, -8, 1, 4, 6};
    uint8_t keep[N];
    int32_t prefix[N], kept[N];
    size_t i, count = 0;
    gp_context *ctx = NULL;
    gp_backend used;
    void *d_data, *d_prefix, *d_keep, *d_kept;

    for (i = 0; i < N; i++) keep[i] = data[i] > 0; /* keep the positive values */

    CHECK(gp_context_create(&ctx, backend_from_env(), 0));
    CHECK(gp_context_get_backend(ctx, &used));
    printf("backend: %s, gpuprim %s\n", used == GP_BACKEND_CUDA ? "cuda" : "cpu", gp_version_string());

    CHECK(gp_malloc(ctx, &d_data, sizeof data));
    CHECK(gp_malloc(ctx, &d_prefix, sizeof prefix));
    CHECK(gp_malloc(ctx, &d_keep, sizeof keep));
    CHECK(gp_malloc(ctx, &d_kept, sizeof kept));
    CHECK(gp_upload(ctx, d_data, data, sizeof data));
    CHECK(gp_upload(ctx, d_keep, keep, sizeof keep));

    CHECK(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, d_data, d_prefix, N));
    CHECK(gp_download(ctx, prefix, d_prefix, sizeof prefix));
    CHECK(gp_compact(ctx, GP_INT32, d_data, d_keep, GP_UINT8_FLAGS, d_kept, N, &count));
    CHECK(gp_download(ctx, kept, d_kept, count * sizeof kept[0]));

    printf("data:           ");
    for (i = 0; i < N; i++) printf(" %3d", data[i]);
    printf("\nexclusive sum:  ");
    for (i = 0; i < N; i++) printf(" %3d", prefix[i]);
    printf("\npositive (%zu):  ", count);
    for (i = 0; i < count; i++) printf(" %3d", kept[i]);
    printf("\n");

    gp_free(ctx, d_data);
    gp_free(ctx, d_prefix);
    gp_free(ctx, d_keep);
    gp_free(ctx, d_kept);
    gp_context_destroy(ctx);
    return !(prefix[N - 1] == 13 && count == 7 && kept[0] == 5 && kept[6] == 6);
}
