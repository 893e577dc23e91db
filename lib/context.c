/* SPDX-License-Identifier: BSD-3-Clause */
/* context.c - contexts, workspace cache, buffers and CUDA error mapping.
 * Uses only the CUDA runtime API (never libcuda directly): with the static
 * runtime the library loads on machines without a driver, and "no driver"
 * becomes GP_ERROR_NO_DEVICE. */
#include "internal.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* gp_context_set_cpu_threads keeps at most this many (gpuprim.h says so). */
#define MAX_CPU_THREADS 1024

gp_status gpi_cuda_status(gp_context *ctx, int cuda_error, const char *what)
{
    cudaError_t e = (cudaError_t)cuda_error;
    gp_status s;
    if (e == cudaSuccess) return GP_SUCCESS;
    switch (e) {
    case cudaErrorMemoryAllocation: s = GP_ERROR_OUT_OF_MEMORY; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: s = GP_ERROR_NO_DEVICE; break;
    default: s = GP_ERROR_CUDA; break;
    }
    /* Clear the sticky "last error" for non-fatal errors so the context stays usable. */
    (void)cudaGetLastError();
    return gpi_error(ctx, s, "%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

gp_status gp_cuda_device_count(int *count)
{
    int n = 0;
    if (!count) return GP_ERROR_INVALID_ARGUMENT;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
    }
    *count = n;
    return GP_SUCCESS;
}

gp_status gpi_check_context(const gp_context *ctx)
{
    if (!ctx) return GP_ERROR_INVALID_ARGUMENT;
    if (ctx->backend != GP_BACKEND_CPU && ctx->backend != GP_BACKEND_CUDA) return GP_ERROR_INVALID_ARGUMENT;
    return GP_SUCCESS;
}

void gpi_begin(gp_context *ctx, const char *fn)
{
    if (!ctx->call_held) ctx->call = fn;
    gpi_clear_error(ctx);
}

gp_status gpi_enter(gp_context *ctx, const char *fn)
{
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    gpi_begin(ctx, fn);
    if (ctx->backend == GP_BACKEND_CUDA) return gpi_cuda_status(ctx, cudaSetDevice(ctx->device), "cudaSetDevice");
    return GP_SUCCESS;
}

gp_status gp_context_create(gp_context **out, gp_backend backend, int device)
{
    gp_context *ctx;
    int ndev = 0;
    if (!out) return GP_ERROR_INVALID_ARGUMENT;
    if (backend != GP_BACKEND_AUTO && backend != GP_BACKEND_CPU && backend != GP_BACKEND_CUDA)
        return GP_ERROR_INVALID_ARGUMENT;
    if (backend != GP_BACKEND_CPU) {
        gp_cuda_device_count(&ndev);
        if (backend == GP_BACKEND_AUTO) backend = ndev > 0 ? GP_BACKEND_CUDA : GP_BACKEND_CPU;
        else if (ndev == 0) return GP_ERROR_NO_DEVICE;
        if (backend == GP_BACKEND_CUDA && (device < 0 || device >= ndev)) return GP_ERROR_INVALID_ARGUMENT;
    }
    ctx = (gp_context *)calloc(1, sizeof *ctx);
    if (!ctx) return GP_ERROR_OUT_OF_MEMORY;
    ctx->backend = backend;
    ctx->pipelined_scan_ok = -1;
    {
        const char *scan = getenv("GP_CUDA_SCAN"); /* testing knob */
        const char *rep = getenv("GP_CUDA_REPEATS"); /* testing knob */
        ctx->scan_kernel = !scan ? 1 : strcmp(scan, "onepass") == 0 ? 0 : strcmp(scan, "pipelined") == 0 ? 2 : 1;
        ctx->repeats_kernel = !rep ? 1 : strcmp(rep, "onepass") == 0 ? 0 : strcmp(rep, "twopass") == 0 ? 2 : 1;
    }
    ctx->device = backend == GP_BACKEND_CUDA ? device : -1;
    if (backend == GP_BACKEND_CUDA) {
        /* Make the device current and initialise its primary context now, so
         * that the first primitive call does not pay for it. */
        cudaError_t e = cudaSetDevice(device);
        if (e == cudaSuccess) e = cudaFree(0);
        if (e == cudaSuccess) e = cudaHostAlloc(&ctx->pinned, 256, cudaHostAllocMapped);
        if (e == cudaSuccess) e = cudaHostGetDevicePointer(&ctx->pinned_dev, ctx->pinned, 0);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, device);
        if (e != cudaSuccess) {
            gp_status s = gpi_cuda_status(NULL, e, "cudaSetDevice");
            if (ctx->pinned) cudaFreeHost(ctx->pinned);
            free(ctx);
            return s;
        }
    }
    *out = ctx;
    return GP_SUCCESS;
}

