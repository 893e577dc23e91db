/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/frame.c - the CPU tile renderer object (gpr_cpu_renderer_*, see
 * cpu/tile.h) and its frame: bin the circles per tile (count, then fill,
 * per chunk of circles in parallel), then shade the tiles in parallel, a
 * band of tile rows at a time when the lists would not fit at once. */
#include "shade.h"
#include "tile.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Binning knobs, in one place. */
static const struct {
    size_t band_entries; /* bin entries per band of tile rows before splitting the frame */
    int max_chunks;      /* circle chunks binned in parallel (each has a count per tile) */
    size_t chunk_min;    /* fewest circles worth a chunk of their own */
} policy = {(size_t)1 << 26, 8, 4096};

gp_status gpr_cpu_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                  gpr_cpu_renderer **out)
{
    gpr_cpu_renderer *r = (gpr_cpu_renderer *)calloc(1, sizeof *r);
    void *image = NULL;
    gp_status st;
    size_t px;
    float invW = 1.f / (float)width, invH = 1.f / (float)height;
    int i;
    if (!r) return GP_ERROR_OUT_OF_MEMORY;
    r->ctx = ctx;
    r->width = width;
    r->height = height;
    r->tiles_x = (width + TILE_W - 1) / TILE_W;
    r->tiles_y = (height + TILE_H - 1) / TILE_H;
    r->band_ty0 = band_ty0;
    r->band_ty1 = band_ty1;
    r->band_py0 = band_ty0 * TILE_H;
    r->band_py1 = band_ty1 * TILE_H < height ? band_ty1 * TILE_H : height;
    px = (size_t)width * (size_t)(r->band_py1 - r->band_py0);
    r->ntiles = (size_t)r->tiles_x * (size_t)r->tiles_y;
    st = gp_malloc(ctx, &image, px * 4 * sizeof(float)); /* 0 bytes: NULL */
    r->image = (float *)image;
    r->colx = (float *)malloc(((size_t)width + TILE_W) * sizeof(float)); /* vectors may read past the edge */
    r->rowy = (float *)malloc((size_t)height * sizeof(float));
    r->tile_total = (uint32_t *)malloc(r->ntiles * sizeof(uint32_t));
    r->tile_begin = (uint32_t *)malloc(r->ntiles * sizeof(uint32_t));
    if (st || !r->colx || !r->rowy || !r->tile_total || !r->tile_begin) {
        gpr_cpu_renderer_destroy(r);
        return GP_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < width + TILE_W; i++) r->colx[i] = gpr_pixel_x(i, invW);
    for (i = 0; i < height; i++) r->rowy[i] = gpr_pixel_y(i, invH);
    *out = r;
    return GP_SUCCESS;
}

static void free_scene_copy(gpr_cpu_renderer *r)
{
    free(r->x);
    free(r->y);
    free(r->z);
    free(r->rad);
    free(r->cr);
    free(r->cg);
    free(r->cb);
    free(r->box);
    r->x = r->y = r->z = r->rad = r->cr = r->cg = r->cb = NULL;
    r->box = NULL;
    r->cap = 0;
}

void gpr_cpu_renderer_destroy(gpr_cpu_renderer *r)
{
    if (!r) return;
    free_scene_copy(r);
    if (r->image) gp_free(r->ctx, r->image);
    free(r->colx);
    free(r->rowy);
    free(r->counts);
    free(r->tile_total);
    free(r->tile_begin);
    if (r->bins) gp_free(r->ctx, r->bins);
    free(r);
}

gp_status gpr_cpu_renderer_set_scene(gpr_cpu_renderer *r, const gp_scene *s)
{
    size_t i, n = s->n;
    if (n > r->cap) {
        free_scene_copy(r);
        r->n = 0;
        r->x = (float *)malloc(n * sizeof(float));
        r->y = (float *)malloc(n * sizeof(float));
        r->z = (float *)malloc(n * sizeof(float));
        r->rad = (float *)malloc(n * sizeof(float));
        r->cr = (float *)malloc(n * sizeof(float));
        r->cg = (float *)malloc(n * sizeof(float));
        r->cb = (float *)malloc(n * sizeof(float));
        r->box = (box16 *)malloc(n * sizeof(box16));
        if (!r->x || !r->y || !r->z || !r->rad || !r->cr || !r->cg || !r->cb || !r->box) {
            free_scene_copy(r);
            return GP_ERROR_OUT_OF_MEMORY;
        }
        r->cap = n;
    }
    for (i = 0; i < n; i++) {
        r->x[i] = s->position[3 * i];
        r->y[i] = s->position[3 * i + 1];
        r->z[i] = s->position[3 * i + 2];
        r->rad[i] = s->radius[i];
        r->cr[i] = s->color[3 * i];
        r->cg[i] = s->color[3 * i + 1];
        r->cb[i] = s->color[3 * i + 2];
    }
    r->n = n;
    r->snow = s->snow;
    return GP_SUCCESS;
}

