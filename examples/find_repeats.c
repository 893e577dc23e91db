/* SPDX-License-Identifier: BSD-3-Clause */
/* find_repeats: indices i where a[i] == a[i+1] in a sorted list, i.e. where
 * duplicates start. Runs on the GPU when present, else on the CPU. */
#include <gpuprim/gpuprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

int main(void)
{
    const double sorted[] = {1.5, 2.0, 2.0, 3.25, 4.0, 4.0, 4.0, 7.5, 9.0, 9.0};
    const size_t n = sizeof sorted / sizeof sorted[0];
    uint64_t idx[sizeof sorted / sizeof sorted[0]];
    size_t i, count = 0;
    gp_context *ctx = NULL;
    void *d_in, *d_idx;

    CHECK(gp_context_create(&ctx, backend_from_env(), 0));
    CHECK(gp_malloc(ctx, &d_in, sizeof sorted));
    CHECK(gp_malloc(ctx, &d_idx, sizeof idx));
    CHECK(gp_upload(ctx, d_in, sorted, sizeof sorted));
    CHECK(gp_find_repeats(ctx, GP_FLOAT64, d_in, n, d_idx, &count));
    CHECK(gp_download(ctx, idx, d_idx, count * sizeof idx[0]));

    printf("%zu repeats:", count);
    for (i = 0; i < count; i++) printf(" a[%llu]=a[%llu]=%g", (unsigned long long)idx[i],
                                       (unsigned long long)idx[i] + 1, sorted[idx[i]]);
    printf("\n");
    gp_free(ctx, d_in);
    gp_free(ctx, d_idx);
    gp_context_destroy(ctx);
    return !(count == 4 && idx[0] == 1 && idx[1] == 4 && idx[2] == 5 && idx[3] == 8);
}
