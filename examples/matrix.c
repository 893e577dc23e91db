/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix: transpose a 3x4 matrix, then apply the discrete Laplacian to a
 * 5x5 grid with a single hot cell (zero boundary). Runs on the GPU when
 * present, else on the CPU. */
#include <gpuprim/gpuprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

int main(void)
{
    float m[3][4], t[4][3], grid[5][5] = {{0}}, lap[5][5];
    int i, j;
    gp_context *ctx = NULL;
    void *d_m, *d_t, *d_grid, *d_lap;

    for (i = 0; i < 3; i++)
        for (j = 0; j < 4; j++) m[i][j] = (float)(10 * i + j);
    grid[2][2] = 1.0f;

    CHECK(gp_context_create(&ctx, backend_from_env(), 0));
    CHECK(gp_malloc(ctx, &d_m, sizeof m));
    CHECK(gp_malloc(ctx, &d_t, sizeof t));
    CHECK(gp_malloc(ctx, &d_grid, sizeof grid));
    CHECK(gp_malloc(ctx, &d_lap, sizeof lap));
    CHECK(gp_upload(ctx, d_m, m, sizeof m));
    CHECK(gp_upload(ctx, d_grid, grid, sizeof grid));

    CHECK(gp_transpose(ctx, sizeof(float), d_m, d_t, 3, 4));
    CHECK(gp_laplacian_2d(ctx, GP_FLOAT32, GP_BOUNDARY_ZERO, d_grid, d_lap, 5, 5));
    CHECK(gp_download(ctx, t, d_t, sizeof t));
    CHECK(gp_download(ctx, lap, d_lap, sizeof lap));

    printf("transpose of the 3x4 matrix m[i][j] = 10i + j:\n");
    for (i = 0; i < 4; i++) printf("  %4g %4g %4g\n", t[i][0], t[i][1], t[i][2]);
    printf("Laplacian of a unit spike (zero boundary):\n");
    for (i = 0; i < 5; i++) {
        for (j = 0; j < 5; j++) printf(" %4g", lap[i][j]);
        printf("\n");
    }
    gp_free(ctx, d_m);
    gp_free(ctx, d_t);
    gp_free(ctx, d_grid);
    gp_free(ctx, d_lap);
    gp_context_destroy(ctx);
    return !(t[3][2] == 23.0f && lap[2][2] == -4.0f && lap[1][2] == 1.0f && lap[0][0] == 0.0f);
}