static void release_cache(gp_context *ctx)
{
    if (!ctx->cache) return;
    if (ctx->backend == GP_BACKEND_CUDA) {
        cudaStreamSynchronize((cudaStream_t)ctx->stream);
        cudaFree(ctx->cache);
    } else {
        free(ctx->cache);
    }
    ctx->cache = NULL;
    ctx->cache_bytes = 0;
}

void gp_context_destroy(gp_context *ctx)
{
    if (!ctx) return;
    if (ctx->backend == GP_BACKEND_CUDA) cudaSetDevice(ctx->device);
    release_cache(ctx);
    if (ctx->pinned) cudaFreeHost(ctx->pinned);
    gpi_buffers_release(ctx);
    free(ctx);
}

gp_status gp_context_get_backend(const gp_context *ctx, gp_backend *backend)
{
    if (gpi_check_context(ctx) || !backend) return GP_ERROR_INVALID_ARGUMENT;
    *backend = ctx->backend;
    return GP_SUCCESS;
}

gp_status gp_context_set_stream(gp_context *ctx, void *stream)
{
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    gpi_begin(ctx, "gp_context_set_stream"); /* every call on the context starts with no detail */
    if (ctx->backend == GP_BACKEND_CPU && stream != NULL)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_stream: the CPU backend has no streams");
    ctx->stream = stream;
    return GP_SUCCESS;
}

gp_status gp_context_get_stream(const gp_context *ctx, void **stream)
{
    if (gpi_check_context(ctx) || !stream) return GP_ERROR_INVALID_ARGUMENT;
    *stream = ctx->stream;
    return GP_SUCCESS;
}

gp_status gp_context_set_workspace(gp_context *ctx, void *workspace, size_t bytes)
{
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    gpi_begin(ctx, "gp_context_set_workspace");
    if ((workspace == NULL) != (bytes == 0))
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT,
                         "gp_context_set_workspace: workspace and bytes must both be set or both be 0");
    if (workspace) {
        gp_status s = gpi_check_buffer(ctx, workspace, bytes, "workspace");
        if (s) return s;
    }
    ctx->user_ws = workspace;
    ctx->user_ws_bytes = bytes;
    return GP_SUCCESS;
}

gp_status gp_context_set_cpu_threads(gp_context *ctx, int threads)
{
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    gpi_begin(ctx, "gp_context_set_cpu_threads");
    if (threads < 0)
        return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_cpu_threads: %d threads (want 0 or more)", threads);
    /* More threads than this never help (the parallel loops cap themselves
     * far lower), and the cap keeps the callers' arithmetic on the count
     * (threads * chunks per thread, ...) far from int overflow. */
    ctx->cpu_threads = threads < MAX_CPU_THREADS ? threads : MAX_CPU_THREADS;
    return GP_SUCCESS;
}

int gpi_cpu_threads(const gp_context *ctx)
{
    long n;
    if (ctx && ctx->cpu_threads > 0) return ctx->cpu_threads;
    n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 256) n = 256;
    return (int)n;
}

