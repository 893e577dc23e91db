/* render_cpu.c - the CPU renderers.
 *
 * gp_render_reference: one thread, circle after circle over its clamped
 * pixel box, gpr_shade per pixel. The ground truth.
 *
 * The tile renderer (gpr_cpu_renderer_*): the image is cut into tiles;
 * circles are binned per tile in index order (bounding-box overlap, counted
 * then filled per chunk of circles, so the lists come out sorted without a
 * sort); worker threads pull tiles from an atomic counter and blend each
 * tile's circles, in order, into a tile buffer that stays in L1. Per pixel
 * the same circles meet the same float operations in the same order as in
 * the reference, so the image is the same bit for bit. Ordinary circles
 * run on one of two paths: where the CPU has AVX-512, a tile row stays in
 * registers while the tile's circles pass over it (shade_tile_avx512);
 * elsewhere each circle row is cut down to a conservative chord (the exact
 * d2 <= r*r test still decides every pixel) and blended by a branch-free
 * SIMD loop over that row of the SoA tile buffer. Snow circles take the
 * scalar gpr_shade. The image and bin buffers sit on huge pages where the
 * system offers them (gpi_host_alloc_large): their page faults cost as much
 * as the shading. */
#include "render_cpu.h"
#include "band.h"
#include "shade.h"
#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the reference ---------------------------------------------------------- */

