/* SPDX-License-Identifier: BSD-3-Clause */
/* raytrace - Andrew Kensler's business-card raytracer, readable, on the CPU
 * (threads, SIMD sphere tests, a bounding-box cull) and on CUDA.
 *
 * The scene is the card's: 49 unit spheres spelling "aek" (bit k of row j
 * of the pattern puts a sphere at (k, 0, j + 4)), a checkered floor z = 0,
 * a sky gradient, one light jittered per ray (soft shadows), mirror
 * reflection at half strength, a lens jittered per sample (depth of
 * field), 64 samples a pixel, 512 x 512.
 *
 * Both paths compute every pixel with the same operations in the same
 * order, so they give the same image: random numbers come from a counter-
 * based generator keyed by (pixel, sample, draw), pow(x, 4) and pow(x, 99)
 * are products, and the CUDA file is built with --fmad=false while the C++
 * side has -ffp-contract=off; sqrt and division are IEEE on both. The
 * nearest sphere is the first minimal one in the card's order on both (the
 * SIMD test computes every candidate, then reduces in that order). The
 * card wraps channel sums past 255 (printf %c); here they are clamped.
 *
 *   raytrace [--backend auto|cuda|cpu] [--size N] [--samples S] [--output FILE]
 *            [--threads T] [--compare FILE --tolerance L] [--reps R]
 */
#include "demo_util.h"

#include <gpuprim/render.h>

#include <math.h>

#include "raytrace/card.h"
#include "raytrace/packet.h"

namespace {

using namespace card;


__constant__ Spheres d_spheres;

/* Does the ray meet the letters' bounding box [-1, 19] x [-1, 1] x [3, 13]?
 * A conservative slab test: a miss proves no sphere is hit beyond t = 0;
 * a hit gives the ray's interval [t0, t1] inside the box. */
__host__ __device__ inline bool box_span(V o, V d, float &t0_out, float &t1_out)
{
    const float lo[3] = {kBoxLoX, kBoxLoY, kBoxLoZ}, hi[3] = {kBoxHiX, kBoxHiY, kBoxHiZ};
    const float oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    float t0 = 0.f, t1 = 1e30f;
    for (int a = 0; a < 3; a++) {
        if (dd[a] == 0.f) {
            if (oo[a] < lo[a] || oo[a] > hi[a]) return false;
            continue;
        }
        float inv = 1.f / dd[a], ta = (lo[a] - oo[a]) * inv, tb = (hi[a] - oo[a]) * inv;
        if (ta > tb) { float x = ta; ta = tb; tb = x; }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1) return false;
    }
    t0_out = t0, t1_out = t1;
    return true;
}

/* A cheaper first cull, no division: the bounding sphere. */
__host__ __device__ inline bool bound_hit(V o, V d)
{
    V p = mk(o.x - kBoundX, o.y, o.z - kBoundZ);
    float b = dot(p, d), c = dot(p, p) - kBoundR2;
    return c <= 0.f || (b < 0.f && b * b - c > 0.f);
}

/* One sphere's test, the card's arithmetic: p = o - centre, b = p.d,
 * c = p.p - 1, q = b*b - c; hit at s = -b - sqrt(q) when q > 0. */
__host__ __device__ inline float sphere_s(V o, V d, float cx, float cz)
{
    V p = mk(o.x - cx, o.y, o.z - cz);
    float b = dot(p, d), c = dot(p, p) - 1.f, q = b * b - c;
    return q > 0.f ? -b - sqrtf(q) : 1e30f;
}

enum { kSky = 0, kFloor = 1, kSphere = 2 };

/* The card's T: nearest of the floor and the spheres past t = 0.01.
 * ANY (shadow rays): only whether T would return non-zero, so the first
 * hit found ends the search (t and n are then not the nearest). */
