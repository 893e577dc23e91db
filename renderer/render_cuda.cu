/* render_cuda.cu - the CUDA tile renderer (DESIGN.md section 4).
 *
 * Per frame:
 *   1. count:  per circle, the 16x16 tiles its pixel box touches, refined by
 *              a conservative circle-vs-rectangle test (pairs_of_circle).
 *   2. scan:   inclusive sum of the counts (64-bit) -> each circle's slice of
 *              the (tile, circle) pair array; the total comes to the host
 *              (the frame's one small synchronizing copy).
 *   3. emit:   the pairs, as keys (tile << cbits | circle - batch first):
 *              32-bit when the tile and circle bits fit, else 64-bit with
 *              cbits = 32; circle by circle, so the array is in draw order.
 *              Small scenes (kWarpCircleN) count and emit a circle per warp.
 *              Emit also clears the tile ranges.
 *   4. sort:   cub::DeviceRadixSort on the tile bits only. It is stable, so
 *              each tile's circles stay in draw order.
 *   5. ranges: [start, end) of each tile in the sorted keys.
 *   6. shade:  one block per tile (tile_kernel_bands). Chunks of its list
 *              are culled again per warp band of rows and compacted in order
 *              into a list per band in shared memory, with the rows' dy*dy
 *              precomputed; every thread blends its band's list over its
 *              column of pixels, kept in registers; each pixel is written
 *              once. Snow scenes use tile_kernel instead: one compacted
 *              list per chunk, which every warp walks, skipping the circles
 *              that miss its rows.
 * Small scenes skip 1-5: each tile's block culls every circle itself, with
 * tile_kernel (one launch, no host sync). Scenes whose pairs do not fit in
 * memory are drawn in consecutive circle batches, each blended over the image
 * of the previous.
 *
 * Exactness: the shading is shade.h's gpi_shade, in index order per pixel.
 * This file must be compiled with --fmad=false so that gpi_shade is not
 * FMA-contracted (the CPU reference is built with -ffp-contract=off). The
 * culling tests below use __fmul_rn/__fadd_rn/__fsub_rn, which are never
 * contracted, so they round exactly as gpi_shade does whatever the flags, and
 * the count and emit passes always agree.
 *
 * Why culling never drops a contribution: for a pixel rectangle, the test
 * takes the pixel-centre coordinate nearest the circle's centre on each axis
 * (the centre itself when inside), forms dx, dy, d2 with gpi_shade's own
 * operations, and keeps the circle unless d2 > r*r. Rounding is monotonic, so
 * that d2 is <= the d2 gpi_shade computes for any pixel of the rectangle.
 * The reference also limits each circle to its pixel box: pack_kernel proves
 * per circle that no pixel outside the box passes d2 <= r*r (true except for
 * huge coordinates); circles it cannot prove get a per-pixel box check. */
#include "internal.h"
#include "render_cuda.h"
#include "band.h"
#include "shade.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>

namespace {

/* ---- tuning: every knob of the renderer ---------------------------------- */
struct Policy {
    static constexpr int kTile = GPI_RENDER_TILE; /* tile side, pixels (bands are whole tile rows) */
    static constexpr int kRowsPerThread = 4; /* each thread shades a column of this many pixels */
    static constexpr int kTileThreads = kTile * kTile / kRowsPerThread; /* 64 */
    static constexpr int kChunk = kTileThreads;  /* circles culled per step: one per thread */
    /* Register cap for the shading kernel: 65536 / (threads * this) registers
     * per thread: 24 resident warps per SM give 85 registers (R = 8 needs
     * about 100 registers: use 16 warps, 128 registers). */
    static constexpr int kTileWarpsPerSM = 24;
    static constexpr int kMinTileBlocksPerSM = kTileWarpsPerSM * 32 / kTileThreads;
    /* Non-snow shading blends with one FMA per channel (and defers the cover
     * path's alpha adds to the span's end) whenever a per-span check proves
     * it exact (see fast_acc_ok); false: always gpi_shade's two operations. */
    static constexpr bool kFmaBlend = true;
    /* Unroll factor of the per-circle shading loop (1: none). */
    static constexpr int kShadeUnroll = 1;
    /* tile_kernel_bands: unroll factor of its per-entry loop,
     * and the share of cover circles (1 / kBandCoverShare of a band's chunk
     * list, or more) above which the band takes the cover-aware loop rather
     * than testing every pixel of every entry. */
    static constexpr int kBandUnroll = 2;
    static constexpr uint32_t kBandCoverShare = 5;
    static constexpr int kWarps = kTileThreads / 32;
    static constexpr int kWarpRows = 32 / kTile * kRowsPerThread; /* pixel rows one warp shades */
    /* Unbinned path when n <= kSmallN and n * tiles <= kSmallTests. */
    static constexpr size_t kSmallN = 2048;
    static constexpr uint64_t kSmallTests = (uint64_t)1 << 24;
    static constexpr int kBinThreads = 256; /* count/emit/pack/ranges blocks */
    /* Circles with at least this many pairs are emitted by their whole warp,
     * so the stores are coalesced. */
    static constexpr uint64_t kEmitCoopMin = 128;
    /* Sort keys are (tile << cbits) | (circle - batch first). When the tile
     * bits plus the circle bits (of the scene's n) fit in 32, the keys are
     * 32-bit and the radix sort looks only at bits [cbits, cbits + tbits):
     * half the bytes through emit, sort, ranges and the tile kernel's list
     * reads (rand100k, rand1M, biglittle at 1024^2; 8K images or huge scenes
     * keep 64-bit keys, cbits = 32). Predicted: rand1M ~-40 us (sort ~-25,
     * emit ~-8, ranges ~-5, list reads ~-2), rand100k ~-30 us, biglittle
     * ~-60 us (its ~7M pairs: the sort's three passes ~-45, emit ~-12). */
    static constexpr bool kKeys32 = true;
    /* Scenes of at most this many circles are counted and emitted with a
     * whole warp per circle (a lane per tile row): few circles, so one thread
     * per circle leaves the GPU nearly idle while each thread walks up to
     * 32+ rows of a big circle. Predicted: biglittle (10k circles of ~800
     * tiles) count ~-40 us, emit ~-25 us; rand10k a few us; 0 disables. */
    static constexpr uint32_t kWarpCircleN = 1u << 15;
    /* Most pairs binned at once (CUB's sort takes an int count). */
    static constexpr uint64_t kPairCap = (uint64_t)1 << 30;
    static constexpr size_t kAlign = 256;
};
typedef Policy P;

static_assert(32 % P::kTile == 0, "a warp must cover whole tile rows");
static_assert(P::kTile * P::kTile % P::kRowsPerThread == 0, "rows per thread must divide the tile");
static_assert(P::kTileThreads % 32 == 0 && P::kWarps >= 1 && P::kWarps <= 31, "whole warps, mask fits");
static_assert(P::kWarpRows * P::kWarps == P::kTile, "warps tile the tile's rows");
static_assert(P::kChunk == P::kTileThreads, "each thread stages one circle per chunk");
static_assert(P::kShadeUnroll >= 1 && P::kBandUnroll >= 1 && P::kBandCoverShare >= 1, "unroll factors, share");
static_assert(P::kBinThreads % 32 == 0, "emit needs whole warps");
static_assert((size_t)GP_RENDER_MAX_SIDE < 0x8000, "box coordinates are packed in 15 bits");

constexpr unsigned kFull = 0xffffffffu;
/* Per staged circle: bit w = reaches warp w's rows; bit kCoverShift + w =
 * covers every pixel of them (non-snow only); kUnsafe = needs the
 * per-pixel box check. */
constexpr int kCoverShift = 8;
constexpr uint32_t kUnsafe = 0x80000000u;
static_assert(P::kWarps <= kCoverShift, "hit and cover masks must not overlap");

/* ---- device helpers --------------------------------------------------------- */

/* A circle's clamped pixel box [x0, x1) x [y0, y1), packed as
 * (x0 | x1 << 16 | unsafe << 31, y0 | y1 << 16). */
struct Box {
    int x0, x1, y0, y1;
};

__device__ __forceinline__ Box unpack_box(uint2 b)
{
    Box r;
    r.x0 = (int)(b.x & 0xffffu);
    r.x1 = (int)((b.x >> 16) & 0x7fffu);
    r.y0 = (int)(b.y & 0xffffu);
    r.y1 = (int)((b.y >> 16) & 0x7fffu);
    return r;
}

/* Can a pixel centre of the non-empty rectangle [x0, x1) x [y0, y1) pass
 * gpi_shade's test d2 <= r*r? Never false when one does (see the top). */
__device__ __forceinline__ bool rect_hit(float px, float py, float rad, int x0, int x1, int y0, int y1,
                                         float invW, float invH)
{
    float lox = gpi_pixel_x(x0, invW), hix = gpi_pixel_x(x1 - 1, invW);
    float loy = gpi_pixel_y(y0, invH), hiy = gpi_pixel_y(y1 - 1, invH);
    float nx = px < lox ? lox : (px > hix ? hix : px);
    float ny = py < loy ? loy : (py > hiy ? hiy : py);
    float dx = __fsub_rn(px, nx), dy = __fsub_rn(py, ny);
    float d2 = __fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy));
    return !(d2 > __fmul_rn(rad, rad));
}

