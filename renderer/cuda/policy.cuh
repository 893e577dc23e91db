/* SPDX-License-Identifier: BSD-3-Clause */
/* policy.cuh - every knob of the CUDA renderer, and the constants its
 * kernels share. Measured effects of the knobs: bench/RESULTS.md. */
#ifndef GPUPRIM_RENDER_CUDA_POLICY_CUH
#define GPUPRIM_RENDER_CUDA_POLICY_CUH

#include "band.h"
#include "gpuprim/render.h"

#include <stdint.h>
#include <stddef.h>

namespace gpr_rc {

/* ---- tuning: every knob of the renderer ---------------------------------- */
/* Tuning knobs for sweeps on the GPU machine (-D at build time); the
 * defaults are the measured best. */
#ifndef GPR_RC_EMIT_COOP_MIN
#define GPR_RC_EMIT_COOP_MIN 32
#endif
#ifndef GPR_RC_TILE_WARPS
#define GPR_RC_TILE_WARPS 24
#endif
#ifndef GPR_RC_TILE_WARPS_REUSE
#define GPR_RC_TILE_WARPS_REUSE 28
#endif
#ifndef GPR_RC_WARP_CIRCLE_N
#define GPR_RC_WARP_CIRCLE_N (1u << 15)
#endif

struct Policy {
    static constexpr int kTile = GPR_RENDER_TILE; /* tile side, pixels (bands are whole tile rows) */
    /* Bin shape (frame.cu's choose_bins): the estimated cost of a frame's
     * binning and culling, in picoseconds per pair, per list entry culled
     * and per sort pass, fitted to H200 frame times (bench/RESULTS.md,
     * "Bins of several tiles"). */
    static constexpr double kBinPairCost = 17.0;
    static constexpr double kBinEntryCost = 17.0;
    static constexpr double kBinPassCost = 9.0e6;
    static constexpr size_t kBinSamples = 1024;
    static constexpr int kRowsPerThread = 4; /* each thread shades a column of this many pixels */
    static constexpr int kTileThreads = kTile * kTile / kRowsPerThread; /* 64 */
    static constexpr int kChunk = kTileThreads;  /* circles culled per step: one per thread */
    /* Register cap for the shading kernel: 65536 / (threads * this) registers
     * per thread: 24 resident warps per SM give 85 registers (R = 8 needs
     * about 100 registers: use 16 warps, 128 registers). */
    static constexpr int kTileWarpsPerSM = GPR_RC_TILE_WARPS;
    static constexpr int kMinTileBlocksPerSM = kTileWarpsPerSM * 32 / kTileThreads;
    /* Binned frames whose circles each fall in at least kReusePairs tiles on
     * average (rand100k 56, biglittle 750; rand1M 6, micro2M 1.3) shade with
     * this many warps per SM (72 registers; the band kernel's shared memory
     * then leaves ~40 KB of L1): big circles gain from the extra warps, while
     * small ones, each read by few tiles, lose more to the smaller L1
     * (measured: bench/RESULTS.md, "Renderer: emit and residency"). */
    static constexpr int kTileWarpsPerSMReuse = GPR_RC_TILE_WARPS_REUSE;
    static constexpr int kMinTileBlocksPerSMReuse = kTileWarpsPerSMReuse * 32 / kTileThreads;
    static constexpr uint64_t kReusePairs = 32;
    /* Non-snow shading blends with one FMA per channel (and defers the cover
     * path's alpha adds to the span's end) whenever a per-span check proves
     * it exact (see fast_acc_ok); false: always gpr_shade's two operations. */
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
     * 32 consecutive keys a store (with 2x2-tile bins, ~17 pairs a rand100k
     * circle: 32 against 16 is 1.5-2% faster, biglittle and rand10k the
     * same; bench/RESULTS.md). */
    static constexpr uint64_t kEmitCoopMin = GPR_RC_EMIT_COOP_MIN;
    /* Sort keys are (tile << cbits) | (circle - batch first). When the tile
     * bits plus the circle bits (of the scene's n) fit in 32, the keys are
     * 32-bit and the radix sort looks only at bits [cbits, cbits + tbits):
     * half the bytes through emit, sort, ranges and the tile kernel's list
     * reads (rand100k, rand1M, biglittle at 1024^2; 8K images or huge scenes
     * keep 64-bit keys, cbits = 32). */
    static constexpr bool kKeys32 = true;
    /* Scenes of at most this many circles are counted and emitted with a
     * whole warp per circle (a lane per tile row): few circles, so one thread
     * per circle leaves the GPU nearly idle while each thread walks up to
     * 32+ rows of a big circle. 0 disables. */
    static constexpr uint32_t kWarpCircleN = GPR_RC_WARP_CIRCLE_N;
    /* Most pairs binned at once: bounds the pair scratch (2 x 8 GB of
     * 64-bit keys); larger frames are drawn in circle batches. */
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


} // namespace gpr_rc

#endif
