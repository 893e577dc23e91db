/* SPDX-License-Identifier: BSD-3-Clause */
/* packet.cpp - the business-card raytracer on the CPU, 16 or 8 samples at a
 * time.
 *
 * The per-ray path (raytrace.cu) spends most of its time in scalar control
 * flow around small sphere tests. Here the lanes of a vector (16 with
 * AVX-512, 8 with AVX2) are samples of one pixel: jittered through the same pixel and lens, they
 * mostly meet the same things, so the lanes stay busy. Every lane does the
 * per-ray path's operations in the same order, with selects where that path
 * branches, so the image is the same bit for bit (the demo's tests hold the
 * two paths to it). A lane that is done (sky, floor, or off the end of the
 * sample count) is masked off until its packet's last lane is done.
 *
 * The random draws of a sample are numbered from 0 (four for the camera,
 * two per bounce that is not sky); lanes still tracing have made the same
 * number of draws, so one counter serves the packet. */
#include "raytrace/packet.h"

#include <stdlib.h>
#include <string.h>

using namespace card;

#if !(defined(__x86_64__) && defined(__GNUC__))
/* Not x86-64 (or not GCC/Clang): the per-ray path serves. */
int rt_packet_lanes() { return 0; }
void rt_packet_row(const Camera &, const Spheres &, int, int, int, unsigned char *, int) {}
#else

#include <immintrin.h>

int rt_packet_lanes()
{
    /* GP_CPU_PACKETS=avx2: 8-sample packets even where AVX-512 is there
     * (what a CPU with AVX2 and no AVX-512 runs) */
    const char *force = getenv("GP_CPU_PACKETS");
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && !(force && !strcmp(force, "avx2")))
        return 16;
    if (__builtin_cpu_supports("avx2")) return 8;
    return 0;
}

/* Everything below runs only where rt_packet_lanes() says so. */
#pragma GCC diagnostic push
/* GCC 12 warns about the _mm512_undefined_ps inside its own sqrt, roundscale
 * and gather intrinsics (GCC bug 105593, fixed in 13). */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq")
namespace lanes16 {
constexpr int kLanes = 16;
typedef float vf __attribute__((vector_size(64)));
typedef int32_t vi __attribute__((vector_size(64)));
typedef uint64_t vq __attribute__((vector_size(64)));
typedef int32_t vh __attribute__((vector_size(32)));
inline vf splat(float s) { return (vf)_mm512_set1_ps(s); }
inline vi splati(int s) { return (vi)_mm512_set1_epi32(s); }
inline bool any(vi m) { return _mm512_movepi32_mask((__m512i)m) != 0; }
inline vf vsqrt(vf a) { return (vf)_mm512_sqrt_ps((__m512)a); }
inline vf vceil(vf a) { return (vf)_mm512_roundscale_ps((__m512)a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline vf gather(const float *base, vi idx) { return (vf)_mm512_i32gather_ps((__m512i)idx, base, 4); }
inline vi concat(vh lo, vh hi) { return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
inline vi lane_index() { return vi{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}; }
inline vq half_index() { return vq{0, 1, 2, 3, 4, 5, 6, 7}; }
#include "raytrace/packet_lanes.h"
} // namespace lanes16
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2")
namespace lanes8 {
constexpr int kLanes = 8;
typedef float vf __attribute__((vector_size(32)));
typedef int32_t vi __attribute__((vector_size(32)));
typedef uint64_t vq __attribute__((vector_size(32)));
typedef int32_t vh __attribute__((vector_size(16)));
inline vf splat(float s) { return (vf)_mm256_set1_ps(s); }
inline vi splati(int s) { return (vi)_mm256_set1_epi32(s); }
inline bool any(vi m) { return _mm256_movemask_ps((__m256)m) != 0; }
inline vf vsqrt(vf a) { return (vf)_mm256_sqrt_ps((__m256)a); }
inline vf vceil(vf a) { return (vf)_mm256_round_ps((__m256)a, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
inline vf gather(const float *base, vi idx) { return (vf)_mm256_i32gather_ps(base, (__m256i)idx, 4); }
inline vi concat(vh lo, vh hi) { return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7); }
inline vi lane_index() { return vi{0, 1, 2, 3, 4, 5, 6, 7}; }
inline vq half_index() { return vq{0, 1, 2, 3}; }
#include "raytrace/packet_lanes.h"
} // namespace lanes8
#pragma GCC pop_options

} // namespace

void rt_packet_row(const Camera &k, const Spheres &sp, int size, int samples, int y, unsigned char *rgb, int lanes)
{
    if (lanes == 16) lanes16::row(k, sp, size, samples, y, rgb);
    else lanes8::row(k, sp, size, samples, y, rgb);
}

#pragma GCC diagnostic pop

#endif /* x86-64 */