/* Does every pixel centre of the non-empty rectangle pass d2 <= r*r? The
 * farthest centre on each axis is an end (monotonic rounding), so this d2
 * is >= gpi_shade's for every pixel of the rectangle. */
__device__ __forceinline__ bool rect_covered(float px, float py, float rad, int x0, int x1, int y0, int y1,
                                             float invW, float invH)
{
    float ax = __fsub_rn(px, gpi_pixel_x(x0, invW)), bx = __fsub_rn(px, gpi_pixel_x(x1 - 1, invW));
    float ay = __fsub_rn(py, gpi_pixel_y(y0, invH)), by = __fsub_rn(py, gpi_pixel_y(y1 - 1, invH));
    float mx = fmaxf(__fmul_rn(ax, ax), __fmul_rn(bx, bx));
    float my = fmaxf(__fmul_rn(ay, ay), __fmul_rn(by, by));
    return __fadd_rn(mx, my) <= __fmul_rn(rad, rad);
}

/* Does the circle reach tile (tx, ty)? The tile must lie in the box's tile range. */
__device__ __forceinline__ bool tile_hit(float4 g, const Box &b, int tx, int ty, float invW, float invH)
{
    int x0 = max(tx * P::kTile, b.x0), x1 = min(tx * P::kTile + P::kTile, b.x1);
    int y0 = max(ty * P::kTile, b.y0), y1 = min(ty * P::kTile + P::kTile, b.y1);
    return rect_hit(g.x, g.y, g.w, x0, x1, y0, y1, invW, invH);
}

/* The circle's tiles in tile row ty: columns [*l, *l + width), width returned.
 * First and last hit from each end, so the set is a run by definition; count
 * and emit both call this, so they always agree. */
__device__ __forceinline__ int row_span(float4 g, const Box &b, int tx0, int tx1, int ty, float invW,
                                        float invH, int *l)
{
    int a = tx0, e = tx1;
    while (a <= tx1 && !tile_hit(g, b, a, ty, invW, invH)) ++a;
    *l = a;
    if (a > tx1) return 0;
    while (e > a && !tile_hit(g, b, e, ty, invW, invH)) --e;
    return e - a + 1;
}

struct TileRange {
    int tx0, tx1, ty0, ty1; /* inclusive; empty when tx0 > tx1 */
};

__device__ __forceinline__ TileRange tile_range(const Box &b)
{
    TileRange t;
    if (b.x0 >= b.x1 || b.y0 >= b.y1) {
        t.tx0 = t.ty0 = 1;
        t.tx1 = t.ty1 = 0;
    } else {
        t.tx0 = b.x0 / P::kTile;
        t.tx1 = (b.x1 - 1) / P::kTile;
        t.ty0 = b.y0 / P::kTile;
        t.ty1 = (b.y1 - 1) / P::kTile;
    }
    return t;
}

/* ---- set_scene: pack circles, precompute boxes ------------------------------ */

/* Is every pixel centre on the far side of the column/row next to the box
 * rejected by d2 <= r*r? d is the signed distance to that column/row's
 * centre; further columns only have larger |d| (monotonic rounding), and
 * d2 >= dx*dx since dy*dy >= 0. */
__device__ __forceinline__ bool edge_safe(float d, float rad, bool positive)
{
    bool side = positive ? d >= 0.f : d <= 0.f;
    return side && __fmul_rn(d, d) > __fmul_rn(rad, rad);
}

__global__ void __launch_bounds__(P::kBinThreads)
    pack_kernel(const float *pos, const float *rad, const float *col, uint32_t n, int width, int height,
                int band_y0, int band_y1, float invW, float invH, float4 *geom, float4 *colour, uint2 *box)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float px = pos[3 * (size_t)i], py = pos[3 * (size_t)i + 1], pz = pos[3 * (size_t)i + 2];
    float r = rad[i];
    int x0, x1, y0, y1;
    bool unsafe = false;
    gpi_circle_box(px, py, r, width, height, &x0, &x1, &y0, &y1);
    if (x0 < x1 && y0 < y1) {
        if (x0 > 0 && !edge_safe(__fsub_rn(px, gpi_pixel_x(x0 - 1, invW)), r, true)) unsafe = true;
        if (x1 < width && !edge_safe(__fsub_rn(px, gpi_pixel_x(x1, invW)), r, false)) unsafe = true;
        if (y0 > 0 && !edge_safe(__fsub_rn(py, gpi_pixel_y(y0 - 1, invH)), r, true)) unsafe = true;
        if (y1 < height && !edge_safe(__fsub_rn(py, gpi_pixel_y(y1, invH)), r, false)) unsafe = true;
    }
    /* Only the band's rows [band_y0, band_y1) are drawn: the box clamped to
     * them holds the same pixels of those rows, and the proof above still
     * covers every band pixel outside it. */
    y0 = max(y0, band_y0);
    y1 = min(y1, band_y1);
    if (x0 >= x1 || y0 >= y1) {
        x0 = x1 = y0 = y1 = 0; /* draws nothing */
        unsafe = false;
    }
    geom[i] = make_float4(px, py, pz, r);
    /* Colours are kept premultiplied by alpha: gpi_shade's alpha * r with
     * alpha = .5f, the very same rounded product, so the shading's
     * alpha*C + (1-alpha)*c becomes h + .5f*c with identical results. */
    if (col)
        colour[i] = make_float4(__fmul_rn(.5f, col[3 * (size_t)i]), __fmul_rn(.5f, col[3 * (size_t)i + 1]),
                                __fmul_rn(.5f, col[3 * (size_t)i + 2]), 0.f);
    else
        colour[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    box[i] = make_uint2((uint32_t)x0 | ((uint32_t)x1 << 16) | (unsafe ? kUnsafe : 0u),
                        (uint32_t)y0 | ((uint32_t)y1 << 16));
}

/* ---- binning ---------------------------------------------------------------- */

/* WARP: circle i is warp i's (n <= kWarpCircleN), a lane per tile row; the
 * same row_span values are summed, so the count is the thread path's. */
template <bool WARP>
__global__ void __launch_bounds__(P::kBinThreads)
    count_kernel(const float4 *geom, const uint2 *box, uint32_t n, float invW, float invH, uint64_t *counts)
{
    if (WARP) {
        const uint32_t i = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; /* uniform per warp */
        const int lane = threadIdx.x & 31;
        if (i >= n) return; /* whole warp */
        const Box b = unpack_box(box[i]);
        const TileRange t = tile_range(b);
        uint32_t c = 0; /* at most tiles_x per row */
        if (t.tx0 <= t.tx1) {
            const float4 g = geom[i];
            for (int ty = t.ty0 + lane; ty <= t.ty1; ty += 32) {
                int l;
                c += (uint32_t)row_span(g, b, t.tx0, t.tx1, ty, invW, invH, &l);
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) c += __shfl_xor_sync(kFull, c, off);
        if (lane == 0) counts[i] = c; /* <= num_tiles < 2^32 */
        return;
    }
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Box b = unpack_box(box[i]);
    TileRange t = tile_range(b);
    uint64_t c = 0;
    if (t.tx0 <= t.tx1) {
        float4 g = geom[i];
        for (int ty = t.ty0; ty <= t.ty1; ++ty) {
            int l;
            c += (uint64_t)row_span(g, b, t.tx0, t.tx1, ty, invW, invH, &l);
        }
    }
    counts[i] = c;
}

/* One circle's pairs into pairs[s, e), by the whole warp (all lanes call it
 * with the same arguments): a lane per tile row for the spans, then all
 * lanes store each row's run (coalesced). crel = circle - batch first. */
template <typename K>
__device__ __forceinline__ void emit_circle_warp(float4 sg, uint2 sbx, uint32_t crel, uint64_t s, uint64_t e,
                                                 int tiles_x, int cbits, float invW, float invH, K *pairs)
{
    const int lane = threadIdx.x & 31;
    const Box b = unpack_box(sbx);
    const TileRange t = tile_range(b);
    for (int row0 = t.ty0; row0 <= t.ty1; row0 += 32) {
        const int ty = row0 + lane;
        int l = 0, w = 0;
        if (ty <= t.ty1) w = row_span(sg, b, t.tx0, t.tx1, ty, invW, invH, &l);
        int incw = w;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            int v = __shfl_up_sync(kFull, incw, off);
            if (lane >= off) incw += v;
        }
        const int excl = incw - w;
        const int total = __shfl_sync(kFull, incw, 31);
        const int nrows = min(32, t.ty1 - row0 + 1);
        for (int k = 0; k < nrows; ++k) {
            const int lk = __shfl_sync(kFull, l, k), wk = __shfl_sync(kFull, w, k);
            const int ok = __shfl_sync(kFull, excl, k);
            const uint32_t tile0 = (uint32_t)((row0 + k) * tiles_x + lk);
            for (int j = lane; j < wk; j += 32) {
                uint64_t p = s + (uint64_t)(ok + j);
                if (p < e) pairs[p] = ((K)(tile0 + (uint32_t)j) << cbits) | (K)crel;
            }
        }
        s += (uint64_t)total;
    }
}