template <bool SIMD, bool ANY = false>
__host__ __device__ inline int trace(V o, V d, float &t, V &n, const Spheres &sp)
{
    int m = kSky, best = -1;
    float p = -o.z / d.z;
    t = 1e9f;
    if (.01f < p) t = p, n = mk(0, 0, 1), m = kFloor;
    if (ANY && m) return m;
    float t0, t1;
    /* No sphere past the box, nor behind a floor hit that comes before it
     * (the box is padded by 0.01: a sphere hit lies inside it). */
    if (!bound_hit(o, d) || !box_span(o, d, t0, t1) || t0 > t) return m;
#ifndef __CUDA_ARCH__
    if (SIMD) {
        /* 4 spheres a vector, groups of 8, taken in the card's order. A group none of whose spheres the ray can reach
         * while inside the box (x and z over [t0, t1]) is skipped: its s
         * would all be misses, so the result is the unculled one. */
        typedef float f4 __attribute__((vector_size(16)));
        typedef int i4 __attribute__((vector_size(16)));
        float xa = o.x + d.x * t0, xb = o.x + d.x * t1, za = o.z + d.z * t0, zb = o.z + d.z * t1;
        if (xa > xb) { float x = xa; xa = xb; xb = x; }
        if (za > zb) { float x = za; za = zb; zb = x; }
        for (int g = 0; 8 * g < sp.n; g++) {
            const int i = 8 * g;
            if (xb < sp.gx0[g] || xa > sp.gx1[g] || zb < sp.gz0[g] || za > sp.gz1[g]) continue;
            for (int h = i; h < i + 8; h += 4) { /* SSE width: 16-byte vectors keep their alignment */
                f4 cx, cz;
                memcpy(&cx, sp.x + h, 16);
                memcpy(&cz, sp.z + h, 16);
                f4 px = o.x - cx, py = (f4){0.f, 0.f, 0.f, 0.f} + o.y, pz = o.z - cz;
                f4 b = px * d.x + py * d.y + pz * d.z;
                f4 c = px * px + py * py + pz * pz - 1.f;
                f4 q = b * b - c;
                const f4 zero = {0.f, 0.f, 0.f, 0.f}, miss = {1e30f, 1e30f, 1e30f, 1e30f};
                f4 root = __builtin_ia32_sqrtps(q > zero ? q : zero); /* IEEE, as sqrtf */
                f4 sv = q > zero ? -b - root : miss;
                /* the card's scan, in order, only where a lane can win */
                i4 win = (sv < t) & (sv > .01f);
                if (win[0] | win[1] | win[2] | win[3])
                    for (int l = 0; l < 4 && h + l < sp.n; l++)
                        if (sv[l] < t && sv[l] > .01f) {
                            if (ANY) return kSphere;
                            t = sv[l], best = h + l;
                        }
            }
        }
    } else
#endif
    {
        for (int i = 0; i < sp.n; i++) {
            float s = sphere_s(o, d, sp.x[i], sp.z[i]);
            if (s < t && s > .01f) {
                if (ANY) return kSphere;
                t = s, best = i;
            }
        }
    }
    if (best >= 0) {
        n = unit(add(mk(o.x - sp.x[best], o.y, o.z - sp.z[best]), mul(d, t)));
        m = kSphere;
    }
    return m;
}

__host__ __device__ inline float pow99(float x)
{
    float x2 = x * x, x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8, x32 = x16 * x16, x64 = x32 * x32;
    return x64 * x32 * x2 * x;
}

/* The card's S, as a loop: each mirror bounce adds half as much. */
template <bool SIMD>
__host__ __device__ V shade(V o, V d, Rng &rng, const Spheres &sp)
{
    V sum = mk(0, 0, 0);
    float w = 1.f;
    for (int depth = 0; depth < 32; depth++) {
        float t;
        V n;
        int m = trace<SIMD>(o, d, t, n, sp);
        if (m == kSky) {
            float k = 1.f - d.z, k2 = k * k;
            return add(sum, mul(mk(.7f, .6f, 1.f), w * (k2 * k2)));
        }
        V h = add(o, mul(d, t));
        float lx = 9.f + rnd(rng), ly = 9.f + rnd(rng);
        V l = unit(add(mk(lx, ly, 16.f), mul(h, -1.f)));
        float b = dot(l, n), ts;
        V ns;
        if (b < 0.f || trace<SIMD, true>(h, l, ts, ns, sp)) b = 0.f;
        if (m == kFloor) {
            V g = mul(h, .2f);
            bool red = ((int)(ceilf(g.x) + ceilf(g.y))) & 1;
            return add(sum, mul(red ? mk(3, 1, 1) : mk(3, 3, 3), w * (b * .2f + .1f)));
        }
        V r = add(d, mul(n, dot(n, d) * -2.f)); /* the mirror direction: spheres only */
        float p = pow99(dot(l, r) * (b > 0.f ? 1.f : 0.f));
        sum = add(sum, mul(mk(p, p, p), w));
        w *= .5f;
        o = h;
        d = r;
    }
    return sum;
}