gp_status gpr_cpu_renderer_read(const gpr_cpu_renderer *r, float *rgba)
{
    if (r->image) /* NULL for an empty band */
        memcpy(rgba, r->image, (size_t)r->width * (size_t)(r->band_py1 - r->band_py0) * 4 * sizeof(float));
    return GP_SUCCESS;
}

gp_status gpr_cpu_renderer_rgb8(const gpr_cpu_renderer *r, unsigned char *rgb)
{
    size_t i, n = (size_t)r->width * (size_t)(r->band_py1 - r->band_py0);
    for (i = 0; i < n; i++) {
        rgb[3 * i] = gpr_to8(r->image[4 * i]);
        rgb[3 * i + 1] = gpr_to8(r->image[4 * i + 1]);
        rgb[3 * i + 2] = gpr_to8(r->image[4 * i + 2]);
    }
    return GP_SUCCESS;
}

typedef struct job {
    gpr_cpu_renderer *r;
    int chunks;
    size_t n;
    atomic_size_t next;
    /* Band of tile rows being binned / shaded. */
    int band_y0, band_y1;
    blend_fn blend;
    gpr_tile_path tile; /* how ordinary circles are shaded */
    /* Progress: tiles shaded, reported by the calling thread only. */
    atomic_size_t tiles_done;
    size_t tiles_total;
    pthread_t caller;
} job;

static size_t chunk_begin(const job *jb, int c) { return (size_t)((unsigned long long)jb->n * (unsigned)c / (unsigned)jb->chunks); }

/* Phase 1: clamped boxes and per-chunk tile counts. */
static void count_worker(void *p)
{
    job *jb = (job *)p;
    gpr_cpu_renderer *r = jb->r;
    size_t c;
    while ((c = atomic_fetch_add(&jb->next, 1)) < (size_t)jb->chunks) {
        uint32_t *cnt = r->counts + c * r->ntiles;
        size_t i, end = chunk_begin(jb, (int)c + 1);
        memset(cnt, 0, r->ntiles * sizeof(uint32_t));
        for (i = chunk_begin(jb, (int)c); i < end; i++) {
            int x0, x1, y0, y1, tx, ty;
            gpr_circle_box(r->x[i], r->y[i], r->rad[i], r->width, r->height, &x0, &x1, &y0, &y1);
            /* Only the band's rows are drawn: clamping the box to them
             * keeps the same pixels of those rows. */
            if (y0 < r->band_py0) y0 = r->band_py0;
            if (y1 > r->band_py1) y1 = r->band_py1;
            r->box[i].x0 = (uint16_t)x0;
            r->box[i].x1 = (uint16_t)x1;
            r->box[i].y0 = (uint16_t)y0;
            r->box[i].y1 = (uint16_t)y1;
            if (x0 >= x1 || y0 >= y1) continue;
            for (ty = y0 / TILE_H; ty <= (y1 - 1) / TILE_H; ty++) {
                uint32_t *row = cnt + (size_t)ty * (size_t)r->tiles_x;
                for (tx = x0 / TILE_W; tx <= (x1 - 1) / TILE_W; tx++) row[tx]++;
            }
        }
    }
}

/* Phase 2: write each chunk's circles into the band's tile lists. Chunks
 * are in index order and own consecutive slots per tile: lists are sorted. */
static void fill_worker(void *p)
{
    job *jb = (job *)p;
    gpr_cpu_renderer *r = jb->r;
    size_t c;
    while ((c = atomic_fetch_add(&jb->next, 1)) < (size_t)jb->chunks) {
        uint32_t *off = r->counts + c * r->ntiles;
        size_t i, end = chunk_begin(jb, (int)c + 1);
        for (i = chunk_begin(jb, (int)c); i < end; i++) {
            box16 b = r->box[i];
            int tx, ty, ty0, ty1;
            if (b.x0 >= b.x1 || b.y0 >= b.y1) continue;
            ty0 = b.y0 / TILE_H;
            ty1 = (b.y1 - 1) / TILE_H;
            if (ty0 < jb->band_y0) ty0 = jb->band_y0;
            if (ty1 >= jb->band_y1) ty1 = jb->band_y1 - 1;
            for (ty = ty0; ty <= ty1; ty++) {
                uint32_t *row = off + (size_t)ty * (size_t)r->tiles_x;
                for (tx = b.x0 / TILE_W; tx <= (b.x1 - 1) / TILE_W; tx++) r->bins[row[tx]++] = (uint32_t)i;
            }
        }
    }
}