/* Pairs of circles [c0, c1) into pairs[incl[i-1] - base, incl[i] - base), as
 * keys (tile << cbits) | (i - c0). No thread leaves early: the cooperative
 * part needs whole warps. WARP: circle c0 + w is warp w's (whole warps leave
 * together). Also clears ranges (the ranges kernel's memset, fused: saves a
 * launch, ~2-3 us per batch): the sort runs between, stream-ordered. */
template <typename K, bool WARP>
__global__ void __launch_bounds__(P::kBinThreads)
    emit_kernel(const float4 *geom, const uint2 *box, const uint64_t *incl, uint32_t c0, uint32_t c1,
                uint64_t base, int tiles_x, int cbits, float invW, float invH, K *pairs, uint2 *ranges,
                uint32_t num_tiles)
{
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < num_tiles; k += gridDim.x * blockDim.x)
        ranges[k] = make_uint2(0u, 0u);
    if (WARP) {
        const uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32u; /* uniform per warp */
        if (w >= c1 - c0) return;                                         /* whole warp */
        const uint32_t i = c0 + w;
        const uint64_t end = incl[i] - base;
        const uint64_t start = (i == 0 ? 0 : incl[i - 1]) - base;
        if (end > start) emit_circle_warp<K>(geom[i], box[i], w, start, end, tiles_x, cbits, invW, invH, pairs);
        return;
    }
    const uint32_t i = c0 + blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t start = 0, end = 0;
    float4 g = make_float4(0.f, 0.f, 0.f, 0.f);
    uint2 bx = make_uint2(0u, 0u);
    if (i < c1) {
        end = incl[i] - base;
        start = (i == 0 ? 0 : incl[i - 1]) - base;
        if (end > start) {
            g = geom[i];
            bx = box[i];
        }
    }
    const bool coop = end - start >= P::kEmitCoopMin;

    if (end > start && !coop) {
        Box b = unpack_box(bx);
        TileRange t = tile_range(b);
        uint64_t p = start;
        const K step = (K)1 << cbits;
        for (int ty = t.ty0; ty <= t.ty1; ++ty) {
            int l, w = row_span(g, b, t.tx0, t.tx1, ty, invW, invH, &l);
            K key = ((K)(uint32_t)(ty * tiles_x + l) << cbits) | (K)(i - c0);
            for (int k = 0; k < w; ++k, ++p, key += step)
                if (p < end) pairs[p] = key; /* guard: never write outside the slice */
        }
    }

    /* Big circles: the warp takes them one at a time. */
    unsigned todo = __ballot_sync(kFull, coop);
    while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        const float4 sg = make_float4(__shfl_sync(kFull, g.x, src), __shfl_sync(kFull, g.y, src), 0.f,
                                      __shfl_sync(kFull, g.w, src));
        const uint2 sbx = make_uint2(__shfl_sync(kFull, bx.x, src), __shfl_sync(kFull, bx.y, src));
        const uint32_t ci = __shfl_sync(kFull, i, src);
        const uint64_t s = __shfl_sync(kFull, start, src);
        const uint64_t e = __shfl_sync(kFull, end, src);
        emit_circle_warp<K>(sg, sbx, ci - c0, s, e, tiles_x, cbits, invW, invH, pairs);
    }
}

/* First circle index j in [c0, n) whose pairs end past limit (n if none):
 * circles [c0, j) fit in one batch. out = {j, pairs ending before j}. */
__global__ void batch_end_kernel(const uint64_t *incl, uint32_t c0, uint32_t n, uint64_t limit, uint64_t *out)
{
    uint32_t lo = c0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (incl[mid] > limit) hi = mid;
        else lo = mid + 1;
    }
    out[0] = lo;
    out[1] = lo > 0 ? incl[lo - 1] : 0;
}

/* ranges[tile] = [first, last + 1) of the tile in the sorted keys; tiles
 * with no pair keep the {0, 0} emit_kernel left. */
template <typename K>
__global__ void __launch_bounds__(P::kBinThreads)
    ranges_kernel(const K *keys, uint32_t np, int cbits, uint2 *ranges)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    uint32_t t = (uint32_t)(keys[p] >> cbits);
    if (p == 0 || (uint32_t)(keys[p - 1] >> cbits) != t) ranges[t].x = p;
    if (p == np - 1 || (uint32_t)(keys[p + 1] >> cbits) != t) ranges[t].y = p + 1;
}

/* ---- shading ------------------------------------------------------------------ */

struct TileArgs {
    const float4 *geom;   /* x, y, z, radius */
    const float4 *colour; /* .5 * (r, g, b), - */
    const uint2 *box;     /* packed pixel boxes */
    const void *list;     /* binned: sorted K keys (tile << cbits | circle - c0) */
    const uint2 *ranges;  /* binned: each tile's [start, end) in list */
    uint32_t c0, c1;      /* unbinned: circles [c0, c1); binned: c0 = the batch's first */
    uint32_t cmask;       /* binned: (1 << cbits) - 1, the circle bits of a key */
    float4 *image;        /* the band's rows: pixel row j is image row j - row0 */
    int width, height, tiles_x;
    uint32_t tile0;       /* block b shades tile tile0 + b */
    int row0;
    float invW, invH;
    int first; /* start from the background (else from the image: a later batch) */
};

/* ---- ordinary (non-snow) blending ---------------------------------------------
 * gpi_shade with alpha = .5f does, per channel, c = fl(fl(.5f*C) + fl(.5f*c))
 * (1 - .5f is .5f exactly) and a = fl(a + .5f). pack_kernel stores
 * h = fl(.5f*C), so the exact blend fl(h + fl(.5f*c)) is the reference's own
 * operations (float addition is commutative).
 *
 * Fast blend, one FMA: fmaf(.5f, c, h) = RN(h + .5*c) (a single rounding of
 * the exact value). It equals fl(h + fl(.5f*c)) whenever .5*c is itself a
 * float, which holds for every c >= 2^-125 (c's ulp is then >= 2^-148, so
 * .5*c is a multiple of 2^-149 and at least 2^-126: a normal float) and for
 * c = +inf. fast_acc_ok (each thread, warp-wide) and the circles' h >= 0
 * (block-wide, on the chunk's barrier) prove it for a span of up to
 * kFastSpan = 64 blends: at its start every c >= 2^-60; each blend then gives
 * c' = RN(h + .5c) >= RN(.5c) = .5c (monotonic rounding), so the span's m-th
 * blend (m <= 64) reads c >= 2^-60 * 2^-(m-1) >= 2^-123. Since also
 * c' >= RN(h) = h, a pixel only gets near 2^-60 under 60-odd circles whose
 * channel is 0 (or below 2^-59); such spans, and negative or NaN colours,
 * take the exact path. Checked on the host by brute force over 10^9
 * (c, h) pairs and 2M random 64-blend spans, bit for bit.
 *
 * Deferred alpha (fast spans only): a is 1 (background) plus .5 per blend,
 * so at a fast span's start fast_acc_ok also checks that each a is a
 * multiple of .5 with |a| <= 2^22. The span adds at most 64 halves: every
 * partial sum, in any order, is a multiple of .5 below 2^23, so representable
 * and every addition exact. So the cover path's adds may be summed in a
 * per-thread acov (the same for all R rows: a cover circle hits every pixel of
 * the warp) and added once at the span's end, with the reference's result. */
constexpr float kFastMinC = 8.67361737988403547e-19f; /* 2^-60 */
constexpr float kFastMaxA = 4194304.f;                 /* 2^22 */
constexpr uint32_t kFastSpan = 64;                     /* blends per check */

template <int R>
__device__ __forceinline__ bool fast_acc_ok(const gpi_rgba (&acc)[R])
{
    bool ok = true;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const float a2 = __fadd_rn(acc[r].a, acc[r].a); /* exact: |a| <= 2^22 when it matters */
        ok = ok & (acc[r].r >= kFastMinC) & (acc[r].g >= kFastMinC) & (acc[r].b >= kFastMinC) &
             (fabsf(acc[r].a) <= kFastMaxA) & (truncf(a2) == a2);
    }
    return ok;
}

/* c = alpha*C + (1-alpha)*c on r, g, b, as argued above. */
template <bool FAST>
__device__ __forceinline__ void blend_rgb(gpi_rgba &c, const float4 &h)
{
    if (FAST) {
        c.r = __fmaf_rn(.5f, c.r, h.x);
        c.g = __fmaf_rn(.5f, c.g, h.y);
        c.b = __fmaf_rn(.5f, c.b, h.z);
    } else {
        c.r = __fadd_rn(h.x, __fmul_rn(.5f, c.r));
        c.g = __fadd_rn(h.y, __fmul_rn(.5f, c.g));
        c.b = __fadd_rn(h.z, __fmul_rn(.5f, c.b));
    }
}

/* Shade one staged chunk of ordinary circles over a thread's R pixels, in
 * list order. sg[k] = (x, y, r*r, flags as bits), sh[k] = .5 * colour. The
 * flag tests are uniform across the warp. */