/* Pixel (x, y) of the card (x, y from 0; y = 0 is the bottom row), all samples. */
template <bool SIMD>
__host__ __device__ inline void pixel(const Camera &k, const Spheres &sp, int size, int samples, int x, int y,
                                      unsigned char *rgb)
{
    V acc = mk(13, 13, 13);
    const uint64_t id = (uint64_t)y * (uint64_t)size + (uint64_t)x;
    for (int s = 0; s < samples; s++) {
        Rng rng = {rng_base(id, s), 0};
        float u = rnd(rng) - .5f, v = rnd(rng) - .5f;
        V t = add(mul(k.a, u * 99.f), mul(k.b, v * 99.f));
        float px = (rnd(rng) + (float)x) * k.scale, py = ((float)y + rnd(rng)) * k.scale;
        V dir = unit(add(mul(t, -1.f), mul(add(add(mul(k.a, px), mul(k.b, py)), k.c), 16.f)));
        acc = add(mul(shade<SIMD>(add(mk(17, 16, 8), t), dir, rng, sp), 3.5f * 64.f / (float)samples), acc);
    }
    /* The card prints from x = 511 leftwards: column size-1-x. */
    unsigned char *o = rgb + 3 * ((size_t)y * (size_t)size + (size_t)(size - 1 - x));
    o[0] = (unsigned char)fminf(acc.x, 255.f);
    o[1] = (unsigned char)fminf(acc.y, 255.f);
    o[2] = (unsigned char)fminf(acc.z, 255.f);
}

__global__ void render_kernel(Camera k, int size, int samples, unsigned char *rgb)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < size && y < size) pixel<false>(k, d_spheres, size, samples, x, y, rgb);
}

struct CpuJob {
    Camera k;
    Spheres sp;
    int size, samples;
    unsigned char *rgb;
    int lanes;             /* rt_packet_row's packet width (16, 8), or 0: the per-ray path */
    volatile int next_row; /* rows handed out one at a time */
};
void cpu_part(void *arg, int, int)
{
    CpuJob *j = (CpuJob *)arg;
    for (;;) {
        int y = __atomic_fetch_add(&j->next_row, 1, __ATOMIC_RELAXED);
        if (y >= j->size) break;
        if (j->lanes) rt_packet_row(j->k, j->sp, j->size, j->samples, y, j->rgb, j->lanes);
        else
            for (int x = 0; x < j->size; x++) pixel<true>(j->k, j->sp, j->size, j->samples, x, y, j->rgb);
    }
}

const char kUsage[] =
    "raytrace - the business-card raytracer on the CPU (threads, SIMD) or CUDA\n"
    "  --backend auto|cuda|cpu   where to render (auto: CUDA when a device answers)\n"
    "  --size N                  image side, pixels (default 512)\n"
    "  --samples S               samples a pixel (default 64)\n"
    "  --output FILE             write the image (.png or .ppm, by gpuprim's image writer)\n"
    "  --threads T               CPU threads (default: all cores)\n"
    "  --cpu-path auto|packets|rays  packets: 16 samples a vector (AVX-512) or 8 (AVX2;\n"
    "                            also where GP_CPU_PACKETS=avx2); rays: one ray at a\n"
    "                            time, SIMD over spheres (auto: packets where the CPU\n"
    "                            has AVX2 or AVX-512; packets where it has neither:\n"
    "                            exit 77); all give the same image\n"
    "  --reps R                  render R times, report the median (default 1; CUDA: 5)\n"
    "  --compare FILE --tolerance L  fail unless every channel is within L levels of FILE's\n"
    "  --help";

} // namespace

