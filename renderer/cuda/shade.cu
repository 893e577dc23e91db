/* SPDX-License-Identifier: BSD-3-Clause */
/* shade.cu - the tile kernels: one block per 16x16 tile, the tile's
 * circles culled per chunk in draw order and blended with gpr_shade's own
 * operations (or a proven-equal FMA), each pixel written once. */
#include "cuda/cull.cuh"
#include "cuda/kernels.cuh"
#include "sizes.h"

namespace gpr_rc {
namespace {


/* ---- ordinary (non-snow) blending ---------------------------------------------
 * gpr_shade with alpha = .5f does, per channel, c = fl(fl(.5f*C) + fl(.5f*c))
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
__device__ __forceinline__ bool fast_acc_ok(const gpr_rgba (&acc)[R])
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
__device__ __forceinline__ void blend_rgb(gpr_rgba &c, const float4 &h)
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
__device__ __forceinline__ void shade_plain_chunk(gpr_rgba (&acc)[R], const float4 *sg, const float4 *sh,
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
            /* gpr_shade's test: dx = px - cx, d2 = dx*dx + dy*dy, skip when
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

/* Tile (tx, ty)'s slice of the circle list: binned, its bin's range of sorted keys;
 * unbinned, every circle of the batch. */
template <bool BINNED>
__device__ __forceinline__ void tile_slice(const TileArgs &a, int tx, int ty, uint32_t *begin, uint32_t *count)
{
    if (BINNED) {
        /* The tile's bin: a superset of its circles, in draw order; the
         * cull drops those that miss the tile. */
        const uint32_t bin = (uint32_t)(ty >> a.bin_shift.y) * (uint32_t)a.bins_x + (uint32_t)(tx >> a.bin_shift.x);
        const uint2 rg = a.ranges[bin];
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
__device__ __forceinline__ gpr_rgba start_pixel(const TileArgs &a, int i, int j, bool in_x)
{
    if (!a.first && in_x && j < a.height) {
        const float4 v = a.image[(size_t)(j - a.row0) * (size_t)a.width + (size_t)i];
        gpr_rgba c;
        c.r = v.x;
        c.g = v.y;
        c.b = v.z;
        c.a = v.w;
        return c;
    }
    return gpr_background(SNOW ? 1 : 0, j, a.height);
}

/* Write a thread's column of R pixels (those inside the image). */
template <int R>
__device__ __forceinline__ void store_pixels(const TileArgs &a, int i, int j0, bool in_x, const gpr_rgba (&acc)[R])
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
    tile_slice<BINNED>(a, tx, ty, &begin, &count);
    if (!a.first && count == 0) return; /* whole block: nothing to add */

    const bool in_x = i < a.width;
    const float cx = gpr_pixel_x(i, a.invW);
    float cy[R];
    gpr_rgba acc[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        const int j = j0 + k;
        cy[k] = gpr_pixel_y(j, a.invH);
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
                /* r*r as gpr_shade's maxd2 = rad * rad. */
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
                        gpr_shade(&acc[r], cx, cy[r], q.x, q.y, q.z, q.w, 0.f, 0.f, 0.f, 1);
                } else {
                    /* Rare (huge coordinates): the reference's box limit, per pixel. */
                    const Box b = unpack_box(s_box[buf][k]);
                    const bool bx_in = i >= b.x0 && i < b.x1;
#pragma unroll
                    for (int r = 0; r < R; ++r)
                        if (bx_in && j0 + r >= b.y0 && j0 + r < b.y1)
                            gpr_shade(&acc[r], cx, cy[r], q.x, q.y, q.z, q.w, 0.f, 0.f, 0.f, 1);
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
 *     once by the staging thread with gpr_shade's operations (dy = py - cy,
 *     then dy*dy: the same rounded values), so a pixel's test is one add
 *     fl(dx2 + dy2) and the compare, as in gpr_shade;
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
__device__ __forceinline__ void shade_band(gpr_rgba (&acc)[4], float &acov, const BandList &l, uint32_t k0,
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
        /* gpr_shade: dx = px - cx, d2 = dx*dx + dy*dy, skip when d2 > r*r. */
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
__device__ __forceinline__ void shade_band_lists(gpr_rgba (&acc)[4], const BandList &l, const uint2 *sbox,
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
template <bool BINNED, typename K, int MIN_BLOCKS>
__global__ void __launch_bounds__(P::kTileThreads, MIN_BLOCKS) tile_kernel_bands(TileArgs a)
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
    tile_slice<BINNED>(a, tx, ty, &begin, &count);
    if (!a.first && count == 0) return; /* whole block: nothing to add */

    const bool in_x = i < a.width;
    const float cx = gpr_pixel_x(i, a.invW);
    gpr_rgba acc[R];
#pragma unroll
    for (int k = 0; k < R; ++k) acc[k] = start_pixel<false>(a, i, j0 + k, in_x);
    const int tile_x0 = tx * T, tile_y0 = ty * T;
    if (t < T) s_rowy[t] = gpr_pixel_y(tile_y0 + t, a.invH);
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
        const float rr = __fmul_rn(g.w, g.w); /* gpr_shade's maxd2 = rad * rad */
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


} // namespace

template <typename K>
cudaError_t launch_tiles(const TileArgs &a, bool snow, bool binned, bool reuse, uint32_t blocks, cudaStream_t st)
{
    if (blocks == 0) return cudaSuccess; /* an empty band */
    if (snow) {
        if (binned) tile_kernel<true, true, K><<<blocks, P::kTileThreads, 0, st>>>(a);
        else tile_kernel<true, false, uint32_t><<<blocks, P::kTileThreads, 0, st>>>(a);
    } else {
        /* Unbinned scenes (<= kSmallN circles) keep tile_kernel: there the
         * chunks are mostly culled away, and tile_kernel_bands' larger
         * shared memory leaves less L1 for the circles every block reads. */
        if (binned && reuse)
            tile_kernel_bands<true, K, P::kMinTileBlocksPerSMReuse><<<blocks, P::kTileThreads, 0, st>>>(a);
        else if (binned)
            tile_kernel_bands<true, K, P::kMinTileBlocksPerSM><<<blocks, P::kTileThreads, 0, st>>>(a);
        else tile_kernel<false, false, uint32_t><<<blocks, P::kTileThreads, 0, st>>>(a);
    }
    return cudaGetLastError();
}

template cudaError_t launch_tiles<uint32_t>(const TileArgs &, bool, bool, bool, uint32_t, cudaStream_t);
template cudaError_t launch_tiles<uint64_t>(const TileArgs &, bool, bool, bool, uint32_t, cudaStream_t);

namespace {
__global__ void rgb8_kernel(const float4 *image, size_t n, unsigned char *rgb)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float4 v = image[i];
        rgb[3 * i] = gpr_to8(v.x);
        rgb[3 * i + 1] = gpr_to8(v.y);
        rgb[3 * i + 2] = gpr_to8(v.z);
    }
}
} // namespace

cudaError_t launch_rgb8(const float4 *image, size_t n, unsigned char *rgb, cudaStream_t st)
{
    rgb8_kernel<<<gpr_stride_blocks(n, 256), 256, 0, st>>>(image, n, rgb);
    return cudaGetLastError();
}

} // namespace gpr_rc