template <bool FAST, int R>
__device__ __forceinline__ void shade_plain_chunk(gpi_rgba (&acc)[R], const float4 *sg, const float4 *sh,
                                                  const uint2 *sb, uint32_t total, uint32_t mybit,
                                                  uint32_t mycover, float cx, const float (&cy)[R], int i, int j0)
{
    float acov = 0.f; /* FAST: the cover path's deferred alpha */
#pragma unroll(P::kShadeUnroll)
    for (uint32_t k = 0; k < total; ++k) {
        const float4 q = sg[k];
        const uint32_t f = __float_as_uint(q.w);
        if (!(f & mybit)) continue;
        const float4 h = sh[k];
        if (f & mycover) {
            /* Every pixel passes the test (rect_covered), and ordinary
             * shading does not depend on the distance. */
            if (FAST) acov = __fadd_rn(acov, .5f);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                blend_rgb<FAST>(acc[r], h);
                if (!FAST) acc[r].a = __fadd_rn(acc[r].a, .5f);
            }
        } else {
            /* gpi_shade's test: dx = px - cx, d2 = dx*dx + dy*dy, skip when
             * d2 > r*r (so a NaN d2 shades, as there). */
            const float dx = __fsub_rn(q.x, cx);
            const float dx2 = __fmul_rn(dx, dx);
            if (!(f & kUnsafe)) {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float dy = __fsub_rn(q.y, cy[r]);
                    if (!(__fadd_rn(dx2, __fmul_rn(dy, dy)) > q.z)) {
                        blend_rgb<FAST>(acc[r], h);
                        acc[r].a = __fadd_rn(acc[r].a, .5f);
                    }
                }
            } else {
                /* Rare (huge coordinates): the reference's box limit, per pixel. */
                const Box b = unpack_box(sb[k]);
                const bool inx = i >= b.x0 && i < b.x1;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    const float dy = __fsub_rn(q.y, cy[r]);
                    if (inx && j0 + r >= b.y0 && j0 + r < b.y1 && !(__fadd_rn(dx2, __fmul_rn(dy, dy)) > q.z)) {
                        blend_rgb<FAST>(acc[r], h);
                        acc[r].a = __fadd_rn(acc[r].a, .5f);
                    }
                }
            }
        }
    }
    if (FAST) {
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r].a = __fadd_rn(acc[r].a, acov);
    }
}

/* ---- pieces both tile kernels share ----------------------------------------- */

/* The tile's slice of the circle list: binned, its range of sorted keys;
 * unbinned, every circle of the batch. */
template <bool BINNED>
__device__ __forceinline__ void tile_slice(const TileArgs &a, uint32_t tile, uint32_t *begin, uint32_t *count)
{
    if (BINNED) {
        const uint2 rg = a.ranges[tile];
        *begin = rg.x;
        *count = rg.y - rg.x;
    } else {
        *begin = a.c0;
        *count = a.c1 - a.c0;
    }
}

/* Pixel (i, j)'s colour before this launch: the image (a later batch) or the
 * background. */
template <bool SNOW>
__device__ __forceinline__ gpi_rgba start_pixel(const TileArgs &a, int i, int j, bool in_x)
{
    if (!a.first && in_x && j < a.height) {
        const float4 v = a.image[(size_t)(j - a.row0) * (size_t)a.width + (size_t)i];
        gpi_rgba c;
        c.r = v.x;
        c.g = v.y;
        c.b = v.z;
        c.a = v.w;
        return c;
    }
    return gpi_background(SNOW ? 1 : 0, j, a.height);
}

/* Write a thread's column of R pixels (those inside the image). */
template <int R>
__device__ __forceinline__ void store_pixels(const TileArgs &a, int i, int j0, bool in_x, const gpi_rgba (&acc)[R])
{
    if (!in_x) return;
#pragma unroll
    for (int k = 0; k < R; ++k) {
        const int j = j0 + k;
        if (j < a.height)
            a.image[(size_t)(j - a.row0) * (size_t)a.width + (size_t)i] =
                make_float4(acc[k].r, acc[k].g, acc[k].b, acc[k].a);
    }
}

/* One block per tile. Thread t shades pixels (tx*T + t%T, ty*T + (t/T)*R + k),
 * k < R; warp w owns tile rows [w*kWarpRows, (w+1)*kWarpRows). Every thread
 * runs the chunk loop the same number of times (count is per block). */
template <bool SNOW, bool BINNED, typename K>
__global__ void __launch_bounds__(P::kTileThreads, P::kMinTileBlocksPerSM) tile_kernel(TileArgs a)
{
    const K *const list = (const K *)a.list;
    constexpr int T = P::kTile, R = P::kRowsPerThread, C = P::kChunk, NW = P::kWarps;
    /* Double-buffered, so one barrier separates a chunk's compaction from its
     * shading and one separates the shading from the next compaction.
     * s_geom: snow: x, y, z, radius; else x, y, r*r, flags (bits). */
    __shared__ float4 s_geom[2][C];
    __shared__ float4 s_col[2][SNOW ? 1 : C];     /* .5 * colour */
    __shared__ uint32_t s_flags[2][SNOW ? C : 1]; /* snow: warp mask | kUnsafe */
    __shared__ uint2 s_box[2][C];                 /* written for unsafe circles only */
    __shared__ uint32_t s_wcount[2][NW];

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint32_t tile = a.tile0 + blockIdx.x;
    const int tx = (int)(tile % (uint32_t)a.tiles_x), ty = (int)(tile / (uint32_t)a.tiles_x);
    const int i = tx * T + t % T;
    const int j0 = ty * T + (t / T) * R;

    uint32_t begin, count;
    tile_slice<BINNED>(a, tile, &begin, &count);
    if (!a.first && count == 0) return; /* whole block: nothing to add */

    const bool in_x = i < a.width;
    const float cx = gpi_pixel_x(i, a.invW);
    float cy[R];
    gpi_rgba acc[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        const int j = j0 + k;
        cy[k] = gpi_pixel_y(j, a.invH);
        acc[k] = start_pixel<SNOW>(a, i, j, in_x);
    }

    /* Software pipeline: the circle staged for this chunk is in registers;
     * its list entry for the next chunk is already loading. */
    bool cur_ok = (uint32_t)t < count;
    uint32_t nxt_idx = 0;
    bool nxt_ok = (uint32_t)(C + t) < count;
    float4 g = make_float4(0.f, 0.f, 0.f, 0.f), c = g;
    uint2 bx = make_uint2(0u, 0u);
    if (cur_ok) {
        const uint32_t idx = BINNED ? a.c0 + ((uint32_t)list[begin + t] & a.cmask) : begin + t;
        g = a.geom[idx];
        if (!SNOW) c = a.colour[idx];
        bx = a.box[idx];
    }
    if (BINNED && nxt_ok) nxt_idx = a.c0 + ((uint32_t)list[begin + C + t] & a.cmask);

    const int tile_x0 = tx * T, tile_y0 = ty * T;
    const uint32_t mybit = 1u << warp, mycover = 1u << (kCoverShift + warp);
    int buf = 0;
    for (uint32_t base = 0; base < count; base += C, buf ^= 1) {
        /* Cull: which warps' row bands can this circle reach? */
        uint32_t flags = 0;
        if (cur_ok) {
            const Box b = unpack_box(bx);
            const bool unsafe = (bx.x & kUnsafe) != 0;
            const int rx0 = max(tile_x0, b.x0), rx1 = min(tile_x0 + T, b.x1);
            const int cx1 = min(tile_x0 + T, a.width);
            if (rx0 < rx1) {
#pragma unroll
                for (int w = 0; w < NW; ++w) {
                    const int wy0 = tile_y0 + w * P::kWarpRows;
                    const int ry0 = max(wy0, b.y0), ry1 = min(wy0 + P::kWarpRows, b.y1);
                    if (ry0 < ry1 && rect_hit(g.x, g.y, g.w, rx0, rx1, ry0, ry1, a.invW, a.invH)) {
                        flags |= 1u << w;
                        /* Covered: the warp may skip the per-pixel test. A
                         * safe circle shades nothing outside its box, so
                         * the whole (in-image) warp rectangle will do. */
                        if (!SNOW && !unsafe &&
                            rect_covered(g.x, g.y, g.w, tile_x0, cx1, wy0, min(wy0 + P::kWarpRows, a.height),
                                         a.invW, a.invH))
                            flags |= 1u << (kCoverShift + w);
                    }
                }
            }
            if (flags && unsafe) flags |= kUnsafe;
        }
        /* Compact the survivors in order: ballot within the warp, warp
         * totals through shared memory. */
        const unsigned bal = __ballot_sync(kFull, flags != 0);
        if (lane == 0) s_wcount[buf][warp] = (uint32_t)__popc(bal);
        __syncthreads();
        uint32_t off = (uint32_t)__popc(bal & ((1u << lane) - 1u)), total = 0;
#pragma unroll
        for (int w = 0; w < NW; ++w) {
            const uint32_t v = s_wcount[buf][w];
            if (w < warp) off += v;
            total += v;
        }
        /* This chunk's colours allow the fast blend (h >= 0; NaN fails). */
        const bool col_ok = SNOW || !flags || (c.x >= 0.f && c.y >= 0.f && c.z >= 0.f);
        if (flags) {
            if constexpr (SNOW) {
                s_geom[buf][off] = g;
                s_flags[buf][off] = flags;
            } else {
                /* r*r as gpi_shade's maxd2 = rad * rad. */
                s_geom[buf][off] = make_float4(g.x, g.y, __fmul_rn(g.w, g.w), __uint_as_float(flags));
                s_col[buf][off] = c;
            }
            if (flags & kUnsafe) s_box[buf][off] = bx;
        }
        /* Stage the next chunk (its loads overlap the shading below). */
        cur_ok = nxt_ok;
        if (cur_ok) {
            const uint32_t idx = BINNED ? nxt_idx : begin + base + C + t;
            g = a.geom[idx];
            if (!SNOW) c = a.colour[idx];
            bx = a.box[idx];
        }
        nxt_ok = base + 2u * C + (uint32_t)t < count;
        if (BINNED && nxt_ok) nxt_idx = a.c0 + ((uint32_t)list[begin + base + 2u * C + t] & a.cmask);
        const bool chunk_col_ok = __syncthreads_and(col_ok) != 0;

        if constexpr (SNOW) {
            /* Shade, in list order. The flag test is uniform across the warp. */
            for (uint32_t k = 0; k < total; ++k) {
                const uint32_t f = s_flags[buf][k];
                if (!(f & mybit)) continue;
                const float4 q = s_geom[buf][k];
                if (!(f & kUnsafe)) {
#pragma unroll
                    for (int r = 0; r < R; ++r)
                        gpi_shade(&acc[r], cx, cy[r], q.x, q.y, q.z, q.w, 0.f, 0.f, 0.f, 1);
                } else {
                    /* Rare (huge coordinates): the reference's box limit, per pixel. */
                    const Box b = unpack_box(s_box[buf][k]);
                    const bool bx_in = i >= b.x0 && i < b.x1;
#pragma unroll
                    for (int r = 0; r < R; ++r)
                        if (bx_in && j0 + r >= b.y0 && j0 + r < b.y1)
                            gpi_shade(&acc[r], cx, cy[r], q.x, q.y, q.z, q.w, 0.f, 0.f, 0.f, 1);
                }
            }
        } else {
            /* The fast blend's proof covers 64 blends at a time; with
             * kChunk <= 64 (the default) this loop runs once. */
            for (uint32_t s0 = 0; s0 < total; s0 += kFastSpan) {
                const uint32_t m = min(total - s0, (uint32_t)kFastSpan);
                if (P::kFmaBlend && chunk_col_ok && __all_sync(kFull, fast_acc_ok(acc)))
                    shade_plain_chunk<true>(acc, s_geom[buf] + s0, s_col[buf] + s0, s_box[buf] + s0, m, mybit, mycover,
                                            cx, cy, i, j0);
                else
                    shade_plain_chunk<false>(acc, s_geom[buf] + s0, s_col[buf] + s0, s_box[buf] + s0, m, mybit,
                                             mycover, cx, cy, i, j0);
            }
        }
    }

    store_pixels(a, i, j0, in_x, acc);
}

