/* SPDX-License-Identifier: BSD-3-Clause */
/* saxpy - z = a*x + y over n floats, on the CPU (threads, 16-byte SIMD
 * vectors) or CUDA (a grid-stride kernel of float4), with the copy ceiling
 * of the same machine measured in the same run: GB/s of SAXPY (12 bytes an
 * element: x and y read, z written) against GB/s of a device (or host)
 * copy of 8 bytes an element. Both paths compute fl(fl(a*x) + y) (no FMA),
 * so the result is checked exactly against a plain loop.
 *
 *   saxpy [-n N] [--backend auto|cuda|cpu] [--threads T] [--reps R]
 */
#include "demo_util.h"

#include <gpuprim/gpuprim.h>

namespace {

typedef float f4 __attribute__((vector_size(16)));

struct CpuArgs {
    float a;
    const float *x, *y;
    float *z;
    size_t n;
};

void saxpy_part(void *arg, int part, int parts)
{
    const CpuArgs *c = (const CpuArgs *)arg;
    size_t lo = c->n / (size_t)parts * (size_t)part, hi = part == parts - 1 ? c->n : c->n / (size_t)parts * (size_t)(part + 1);
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) { /* 16-byte vectors; memcpy: no alignment assumed */
        f4 x, y, z;
        memcpy(&x, c->x + i, 16);
        memcpy(&y, c->y + i, 16);
        z = c->a * x + y; /* -ffp-contract=off: a multiply, then an add */
        memcpy(c->z + i, &z, 16);
    }
    for (; i < hi; i++) c->z[i] = c->a * c->x[i] + c->y[i];
}

struct CopyArgs {
    const float *src;
    float *dst;
    size_t n;
};
void copy_part(void *arg, int part, int parts)
{
    const CopyArgs *c = (const CopyArgs *)arg;
    size_t lo = c->n / (size_t)parts * (size_t)part, hi = part == parts - 1 ? c->n : c->n / (size_t)parts * (size_t)(part + 1);
    memcpy(c->dst + lo, c->src + lo, (hi - lo) * sizeof(float));
}

__global__ void saxpy_kernel(float a, const float *__restrict__ x, const float *__restrict__ y, float *__restrict__ z,
                             size_t n)
{
    const size_t n4 = n / 4, stride = (size_t)gridDim.x * blockDim.x;
    const float4 *x4 = (const float4 *)x, *y4 = (const float4 *)y;
    float4 *z4 = (float4 *)z;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 u = x4[i], v = y4[i];
        z4[i] = make_float4(__fadd_rn(__fmul_rn(a, u.x), v.x), __fadd_rn(__fmul_rn(a, u.y), v.y),
                            __fadd_rn(__fmul_rn(a, u.z), v.z), __fadd_rn(__fmul_rn(a, u.w), v.w));
    }
    for (size_t i = 4 * n4 + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) /* the tail */
        z[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

struct DevArgs {
    float a;
    float *x, *y, *z;
    size_t n;
    unsigned blocks;
    cudaStream_t st;
};
void run_saxpy(void *p)
{
    DevArgs *d = (DevArgs *)p;
    saxpy_kernel<<<d->blocks, 256, 0, d->st>>>(d->a, d->x, d->y, d->z, d->n);
    DEMO_CUDA(cudaGetLastError());
}
void run_copy(void *p)
{
    DevArgs *d = (DevArgs *)p;
    DEMO_CUDA(cudaMemcpyAsync(d->z, d->x, d->n * sizeof(float), cudaMemcpyDeviceToDevice, d->st));
}

} // namespace

static const char kUsage[] =
    "saxpy - z = a*x + y on the CPU (threads + SIMD) or CUDA, against the copy ceiling\n"
    "  -n N                      elements (K/M/G suffixes; default 64M)\n"
    "  --backend auto|cuda|cpu   where to run (auto: CUDA when a device answers)\n"
    "  --threads T               CPU threads (default: all cores)\n"
    "  --reps R                  timed runs, median reported (default 20)\n"
    "  --help";