gp_status gpr_render_check_size(int width, int height)
{
    size_t px, bytes;
    if (width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return GP_ERROR_INVALID_ARGUMENT;
    if (gpi_mul_size((size_t)width, (size_t)height, &px) || gpi_mul_size(px, 4 * sizeof(float), &bytes))
        return GP_ERROR_SIZE_OVERFLOW;
    return GP_SUCCESS;
}

/* Calls fn with done/total at most every 100 ms (not at all when fn is NULL). */
typedef struct progress {
    gp_progress_fn fn;
    void *user;
    double last;
} progress;

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void report(progress *p, double done, double total)
{
    double now;
    if (!p->fn) return;
    now = mono_s();
    if (now - p->last < .1 && done < total) return;
    p->last = now;
    p->fn(total > 0 ? done / total : 1.0, p->user);
}

gp_status gp_render_reference(const gp_scene *scene, int width, int height, float *rgba)
{
    return gp_render_reference_progress(scene, width, height, rgba, NULL, NULL);
}

gp_status gp_render_reference_progress(const gp_scene *scene, int width, int height, float *rgba,
                                       gp_progress_fn fn, void *user)
{
    float invW, invH;
    size_t c;
    int i, j;
    gp_status st;
    progress pr = {fn, user, 0};
    double total = 0, done = 0;
    if (!scene || !rgba) return GP_ERROR_INVALID_ARGUMENT;
    if ((st = gpr_render_check_size(width, height))) return st;
    for (j = 0; j < height; j++) {
        gpr_rgba bg = gpr_background(scene->snow, j, height);
        float *row = rgba + (size_t)j * (size_t)width * 4;
        for (i = 0; i < width; i++) {
            row[4 * i] = bg.r;
            row[4 * i + 1] = bg.g;
            row[4 * i + 2] = bg.b;
            row[4 * i + 3] = bg.a;
        }
    }
    invW = 1.f / (float)width;
    invH = 1.f / (float)height;
    /* Work is pixels tested: each circle's box, plus one per circle. */
    for (c = 0; fn && c < scene->n; c++) {
        int x0, x1, y0, y1;
        gpr_circle_box(scene->position[3 * c], scene->position[3 * c + 1], scene->radius[c], width, height, &x0, &x1,
                       &y0, &y1);
        total += 1.0 + (x1 > x0 && y1 > y0 ? (double)(x1 - x0) * (double)(y1 - y0) : 0.0);
    }
    pr.last = mono_s();
    for (c = 0; c < scene->n; c++) {
        const float *p = scene->position + 3 * c, *col = scene->color + 3 * c;
        float rad = scene->radius[c];
        int x0, x1, y0, y1;
        gpr_circle_box(p[0], p[1], rad, width, height, &x0, &x1, &y0, &y1);
        for (j = y0; j < y1; j++) {
            float cy = gpr_pixel_y(j, invH);
            float *row = rgba + (size_t)j * (size_t)width * 4;
            for (i = x0; i < x1; i++) {
                float *q = row + 4 * (size_t)i;
                gpr_rgba px = {q[0], q[1], q[2], q[3]};
                gpr_shade(&px, gpr_pixel_x(i, invW), cy, p[0], p[1], p[2], rad, col[0], col[1], col[2],
                          scene->snow);
                q[0] = px.r;
                q[1] = px.g;
                q[2] = px.b;
                q[3] = px.a;
            }
        }
        if (fn) {
            done += 1.0 + (x1 > x0 && y1 > y0 ? (double)(x1 - x0) * (double)(y1 - y0) : 0.0);
            report(&pr, done, total);
        }
    }
    if (fn) report(&pr, total, total);
    return GP_SUCCESS;
}

/* ---- the tile renderer --------------------------------------------------------- */

/* Tuning knobs, in one place. A tile's SoA buffer is TILE_W*TILE_H*16 bytes
 * (16 KiB): it stays in L1 while the tile's circles blend into it. Wide
 * tiles give the vectorized row loop long runs. */
#define TILE_W 64
#define TILE_H GPR_RENDER_TILE
static const struct {
    size_t band_entries; /* bin entries per band of tile rows before splitting the frame */
    int max_chunks;      /* circle chunks binned in parallel (each has a count per tile) */
    size_t chunk_min;    /* fewest circles worth a chunk of their own */
} policy = {(size_t)1 << 26, 8, 4096};

typedef struct box16 {
    uint16_t x0, x1, y0, y1; /* clamped pixel box; sides <= 16384 fit */
} box16;

struct gpr_cpu_renderer {
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
    progress progress; /* gpr_cpu_renderer_set_progress */
};

gp_status gpr_cpu_renderer_create(int width, int height, int band_ty0, int band_ty1, gpr_cpu_renderer **out)
{
    gpr_cpu_renderer *r = (gpr_cpu_renderer *)calloc(1, sizeof *r);
    size_t px;
    float invW = 1.f / (float)width, invH = 1.f / (float)height;
    int i;
    if (!r) return GP_ERROR_OUT_OF_MEMORY;
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
    r->image = (float *)gpi_host_alloc_large(px * 4 * sizeof(float)); /* 0 bytes: still a pointer to free */
    r->colx = (float *)malloc(((size_t)width + TILE_W) * sizeof(float)); /* vectors may read past the edge */
    r->rowy = (float *)malloc((size_t)height * sizeof(float));
    r->tile_total = (uint32_t *)malloc(r->ntiles * sizeof(uint32_t));
    r->tile_begin = (uint32_t *)malloc(r->ntiles * sizeof(uint32_t));
    if (!r->image || !r->colx || !r->rowy || !r->tile_total || !r->tile_begin) {
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
    free(r->image);
    free(r->colx);
    free(r->rowy);
    free(r->counts);
    free(r->tile_total);
    free(r->tile_begin);
    free(r->bins);
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

/* ---- a tiny fork-join: `threads` workers run fn(arg); fn pulls its work
 * items from an atomic counter, so if a thread cannot be started the
 * others (at least the caller) still do everything. */
static void *trampoline(void *p)
{
    void **fa = (void **)p;
    ((void (*)(void *))fa[0])(fa[1]);
    return NULL;
}

static void run_parallel(int threads, void (*fn)(void *), void *arg)
{
    pthread_t tid[64];
    int started[64];
    void *fa[2];
    int t;
    union {
        void (*f)(void *);
        void *p;
    } u;
    if (threads > 64) threads = 64;
    u.f = fn;
    fa[0] = u.p;
    fa[1] = arg;
    for (t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, trampoline, fa) == 0;
    fn(arg);
    for (t = 1; t < threads; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

typedef struct row_args {
    float px, dy2, maxd2, ar, ag, ab, oma, alpha;
} row_args;

typedef void (*blend_fn)(float *R, float *G, float *B, float *A, const float *cx, int xa, int xb,
                         const row_args *a);

typedef struct job {
    gpr_cpu_renderer *r;
    int chunks;
    size_t n;
    atomic_size_t next;
    /* Band of tile rows being binned / shaded. */
    int band_y0, band_y1;
    blend_fn blend;
    int tile512; /* shade ordinary circles with shade_tile_avx512 */
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

/* One row of an ordinary circle over tile columns [xa, xb): exactly
 * gpr_shade's operations (d2 = dx*dx + dy*dy, inside iff !(d2 > r*r);
 * c = alpha*C + (1-alpha)*c; a = alpha + a), with the per-circle products
 * alpha*C (ar, ag, ab) formed once. R, G, B, A and cx point at column 0 of
 * the tile row; cx is readable up to TILE_W. The vector versions visit
 * whole vectors and keep lanes outside [xa, xb) unchanged, so the set of
 * pixels touched is exactly the scalar one. */
static void blend_row_scalar(float *restrict R, float *restrict G, float *restrict B, float *restrict A,
                             const float *restrict cx, int xa, int xb, const row_args *a)
{
    int i;
    for (i = xa; i < xb; i++) {
        float dx = a->px - cx[i];
        float d2 = dx * dx + a->dy2;
        if (d2 > a->maxd2) continue;
        R[i] = a->ar + a->oma * R[i];
        G[i] = a->ag + a->oma * G[i];
        B[i] = a->ab + a->oma * B[i];
        A[i] = a->alpha + A[i];
    }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && defined(__GNUC__)
#define GPR_HAVE_X86 1
#include <immintrin.h>

static void blend_row_sse(float *R, float *G, float *B, float *A, const float *cx, int xa, int xb,
                          const row_args *a)
{
    const __m128 px = _mm_set1_ps(a->px), dy2 = _mm_set1_ps(a->dy2), maxd2 = _mm_set1_ps(a->maxd2);
    const __m128 ar = _mm_set1_ps(a->ar), ag = _mm_set1_ps(a->ag), ab = _mm_set1_ps(a->ab);
    const __m128 oma = _mm_set1_ps(a->oma), alpha = _mm_set1_ps(a->alpha);
    const __m128i lo = _mm_set1_epi32(xa), hi = _mm_set1_epi32(xb - 1), lane = _mm_setr_epi32(0, 1, 2, 3);
    int i;
    for (i = xa & ~3; i < xb; i += 4) {
        __m128i idx = _mm_add_epi32(_mm_set1_epi32(i), lane);
        __m128 off = _mm_castsi128_ps(_mm_or_si128(_mm_cmplt_epi32(idx, lo), _mm_cmpgt_epi32(idx, hi)));
        __m128 dx = _mm_sub_ps(px, _mm_loadu_ps(cx + i));
        __m128 d2 = _mm_add_ps(_mm_mul_ps(dx, dx), dy2);
        __m128 keep = _mm_or_ps(_mm_cmpgt_ps(d2, maxd2), off);
        __m128 r = _mm_loadu_ps(R + i), g = _mm_loadu_ps(G + i), b = _mm_loadu_ps(B + i), al = _mm_loadu_ps(A + i);
        __m128 nr = _mm_add_ps(ar, _mm_mul_ps(oma, r)), ng = _mm_add_ps(ag, _mm_mul_ps(oma, g));
        __m128 nb = _mm_add_ps(ab, _mm_mul_ps(oma, b)), na = _mm_add_ps(alpha, al);
        _mm_storeu_ps(R + i, _mm_or_ps(_mm_and_ps(keep, r), _mm_andnot_ps(keep, nr)));
        _mm_storeu_ps(G + i, _mm_or_ps(_mm_and_ps(keep, g), _mm_andnot_ps(keep, ng)));
        _mm_storeu_ps(B + i, _mm_or_ps(_mm_and_ps(keep, b), _mm_andnot_ps(keep, nb)));
        _mm_storeu_ps(A + i, _mm_or_ps(_mm_and_ps(keep, al), _mm_andnot_ps(keep, na)));
    }
}

/* The same with 8 lanes, chosen at run time where the CPU has AVX2. Plain
 * multiplies and adds (no FMA): the same roundings as the reference. */
__attribute__((target("avx2"))) static void blend_row_avx2(float *R, float *G, float *B, float *A,
                                                            const float *cx, int xa, int xb,
                                                            const row_args *a)
{
    const __m256 px = _mm256_set1_ps(a->px), dy2 = _mm256_set1_ps(a->dy2), maxd2 = _mm256_set1_ps(a->maxd2);
    const __m256 ar = _mm256_set1_ps(a->ar), ag = _mm256_set1_ps(a->ag), ab = _mm256_set1_ps(a->ab);
    const __m256 oma = _mm256_set1_ps(a->oma), alpha = _mm256_set1_ps(a->alpha);
    const __m256i lo = _mm256_set1_epi32(xa - 1), hi = _mm256_set1_epi32(xb);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int i;
    for (i = xa & ~7; i < xb; i += 8) {
        __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(i), lane);
        /* inside the span iff xa - 1 < idx < xb */
        __m256i in_span = _mm256_and_si256(_mm256_cmpgt_epi32(idx, lo), _mm256_cmpgt_epi32(hi, idx));
        __m256 dx = _mm256_sub_ps(px, _mm256_loadu_ps(cx + i));
        __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), dy2);
        __m256 take = _mm256_and_ps(_mm256_cmp_ps(d2, maxd2, _CMP_NGT_UQ), _mm256_castsi256_ps(in_span));
        __m256 r = _mm256_loadu_ps(R + i), g = _mm256_loadu_ps(G + i);
        __m256 b = _mm256_loadu_ps(B + i), al = _mm256_loadu_ps(A + i);
        _mm256_storeu_ps(R + i, _mm256_blendv_ps(r, _mm256_add_ps(ar, _mm256_mul_ps(oma, r)), take));
        _mm256_storeu_ps(G + i, _mm256_blendv_ps(g, _mm256_add_ps(ag, _mm256_mul_ps(oma, g)), take));
        _mm256_storeu_ps(B + i, _mm256_blendv_ps(b, _mm256_add_ps(ab, _mm256_mul_ps(oma, b)), take));
        _mm256_storeu_ps(A + i, _mm256_blendv_ps(al, _mm256_add_ps(alpha, al), take));
    }
}

/* Ordinary circles over a whole tile with AVX-512: the tile is shaded row
 * by row, and a row's 64 pixels (4 vectors each of R, G, B, A) stay in
 * registers while the tile's circles pass over it in order, so the blend
 * itself loads and stores nothing. The circles' per-tile values are set up
 * a chunk at a time; per pixel the operations are gpr_shade's (see
 * blend_row_scalar), masked to the circle's box columns and to
 * !(d2 > r*r). */
#if TILE_W == 64
#define GPR_HAVE_TILE512 1
#define CHUNK512 256
__attribute__((target("avx512f"))) static void shade_tile_avx512(const gpr_cpu_renderer *r, int tx0, int ty0,
                                                                  int ty1, const uint32_t *list, uint32_t count,
                                                                  float (*R)[TILE_W], float (*G)[TILE_W],
                                                                  float (*B)[TILE_W], float (*A)[TILE_W])
{
    float cpx[CHUNK512], cpy[CHUNK512], cmax[CHUNK512], car[CHUNK512], cag[CHUNK512], cab[CHUNK512];
    uint64_t ccols[CHUNK512];
    uint8_t cy0[CHUNK512], cy1[CHUNK512];
    const float *cx = r->colx + tx0;
    const __m512 cx0 = _mm512_loadu_ps(cx), cx1 = _mm512_loadu_ps(cx + 16);
    const __m512 cx2 = _mm512_loadu_ps(cx + 32), cx3 = _mm512_loadu_ps(cx + 48);
    const __m512 oma = _mm512_set1_ps(1.f - .5f), alpha = _mm512_set1_ps(.5f);
    uint32_t k0;
    int row;
    for (k0 = 0; k0 < count; k0 += CHUNK512) {
        const uint32_t m = count - k0 < CHUNK512 ? count - k0 : CHUNK512;
        uint32_t k;
        for (k = 0; k < m; k++) {
            const uint32_t c = list[k0 + k];
            const box16 b = r->box[c];
            const int a = (b.x0 > tx0 ? b.x0 : tx0) - tx0, e = (b.x1 < tx0 + TILE_W ? b.x1 : tx0 + TILE_W) - tx0;
            const int ya = (b.y0 > ty0 ? b.y0 : ty0) - ty0, ye = (b.y1 < ty1 ? b.y1 : ty1) - ty0;
            cpx[k] = r->x[c];
            cpy[k] = r->y[c];
            cmax[k] = r->rad[c] * r->rad[c];
            car[k] = .5f * r->cr[c];
            cag[k] = .5f * r->cg[c];
            cab[k] = .5f * r->cb[c];
            /* columns [a, e) of the tile; none when the box misses it */
            ccols[k] = a < e ? (e == TILE_W ? ~0ull : (1ull << e) - 1) & (~0ull << a) : 0;
            cy0[k] = (uint8_t)(ya < ye ? ya : 0);
            cy1[k] = (uint8_t)(ya < ye ? ye : 0);
        }
        for (row = 0; row < ty1 - ty0; row++) {
            const float cy = r->rowy[ty0 + row];
            __m512 r0 = _mm512_load_ps(R[row]), r1 = _mm512_load_ps(R[row] + 16);
            __m512 r2 = _mm512_load_ps(R[row] + 32), r3 = _mm512_load_ps(R[row] + 48);
            __m512 g0 = _mm512_load_ps(G[row]), g1 = _mm512_load_ps(G[row] + 16);
            __m512 g2 = _mm512_load_ps(G[row] + 32), g3 = _mm512_load_ps(G[row] + 48);
            __m512 b0 = _mm512_load_ps(B[row]), b1 = _mm512_load_ps(B[row] + 16);
            __m512 b2 = _mm512_load_ps(B[row] + 32), b3 = _mm512_load_ps(B[row] + 48);
            __m512 a0 = _mm512_load_ps(A[row]), a1 = _mm512_load_ps(A[row] + 16);
            __m512 a2 = _mm512_load_ps(A[row] + 32), a3 = _mm512_load_ps(A[row] + 48);
            for (k = 0; k < m; k++) {
                float dy, dy2;
                __m512 px, vdy2, vmax, ar, ag, ab;
                uint64_t cols;
                if ((unsigned)(row - cy0[k]) >= (unsigned)(cy1[k] - cy0[k])) continue;
                dy = cpy[k] - cy;
                dy2 = dy * dy;
                /* d2 = fl(dx*dx + dy2) >= dy2: no pixel of this row is inside. */
                if (dy2 > cmax[k]) continue;
                cols = ccols[k];
                px = _mm512_set1_ps(cpx[k]);
                vdy2 = _mm512_set1_ps(dy2);
                vmax = _mm512_set1_ps(cmax[k]);
                ar = _mm512_set1_ps(car[k]);
                ag = _mm512_set1_ps(cag[k]);
                ab = _mm512_set1_ps(cab[k]);
#define GPR_BLEND16(v, CX, RR, GG, BB, AA)                                                                        \
    do {                                                                                                          \
        __m512 dx = _mm512_sub_ps(px, CX);                                                                        \
        __m512 d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), vdy2);                                                   \
        __mmask16 take = _mm512_mask_cmp_ps_mask((__mmask16)(cols >> (16 * v)), d2, vmax, _CMP_NGT_UQ);          \
        RR = _mm512_mask_add_ps(RR, take, ar, _mm512_mul_ps(oma, RR));                                            \
        GG = _mm512_mask_add_ps(GG, take, ag, _mm512_mul_ps(oma, GG));                                            \
        BB = _mm512_mask_add_ps(BB, take, ab, _mm512_mul_ps(oma, BB));                                            \
        AA = _mm512_mask_add_ps(AA, take, alpha, AA);                                                             \
    } while (0)
                GPR_BLEND16(0, cx0, r0, g0, b0, a0);
                GPR_BLEND16(1, cx1, r1, g1, b1, a1);
                GPR_BLEND16(2, cx2, r2, g2, b2, a2);
                GPR_BLEND16(3, cx3, r3, g3, b3, a3);
#undef GPR_BLEND16
            }
            _mm512_store_ps(R[row], r0); _mm512_store_ps(R[row] + 16, r1);
            _mm512_store_ps(R[row] + 32, r2); _mm512_store_ps(R[row] + 48, r3);
            _mm512_store_ps(G[row], g0); _mm512_store_ps(G[row] + 16, g1);
            _mm512_store_ps(G[row] + 32, g2); _mm512_store_ps(G[row] + 48, g3);
            _mm512_store_ps(B[row], b0); _mm512_store_ps(B[row] + 16, b1);
            _mm512_store_ps(B[row] + 32, b2); _mm512_store_ps(B[row] + 48, b3);
            _mm512_store_ps(A[row], a0); _mm512_store_ps(A[row] + 16, a1);
            _mm512_store_ps(A[row] + 32, a2); _mm512_store_ps(A[row] + 48, a3);
        }
    }
}
#endif
#endif

/* The widest shading the CPU runs: the AVX-512 register tile where the CPU
 * has it, else the widest row blend. GPUPRIM_CPU_BLEND=scalar|sse|avx2|avx512
 * forces one (a testing knob: the tests hold each against the reference;
 * one the CPU lacks falls back to the widest it has). */
static blend_fn pick_blend(int *tile512)
{
    const char *force = getenv("GPUPRIM_CPU_BLEND");
    *tile512 = 0;
    if (force && !strcmp(force, "scalar")) return blend_row_scalar;
#ifdef GPR_HAVE_X86
    if (force && !strcmp(force, "sse")) return blend_row_sse;
    __builtin_cpu_init();
#ifdef GPR_HAVE_TILE512
    *tile512 = (!force || !strcmp(force, "avx512")) && __builtin_cpu_supports("avx512f");
#endif
    if (__builtin_cpu_supports("avx2")) return blend_row_avx2;
    return blend_row_sse;
#else
    return blend_row_scalar;
#endif
}

/* A tile's circles, in order, circle by circle and row by row over the
 * tile's SoA buffer: ordinary circles by the row blend `blend` over each
 * row's chord, snow circles by gpr_shade per pixel. */
static void shade_tile_rows(const gpr_cpu_renderer *r, int tx0, int ty0, int tx1, int ty1, const uint32_t *list,
                            uint32_t count, blend_fn blend, float (*R)[TILE_W], float (*G)[TILE_W],
                            float (*B)[TILE_W], float (*A)[TILE_W])
{
    const float fW = (float)r->width;
    const int snow = r->snow;
    uint32_t k;
    int i, j;
    for (k = 0; k < count; k++) {
        const uint32_t c = list[k];
        const box16 b = r->box[c];
        const float px = r->x[c], py = r->y[c], pz = r->z[c], rad = r->rad[c];
        const float maxd2 = rad * rad;
        /* Slack for the chord: far above the float error of d2 and of the
         * pixel centres; the exact test below still decides each pixel. */
        const float wide = maxd2 * 1.00001f;
        const int narrow = fabsf(px) <= 2.f && rad <= 2.f;
        /* Column bounds as (int)(v + bias) - bias: a floor without floorf
         * (slow without SSE4.1) for v > -bias; |v| < 4W+1 when narrow. The
         * rounding of v + bias (< 1/64 pixel) is inside the 2-pixel margins. */
        const float bias = 4.f * fW + 8.f;
        const float pxW = px * fW;
        const int bx0 = b.x0 > tx0 ? b.x0 : tx0, bx1 = b.x1 < tx1 ? b.x1 : tx1;
        const int by0 = b.y0 > ty0 ? b.y0 : ty0, by1 = b.y1 < ty1 ? b.y1 : ty1;
        row_args ra;
        ra.px = px;
        ra.maxd2 = maxd2;
        ra.alpha = .5f;
        ra.oma = 1.f - ra.alpha;
        ra.ar = ra.alpha * r->cr[c];
        ra.ag = ra.alpha * r->cg[c];
        ra.ab = ra.alpha * r->cb[c];
        for (j = by0; j < by1; j++) {
            const float cy = r->rowy[j];
            const float dy = py - cy, dy2 = dy * dy;
            int xa = bx0, xb = bx1, row = j - ty0;
            /* d2 = fl(dx*dx + dy2) >= dy2: no pixel of this row is inside. */
            if (dy2 > maxd2) continue;
            if (narrow) {
                float hwW = sqrtf(wide - dy2) * fW;
                int lo = (int)(pxW - hwW - .5f + bias) - (int)bias - 2;
                int hi = (int)(pxW + hwW - .5f + bias) - (int)bias + 3;
                if (lo > xa) xa = lo;
                if (hi < xb) xb = hi;
            }
            if (xa >= xb) continue;
            if (!snow) {
                ra.dy2 = dy2;
                blend(R[row], G[row], B[row], A[row], r->colx + tx0, xa - tx0, xb - tx0, &ra);
            } else {
                for (i = xa; i < xb; i++) {
                    int x = i - tx0;
                    gpr_rgba q = {R[row][x], G[row][x], B[row][x], A[row][x]};
                    gpr_shade(&q, r->colx[i], cy, px, py, pz, rad, 0.f, 0.f, 0.f, 1);
                    R[row][x] = q.r;
                    G[row][x] = q.g;
                    B[row][x] = q.b;
                    A[row][x] = q.a;
                }
            }
        }
    }
}

static void shade_tile(gpr_cpu_renderer *r, size_t t, blend_fn blend, int tile512)
{
    _Alignas(64) float R[TILE_H][TILE_W];
    _Alignas(64) float G[TILE_H][TILE_W];
    _Alignas(64) float B[TILE_H][TILE_W];
    _Alignas(64) float A[TILE_H][TILE_W];
    const int W = r->width;
    const int tx0 = (int)(t % (size_t)r->tiles_x) * TILE_W, ty0 = (int)(t / (size_t)r->tiles_x) * TILE_H;
    const int tx1 = tx0 + TILE_W < W ? tx0 + TILE_W : W;
    const int ty1 = ty0 + TILE_H < r->height ? ty0 + TILE_H : r->height;
    /* bins is NULL until some circle lands in a tile (then count is 0). */
    const uint32_t *list = r->bins ? r->bins + r->tile_begin[t] : NULL;
    const uint32_t count = r->tile_total[t];
    const int snow = r->snow;
    int i, j;
    (void)tile512; /* without GPR_HAVE_TILE512, only the row path */

    for (j = ty0; j < ty1; j++) {
        gpr_rgba bg = gpr_background(snow, j, r->height);
        for (i = 0; i < TILE_W; i++) {
            R[j - ty0][i] = bg.r;
            G[j - ty0][i] = bg.g;
            B[j - ty0][i] = bg.b;
            A[j - ty0][i] = bg.a;
        }
    }

#ifdef GPR_HAVE_TILE512
    if (tile512 && !snow)
        shade_tile_avx512(r, tx0, ty0, ty1, list, count, R, G, B, A);
    else
#endif
        shade_tile_rows(r, tx0, ty0, tx1, ty1, list, count, blend, R, G, B, A);

    for (j = ty0; j < ty1; j++) {
        float *out = r->image + ((size_t)(j - r->band_py0) * (size_t)W + (size_t)tx0) * 4;
        int row = j - ty0;
        for (i = 0; i < tx1 - tx0; i++) {
            out[4 * i] = R[row][i];
            out[4 * i + 1] = G[row][i];
            out[4 * i + 2] = B[row][i];
            out[4 * i + 3] = A[row][i];
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
        shade_tile(r, t, jb->blend, jb->tile512);
        atomic_fetch_add(&jb->tiles_done, 1);
        if (reports) report(&r->progress, (double)atomic_load(&jb->tiles_done), (double)jb->tiles_total);
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
    jb.blend = pick_blend(&jb.tile512);
    atomic_init(&jb.next, 0);
    atomic_init(&jb.tiles_done, 0);
    jb.tiles_total = (size_t)(r->band_ty1 - r->band_ty0) * (size_t)r->tiles_x;
    jb.caller = pthread_self();
    r->progress.last = mono_s();
    run_parallel(threads < chunks ? threads : chunks, count_worker, &jb);

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
            uint32_t *b = (uint32_t *)gpi_host_alloc_large(entries * sizeof(uint32_t));
            if (!b) return GP_ERROR_OUT_OF_MEMORY;
            free(r->bins);
            r->bins = b;
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
        run_parallel(threads < chunks ? threads : chunks, fill_worker, &jb);
        atomic_store(&jb.next, 0);
        run_parallel(threads, shade_worker, &jb);
        band0 = band1;
    }
    report(&r->progress, 1.0, 1.0);
    return GP_SUCCESS;
}