/* ---- tile_kernel_bands: a compacted list per warp band -----------------------
 * Binned ordinary scenes. With tile_kernel, most of a rand1M frame goes to
 * its per-circle loop: each warp walks every survivor of the chunk (~1200
 * circles a tile), skips those that miss its band on a flag bit, and per
 * circle and row recomputes dy and dy*dy that all 16 lanes of the row share,
 * then tests the per-pixel path's cover and unsafe bits. tile_kernel_bands
 * instead:
 *   - culls as tile_kernel does (the same rect_hit / rect_covered tests), but
 *     each staging warp compacts its 32 circles into a segment per band
 *     ([32*w, 32*w + count) of band b's list), so a warp walks only the
 *     circles that reach its own 16x8 band, and compaction needs no
 *     cross-warp prefix: one barrier per chunk instead of two (the buffers
 *     are double-buffered, so the next chunk's staging cannot overwrite one
 *     that a slower warp still reads);
 *   - stages per entry fl(dy*dy) for each of the band's 8 rows, computed
 *     once by the staging thread with gpi_shade's operations (dy = py - cy,
 *     then dy*dy: the same rounded values), so a pixel's test is one add
 *     fl(dx2 + dy2) and the compare, as in gpi_shade;
 *   - picks per band and chunk (warp-uniform) one of three loops: lean (no
 *     flag tests at all: cover circles are tested per pixel, which gives the
 *     same result since every pixel passes), cover-aware (when at least
 *     1/kBandCoverShare of the entries cover the band, as in rand100k and
 *     biglittle) and full (when an unsafe circle is present: the per-pixel
 *     box check, as tile_kernel).
 * Blend order per pixel is unchanged: a band's list is the chunk's survivors
 * in list order (segment 0 holds chunk slots 0..31, segment 1 slots 32..63),
 * and chunks are shaded in order. The fast blend keeps its preconditions: a
 * band list holds at most kChunk = 64 = kFastSpan entries, fast_acc_ok is
 * checked per warp before each, and the colours' h >= 0 is ANDed over the
 * whole chunk through the per-warp info words read after the barrier.
 * Per-entry work of the lean loop, per warp: 3 shared loads, dx and dx*dx,
 * and per row add, compare and 4 predicated blend instructions: ~32 issued
 * instructions (SASS, unrolled by 2) against ~45 for tile_kernel's loop plus
 * ~6 per circle it skips. Binned scenes only: unbinned ones (<= kSmallN
 * circles) keep tile_kernel (see launch_tiles).
 * Measured on an H200 (1024^2, ms per frame, tile_kernel -> this kernel for
 * the binned scenes): predicted rand1M ~0.93 -> ~0.79, rand100k ~0.79 ->
 * ~0.72; measured rand1M 0.923 -> 0.620 (ncu: tile kernel 702 -> 405 us,
 * 530M -> 340M instructions), rand100k 0.790 -> 0.624, biglittle 0.950 ->
 * 0.732, littlebig 0.914 -> 0.712, micro2M 0.436 -> 0.335, rand10k 0.152 ->
 * 0.144; pattern, rgb and snowsingle unchanged. A 64-byte record per entry
 * (see BandList) was slower: 0.687 ms. kBandCoverShare 3/5/10 and
 * kBandUnroll 1/2/4 measured within 1% of each other. Every scene's
 * renderer --check passes. */
constexpr uint32_t kBandCover = 0x40000000u; /* s_m flags: covers the band */
static_assert((kBandCover & kUnsafe) == 0 && P::kChunk <= 0xffff, "flag bits");

/* The per-warp info word of a band: entries, cover entries, flags. */
constexpr uint32_t kInfoUnsafe = 1u << 16, kInfoColOk = 1u << 17;

/* A band's list, as separate arrays (one 64-byte record per entry was
 * measured slower: 17.5 KB of shared memory a block instead of 15.5 cost
 * residency or L1). Entry k: dy[k][h] = fl(dy*dy) of the rows of half h
 * of the band, c[k] = (.5 * colour, x), m[k] = (r*r, flags | chunk slot). */
struct BandList {
    const float4 (*dy)[2];
    const float4 *c;
    const float2 *m;
};

/* Blend entries [k0, k1) of a band's list over a thread's R = 4 rows (those
 * of half h of the band). MODE 0: test every pixel; 1: cover circles
 * without tests; 2: also the unsafe circles' per-pixel box check. */
template <bool FAST, int MODE>
__device__ __forceinline__ void shade_band(gpi_rgba (&acc)[4], float &acov, const BandList &l, uint32_t k0,
                                           uint32_t k1, const uint2 *sbox, int h, float cx, int i, int j0)
{
#pragma unroll(P::kBandUnroll)
    for (uint32_t k = k0; k < k1; ++k) {
        const float4 c = l.c[k];
        const float2 m = l.m[k];
        const uint32_t f = __float_as_uint(m.y);
        if (MODE != 0 && (f & kBandCover)) {
            /* Every pixel passes (rect_covered); the shading does not
             * depend on the distance. */
            if (FAST) acov = __fadd_rn(acov, .5f);
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                blend_rgb<FAST>(acc[r], c);
                if (!FAST) acc[r].a = __fadd_rn(acc[r].a, .5f);
            }
            continue;
        }
        const float4 d = l.dy[k][h];
        const float dy2[4] = {d.x, d.y, d.z, d.w};
        /* gpi_shade: dx = px - cx, d2 = dx*dx + dy*dy, skip when d2 > r*r. */
        const float dx = __fsub_rn(c.w, cx);
        const float dx2 = __fmul_rn(dx, dx);
        if (MODE == 2 && (f & kUnsafe)) {
            /* Rare (huge coordinates): the reference's box limit, per pixel. */
            const Box b = unpack_box(sbox[f & 0xffffu]);
            const bool inx = i >= b.x0 && i < b.x1;
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                if (inx && j0 + r >= b.y0 && j0 + r < b.y1 && !(__fadd_rn(dx2, dy2[r]) > m.x)) {
                    blend_rgb<FAST>(acc[r], c);
                    acc[r].a = __fadd_rn(acc[r].a, .5f);
                }
            }
            continue;
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            if (!(__fadd_rn(dx2, dy2[r]) > m.x)) {
                blend_rgb<FAST>(acc[r], c);
                acc[r].a = __fadd_rn(acc[r].a, .5f);
            }
        }
    }
}