/* Phase 3: workers pull the band's tiles. */
static void shade_worker(void *p)
{
    job *jb = (job *)p;
    gpr_cpu_renderer *r = jb->r;
    size_t first = (size_t)jb->band_y0 * (size_t)r->tiles_x;
    size_t last = (size_t)jb->band_y1 * (size_t)r->tiles_x;
    size_t t;
    const int reports = r->progress.fn && pthread_equal(pthread_self(), jb->caller);
    while ((t = first + atomic_fetch_add(&jb->next, 1)) < last) {
        gpr_cpu_shade_tile(r, t, jb->blend, jb->tile);
        atomic_fetch_add(&jb->tiles_done, 1);
        if (reports) gpr_progress_report(&r->progress, (double)atomic_load(&jb->tiles_done), (double)jb->tiles_total);
    }
}

void gpr_cpu_renderer_set_progress(gpr_cpu_renderer *r, gp_progress_fn fn, void *user)
{
    r->progress.fn = fn;
    r->progress.user = user;
}

gp_status gpr_cpu_renderer_render(gpr_cpu_renderer *r, int threads)
{
    job jb;
    int chunks, band0;
    size_t t, ntiles = r->ntiles;

    /* Chunks of circles binned in parallel: enough to feed the threads,
     * few enough that the per-chunk tile counts stay small. */
    chunks = threads * 2 < policy.max_chunks ? threads * 2 : policy.max_chunks;
    if ((size_t)chunks > r->n / policy.chunk_min) chunks = (int)(r->n / policy.chunk_min);
    if (chunks < 1) chunks = 1;
    if (chunks > r->counts_chunks) {
        uint32_t *c = (uint32_t *)malloc((size_t)chunks * ntiles * sizeof(uint32_t));
        if (!c) return GP_ERROR_OUT_OF_MEMORY;
        free(r->counts);
        r->counts = c;
        r->counts_chunks = chunks;
    }

    memset(&jb, 0, sizeof jb);
    jb.r = r;
    jb.chunks = chunks;
    jb.n = r->n;
    jb.blend = gpr_cpu_pick_blend(&jb.tile);
    atomic_init(&jb.next, 0);
    atomic_init(&jb.tiles_done, 0);
    jb.tiles_total = (size_t)(r->band_ty1 - r->band_ty0) * (size_t)r->tiles_x;
    jb.caller = pthread_self();
    r->progress.last = gpr_mono_s();
    gpr_run_parallel(threads < chunks ? threads : chunks, count_worker, &jb);

    for (t = 0; t < ntiles; t++) {
        uint32_t sum = 0;
        int c;
        for (c = 0; c < chunks; c++) sum += r->counts[(size_t)c * ntiles + t]; /* <= n < 2^32 */
        r->tile_total[t] = sum;
    }

    /* Bands of tile rows whose lists fit the entry budget (one row at least). */
    for (band0 = r->band_ty0; band0 < r->band_ty1;) {
        size_t entries = 0;
        int band1 = band0;
        while (band1 < r->band_ty1) {
            size_t row = 0;
            for (t = (size_t)band1 * r->tiles_x; t < (size_t)(band1 + 1) * r->tiles_x; t++) row += r->tile_total[t];
            if (band1 > band0 && entries + row > policy.band_entries) break;
            entries += row;
            band1++;
        }
        if (entries > UINT32_MAX) return GP_ERROR_OUT_OF_MEMORY;
        if (entries > r->bins_cap) {
            void *b = NULL;
            if (gp_malloc(r->ctx, &b, entries * sizeof(uint32_t))) return GP_ERROR_OUT_OF_MEMORY;
            if (r->bins) gp_free(r->ctx, r->bins);
            r->bins = (uint32_t *)b;
            r->bins_cap = entries;
        }
        /* Band-relative offsets: per tile, then per chunk within the tile. */
        {
            uint32_t pos = 0;
            for (t = (size_t)band0 * r->tiles_x; t < (size_t)band1 * r->tiles_x; t++) {
                int c;
                r->tile_begin[t] = pos;
                for (c = 0; c < chunks; c++) {
                    uint32_t *cnt = r->counts + (size_t)c * ntiles + t;
                    uint32_t v = *cnt;
                    *cnt = pos;
                    pos += v;
                }
            }
        }
        jb.band_y0 = band0;
        jb.band_y1 = band1;
        atomic_store(&jb.next, 0);
        gpr_run_parallel(threads < chunks ? threads : chunks, fill_worker, &jb);
        atomic_store(&jb.next, 0);
        gpr_run_parallel(threads, shade_worker, &jb);
        band0 = band1;
    }
    gpr_progress_report(&r->progress, 1.0, 1.0);
    return GP_SUCCESS;
}