gp_status gp_context_synchronize(gp_context *ctx)
{
    gp_status s = gpi_enter(ctx, "gp_context_synchronize");
    if (s) return s;
    if (ctx->backend == GP_BACKEND_CPU) return GP_SUCCESS;
    return gpi_cuda_status(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream), "cudaStreamSynchronize");
}

gp_status gpi_workspace(gp_context *ctx, size_t bytes, void **ptr)
{
    void *p = NULL;
    *ptr = NULL;
    if (bytes == 0) return GP_SUCCESS;
    if (ctx->user_ws && bytes <= ctx->user_ws_bytes) {
        *ptr = ctx->user_ws;
        return GP_SUCCESS;
    }
    if (bytes <= ctx->cache_bytes) {
        *ptr = ctx->cache;
        return GP_SUCCESS;
    }
    /* Grow by at least 1.5x so a slowly growing series of calls reallocates rarely. */
    if (bytes < ctx->cache_bytes + ctx->cache_bytes / 2 && ctx->cache_bytes < SIZE_MAX / 2)
        bytes = ctx->cache_bytes + ctx->cache_bytes / 2;
    release_cache(ctx);
    if (ctx->backend == GP_BACKEND_CUDA) {
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "workspace cudaMalloc");
    } else {
        p = gpi_host_alloc_large(bytes); /* huge pages where offered: far fewer faults on first use */
        if (!p) return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "workspace malloc of %zu bytes", bytes);
    }
    ctx->cache = p;
    ctx->cache_bytes = bytes;
    *ptr = p;
    return GP_SUCCESS;
}

gp_status gpi_workspace_aligned(gp_context *ctx, size_t bytes, void **ptr)
{
    void *p = NULL;
    gp_status s;
    *ptr = NULL;
    if (bytes > SIZE_MAX - 256) return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "workspace of %zu bytes", bytes);
    if ((s = gpi_workspace(ctx, bytes + 256, &p))) return s;
    *ptr = (void *)(((uintptr_t)p + 255) & ~(uintptr_t)255);
    return GP_SUCCESS;
}

gp_status gpi_check_buffer(gp_context *ctx, const void *ptr, size_t bytes, const char *name)
{
    struct cudaPointerAttributes attr;
    cudaError_t e;
    if (bytes == 0) return GP_SUCCESS;
    if (!ptr) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "%s is NULL", name);
    if ((uintptr_t)ptr > UINTPTR_MAX - bytes)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%s: range wraps the address space", name);
    if (ctx->backend != GP_BACKEND_CUDA || gpi_buffers_hold(ctx, ptr, bytes)) return GP_SUCCESS;
    e = cudaPointerGetAttributes(&attr, ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gpi_error(ctx, GP_ERROR_WRONG_MEMORY, "%s: not a CUDA-addressable pointer", name);
    }
    if (attr.type == cudaMemoryTypeUnregistered)
        return gpi_error(ctx, GP_ERROR_WRONG_MEMORY, "%s: host memory given to the CUDA backend", name);
    if (attr.type == cudaMemoryTypeHost && attr.devicePointer == NULL)
        return gpi_error(ctx, GP_ERROR_WRONG_MEMORY, "%s: pinned host memory not mapped for the device", name);
    return GP_SUCCESS;
}

/* ---- buffers ------------------------------------------------------------- */

gp_status gp_malloc(gp_context *ctx, void **ptr, size_t bytes)
{
    void *p = NULL;
    gp_status s;
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    /* On the context's device, whatever device this thread last used. */
    if ((s = gpi_enter(ctx, "gp_malloc"))) return s;
    if (!ptr) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_malloc: ptr is NULL");
    if (bytes == 0) {
        *ptr = NULL;
        return GP_SUCCESS;
    }
    if (ctx->backend == GP_BACKEND_CUDA) {
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) return gpi_cuda_status(ctx, e, "cudaMalloc");
        gpi_buffers_add(ctx, p, bytes);
    } else {
        p = gpi_host_alloc_large(bytes); /* large buffers on huge pages: fewer page faults */
        if (!p) return gpi_error(ctx, GP_ERROR_OUT_OF_MEMORY, "malloc of %zu bytes", bytes);
    }
    *ptr = p;
    return GP_SUCCESS;
}