/* The band's list: segment w is list[32*w, 32*w + cnt[w]). */
template <bool FAST, int MODE>
__device__ __forceinline__ void shade_band_lists(gpi_rgba (&acc)[4], const BandList &l, const uint2 *sbox,
                                                 const uint32_t (&cnt)[P::kWarps], int h, float cx, int i, int j0)
{
    float acov = 0.f; /* FAST: the cover loop's deferred alpha */
#pragma unroll
    for (int w = 0; w < P::kWarps; ++w)
        shade_band<FAST, MODE>(acc, acov, l, 32u * w, 32u * w + cnt[w], sbox, h, cx, i, j0);
    if (FAST && MODE != 0) {
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[r].a = __fadd_rn(acc[r].a, acov);
    }
}

/* Ordinary (non-snow) circles only. Thread t shades the same pixels as in
 * tile_kernel; warp w owns band w (tile rows [w*kWarpRows, (w+1)*kWarpRows))
 * and half h = lane / kTile of it holds rows h*R .. h*R + R-1 of the band. */
template <bool BINNED, typename K>
__global__ void __launch_bounds__(P::kTileThreads, P::kMinTileBlocksPerSM) tile_kernel_bands(TileArgs a)
{
    const K *const list = (const K *)a.list;
    constexpr int T = P::kTile, R = P::kRowsPerThread, C = P::kChunk, NW = P::kWarps, WR = P::kWarpRows;
    static_assert(R == 4 && WR == 8 && C == 32 * NW, "tile_kernel_bands: a float4 of dy*dy per half-warp");
    /* [buffer][band][entry]; entry 32*w + s is staging warp w's s-th. */
    __shared__ float4 s_dy[2][NW][C][2]; /* fl(dy*dy) of the band's rows 0-3, 4-7 */
    __shared__ float4 s_c[2][NW][C];     /* .5 * colour, x */
    __shared__ float2 s_m[2][NW][C];     /* r*r, flags | chunk slot (bits) */
    __shared__ uint2 s_box[2][C];        /* by chunk slot; unsafe circles only */
    __shared__ uint32_t s_info[2][NW][NW]; /* [staging warp][band] */
    __shared__ float s_rowy[T];          /* the tile's pixel-row centres */

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, h = lane / T;
    const uint32_t tile = a.tile0 + blockIdx.x;
    const int tx = (int)(tile % (uint32_t)a.tiles_x), ty = (int)(tile / (uint32_t)a.tiles_x);
    const int i = tx * T + t % T;
    const int j0 = ty * T + (t / T) * R;

    uint32_t begin, count;
    tile_slice<BINNED>(a, tile, &begin, &count);
    if (!a.first && count == 0) return; /* whole block: nothing to add */

    const bool in_x = i < a.width;
    const float cx = gpi_pixel_x(i, a.invW);
    gpi_rgba acc[R];
#pragma unroll
    for (int k = 0; k < R; ++k) acc[k] = start_pixel<false>(a, i, j0 + k, in_x);
    const int tile_x0 = tx * T, tile_y0 = ty * T;
    if (t < T) s_rowy[t] = gpi_pixel_y(tile_y0 + t, a.invH);
    __syncthreads();

    /* Software pipeline, as in tile_kernel. */
    bool cur_ok = (uint32_t)t < count;
    uint32_t nxt_idx = 0;
    bool nxt_ok = (uint32_t)(C + t) < count;
    float4 g = make_float4(0.f, 0.f, 0.f, 0.f), c = g;
    uint2 bx = make_uint2(0u, 0u);
    if (cur_ok) {
        const uint32_t idx = BINNED ? a.c0 + ((uint32_t)list[begin + t] & a.cmask) : begin + t;
        g = a.geom[idx];
        c = a.colour[idx];
        bx = a.box[idx];
    }
    if (BINNED && nxt_ok) nxt_idx = a.c0 + ((uint32_t)list[begin + C + t] & a.cmask);

    const unsigned lt_mask = (1u << lane) - 1u;
    int buf = 0;
    for (uint32_t base = 0; base < count; base += C, buf ^= 1) {
        /* Cull, as tile_kernel: which bands can this circle reach, which
         * does it cover? */
        uint32_t hit = 0, cov = 0;
        const bool unsafe = (bx.x & kUnsafe) != 0;
        if (cur_ok) {
            const Box b = unpack_box(bx);
            const int rx0 = max(tile_x0, b.x0), rx1 = min(tile_x0 + T, b.x1);
            const int cx1 = min(tile_x0 + T, a.width);
            if (rx0 < rx1) {
#pragma unroll
                for (int w = 0; w < NW; ++w) {
                    const int wy0 = tile_y0 + w * WR;
                    const int ry0 = max(wy0, b.y0), ry1 = min(wy0 + WR, b.y1);
                    if (ry0 < ry1 && rect_hit(g.x, g.y, g.w, rx0, rx1, ry0, ry1, a.invW, a.invH)) {
                        hit |= 1u << w;
                        if (!unsafe && rect_covered(g.x, g.y, g.w, tile_x0, cx1, wy0, min(wy0 + WR, a.height),
                                                    a.invW, a.invH))
                            cov |= 1u << w;
                    }
                }
            }
        }
        /* Stage: each warp compacts its circles into its segment of each
         * band's list, in order; lane 0 publishes the segment's info. */
        const bool col_ok = !hit || (c.x >= 0.f && c.y >= 0.f && c.z >= 0.f); /* h >= 0; NaN fails */
        const bool all_col_ok = __all_sync(kFull, col_ok);
        const bool any_unsafe = __any_sync(kFull, hit && unsafe);
        const float rr = __fmul_rn(g.w, g.w); /* gpi_shade's maxd2 = rad * rad */
        const uint32_t mflags = (unsafe ? kUnsafe : 0u) | (uint32_t)t;
#pragma unroll
        for (int w = 0; w < NW; ++w) {
            const bool hw = (hit >> w) & 1u;
            const unsigned bal = __ballot_sync(kFull, hw);
            const unsigned bcov = __ballot_sync(kFull, (cov >> w) & 1u);
            if (lane == 0)
                s_info[buf][warp][w] = (uint32_t)__popc(bal) | (uint32_t)__popc(bcov) << 8 |
                                       (any_unsafe ? kInfoUnsafe : 0u) | (all_col_ok ? kInfoColOk : 0u);
            if (hw) {
                const uint32_t e = 32u * warp + (uint32_t)__popc(bal & lt_mask);
                float d[WR];
#pragma unroll
                for (int r = 0; r < WR; ++r) {
                    const float dy = __fsub_rn(g.y, s_rowy[w * WR + r]);
                    d[r] = __fmul_rn(dy, dy);
                }
                s_dy[buf][w][e][0] = make_float4(d[0], d[1], d[2], d[3]);
                s_dy[buf][w][e][1] = make_float4(d[4], d[5], d[6], d[7]);
                s_c[buf][w][e] = make_float4(c.x, c.y, c.z, g.x);
                s_m[buf][w][e] = make_float2(rr, __uint_as_float(mflags | ((cov >> w) & 1u ? kBandCover : 0u)));
            }
        }
        if (hit && unsafe) s_box[buf][t] = bx;

        /* Stage the next chunk (its loads overlap the shading below). */
        cur_ok = nxt_ok;
        if (cur_ok) {
            const uint32_t idx = BINNED ? nxt_idx : begin + base + C + t;
            g = a.geom[idx];
            c = a.colour[idx];
            bx = a.box[idx];
        }
        nxt_ok = base + 2u * C + (uint32_t)t < count;
        if (BINNED && nxt_ok) nxt_idx = a.c0 + ((uint32_t)list[begin + base + 2u * C + t] & a.cmask);
        __syncthreads();

        /* Shade this warp's band list (warp-uniform choices). */
        uint32_t cnt[NW], n = 0, ncov = 0;
        bool uns = false, chunk_col_ok = true;
#pragma unroll
        for (int w = 0; w < NW; ++w) {
            const uint32_t v = s_info[buf][w][warp];
            cnt[w] = v & 0xffu;
            n += cnt[w];
            ncov += (v >> 8) & 0xffu;
            uns = uns || (v & kInfoUnsafe);
            /* every warp's colours (the word of any band carries them) */
            chunk_col_ok = chunk_col_ok && (v & kInfoColOk);
        }
        if (n == 0) continue;
        BandList blist;
        blist.dy = s_dy[buf][warp];
        blist.c = s_c[buf][warp];
        blist.m = s_m[buf][warp];
        const uint2 *sbox = s_box[buf];
        const int mode = uns ? 2 : (ncov != 0 && ncov * P::kBandCoverShare >= n ? 1 : 0);
        if (P::kFmaBlend && chunk_col_ok && __all_sync(kFull, fast_acc_ok(acc))) {
            if (mode == 0) shade_band_lists<true, 0>(acc, blist, sbox, cnt, h, cx, i, j0);
            else if (mode == 1) shade_band_lists<true, 1>(acc, blist, sbox, cnt, h, cx, i, j0);
            else shade_band_lists<true, 2>(acc, blist, sbox, cnt, h, cx, i, j0);
        } else {
            if (mode == 0) shade_band_lists<false, 0>(acc, blist, sbox, cnt, h, cx, i, j0);
            else if (mode == 1) shade_band_lists<false, 1>(acc, blist, sbox, cnt, h, cx, i, j0);
            else shade_band_lists<false, 2>(acc, blist, sbox, cnt, h, cx, i, j0);
        }
    }

    store_pixels(a, i, j0, in_x, acc);
}