int main(int argc, char **argv)
{
    const char *backend = "auto";
    size_t n = (size_t)1 << 26;
    int threads = demo_cpu_threads(), reps = 20;
    const float a = 2.5f;
    const char *o, *v;
    for (int i = 1; demo_option(argc, argv, &i, kUsage, &o, &v);) {
        if (!strcmp(o, "-n")) n = demo_size(v);
        else if (!strcmp(o, "--backend")) backend = v;
        else if (!strcmp(o, "--threads")) threads = atoi(v);
        else if (!strcmp(o, "--reps")) reps = atoi(v);
        else demo_die("unknown option %s (see --help)", o);
    }
    if (n < 1 || threads < 1 || reps < 1 || reps > 64) demo_die("-n >= 1, --threads >= 1, --reps 1..64");
    const int cuda = demo_use_cuda(backend);
    float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4), *z = (float *)malloc(n * 4);
    if (!x || !y || !z) demo_die("out of host memory for n = %zu", n);
    for (size_t i = 0; i < n; i++) x[i] = (float)(i % 1000) * 0.001f - 0.5f, y[i] = (float)(i % 777) * 0.25f;
    memset(z, 0xA5, n * 4); /* poison: an unwritten element fails the check */
    double t_op, t_copy;
    const char *where;
    if (cuda) {
        DevArgs d = {a, NULL, NULL, NULL, n, 0, NULL};
        int sms = 0;
        DEMO_CUDA(cudaStreamCreate(&d.st));
        DEMO_CUDA(cudaMalloc(&d.x, n * 4));
        DEMO_CUDA(cudaMalloc(&d.y, n * 4));
        DEMO_CUDA(cudaMalloc(&d.z, n * 4));
        DEMO_CUDA(cudaMemcpy(d.x, x, n * 4, cudaMemcpyHostToDevice));
        DEMO_CUDA(cudaMemcpy(d.y, y, n * 4, cudaMemcpyHostToDevice));
        DEMO_CUDA(cudaMemcpy(d.z, z, n * 4, cudaMemcpyHostToDevice));
        DEMO_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        size_t want = (n / 4 + 255) / 256;
        d.blocks = (unsigned)(want < (size_t)sms * 16 ? (want ? want : 1) : (size_t)sms * 16);
        t_op = demo_time_device(run_saxpy, &d, d.st, reps);
        DEMO_CUDA(cudaMemcpy(z, d.z, n * 4, cudaMemcpyDeviceToHost));
        float *tmp = d.z; /* the copy writes a scratch buffer, not the result */
        DEMO_CUDA(cudaMalloc(&d.z, n * 4));
        t_copy = demo_time_device(run_copy, &d, d.st, reps);
        cudaFree(d.z), cudaFree(tmp), cudaFree(d.x), cudaFree(d.y);
        static char name[300];
        cudaDeviceProp p;
        DEMO_CUDA(cudaGetDeviceProperties(&p, 0));
        snprintf(name, sizeof name, "cuda (%s)", p.name);
        where = name;
    } else {
        CpuArgs c = {a, x, y, z, n};
        float *scratch = (float *)malloc(n * 4);
        CopyArgs cp = {x, scratch, n};
        double ts[64];
        if (!scratch) demo_die("out of host memory");
        demo_parallel(saxpy_part, &c, threads); /* warm-up: page faults */
        for (int r = 0; r < reps; r++) {
            double t0 = demo_now();
            demo_parallel(saxpy_part, &c, threads);
            ts[r] = demo_now() - t0;
        }
        t_op = demo_median(ts, reps);
        demo_parallel(copy_part, &cp, threads);
        for (int r = 0; r < reps; r++) {
            double t0 = demo_now();
            demo_parallel(copy_part, &cp, threads);
            ts[r] = demo_now() - t0;
        }
        t_copy = demo_median(ts, reps);
        free(scratch);
        static char name[64];
        snprintf(name, sizeof name, "cpu (%d threads, 16-byte SIMD)", threads);
        where = name;
    }
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float want = a * x[i] + y[i];
        if (memcmp(&want, &z[i], 4)) bad++;
    }
    const double gbs = 12.0 * (double)n / t_op * 1e-9, copy_gbs = 8.0 * (double)n / t_copy * 1e-9;
    printf("saxpy: n = %zu, %s: %.3f ms, %.1f GB/s = %.1f%% of the copy ceiling (%.1f GB/s, %.3f ms, same run); "
           "check against a plain loop: %s\n",
           n, where, t_op * 1e3, gbs, 100.0 * gbs / copy_gbs, copy_gbs, t_copy * 1e3,
           bad ? "FAILED" : "exact");
    free(x), free(y), free(z);
    return bad ? 1 : 0;
}
