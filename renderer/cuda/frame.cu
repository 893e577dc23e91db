/* SPDX-License-Identifier: BSD-3-Clause */
/* frame.cu - the CUDA tile renderer (it draws the image docs/renderer.md
 * defines): the renderer object and the frame's story, step by step; the
 * kernels live in pack.cu, bin.cu and shade.cu, the device-wide scan and
 * sort are gpuprim's.
 *
 * Binning works on bins of 1x1 to 4x4 tiles of 16x16 pixels, the shape
 * chosen per scene by set_scene (choose_bins: big circles gain from big
 * bins, small ones lose). Per frame:
 *   1. count:  per circle, the bins its pixel box touches, refined by
 *              a conservative circle-vs-rectangle test (cull.cuh's row_span).
 *   2. scan:   gpuprim's inclusive sum of the counts (64-bit) -> each circle's slice of
 *              the (bin, circle) pair array; the total comes to the host
 *              (the frame's one small synchronizing copy).
 *   3. emit:   the pairs, as keys (bin << cbits | circle - batch first):
 *              32-bit when the bin and circle bits fit, else 64-bit with
 *              cbits = 32; circle by circle, so the array is in draw order.
 *              Small scenes (kWarpCircleN) count and emit a circle per warp.
 *              Emit also clears the bin ranges.
 *   4. sort:   gpuprim's radix sort on the bin bits only. It is stable, so
 *              each bin's circles stay in draw order.
 *   5. ranges: [start, end) of each bin in the sorted keys.
 *   6. shade:  one block per tile (tile_kernel_bands), reading its bin's
 *              list. Chunks of the list are culled again (dropping circles
 *              of the bin that miss the tile) per warp band of rows and compacted in order
 *              into a list per band in shared memory, with the rows' dy*dy
 *              precomputed; every thread blends its band's list over its
 *              column of pixels, kept in registers; each pixel is written
 *              once. Snow scenes use tile_kernel instead: one compacted
 *              list per chunk, which every warp walks, skipping the circles
 *              that miss its rows.
 * The scan and sort are gpuprim's public calls; their scratch comes from
 * the renderer's own device buffer (gp_sort_keys_double_buffer), not from
 * the caller's context workspace.
 * Small scenes skip 1-5: each tile's block culls every circle itself, with
 * tile_kernel (one launch, no host sync). Scenes whose pairs do not fit in
 * memory are drawn in consecutive circle batches, each blended over the image
 * of the previous.
 *
 * Exactness: the shading is shade.h's gpr_shade, in index order per pixel.
 * Every file here must be compiled with --fmad=false so that gpr_shade is not
 * FMA-contracted (the CPU reference is built with -ffp-contract=off). The
 * culling tests (cull.cuh) use __fmul_rn/__fadd_rn/__fsub_rn, which are never
 * contracted, so they round exactly as gpr_shade does whatever the flags, and
 * the count and emit passes always agree.
 *
 * Why culling never drops a contribution: for a pixel rectangle, the test
 * takes the pixel-centre coordinate nearest the circle's centre on each axis
 * (the centre itself when inside), forms dx, dy, d2 with gpr_shade's own
 * operations, and keeps the circle unless d2 > r*r. Rounding is monotonic, so
 * that d2 is <= the d2 gpr_shade computes for any pixel of the rectangle.
 * A bin's rectangle contains its tiles' warp bands, so its d2 is <= theirs:
 * a circle a tile's cull keeps is always in the tile's bin, whatever the
 * bin shape, and every shape draws the same image.
 * The reference also limits each circle to its pixel box: pack_kernel proves
 * per circle that no pixel outside the box passes d2 <= r*r (true except for
 * huge coordinates); circles it cannot prove get a per-pixel box check. */
#include "render_cuda.h"
#include "sizes.h"
#include "cuda/cull.cuh"
#include "cuda/kernels.cuh"
#include "shade.h"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

using namespace gpr_rc;

