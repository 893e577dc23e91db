/* SPDX-License-Identifier: BSD-3-Clause */
/* pack.cu - set_scene's kernel: each circle's geometry, premultiplied
 * colour and pixel box, with the proof (per circle) that no pixel outside
 * the box can pass the shading test. */
#include "cuda/cull.cuh"
#include "cuda/kernels.cuh"

namespace gpr_rc {
namespace {


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
    gpr_circle_box(px, py, r, width, height, &x0, &x1, &y0, &y1);
    if (x0 < x1 && y0 < y1) {
        if (x0 > 0 && !edge_safe(__fsub_rn(px, gpr_pixel_x(x0 - 1, invW)), r, true)) unsafe = true;
        if (x1 < width && !edge_safe(__fsub_rn(px, gpr_pixel_x(x1, invW)), r, false)) unsafe = true;
        if (y0 > 0 && !edge_safe(__fsub_rn(py, gpr_pixel_y(y0 - 1, invH)), r, true)) unsafe = true;
        if (y1 < height && !edge_safe(__fsub_rn(py, gpr_pixel_y(y1, invH)), r, false)) unsafe = true;
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
    /* Colours are kept premultiplied by alpha: gpr_shade's alpha * r with
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


} // namespace

cudaError_t launch_pack(const float *pos, const float *rad, const float *col, uint32_t n, int width, int height,
                        int band_y0, int band_y1, float invW, float invH, float4 *geom, float4 *colour, uint2 *box,
                        cudaStream_t st)
{
    pack_kernel<<<(unsigned)((n + P::kBinThreads - 1) / P::kBinThreads), P::kBinThreads, 0, st>>>(
        pos, rad, col, n, width, height, band_y0, band_y1, invW, invH, geom, colour, box);
    return cudaGetLastError();
}

} // namespace gpr_rc