size_t align_up(size_t x) { return (x + P::kAlign - 1) / P::kAlign * P::kAlign; }

unsigned bits_for(uint32_t v) /* bits to hold 0..v, at least 1 */
{
    unsigned b = 1;
    while (b < 32 && (v >> b) != 0) ++b;
    return b;
}

} /* namespace */

/* ---- the renderer object ----------------------------------------------------- */

struct gpi_cuda_renderer {
    gp_context *ctx;
    int width, height, tiles_x, tiles_y;
    uint32_t num_tiles;
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
};

static cudaStream_t stream_of(const gpi_cuda_renderer *r) { return (cudaStream_t)r->ctx->stream; }

static gp_status launched(gp_context *ctx, const char *what) { return gpi_cuda_status(ctx, cudaGetLastError(), what); }

static void free_scene(gpi_cuda_renderer *r)
{
    cudaFree(r->geom);
    cudaFree(r->colour);
    cudaFree(r->box);
    cudaFree(r->incl);
    r->geom = r->colour = NULL;
    r->box = NULL;
    r->incl = NULL;
    r->n = r->cap = 0;
}

extern "C" void gpi_cuda_renderer_destroy(gpi_cuda_renderer *r)
{
    if (!r) return;
    free_scene(r);
    cudaFree(r->image);
    cudaFree(r->dev_misc);
    if (r->host_misc) cudaFreeHost(r->host_misc);
    (void)cudaGetLastError();
    free(r);
}

extern "C" gp_status gpi_cuda_renderer_create(gp_context *ctx, int width, int height, int band_ty0, int band_ty1,
                                               gpi_cuda_renderer **out)
{
    gpi_cuda_renderer *r;
    size_t bytes;
    gp_status s;
    if (!ctx || !out) return GP_ERROR_INVALID_ARGUMENT;
    if (width < 1 || height < 1 || width > GP_RENDER_MAX_SIDE || height > GP_RENDER_MAX_SIDE)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "image size %dx%d outside 1..%d", width, height,
                         GP_RENDER_MAX_SIDE);
    r = (gpi_cuda_renderer *)calloc(1, sizeof(*r));
    if (!r) return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "renderer allocation");
    r->ctx = ctx;
    r->width = width;
    r->height = height;
    r->tiles_x = (width + P::kTile - 1) / P::kTile;
    r->tiles_y = (height + P::kTile - 1) / P::kTile;
    r->num_tiles = (uint32_t)r->tiles_x * (uint32_t)r->tiles_y;
    r->band_ty0 = band_ty0;
    r->band_ty1 = band_ty1;
    r->band_py0 = band_ty0 * P::kTile;
    r->band_py1 = min(band_ty1 * P::kTile, height);
    r->band_tiles = (uint32_t)(band_ty1 - band_ty0) * (uint32_t)r->tiles_x;
    r->invW = 1.f / (float)width; /* as the CPU reference computes them */
    r->invH = 1.f / (float)height;
    bytes = (size_t)width * (size_t)(r->band_py1 - r->band_py0) * sizeof(float4);
    s = bytes ? gpi_cuda_status(ctx, cudaMalloc((void **)&r->image, bytes), "renderer image cudaMalloc") : GP_SUCCESS;
    if (!s) s = gpi_cuda_status(ctx, cudaMalloc((void **)&r->dev_misc, 2 * sizeof(uint64_t)), "renderer cudaMalloc");
    if (!s) s = gpi_cuda_status(ctx, cudaMallocHost((void **)&r->host_misc, 2 * sizeof(uint64_t)), "renderer cudaMallocHost");
    if (!s && bytes) s = gpi_cuda_status(ctx, cudaMemsetAsync(r->image, 0, bytes, stream_of(r)), "renderer image clear");
    if (s) {
        gpi_cuda_renderer_destroy(r);
        return s;
    }
    *out = r;
    return GP_SUCCESS;
}

extern "C" gp_status gpi_cuda_renderer_set_scene(gpi_cuda_renderer *r, const gp_scene *scene)
{
    gp_context *ctx;
    cudaStream_t st;
    size_t n, off_pos, off_rad, off_col, bytes;
    char *ws = NULL;
    gp_status s;
    if (!r || !scene) return GP_ERROR_INVALID_ARGUMENT;
    ctx = r->ctx;
    st = stream_of(r);
    n = scene->n;
    if (n > GP_SCENE_MAX_CIRCLES)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "scene of %zu circles (at most %zu)", n,
                         (size_t)GP_SCENE_MAX_CIRCLES);
    if (n > 0 && (!scene->position || !scene->radius))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "scene without positions or radii");
    if (n > r->cap) {
        /* Grow (never shrink): a failed growth leaves an empty scene. */
        free_scene(r);
        s = gpi_cuda_status(ctx, cudaMalloc((void **)&r->geom, n * sizeof(float4)), "scene cudaMalloc");
        if (!s) s = gpi_cuda_status(ctx, cudaMalloc((void **)&r->colour, n * sizeof(float4)), "scene cudaMalloc");
        if (!s) s = gpi_cuda_status(ctx, cudaMalloc((void **)&r->box, n * sizeof(uint2)), "scene cudaMalloc");
        if (!s) s = gpi_cuda_status(ctx, cudaMalloc((void **)&r->incl, n * sizeof(uint64_t)), "scene cudaMalloc");
        if (s) {
            free_scene(r);
            return s;
        }
        r->cap = n;
    }
    r->n = 0;
    r->snow = scene->snow != 0;
    if (n == 0) return GP_SUCCESS;

    /* Stage the course's n*3 / n arrays in the workspace, then pack. */
    off_pos = 0;
    off_rad = align_up(off_pos + 3 * n * sizeof(float));
    off_col = align_up(off_rad + n * sizeof(float));
    bytes = off_col + (scene->color ? 3 * n * sizeof(float) : 0);
    s = gpi_workspace(ctx, bytes, (void **)&ws);
    if (s) return s;
    s = gpi_cuda_status(ctx, cudaMemcpyAsync(ws + off_pos, scene->position, 3 * n * sizeof(float),
                                             cudaMemcpyHostToDevice, st), "scene upload");
    if (!s) s = gpi_cuda_status(ctx, cudaMemcpyAsync(ws + off_rad, scene->radius, n * sizeof(float),
                                                     cudaMemcpyHostToDevice, st), "scene upload");
    if (!s && scene->color)
        s = gpi_cuda_status(ctx, cudaMemcpyAsync(ws + off_col, scene->color, 3 * n * sizeof(float),
                                                 cudaMemcpyHostToDevice, st), "scene upload");
    if (s) return s;
    pack_kernel<<<(unsigned)((n + P::kBinThreads - 1) / P::kBinThreads), P::kBinThreads, 0, st>>>(
        (const float *)(ws + off_pos), (const float *)(ws + off_rad),
        scene->color ? (const float *)(ws + off_col) : NULL, (uint32_t)n, r->width, r->height, r->band_py0, r->band_py1,
        r->invW, r->invH, r->geom, r->colour, r->box);
    s = launched(ctx, "scene pack kernel");
    if (s) return s;
    r->n = n;
    return GP_SUCCESS;
}

/* The frame's sort-key form: K-bit keys (tile << cbits) | (circle - c0),
 * sorted on bits [cbits, end_bit). */
struct KeyForm {
    bool k32;
    int cbits, end_bit;
    uint32_t cmask;
};

static KeyForm key_form(const gpi_cuda_renderer *r, uint32_t n)
{
    KeyForm f;
    const unsigned tbits = bits_for(r->num_tiles - 1), cb = bits_for(n - 1); /* n >= 1 */
    f.k32 = P::kKeys32 && tbits + cb <= 32;
    f.cbits = f.k32 ? (int)cb : 32;
    f.end_bit = f.cbits + (int)tbits;
    f.cmask = f.cbits >= 32 ? 0xffffffffu : (1u << f.cbits) - 1u;
    return f;
}

/* Shade tiles: binned (list of K keys, ranges) or every circle of [c0, c1). */
template <typename K>
static gp_status launch_tiles(gpi_cuda_renderer *r, bool binned, const K *list, const uint2 *ranges,
                              uint32_t c0, uint32_t c1, uint32_t cmask, bool first)
{
    TileArgs a;
    cudaStream_t st = stream_of(r);
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
    if (r->band_tiles == 0) return GP_SUCCESS; /* an empty band */
    if (r->snow) {
        if (binned) tile_kernel<true, true, K><<<r->band_tiles, P::kTileThreads, 0, st>>>(a);
        else tile_kernel<true, false, uint32_t><<<r->band_tiles, P::kTileThreads, 0, st>>>(a);
    } else {
        /* Unbinned scenes (<= kSmallN circles) keep tile_kernel: there the
         * chunks are mostly culled away, and tile_kernel_bands' larger
         * shared memory leaves less L1 for the circles every block reads
         * (pattern measured 0.043 -> 0.055 ms with it). */
        if (binned) tile_kernel_bands<true, K><<<r->band_tiles, P::kTileThreads, 0, st>>>(a);
        else tile_kernel<false, false, uint32_t><<<r->band_tiles, P::kTileThreads, 0, st>>>(a);
    }
    return launched(r->ctx, "render tile kernel");
}