gp_status gp_free(gp_context *ctx, void *ptr)
{
    gp_status s;
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    if (!ptr) {
        gpi_begin(ctx, "gp_free"); /* a no-op, but a call on the context all the same */
        return GP_SUCCESS;
    }
    if ((s = gpi_enter(ctx, "gp_free"))) return s;
    if (ctx->backend == GP_BACKEND_CUDA) {
        gpi_buffers_remove(ctx, ptr);
        return gpi_cuda_status(ctx, cudaFree(ptr), "cudaFree");
    }
    free(ptr);
    return GP_SUCCESS;
}

/* Shared by upload/download/copy: checks, then one memcpy on the stream. */
static gp_status copy_bytes(gp_context *ctx, const char *fn, void *dst, const void *src, size_t bytes, int kind,
                            int sync)
{
    cudaError_t e;
    gp_status s0;
    if (gpi_check_context(ctx)) return GP_ERROR_INVALID_ARGUMENT;
    /* The context's device, so its stream (the legacy default stream is
     * per device) orders the copy after the context's kernels. */
    if ((s0 = gpi_enter(ctx, fn))) return s0;
    if (bytes == 0) return GP_SUCCESS;
    if (!dst || !src) return gpi_error(ctx, GP_ERROR_INVALID_ARGUMENT, "NULL source or destination");
    /* A range past the end of the address space (a huge byte count) would
     * make the overlap test meaningless and memcpy fault: refuse it on both
     * sides and both backends. */
    if ((uintptr_t)dst > UINTPTR_MAX - bytes || (uintptr_t)src > UINTPTR_MAX - bytes)
        return gpi_error(ctx, GP_ERROR_SIZE_OVERFLOW, "%zu bytes: a range wraps the address space", bytes);
    if (gpi_overlap(dst, bytes, src, bytes))
        return gpi_error(ctx, GP_ERROR_OVERLAP, "source and destination overlap");
    if (ctx->backend == GP_BACKEND_CPU) {
        memcpy(dst, src, bytes);
        return GP_SUCCESS;
    }
    if (kind != cudaMemcpyHostToDevice) {
        gp_status s = gpi_check_buffer(ctx, src, bytes, "source buffer");
        if (s) return s;
    }
    if (kind != cudaMemcpyDeviceToHost) {
        gp_status s = gpi_check_buffer(ctx, dst, bytes, "destination buffer");
        if (s) return s;
    }
    if (kind == cudaMemcpyDeviceToDevice) return gpi_cuda_copy(ctx, dst, src, bytes); /* never synchronous */
    e = cudaMemcpyAsync(dst, src, bytes, (enum cudaMemcpyKind)kind, (cudaStream_t)ctx->stream);
    if (e == cudaSuccess && sync) e = cudaStreamSynchronize((cudaStream_t)ctx->stream);
    return gpi_cuda_status(ctx, e, "cudaMemcpyAsync");
}

gp_status gp_upload(gp_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_bytes(ctx, "gp_upload", dst, src, bytes, cudaMemcpyHostToDevice, 1);
}

gp_status gp_download(gp_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_bytes(ctx, "gp_download", dst, src, bytes, cudaMemcpyDeviceToHost, 1);
}

gp_status gp_copy(gp_context *ctx, void *dst, const void *src, size_t bytes)
{
    return copy_bytes(ctx, "gp_copy", dst, src, bytes, cudaMemcpyDeviceToDevice, 0);
}
