/* SPDX-License-Identifier: BSD-3-Clause */
/* Random inputs, poisoning and device-side comparisons for bench_prims. */
#include "harness.cuh"

#include <algorithm>
#include <cstdarg>

/* v = lo + hash % range (range 0 means the full 2^32 range) */
__global__ void k_fill_i32(int32_t *p, size_t n, uint64_t seed, int64_t lo, uint64_t range)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = range ? (int32_t)(lo + (int64_t)(h % range)) : (int32_t)(uint32_t)h;
    }
}

/* flags: non-zero (1..255, varied) with probability percent/100 */
__global__ void k_fill_flags_u8(uint8_t *p, size_t n, uint64_t seed, unsigned percent)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = ((h & 0xFFFFFFFFu) % 100u < percent) ? (uint8_t)(1u + (h >> 32) % 255u) : (uint8_t)0;
    }
}

/* uniform in [-1, 1), no denormals */
__global__ void k_fill_f32(float *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = (float)(h >> 40) * (1.0f / 8388608.0f) - 1.0f;
    }
}

__global__ void k_fill_f64(double *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = mix64(seed * 0x100000001B3ull + i);
        p[i] = (double)(h >> 11) * (1.0 / 4503599627370496.0) - 1.0;
    }
}

__global__ void k_fill_run_keys(int32_t *p, size_t n, size_t run_len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = run_key(i / run_len);
}

static uint64_t g_seed = 20261122;

unsigned fill_blocks(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)std::min<size_t>(std::max<size_t>(b, 1), 65536);
}

void fill_i32(void *p, size_t n, int64_t lo, uint64_t range)
{
    k_fill_i32<<<fill_blocks(n), 256, 0, g_stream>>>((int32_t *)p, n, ++g_seed, lo, range);
    CK_LAUNCH();
}

void fill_flags(void *p, size_t n, unsigned percent)
{
    k_fill_flags_u8<<<fill_blocks(n), 256, 0, g_stream>>>((uint8_t *)p, n, ++g_seed, percent);
    CK_LAUNCH();
}

void fill_f32(void *p, size_t n)
{
    k_fill_f32<<<fill_blocks(n), 256, 0, g_stream>>>((float *)p, n, ++g_seed);
    CK_LAUNCH();
}

void fill_f64(void *p, size_t n)
{
    k_fill_f64<<<fill_blocks(n), 256, 0, g_stream>>>((double *)p, n, ++g_seed);
    CK_LAUNCH();
}

void fill_run_keys(void *p, size_t n, size_t run_len)
{
    if (run_len == 0)
        die("fill_run_keys: run length 0");
    k_fill_run_keys<<<fill_blocks(n), 256, 0, g_stream>>>((int32_t *)p, n, run_len);
    CK_LAUNCH();
}

void poison(void *p, size_t bytes)
{
    CK(cudaMemsetAsync(p, 0xA5, bytes, g_stream));
}

cudaFuncAttributes bench_kernel_attributes()
{
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_fill_i32));
    return fa;
}

/* ---- comparisons -------------------------------------------------------------- */

__device__ __forceinline__ void count_diffs(unsigned long long local, unsigned long long first, DiffCount *out)
{
    if (local) {
        atomicAdd(&out->count, local);
        atomicMin(&out->first, first);
    }
}

__global__ void k_diff_words(const uint32_t *a, const uint32_t *b, size_t nwords, DiffCount *out)
{
    unsigned long long local = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nwords; i += (size_t)gridDim.x * blockDim.x)
        if (a[i] != b[i]) {
            if (!local)
                first = i;
            ++local;
        }
    count_diffs(local, first, out);
}

/* |a-b| <= tol * (1 + |b|); NaN never passes */
__global__ void k_diff_f32_tol(const float *a, const float *b, size_t n, float tol, DiffCount *out)
{
    unsigned long long local = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (!(fabsf(a[i] - b[i]) <= tol * (1.0f + fabsf(b[i])))) {
            if (!local)
                first = i;
            ++local;
        }
    count_diffs(local, first, out);
}

/* The mismatch counter on the device and its pinned host copy. */
static DiffCount *g_diff_dev = nullptr;
static DiffCount *g_diff_host = nullptr;

void init_checks()
{
    CK(cudaMalloc(&g_diff_dev, sizeof(DiffCount)));
    CK(cudaMallocHost(&g_diff_host, sizeof(DiffCount)));
}

void free_checks()
{
    CK(cudaFree(g_diff_dev));
    CK(cudaFreeHost(g_diff_host));
}

static void diff_reset()
{
    DiffCount z = {0, ~0ull};
    CK(cudaMemcpyAsync(g_diff_dev, &z, sizeof z, cudaMemcpyHostToDevice, g_stream));
}

static DiffCount diff_fetch()
{
    CK(cudaMemcpyAsync(g_diff_host, g_diff_dev, sizeof(DiffCount), cudaMemcpyDeviceToHost, g_stream));
    CK(cudaStreamSynchronize(g_stream));
    return *g_diff_host;
}

DiffCount diff_exact(const void *a, const void *b, size_t bytes)
{
    if (bytes % 4)
        die("diff_exact: %zu bytes is not a multiple of 4", bytes);
    diff_reset();
    size_t nw = bytes / 4;
    if (nw) {
        k_diff_words<<<fill_blocks(nw), 256, 0, g_stream>>>((const uint32_t *)a, (const uint32_t *)b, nw, g_diff_dev);
        CK_LAUNCH();
    }
    return diff_fetch();
}

DiffCount diff_f32(const float *a, const float *b, size_t n, float tol)
{
    diff_reset();
    if (n) {
        k_diff_f32_tol<<<fill_blocks(n), 256, 0, g_stream>>>(a, b, n, tol, g_diff_dev);
        CK_LAUNCH();
    }
    return diff_fetch();
}

std::string check_status(const DiffCount &d, const char *what)
{
    if (d.count == 0)
        return "OK";
    fprintf(stderr, "%s: CHECK FAILED: %s: %llu mismatching words, first at word %llu\n", program_name(), what,
            d.count, d.first);
    return "FAIL";
}

std::string check_failed(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: CHECK FAILED: ", program_name());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return "FAIL";
}