/* Unbinned: every circle of [c0, c1). */
static gp_status launch_tiles_all(gpi_cuda_renderer *r, uint32_t c0, uint32_t c1, bool first)
{
    return launch_tiles<uint32_t>(r, false, NULL, NULL, c0, c1, 0u, first);
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
static gp_status pair_scratch(gpi_cuda_renderer *r, uint64_t pairs, const KeyForm &f, PairScratch *ps)
{
    size_t key_bytes, off_k1, off_rg, off_tmp, total, sort_bytes = 0;
    char *ws = NULL;
    gp_status s;
    cub::DoubleBuffer<K> db(NULL, NULL);
    cudaError_t e =
        cub::DeviceRadixSort::SortKeys(NULL, sort_bytes, db, (int)pairs, f.cbits, f.end_bit, stream_of(r));
    if (e != cudaSuccess) return gpi_cuda_status(r->ctx, e, "radix sort size query");
    if (pairs > SIZE_MAX / 4 / sizeof(K)) return GP_ERROR_OUT_OF_MEMORY;
    key_bytes = align_up((size_t)pairs * sizeof(K));
    off_k1 = key_bytes;
    off_rg = off_k1 + key_bytes;
    off_tmp = off_rg + align_up((size_t)r->num_tiles * sizeof(uint2));
    total = off_tmp + sort_bytes;
    s = gpi_workspace(r->ctx, total, (void **)&ws);
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
static gp_status render_batch(gpi_cuda_renderer *r, const PairScratch *ps, uint32_t c0, uint32_t c1, uint64_t base,
                              uint64_t np, const KeyForm &f, bool first)
{
    gp_context *ctx = r->ctx;
    cudaStream_t st = stream_of(r);
    const unsigned bt = P::kBinThreads;
    const uint32_t nc = c1 - c0;
    gp_status s;
    cudaError_t e;
    size_t sort_bytes = ps->sort_bytes;
    const K *sorted;

    if (nc <= P::kWarpCircleN) /* a warp per circle; nc * 32 < 2^32 */
        emit_kernel<K, true><<<(nc * 32u + bt - 1) / bt, bt, 0, st>>>(r->geom, r->box, r->incl, c0, c1, base,
                                                                     r->tiles_x, f.cbits, r->invW, r->invH,
                                                                     (K *)ps->keys0, ps->ranges, r->num_tiles);
    else
        emit_kernel<K, false><<<(nc + bt - 1) / bt, bt, 0, st>>>(r->geom, r->box, r->incl, c0, c1, base, r->tiles_x,
                                                                f.cbits, r->invW, r->invH, (K *)ps->keys0,
                                                                ps->ranges, r->num_tiles);
    s = launched(ctx, "render emit kernel");
    if (s) return s;
    {
        cub::DoubleBuffer<K> db((K *)ps->keys0, (K *)ps->keys1);
        e = cub::DeviceRadixSort::SortKeys(ps->sort_tmp, sort_bytes, db, (int)np, f.cbits, f.end_bit, st);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "render radix sort");
        sorted = db.Current();
    }
    ranges_kernel<K><<<(unsigned)((np + bt - 1) / bt), bt, 0, st>>>(sorted, (uint32_t)np, f.cbits, ps->ranges);
    s = launched(ctx, "render ranges kernel");
    if (s) return s;
    return launch_tiles<K>(r, true, sorted, ps->ranges, c0, 0, f.cmask, first);
}

/* 3-6 for the frame whose scan is done and whose pair total is `total`. */
template <typename K>
static gp_status render_binned(gpi_cuda_renderer *r, uint32_t n, uint64_t total, const KeyForm &f)
{
    gp_context *ctx = r->ctx;
    cudaStream_t st = stream_of(r);
    uint64_t desired, floor_pairs, base;
    bool first, retried = false;
    PairScratch ps = {NULL, NULL, NULL, NULL, 0};
    gp_status s;
    cudaError_t e;

    /* Scratch for as many pairs as fit, halving on allocation failure; no
     * circle has more pairs than there are tiles. */
    desired = total < P::kPairCap ? total : P::kPairCap;
    floor_pairs = desired < r->num_tiles ? desired : r->num_tiles;
    for (;;) {
        s = pair_scratch<K>(r, desired, f, &ps);
        if (s == GP_SUCCESS) break;
        if (s != GP_ERROR_OUT_OF_MEMORY || desired <= floor_pairs) return s;
        desired = desired / 2 > floor_pairs ? desired / 2 : floor_pairs;
        retried = true;
    }
    if (retried) gpi_clear_error(ctx); /* recovered by batching */

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
            batch_end_kernel<<<1, 1, 0, st>>>(r->incl, c0, n, base + desired, r->dev_misc);
            s = launched(ctx, "render batch search kernel");
            if (s) return s;
            e = cudaMemcpyAsync(r->host_misc, r->dev_misc, 2 * sizeof(uint64_t), cudaMemcpyDeviceToHost, st);
            if (e == cudaSuccess) e = cudaStreamSynchronize(st);
            if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "render batch search read");
            c1 = (uint32_t)r->host_misc[0];
            end_pairs = r->host_misc[1];
            if (c1 <= c0)
                return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY,
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

extern "C" gp_status gpi_cuda_renderer_render(gpi_cuda_renderer *r)
{
    gp_context *ctx;
    cudaStream_t st;
    const unsigned bt = P::kBinThreads;
    uint32_t n;
    uint64_t total;
    size_t scan_bytes = 0;
    void *scan_tmp = NULL;
    KeyForm f;
    gp_status s;
    cudaError_t e;

    if (!r) return GP_ERROR_INVALID_ARGUMENT;
    ctx = r->ctx;
    st = stream_of(r);
    n = (uint32_t)r->n;

    /* Small scenes: no binning, no host sync. */
    if (n == 0 || (n <= P::kSmallN && (uint64_t)n * r->band_tiles <= P::kSmallTests))
        return launch_tiles_all(r, 0, n, true);

    /* 1-2: count and scan. */
    if (n <= P::kWarpCircleN) /* a warp per circle; n * 32 < 2^32 */
        count_kernel<true><<<(n * 32u + bt - 1) / bt, bt, 0, st>>>(r->geom, r->box, n, r->invW, r->invH, r->incl);
    else
        count_kernel<false><<<(n + bt - 1) / bt, bt, 0, st>>>(r->geom, r->box, n, r->invW, r->invH, r->incl);
    s = launched(ctx, "render count kernel");
    if (s) return s;
    /* In place (d_in == d_out, which CUB supports). */
    e = cub::DeviceScan::InclusiveSum(NULL, scan_bytes, r->incl, r->incl, (int)n, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "render scan size query");
    s = gpi_workspace(ctx, scan_bytes, &scan_tmp);
    if (s) return s;
    e = cub::DeviceScan::InclusiveSum(scan_tmp, scan_bytes, r->incl, r->incl, (int)n, st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "render scan");
    /* The total comes through pinned memory; the sync waits only for count,
     * scan and this 8-byte copy (nothing else is queued yet). */
    e = cudaMemcpyAsync(r->host_misc, r->incl + (n - 1), sizeof(uint64_t), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "render pair count read");
    total = r->host_misc[0];
    if (total == 0) return launch_tiles_all(r, 0, 0, true); /* nothing on screen */

    f = key_form(r, n); /* every batch's circles fit in n's bits */
    if (f.k32) return render_binned<uint32_t>(r, n, total, f);
    return render_binned<uint64_t>(r, n, total, f);
}

namespace {
__global__ void rgb8_kernel(const float4 *image, size_t n, unsigned char *rgb)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float4 v = image[i];
        rgb[3 * i] = gpi_to8(v.x);
        rgb[3 * i + 1] = gpi_to8(v.y);
        rgb[3 * i + 2] = gpi_to8(v.z);
    }
}
} // namespace

extern "C" gp_status gpi_cuda_renderer_rgb8(gpi_cuda_renderer *r, unsigned char *rgb_dev)
{
    const size_t n = (size_t)r->width * (size_t)(r->band_py1 - r->band_py0);
    size_t blocks = (n + 255) / 256;
    if (n == 0) return GP_SUCCESS;
    if (blocks > 65536) blocks = 65536;
    rgb8_kernel<<<(unsigned)blocks, 256, 0, stream_of(r)>>>(r->image, n, rgb_dev);
    return launched(r->ctx, "render rgb8 kernel");
}

extern "C" gp_status gpi_cuda_renderer_read(gpi_cuda_renderer *r, float *rgba_host)
{
    cudaStream_t st;
    cudaError_t e;
    if (!r || !rgba_host) return GP_ERROR_INVALID_ARGUMENT;
    st = stream_of(r);
    e = cudaMemcpyAsync(rgba_host, r->image, (size_t)r->width * (size_t)(r->band_py1 - r->band_py0) * sizeof(float4),
                        cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    return gpi_cuda_status(r->ctx, e, "render image read");
}