int main(int argc, char **argv)
{
    const char *backend = "auto", *output = NULL, *compare = NULL, *cpu_path = "auto";
    int size = 512, samples = 64, threads = demo_cpu_threads(), reps = 0, tolerance = 0;
    const char *o, *v;
    for (int i = 1; demo_option(argc, argv, &i, kUsage, &o, &v);) {
        if (!strcmp(o, "--backend")) backend = v;
        else if (!strcmp(o, "--size")) size = atoi(v);
        else if (!strcmp(o, "--samples")) samples = atoi(v);
        else if (!strcmp(o, "--output")) output = v;
        else if (!strcmp(o, "--threads")) threads = atoi(v);
        else if (!strcmp(o, "--reps")) reps = atoi(v);
        else if (!strcmp(o, "--compare")) compare = v;
        else if (!strcmp(o, "--tolerance")) tolerance = atoi(v);
        else if (!strcmp(o, "--cpu-path")) cpu_path = v;
        else demo_die("unknown option %s (see --help)", o);
    }
    if (size < 1 || size > 8192 || samples < 1 || samples > 4096 || threads < 1 || reps < 0)
        demo_die("--size 1..8192, --samples 1..4096, --threads >= 1");
    int lanes = rt_packet_lanes();
    if (!strcmp(cpu_path, "rays")) lanes = 0;
    else if (!strcmp(cpu_path, "packets") && !lanes) {
        /* 77: the tests' "skipped" code */
        fprintf(stderr, "raytrace: --cpu-path packets: this CPU has neither AVX2 nor AVX-512 (F and DQ)\n");
        return 77;
    } else if (strcmp(cpu_path, "packets") && strcmp(cpu_path, "auto"))
        demo_die("--cpu-path must be auto, packets or rays (got %s)", cpu_path);
    const int cuda = demo_use_cuda(backend);
    if (!reps) reps = cuda ? 5 : 1;
    const size_t bytes = (size_t)size * size * 3;
    unsigned char *rgb = (unsigned char *)malloc(bytes);
    if (!rgb) demo_die("out of memory");
    Camera k = make_camera(size);
    Spheres sp = make_spheres();
    double t[64];
    if (reps > 64) reps = 64;
    if (cuda) {
        unsigned char *d_rgb;
        cudaEvent_t e0, e1;
        DEMO_CUDA(cudaMemcpyToSymbol(d_spheres, &sp, sizeof sp));
        DEMO_CUDA(cudaMalloc(&d_rgb, bytes));
        DEMO_CUDA(cudaEventCreate(&e0));
        DEMO_CUDA(cudaEventCreate(&e1));
        dim3 blk(16, 8), grid((size + 15) / 16, (size + 7) / 8);
        render_kernel<<<grid, blk>>>(k, size, samples, d_rgb); /* warm-up */
        DEMO_CUDA(cudaGetLastError());
        for (int r = 0; r < reps; r++) {
            float ms;
            DEMO_CUDA(cudaEventRecord(e0));
            render_kernel<<<grid, blk>>>(k, size, samples, d_rgb);
            DEMO_CUDA(cudaEventRecord(e1));
            DEMO_CUDA(cudaEventSynchronize(e1));
            DEMO_CUDA(cudaEventElapsedTime(&ms, e0, e1));
            t[r] = ms * 1e-3;
        }
        DEMO_CUDA(cudaMemcpy(rgb, d_rgb, bytes, cudaMemcpyDeviceToHost));
        cudaFree(d_rgb);
    } else {
        for (int r = 0; r < reps; r++) {
            CpuJob j = {k, sp, size, samples, rgb, lanes, 0};
            double t0 = demo_now();
            demo_parallel(cpu_part, &j, threads);
            t[r] = demo_now() - t0;
        }
    }
    double med = demo_median(t, reps);
    if (cuda) {
        cudaDeviceProp p;
        DEMO_CUDA(cudaGetDeviceProperties(&p, 0));
        printf("raytrace: %dx%d, %d samples, cuda (%s): %.3f ms per image (median of %d, device events)\n", size,
               size, samples, p.name, med * 1e3, reps);
    } else {
        printf("raytrace: %dx%d, %d samples, cpu (%d threads, %s): %.3f ms per image (median of %d)\n", size, size,
               samples, threads,
               lanes == 16  ? "16-sample AVX-512 packets"
               : lanes == 8 ? "8-sample AVX2 packets"
                            : "one ray at a time, SIMD spheres, box cull",
               med * 1e3, reps);
    }
    if (output) {
        gp_status s = gp_image_write_rgb8(output, rgb, size, size);
        if (s) demo_die("writing %s: %s (%s)", output, gp_status_string(s), gp_last_io_error());
        printf("wrote %s\n", output);
    }
    if (compare) {
        int w = 0, h = 0;
        unsigned char *ref = (unsigned char *)malloc(bytes);
        size_t worst_at = 0, over = 0;
        int worst = 0;
        gp_status s = gp_image_read_rgb8(compare, &w, &h, ref, bytes);
        if (s) demo_die("reading %s: %s (%s)", compare, gp_status_string(s), gp_last_io_error());
        if (w != size || h != size) demo_die("%s is %dx%d, the image %dx%d", compare, w, h, size, size);
        for (size_t i = 0; i < bytes; i++) {
            int d = abs((int)rgb[i] - (int)ref[i]);
            if (d > worst) worst = d, worst_at = i;
            over += d > tolerance;
        }
        printf("compare with %s: largest difference %d levels (byte %zu), %zu of %zu channels over %d\n", compare,
               worst, worst_at, over, bytes, tolerance);
        free(ref);
        if (over) return 1;
    }
    free(rgb);
    return 0;
}
