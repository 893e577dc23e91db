/* SPDX-License-Identifier: BSD-3-Clause */
/* kernels.cuh - what the frame driver (frame.cu) launches: each launch
 * wrapper lives beside its kernels (pack.cu, bin.cu, shade.cu). All are
 * asynchronous on `st` and return cudaGetLastError(). */
#ifndef GPUPRIM_RENDER_CUDA_KERNELS_CUH
#define GPUPRIM_RENDER_CUDA_KERNELS_CUH

#include "cuda/policy.cuh"

#include <cuda_runtime.h>

namespace gpr_rc {

/* set_scene: circles (the course's arrays) into packed geometry, premultiplied
 * colour and clamped pixel boxes, for the band's pixel rows [band_y0, band_y1). */
cudaError_t launch_pack(const float *pos, const float *rad, const float *col, uint32_t n, int width, int height,
                        int band_y0, int band_y1, float invW, float invH, float4 *geom, float4 *colour, uint2 *box,
                        cudaStream_t st);

/* Binning (bin.cu), on bins of 2^lg.x x 2^lg.y pixels (bins_x, num_bins:
 * the bin grid): per-circle bin counts; the (bin, circle) keys of circles
 * [c0, c1) (which also clears ranges); the batch search; each bin's range
 * in the sorted keys. K: uint32_t or uint64_t keys. */
cudaError_t launch_count(const float4 *geom, const uint2 *box, uint32_t n, int2 lg, float invW, float invH,
                         uint64_t *counts, cudaStream_t st);
template <typename K>
cudaError_t launch_emit(const float4 *geom, const uint2 *box, const uint64_t *incl, uint32_t c0, uint32_t c1,
                        uint64_t base, int bins_x, int2 lg, int cbits, float invW, float invH, K *pairs, uint2 *ranges,
                        uint32_t num_bins, cudaStream_t st);
cudaError_t launch_batch_end(const uint64_t *incl, uint32_t c0, uint32_t n, uint64_t limit, uint64_t *out,
                             cudaStream_t st);
template <typename K>
cudaError_t launch_ranges(const K *keys, uint32_t np, int cbits, uint2 *ranges, cudaStream_t st);

/* Shading (shade.cu): one block per tile of the band. */
struct TileArgs {
    const float4 *geom;   /* x, y, z, radius */
    const float4 *colour; /* .5 * (r, g, b), - */
    const uint2 *box;     /* packed pixel boxes */
    const void *list;     /* binned: sorted K keys (bin << cbits | circle - c0) */
    const uint2 *ranges;  /* binned: each bin's [start, end) in list */
    int2 bin_shift;       /* binned: a bin is 2^bin_shift.x x 2^bin_shift.y tiles */
    int bins_x;
    uint32_t c0, c1;      /* unbinned: circles [c0, c1); binned: c0 = the batch's first */
    uint32_t cmask;       /* binned: (1 << cbits) - 1, the circle bits of a key */
    float4 *image;        /* the band's rows: pixel row j is image row j - row0 */
    int width, height, tiles_x;
    uint32_t tile0;       /* block b shades tile tile0 + b */
    int row0;
    float invW, invH;
    int first; /* start from the background (else from the image: a later batch) */
};

/* binned: a.list holds sorted K keys; else every circle of [a.c0, a.c1).
 * reuse: binned circles fall in P::kReusePairs tiles or more on average. */
template <typename K>
cudaError_t launch_tiles(const TileArgs &a, bool snow, bool binned, bool reuse, uint32_t blocks, cudaStream_t st);

/* The image as 8-bit RGB (gpr_to8 per channel). */
cudaError_t launch_rgb8(const float4 *image, size_t n, unsigned char *rgb, cudaStream_t st);

} // namespace gpr_rc

#endif