namespace {

size_t align_up(size_t x) { return (x + P::kAlign - 1) / P::kAlign * P::kAlign; }

/* A CUDA error as a status, with its name and `what` recorded on the
 * context; the runtime's sticky last error is cleared so the context stays
 * usable after a non-fatal error. */
gp_status cuda_status(gp_context *ctx, cudaError_t e, const char *what)
{
    gp_status s;
    if (e == cudaSuccess) return GP_SUCCESS;
    switch (e) {
    case cudaErrorMemoryAllocation: s = GP_ERROR_OUT_OF_MEMORY; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: s = GP_ERROR_NO_DEVICE; break;
    default: s = GP_ERROR_CUDA; break;
    }
    (void)cudaGetLastError();
    return gp_context_set_error(ctx, s, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

unsigned bits_for(uint32_t v) /* bits to hold 0..v, at least 1 */
{
    unsigned b = 1;
    while (b < 32 && (v >> b) != 0) ++b;
    return b;
}

} // namespace

/* ---- the binning grid -------------------------------------------------------- */

/* Bins of 2^shift.x x 2^shift.y tiles: binning works on bins, shading on
 * tiles, each tile reading its bin's list (its circles and its neighbours',
 * in draw order) and culling what misses it. Big bins mean fewer pairs to
 * count, emit and sort, but longer lists for every tile to cull. */
struct BinGrid {
    int2 shift;
    int2 lg; /* log2 of the bin's sides in pixels */
    int bins_x;
    uint32_t num_bins;
};

static_assert(P::kTile == 16, "BinGrid::lg assumes 16-pixel tiles");

static BinGrid bin_grid(int tiles_x, int tiles_y, int2 shift)
{
    BinGrid g;
    g.shift = shift;
    g.lg = make_int2(shift.x + 4, shift.y + 4);
    g.bins_x = (tiles_x + (1 << shift.x) - 1) >> shift.x;
    g.num_bins = (uint32_t)g.bins_x * (uint32_t)((tiles_y + (1 << shift.y) - 1) >> shift.y);
    return g;
}

/* ---- the renderer object ----------------------------------------------------- */

struct gpr_cuda_renderer {
    gp_context *ctx;
    int width, height, tiles_x, tiles_y;
    int band_ty0, band_ty1; /* tile rows drawn: all, or a distributed rank's band */
    int band_py0, band_py1; /* ... as pixel rows */
    uint32_t band_tiles;
    float invW, invH;
    float4 *image; /* the band's rows */
    /* the scene, packed by set_scene */
    size_t n, cap;
    int snow;
    float4 *geom, *colour;
    uint2 *box;
    uint64_t *incl; /* per circle: pairs up to and including it */
    uint64_t *dev_misc;  /* 2 words: batch search result */
    uint64_t *host_misc; /* pinned, 2 words: totals read back */
    BinGrid grid;        /* the scene's, chosen by set_scene */
    /* Device scratch the renderer owns (the caller's context workspace is
     * the primitives'): the scene's staging, then each frame's pairs. It
     * grows, never shrinks, so steady frames allocate nothing. */
    char *scratch;
    size_t scratch_bytes;
};

static cudaStream_t stream_of(const gpr_cuda_renderer *r)
{
    void *st = NULL;
    gp_context_get_stream(r->ctx, &st);
    return (cudaStream_t)st;
}

/* Make the context's device current for this library's CUDA runtime (it
 * carries its own static copy, whose current device is its own). */
static gp_status enter_device(gp_context *ctx)
{
    int device = 0;
    gp_status s = gp_context_get_device(ctx, &device);
    if (s) return s;
    return cuda_status(ctx, cudaSetDevice(device), "cudaSetDevice");
}

/* At least `bytes` of the renderer's scratch (contents not kept). A failed
 * growth returns GP_ERROR_OUT_OF_MEMORY (gp_malloc's detail on the
 * context): the frame may retry with less. From gp_malloc, so that the
 * context knows it for device memory and the scan and sort handed it check
 * it without asking the driver. */
static gp_status scratch(gpr_cuda_renderer *r, size_t bytes, char **ptr)
{
    if (bytes > r->scratch_bytes) {
        void *p = NULL;
        if (r->scratch) (void)gp_free(r->ctx, r->scratch); /* waits for the work still using it */
        r->scratch = NULL;
        r->scratch_bytes = 0;
        if (gp_malloc(r->ctx, &p, bytes) != GP_SUCCESS) return GP_ERROR_OUT_OF_MEMORY;
        r->scratch = (char *)p;
        r->scratch_bytes = bytes;
    }
    *ptr = r->scratch;
    return GP_SUCCESS;
}


static void free_scene(gpr_cuda_renderer *r)
{
    cudaFree(r->geom);
    cudaFree(r->colour);
    cudaFree(r->box);
    /* gp_free clears the context's detail: only where there is something
     * to free, so that a failed allocation's detail survives */
    if (r->incl) (void)gp_free(r->ctx, r->incl);
    r->geom = r->colour = NULL;
    r->box = NULL;
    r->incl = NULL;
    r->n = r->cap = 0;
}

extern "C" void gpr_cuda_renderer_destroy(gpr_cuda_renderer *r)
{
    if (!r) return;
    (void)enter_device(r->ctx);
    free_scene(r);
    if (r->scratch) (void)gp_free(r->ctx, r->scratch);
    cudaFree(r->image);
    cudaFree(r->dev_misc);
    if (r->host_misc) cudaFreeHost(r->host_misc);
    (void)cudaGetLastError();
    free(r);
}

extern "C" gp_status gpr_cuda_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                               gpr_cuda_renderer **out)
{
    gpr_cuda_renderer *r;
    size_t bytes;
    gp_status s;
    if (!ctx || !out) return GP_ERROR_INVALID_ARGUMENT;
    if (width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return gp_context_set_error(ctx, GP_ERROR_INVALID_ARGUMENT, "image size %dx%d outside 1..%d", width, height,
                         GP_RENDER_MAX_SIDE);
    if ((s = enter_device(ctx))) return s;
    r = (gpr_cuda_renderer *)calloc(1, sizeof(*r));
    if (!r) return gp_context_set_error(ctx, GP_ERROR_OUT_OF_MEMORY, "renderer allocation");
    r->ctx = ctx;
    r->width = width;
    r->height = height;
    r->tiles_x = (width + P::kTile - 1) / P::kTile;
    r->tiles_y = (height + P::kTile - 1) / P::kTile;
    r->band_ty0 = band_ty0;
    r->band_ty1 = band_ty1;
    r->band_py0 = band_ty0 * P::kTile;
    r->band_py1 = min(band_ty1 * P::kTile, height);
    r->band_tiles = (uint32_t)(band_ty1 - band_ty0) * (uint32_t)r->tiles_x;
    r->grid = bin_grid(r->tiles_x, r->tiles_y, make_int2(0, 0));
    r->invW = 1.f / (float)width; /* as the CPU reference computes them */
    r->invH = 1.f / (float)height;
    bytes = (size_t)width * (size_t)(r->band_py1 - r->band_py0) * sizeof(float4);
    s = bytes ? cuda_status(ctx, cudaMalloc((void **)&r->image, bytes), "renderer image cudaMalloc") : GP_SUCCESS;
    if (!s) s = cuda_status(ctx, cudaMalloc((void **)&r->dev_misc, 2 * sizeof(uint64_t)), "renderer cudaMalloc");
    if (!s) s = cuda_status(ctx, cudaMallocHost((void **)&r->host_misc, 2 * sizeof(uint64_t)), "renderer cudaMallocHost");
    if (!s && bytes) s = cuda_status(ctx, cudaMemsetAsync(r->image, 0, bytes, stream_of(r)), "renderer image clear");
    if (s) {
        gpr_cuda_renderer_destroy(r);
        return s;
    }
    *out = r;
    return GP_SUCCESS;
}

/* The frame's sort-key form: K-bit keys (bin << cbits) | (circle - c0),
 * sorted on bits [cbits, end_bit). */
struct KeyForm {
    bool k32;
    int cbits, end_bit;
    uint32_t cmask;
};

static KeyForm key_form(const BinGrid &bg, uint32_t n)
{
    KeyForm f;
    const unsigned tbits = bits_for(bg.num_bins - 1), cb = bits_for(n - 1); /* n >= 1 */
    f.k32 = P::kKeys32 && tbits + cb <= 32;
    f.cbits = f.k32 ? (int)cb : 32;
    f.end_bit = f.cbits + (int)tbits;
    f.cmask = f.cbits >= 32 ? 0xffffffffu : (1u << f.cbits) - 1u;
    return f;
}

/* The bin shape of least estimated cost for this scene (P: frame pairs,
 * E = P * tiles a bin: list entries the tiles cull):
 *   P * kBinPairCost + E * kBinEntryCost + sort passes * kBinPassCost.
 * P is estimated from the pixel boxes (clamped to the band) of up to
 * kBinSamples circles spread over the scene: a few microseconds of host
 * work; a poor estimate costs speed, never exactness (every shape draws the
 * same image). GP_CUDA_BINS=1x1|2x1|2x2|4x2|4x4 (tiles a bin) forces
 * a shape: a testing knob, the tests hold each against the reference. */
static BinGrid choose_bins(const gpr_cuda_renderer *r, const gp_scene *scene)
{
    static const int2 shapes[] = {{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}};
    static const char *const names[] = {"1x1", "2x1", "2x2", "4x2", "4x4"};
    const int ns = (int)(sizeof shapes / sizeof shapes[0]);
    const char *force = getenv("GP_CUDA_BINS");
    const size_t n = scene->n;
    BinGrid grids[sizeof shapes / sizeof shapes[0]];
    double boxes[sizeof shapes / sizeof shapes[0]] = {0};
    size_t samples, stride, k;
    int best = 0;
    double best_cost = 0;
    for (int s = 0; s < ns; ++s) grids[s] = bin_grid(r->tiles_x, r->tiles_y, shapes[s]);
    for (int s = 0; force && s < ns; ++s)
        if (!strcmp(force, names[s])) return grids[s];
    if (n == 0 || !scene->position || !scene->radius) return grids[0];
    samples = n < P::kBinSamples ? n : P::kBinSamples;
    stride = n / samples;
    for (k = 0; k < samples; ++k) {
        const size_t i = k * stride;
        int x0, x1, y0, y1;
        gpr_circle_box(scene->position[3 * i], scene->position[3 * i + 1], scene->radius[i], r->width, r->height,
                       &x0, &x1, &y0, &y1);
        y0 = y0 > r->band_py0 ? y0 : r->band_py0;
        y1 = y1 < r->band_py1 ? y1 : r->band_py1;
        if (x0 >= x1 || y0 >= y1) continue;
        for (int s = 0; s < ns; ++s) {
            const TileRange t = tile_range(Box{x0, x1, y0, y1}, grids[s].lg);
            boxes[s] += (double)(t.tx1 - t.tx0 + 1) * (double)(t.ty1 - t.ty0 + 1);
        }
    }
    for (int s = 0; s < ns; ++s) {
        const double pairs = boxes[s] * ((double)n / (double)samples);
        const KeyForm f = key_form(grids[s], (uint32_t)n);
        const int passes = (f.end_bit - f.cbits + 7) / 8;
        const double cost = pairs * P::kBinPairCost +
                            pairs * (double)(1 << (shapes[s].x + shapes[s].y)) * P::kBinEntryCost +
                            passes * P::kBinPassCost;
        if (s == 0 || cost < best_cost) {
            best = s;
            best_cost = cost;
        }
    }
    return grids[best];
}

extern "C" gp_status gpr_cuda_renderer_set_scene(gpr_cuda_renderer *r, const gp_scene *scene)
{
    gp_context *ctx;
    cudaStream_t st;
    size_t n, off_pos, off_rad, off_col, bytes;
    char *ws = NULL;
    gp_status s;
    if (!r || !scene) return GP_ERROR_INVALID_ARGUMENT;
    ctx = r->ctx;
    if ((s = enter_device(ctx))) return s;
    st = stream_of(r);
    n = scene->n;
    if (n > GP_SCENE_MAX_CIRCLES)
        return gp_context_set_error(ctx, GP_ERROR_SIZE_OVERFLOW, "scene of %zu circles (at most %zu)", n,
                         (size_t)GP_SCENE_MAX_CIRCLES);
    if (n > 0 && (!scene->position || !scene->radius))
        return gp_context_set_error(ctx, GP_ERROR_INVALID_ARGUMENT, "scene without positions or radii");
    if (n > r->cap) {
        /* Grow (never shrink): a failed growth leaves an empty scene. */
        free_scene(r);
        s = cuda_status(ctx, cudaMalloc((void **)&r->geom, n * sizeof(float4)), "scene cudaMalloc");
        if (!s) s = cuda_status(ctx, cudaMalloc((void **)&r->colour, n * sizeof(float4)), "scene cudaMalloc");
        if (!s) s = cuda_status(ctx, cudaMalloc((void **)&r->box, n * sizeof(uint2)), "scene cudaMalloc");
        if (!s) { /* from gp_malloc: the scan over it checks it without asking the driver */
            void *p = NULL;
            s = gp_malloc(ctx, &p, n * sizeof(uint64_t));
            r->incl = (uint64_t *)p;
        }
        if (s) {
            free_scene(r);
            return s;
        }
        r->cap = n;
    }
    r->n = 0;
    r->snow = scene->snow != 0;
    r->grid = choose_bins(r, scene);
    if (n == 0) return GP_SUCCESS;

    /* Stage the course's n*3 / n arrays in the workspace, then pack. */
    off_pos = 0;
    off_rad = align_up(off_pos + 3 * n * sizeof(float));
    off_col = align_up(off_rad + n * sizeof(float));
    bytes = off_col + (scene->color ? 3 * n * sizeof(float) : 0);
    s = scratch(r, bytes, &ws);
    if (s) return gp_context_set_error(ctx, s, "scene staging of %zu bytes", bytes);
    s = cuda_status(ctx, cudaMemcpyAsync(ws + off_pos, scene->position, 3 * n * sizeof(float),
                                             cudaMemcpyHostToDevice, st), "scene upload");
    if (!s) s = cuda_status(ctx, cudaMemcpyAsync(ws + off_rad, scene->radius, n * sizeof(float),
                                                     cudaMemcpyHostToDevice, st), "scene upload");
    if (!s && scene->color)
        s = cuda_status(ctx, cudaMemcpyAsync(ws + off_col, scene->color, 3 * n * sizeof(float),
                                                 cudaMemcpyHostToDevice, st), "scene upload");
    if (s) return s;
    s = cuda_status(ctx,
                        launch_pack((const float *)(ws + off_pos), (const float *)(ws + off_rad),
                                    scene->color ? (const float *)(ws + off_col) : NULL, (uint32_t)n, r->width,
                                    r->height, r->band_py0, r->band_py1, r->invW, r->invH, r->geom, r->colour, r->box,
                                    st),
                        "scene pack kernel");
    if (s) return s;
    r->n = n;
    return GP_SUCCESS;
}

/* Shade tiles: binned (list of K keys, ranges) or every circle of [c0, c1).
 * reuse: see P::kReusePairs. */
template <typename K>
static gp_status launch_tiles(gpr_cuda_renderer *r, bool binned, bool reuse, const K *list, const uint2 *ranges,
                              uint32_t c0, uint32_t c1, uint32_t cmask, bool first)
{
    TileArgs a;
    a.bin_shift = r->grid.shift;
    a.bins_x = r->grid.bins_x;
    a.geom = r->geom;
    a.colour = r->colour;
    a.box = r->box;
    a.list = list;
    a.ranges = ranges;
    a.c0 = c0;
    a.c1 = c1;
    a.cmask = cmask;
    a.image = (float4 *)r->image;
    a.width = r->width;
    a.height = r->height;
    a.tiles_x = r->tiles_x;
    a.tile0 = (uint32_t)r->band_ty0 * (uint32_t)r->tiles_x;
    a.row0 = r->band_py0;
    a.invW = r->invW;
    a.invH = r->invH;
    a.first = first ? 1 : 0;
    return cuda_status(r->ctx, gpr_rc::launch_tiles<K>(a, r->snow != 0, binned, reuse, r->band_tiles, stream_of(r)),
                           "render tile kernel");
}

/* Unbinned: every circle of [c0, c1). */
static gp_status launch_tiles_all(gpr_cuda_renderer *r, uint32_t c0, uint32_t c1, bool first)
{
    return launch_tiles<uint32_t>(r, false, false, NULL, NULL, c0, c1, 0u, first);
}

template <typename K>
static gp_dtype key_dtype()
{
    return sizeof(K) == 4 ? GP_UINT32 : GP_UINT64;
}

/* Scratch for a batch of up to `pairs` pairs: two key buffers for the sort,
 * the tile ranges, the sort's own temporary storage. */
struct PairScratch {
    void *keys0, *keys1;
    uint2 *ranges;
    void *sort_tmp;
    size_t sort_bytes;
};

template <typename K>
static gp_status pair_scratch(gpr_cuda_renderer *r, uint64_t pairs, const KeyForm &f, PairScratch *ps)
{
    size_t key_bytes, off_k1, off_rg, off_tmp, total, sort_bytes = 0;
    char *ws = NULL;
    gp_status s = gp_sort_scratch_bytes(r->ctx, key_dtype<K>(), pairs, f.cbits, f.end_bit, &sort_bytes);
    if (s) return s;
    if (pairs > SIZE_MAX / 4 / sizeof(K)) return GP_ERROR_OUT_OF_MEMORY;
    key_bytes = align_up((size_t)pairs * sizeof(K));
    off_k1 = key_bytes;
    off_rg = off_k1 + key_bytes;
    off_tmp = off_rg + align_up((size_t)r->grid.num_bins * sizeof(uint2));
    total = off_tmp + sort_bytes;
    s = scratch(r, total, &ws);
    if (s) return s;
    ps->keys0 = ws;
    ps->keys1 = ws + off_k1;
    ps->ranges = (uint2 *)(ws + off_rg);
    ps->sort_tmp = ws + off_tmp;
    ps->sort_bytes = sort_bytes;
    return GP_SUCCESS;
}

/* Bin and shade circles [c0, c1), whose pairs are [base, base + np). */
template <typename K>
static gp_status render_batch(gpr_cuda_renderer *r, const PairScratch *ps, uint32_t c0, uint32_t c1, uint64_t base,
                              uint64_t np, const KeyForm &f, bool first)
{
    const BinGrid &bg = r->grid;
    gp_context *ctx = r->ctx;
    cudaStream_t st = stream_of(r);
    gp_status s;
    const K *sorted;

    s = cuda_status(ctx,
                        launch_emit<K>(r->geom, r->box, r->incl, c0, c1, base, bg.bins_x, bg.lg, f.cbits, r->invW,
                                       r->invH, (K *)ps->keys0, ps->ranges, bg.num_bins, st),
                        "render emit kernel");
    if (s) return s;
    {
        int in_alt = 0;
        s = gp_sort_keys_double_buffer(ctx, key_dtype<K>(), GP_SORT_ASCENDING, ps->keys0, ps->keys1, np, f.cbits,
                                       f.end_bit, ps->sort_tmp, ps->sort_bytes, &in_alt);
        if (s) return s;
        sorted = (const K *)(in_alt ? ps->keys1 : ps->keys0);
    }
    s = cuda_status(ctx, launch_ranges<K>(sorted, (uint32_t)np, f.cbits, ps->ranges, st), "render ranges kernel");
    if (s) return s;
    /* kReusePairs counts tile pairs: a bin of 2^(shift.x + shift.y) tiles
     * stands for up to that many of them. */
    const bool reuse = c1 > c0 && (np << (bg.shift.x + bg.shift.y)) / (c1 - c0) >= P::kReusePairs;
    return launch_tiles<K>(r, true, reuse, sorted, ps->ranges, c0, 0, f.cmask, first);
}

/* 3-6 for the frame whose scan is done and whose pair total is `total`. */
template <typename K>
static gp_status render_binned(gpr_cuda_renderer *r, uint32_t n, uint64_t total, const KeyForm &f)
{
    gp_context *ctx = r->ctx;
    cudaStream_t st = stream_of(r);
    uint64_t desired, floor_pairs, base;
    bool first;
    PairScratch ps = {NULL, NULL, NULL, NULL, 0};
    gp_status s;
    cudaError_t e;

    /* Scratch for as many pairs as fit, halving on allocation failure; no
     * circle has more pairs than there are bins. */
    desired = total < P::kPairCap ? total : P::kPairCap;
    floor_pairs = desired < r->grid.num_bins ? desired : r->grid.num_bins;
    for (;;) {
        s = pair_scratch<K>(r, desired, f, &ps);
        if (s == GP_SUCCESS) break;
        if (s != GP_ERROR_OUT_OF_MEMORY) return s;
        if (desired <= floor_pairs)
            return gp_context_set_error(ctx, s, "render: no device memory for %llu pairs of scratch",
                                        (unsigned long long)desired);
        desired = desired / 2 > floor_pairs ? desired / 2 : floor_pairs;
    }

    /* 3-6, per batch of circles whose pairs fit. */
    first = true;
    base = 0;
    for (uint32_t c0 = 0; c0 < n;) {
        uint32_t c1;
        uint64_t end_pairs;
        if (total - base <= desired) {
            c1 = n;
            end_pairs = total;
        } else {
            s = cuda_status(ctx, launch_batch_end(r->incl, c0, n, base + desired, r->dev_misc, st),
                                "render batch search kernel");
            if (s) return s;
            e = cudaMemcpyAsync(r->host_misc, r->dev_misc, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost, st);
            if (e == cudaSuccess) e = cudaStreamSynchronize(st);
            if (e != cudaSuccess) return cuda_status(ctx, e, "render batch search read");
            c1 = (uint32_t)r->host_misc[0];
            end_pairs = r->host_misc[1];
            if (c1 <= c0)
                return gp_context_set_error(ctx, GP_ERROR_OUT_OF_MEMORY,
                                 "render: circle %u touches more tiles than the scratch memory holds", c0);
        }
        if (end_pairs > base) {
            s = render_batch<K>(r, &ps, c0, c1, base, end_pairs - base, f, first);
            if (s) return s;
            first = false;
        }
        c0 = c1;
        base = end_pairs;
    }
    if (first) return launch_tiles_all(r, 0, 0, true);
    return GP_SUCCESS;
}

extern "C" gp_status gpr_cuda_renderer_render(gpr_cuda_renderer *r)
{
    gp_context *ctx;
    cudaStream_t st;
    uint32_t n;
    uint64_t total;
    KeyForm f;
    gp_status s;
    cudaError_t e;

    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    ctx = r->ctx;
    if ((s = enter_device(ctx))) return s;
    st = stream_of(r);
    n = (uint32_t)r->n;

    /* Small scenes: no binning, no host sync. */
    if (n == 0 || (n <= P::kSmallN && (uint64_t)n * r->band_tiles <= P::kSmallTests))
        return launch_tiles_all(r, 0, n, true);

    /* 1-2: count and scan. */
    s = cuda_status(ctx, launch_count(r->geom, r->box, n, r->grid.lg, r->invW, r->invH, r->incl, st),
                        "render count kernel");
    if (s) return s;
    /* gpuprim's scan, in place. */
    s = gp_scan(ctx, GP_UINT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, r->incl, r->incl, n);
    if (s) return s;
    /* The total comes through pinned memory; the sync waits only for count,
     * scan and this 8-byte copy (nothing else is queued yet). */
    e = cudaMemcpyAsync(r->host_misc, r->incl + (n - 1), sizeof(uint64_t), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return cuda_status(ctx, e, "render pair count read");
    total = r->host_misc[0];
    if (total == 0) return launch_tiles_all(r, 0, 0, true); /* nothing on screen */

    f = key_form(r->grid, n); /* every batch's circles fit in n's bits */
    if (f.k32) return render_binned<uint32_t>(r, n, total, f);
    return render_binned<uint64_t>(r, n, total, f);
}

extern "C" gp_status gpr_cuda_renderer_rgb8(gpr_cuda_renderer *r, unsigned char *rgb_dev)
{
    const size_t n = (size_t)r->width * (size_t)(r->band_py1 - r->band_py0);
    gp_status s;
    if (n == 0) return GP_SUCCESS;
    if ((s = enter_device(r->ctx))) return s;
    return cuda_status(r->ctx, launch_rgb8(r->image, n, rgb_dev, stream_of(r)), "render rgb8 kernel");
}

extern "C" gp_status gpr_cuda_renderer_read(gpr_cuda_renderer *r, float *rgba_host)
{
    cudaStream_t st;
    cudaError_t e;
    gp_status s;
    if (!r || !rgba_host) return GP_ERROR_INVALID_ARGUMENT;
    if ((s = enter_device(r->ctx))) return s;
    st = stream_of(r);
    e = cudaMemcpyAsync(rgba_host, r->image, (size_t)r->width * (size_t)(r->band_py1 - r->band_py0) * sizeof(float4),
                        cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    return cuda_status(r->ctx, e, "render image read");
}
