/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda_runtime_api.h (build without CUDA) - stands in for the CUDA runtime's
 * header when gpuprim is built with no CUDA compiler (GPUPRIM_CUDA=OFF, or
 * none found). It declares the part of the runtime API that the C dispatch
 * layer and the tests call, and every call fails with cudaErrorNoDevice:
 * gp_cuda_device_count then gives 0, so no CUDA context can be made and
 * the CUDA paths behind one are never reached. Everything is static inline:
 * nothing here becomes a symbol of libgpuprim. Never installed. */
#ifndef GPUPRIM_CUDA_ABSENT_RUNTIME_API_H
#define GPUPRIM_CUDA_ABSENT_RUNTIME_API_H

#include <stddef.h>

/* The values are the CUDA runtime's own. */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorNotReady = 600
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2, cudaMemoryTypeManaged = 3 };

enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };

struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaHostAllocDefault 0x00
#define cudaHostAllocMapped 0x02
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif

static inline const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    }
    return "cudaErrorUnknown";
}

static inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "this build of gpuprim has no CUDA (built without a CUDA compiler)";
}

static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }

static inline cudaError_t cudaGetDeviceCount(int *count)
{
    if (count) *count = 0;
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaSetDevice(int device) { return cudaErrorNoDevice; }
static inline cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) { return cudaErrorNoDevice; }
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes) *free_bytes = 0;
    if (total_bytes) *total_bytes = 0;
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    if (ptr) *ptr = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaFree(void *ptr) { return ptr ? cudaErrorNoDevice : cudaSuccess; }
static inline cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags)
{
    if (ptr) *ptr = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaFreeHost(void *ptr) { return ptr ? cudaErrorNoDevice : cudaSuccess; }
static inline cudaError_t cudaHostGetDevicePointer(void **dev, void *host, unsigned int flags)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                          cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemsetAsync(void *dst, int value, size_t bytes, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    if (stream) *stream = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreate(stream);
}
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    return cudaStreamCreate(stream);
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t stream) { return cudaErrorNoDevice; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return cudaErrorNoDevice; }
static inline cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaErrorNoDevice; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (event) *event = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t event) { return cudaErrorNoDevice; }
static inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) { return cudaErrorNoDevice; }

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif
