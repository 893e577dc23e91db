/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/tile.h - what the CPU tile renderer's files share (never installed):
 * the renderer object, the tile size, and the shading entry points.
 *
 * The tile renderer: the image is cut into tiles; circles are binned per
 * tile in index order (bounding-box overlap, counted then filled per chunk
 * of circles, so the lists come out sorted without a sort: frame.c);
 * worker threads (pool.c) pull tiles from an atomic counter and blend each
 * tile's circles, in order, into a tile buffer that stays in L1 (tiles.c).
 * Per pixel the same circles meet the same float operations in the same
 * order as in the reference, so the image is the same bit for bit.
 * Ordinary circles run on one of three paths: where the CPU has AVX-512, a
 * tile row stays in registers while the tile's circles pass over it
 * (tile512.c); where it has AVX2, the same with a 16-pixel segment of the
 * row in registers (tile256.c); elsewhere each circle row is cut down to a
 * conservative chord (the exact d2 <= r*r test still decides every pixel)
 * and blended by a branch-free SIMD loop over that row of the SoA tile
 * buffer (blend.c).
 * Snow circles take the scalar gpr_shade. The image and bin buffers come
 * from gp_malloc on the CPU context, which puts large buffers on huge pages
 * where the system offers them: their page faults cost as much as the
 * shading. */
#ifndef GPUPRIM_RENDER_CPU_TILE_H
#define GPUPRIM_RENDER_CPU_TILE_H

#include "band.h"
#include "progress.h"
#include "render_cpu.h"

#include <stddef.h>
#include <stdint.h>

/* Tile size. A tile's SoA buffer is TILE_W*TILE_H*16 bytes
 * (16 KiB): it stays in L1 while the tile's circles blend into it. Wide
 * tiles give the vectorized row loop long runs. */
#define TILE_W 64
#define TILE_H GPR_RENDER_TILE
typedef struct box16 {
    uint16_t x0, x1, y0, y1; /* clamped pixel box; sides <= 16384 fit */
} box16;

struct gpr_cpu_renderer {
    gp_context *ctx; /* the CPU context: image and bins are its gp_malloc buffers */
    int width, height, tiles_x, tiles_y;
    int band_ty0, band_ty1; /* the tile rows drawn (all, or a distributed rank's band) */
    int band_py0, band_py1; /* ... as pixel rows */
    size_t ntiles;
    float *image; /* width * (band_py1 - band_py0) * 4: the band's rows */
    float *colx, *rowy; /* pixel centres: gpr_pixel_x / gpr_pixel_y */
    /* The scene copy, SoA. */
    size_t n, cap;
    int snow;
    float *x, *y, *z, *rad, *cr, *cg, *cb;
    box16 *box;
    /* Binning scratch, kept between frames. */
    uint32_t *counts;  /* [chunk][tile]: counts, then band-relative offsets */
    int counts_chunks;
    uint32_t *tile_total, *tile_begin; /* per tile */
    uint32_t *bins;
    size_t bins_cap;
    gpr_progress progress; /* gpr_cpu_renderer_set_progress */
};

/* One circle row's constants for a row blend. */
typedef struct row_args {
    float px, dy2, maxd2, ar, ag, ab, oma, alpha;
} row_args;

typedef void (*blend_fn)(float *R, float *G, float *B, float *A, const float *cx, int xa, int xb,
                         const row_args *a);

/* The register tiles are built where the compiler targets x86 and the
 * tile is 64 pixels wide (4 vectors of 16, 4 segments of 16). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && defined(__GNUC__)
#define GPR_HAVE_X86 1
#if TILE_W == 64
#define GPR_HAVE_REGISTER_TILES 1
#endif
#endif

/* Run fn(arg) on `threads` threads (the caller is one) and wait for all. */
void gpr_run_parallel(int threads, void (*fn)(void *), void *arg);

/* How ordinary circles are shaded: by the row blend, or by a register tile. */
typedef enum gpr_tile_path { GPR_TILE_ROWS, GPR_TILE_AVX2, GPR_TILE_AVX512 } gpr_tile_path;

/* The widest shading the CPU runs (blend.c): the row blend, and in *tile
 * the path of ordinary circles. */
blend_fn gpr_cpu_pick_blend(gpr_tile_path *tile);

#ifdef GPR_HAVE_REGISTER_TILES
/* Ordinary circles `list[0 .. count)` over rows [ty0, ty1) of the 64-pixel
 * tile at column tx0, in order (tile512.c: AVX-512F; tile256.c: AVX2). */
void gpr_cpu_shade_tile_avx512(const gpr_cpu_renderer *r, int tx0, int ty0, int ty1, const uint32_t *list,
                               uint32_t count, float (*R)[TILE_W], float (*G)[TILE_W], float (*B)[TILE_W],
                               float (*A)[TILE_W]);
void gpr_cpu_shade_tile_avx2(const gpr_cpu_renderer *r, int tx0, int ty0, int ty1, const uint32_t *list,
                             uint32_t count, float (*R)[TILE_W], float (*G)[TILE_W], float (*B)[TILE_W],
                             float (*A)[TILE_W]);
#endif

/* Shade tile t of the image from its bin list into r->image (tiles.c). */
void gpr_cpu_shade_tile(gpr_cpu_renderer *r, size_t t, blend_fn blend, gpr_tile_path tile);

#endif
