/* SPDX-License-Identifier: BSD-3-Clause */
/* card.h - the business-card scene, shared by the CUDA file (raytrace.cu:
 * the CUDA path and the per-ray CPU path) and the AVX-512 packet path
 * (packet.cpp, built by the host compiler alone). Everything here is plain
 * data and float arithmetic that both compilers do the same way. */
#ifndef GPUPRIM_DEMO_CARD_H
#define GPUPRIM_DEMO_CARD_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define CARD_HD __host__ __device__ inline
#else
#define CARD_HD inline
#endif

namespace card {

struct V {
    float x, y, z;
};
CARD_HD V mk(float x, float y, float z) { return V{x, y, z}; }
CARD_HD V add(V a, V b) { return mk(a.x + b.x, a.y + b.y, a.z + b.z); }
CARD_HD V mul(V a, float s) { return mk(a.x * s, a.y * s, a.z * s); }
CARD_HD float dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CARD_HD V cross(V a, V b) { return mk(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
CARD_HD V unit(V a) { return mul(a, 1.0f / sqrtf(dot(a, a))); }

/* The card's letters: bit k of row j is a sphere at (k, 0, j + 4). */
constexpr int kRows = 9, kCols = 19, kMaxSpheres = 56; /* 49 spheres, padded to groups of 8 */
CARD_HD int pattern(int j)
{
    const int g[kRows] = {247570, 280596, 280600, 249748, 18578, 18577, 231184, 16, 16};
    return g[j];
}

/* Sphere centres in the card's test order (k from 18 down, j from 8 down),
 * as structure of arrays for the SIMD test; padded with far spheres. */
struct Spheres {
    float x[kMaxSpheres], z[kMaxSpheres];
    int n;
    float gx0[kMaxSpheres / 8], gx1[kMaxSpheres / 8], gz0[kMaxSpheres / 8], gz1[kMaxSpheres / 8]; /* CPU groups of 8 */
};
inline Spheres make_spheres()
{
    Spheres s;
    s.n = 0;
    for (int k = kCols - 1; k >= 0; --k)
        for (int j = kRows - 1; j >= 0; --j)
            if (pattern(j) & (1 << k)) s.x[s.n] = (float)k, s.z[s.n] = (float)(j + 4), s.n++;
    for (int i = s.n; i < kMaxSpheres; i++) s.x[i] = 1e6f, s.z[i] = 1e6f;
    /* Each group of 8 (in the card's order): the x and z its spheres
     * reach, padded, for the CPU's group cull. */
    for (int g = 0; g < kMaxSpheres / 8; g++) {
        s.gx0[g] = s.gz0[g] = 1e30f;
        s.gx1[g] = s.gz1[g] = -1e30f;
        for (int i = 8 * g; i < 8 * g + 8 && i < s.n; i++) {
            s.gx0[g] = fminf(s.gx0[g], s.x[i] - 1.01f), s.gx1[g] = fmaxf(s.gx1[g], s.x[i] + 1.01f);
            s.gz0[g] = fminf(s.gz0[g], s.z[i] - 1.01f), s.gz1[g] = fmaxf(s.gz1[g], s.z[i] + 1.01f);
        }
    }
    return s;
}
/* The culls' bounds. Every letter sphere lies inside the sphere of radius
 * sqrt(125.44) = 11.2 about (9, 0, 8) (the farthest centre is 9.85 away)
 * and inside the box [-1, 19] x [-1, 1] x [3, 13], padded by 0.01. */
constexpr float kBoundX = 9.f, kBoundZ = 8.f, kBoundR2 = 125.44f;
constexpr float kBoxLoX = -1.01f, kBoxLoY = -1.01f, kBoxLoZ = 2.99f;
constexpr float kBoxHiX = 19.01f, kBoxHiY = 1.01f, kBoxHiZ = 13.01f;

/* Counter-based random numbers: splitmix64 of (pixel, sample, draw). */
struct Rng {
    uint64_t base;
    unsigned draw;
};
CARD_HD float rnd(Rng &r)
{
    uint64_t x = r.base + (uint64_t)(r.draw++) + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return (float)(x >> 40) * (1.0f / 16777216.0f); /* [0, 1) */
}
CARD_HD uint64_t rng_base(uint64_t pixel, int sample) { return (pixel << 20) | ((uint64_t)sample << 8); }

struct Camera {
    V a, b, c;
    float scale; /* 512 / size: the card's pixel grid at any size */
};
inline Camera make_camera(int size)
{
    Camera k;
    V g = unit(mk(-6, -16, 0));
    k.a = mul(unit(cross(mk(0, 0, 1), g)), .002f);
    k.b = mul(unit(cross(g, k.a)), .002f);
    k.c = add(mul(add(k.a, k.b), -256.f), g);
    k.scale = 512.f / (float)size;
    return k;
}

} // namespace card

#endif
