/* SPDX-License-Identifier: BSD-3-Clause */
/* vcopy - where wider loads pay: grid-stride copy kernels moving 4, 8 and
 * 16 bytes a thread per step, beside cudaMemcpyAsync and gp_copy, from 1 KB
 * to 1 GB, at aligned and misaligned starts; on the CPU, the same widths in
 * a plain loop beside memcpy.
 *
 * A kernel of width W copies bytes [0, head) one byte a thread until the
 * destination is W-aligned, then W-byte words when the source is aligned
 * too (else it stays byte-wide: a misaligned pair of pointers cannot use
 * wide accesses on both sides), then the ragged tail bytewise. Every
 * result is checked against the source. GB/s counts bytes read + written.
 *
 *   vcopy [--backend auto|cuda|cpu] [--max BYTES] [--offset B] [--reps R]
 */
#include "demo_util.h"

#include <gpuprim/gpuprim.h>

namespace {

template <typename W>
__global__ void copy_kernel(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    const size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    size_t head = (sizeof(W) - ((uintptr_t)dst & (sizeof(W) - 1))) & (sizeof(W) - 1);
    if (head > bytes) head = bytes;
    const bool wide = (((uintptr_t)(src + head)) & (sizeof(W) - 1)) == 0;
    const size_t words = wide ? (bytes - head) / sizeof(W) : 0;
    for (size_t i = tid; i < head; i += stride) dst[i] = src[i];
    const W *s = (const W *)(src + head);
    W *d = (W *)(dst + head);
    for (size_t i = tid; i < words; i += stride) d[i] = s[i];
    for (size_t i = head + words * sizeof(W) + tid; i < bytes; i += stride) dst[i] = src[i];
}

struct Job {
    int kind; /* 0..2: 4, 8, 16-byte kernel; 3 cudaMemcpyAsync; 4 gp_copy */
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    unsigned blocks;
    cudaStream_t st;
    gp_context *ctx;
    int batch;
};
void run(void *p)
{
    Job *j = (Job *)p;
    for (int b = 0; b < j->batch; b++) {
        switch (j->kind) {
        case 0: copy_kernel<uint32_t><<<j->blocks, 256, 0, j->st>>>(j->dst, j->src, j->bytes); break;
        case 1: copy_kernel<uint2><<<j->blocks, 256, 0, j->st>>>(j->dst, j->src, j->bytes); break;
        case 2: copy_kernel<uint4><<<j->blocks, 256, 0, j->st>>>(j->dst, j->src, j->bytes); break;
        case 3: DEMO_CUDA(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, j->st)); break;
        default:
            if (gp_copy(j->ctx, j->dst, j->src, j->bytes)) demo_die("gp_copy: %s", gp_context_last_error(j->ctx));
        }
    }
    DEMO_CUDA(cudaGetLastError());
}

template <typename W>
void cpu_copy(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    size_t head = (sizeof(W) - ((uintptr_t)dst & (sizeof(W) - 1))) & (sizeof(W) - 1), i;
    if (head > bytes) head = bytes;
    for (i = 0; i < head; i++) dst[i] = src[i];
    if ((((uintptr_t)(src + head)) & (sizeof(W) - 1)) == 0)
        for (; i + sizeof(W) <= bytes; i += sizeof(W)) *(W *)(dst + i) = *(const W *)(src + i);
    for (; i < bytes; i++) dst[i] = src[i];
}

const char *kNames[] = {"4-byte", "8-byte", "16-byte", "cudaMemcpyAsync", "gp_copy"};

} // namespace

static const char kUsage[] =
    "vcopy - 4/8/16-byte copy kernels beside cudaMemcpyAsync and gp_copy, 1 KB to --max\n"
    "  --backend auto|cuda|cpu   where to copy (auto: CUDA when a device answers)\n"
    "  --max BYTES               largest size (K/M/G suffixes; default 1G)\n"
    "  --offset B                the misaligned start, bytes (default 4)\n"
    "  --reps R                  timed runs, median reported (default 15)\n"
    "  --help";

int main(int argc, char **argv)
{
    const char *backend = "auto";
    size_t max = (size_t)1 << 30;
    int offset = 4, reps = 15;
    const char *o, *v;
    for (int i = 1; demo_option(argc, argv, &i, kUsage, &o, &v);) {
        if (!strcmp(o, "--backend")) backend = v;
        else if (!strcmp(o, "--max")) max = demo_size(v);
        else if (!strcmp(o, "--offset")) offset = atoi(v);
        else if (!strcmp(o, "--reps")) reps = atoi(v);
        else demo_die("unknown option %s (see --help)", o);
    }
    if (max < 1024 || offset < 0 || offset > 64 || reps < 1 || reps > 64) demo_die("--max >= 1K, --offset 0..64, --reps 1..64");
    const int cuda = demo_use_cuda(backend);
    const size_t alloc = max + 128;
    unsigned char *h_src = (unsigned char *)malloc(alloc), *h_dst = (unsigned char *)malloc(alloc);
    if (!h_src || !h_dst) demo_die("out of host memory");
    for (size_t i = 0; i < alloc; i++) h_src[i] = (unsigned char)(i * 131 + (i >> 9));
    int bad = 0;
    if (cuda) {
        unsigned char *src, *dst;
        int sms;
        gp_context *ctx;
        cudaStream_t st;
        cudaDeviceProp p;
        DEMO_CUDA(cudaGetDeviceProperties(&p, 0));
        DEMO_CUDA(cudaStreamCreate(&st));
        DEMO_CUDA(cudaMalloc(&src, alloc));
        DEMO_CUDA(cudaMalloc(&dst, alloc));
        DEMO_CUDA(cudaMemcpy(src, h_src, alloc, cudaMemcpyHostToDevice));
        DEMO_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        if (gp_context_create(&ctx, GP_BACKEND_CUDA, 0) || gp_context_set_stream(ctx, st)) demo_die("gp context");
        printf("vcopy on %s: GB/s (read + write), median of %d; small sizes: a batch of 100 calls per sample\n", p.name,
               reps);
        printf("%10s %6s %10s %10s %10s %16s %10s\n", "bytes", "offset", kNames[0], kNames[1], kNames[2], kNames[3],
               kNames[4]);
        for (size_t bytes = 1024; bytes <= max; bytes *= 4)
            for (int off = 0; off <= offset; off += offset ? offset : 1) {
                printf("%10zu %6d", bytes, off);
                for (int k = 0; k < 5; k++) {
                    size_t want = (bytes / 16 + 255) / 256;
                    Job j = {k, dst + off, src + off, bytes, (unsigned)(want < (size_t)sms * 8 ? (want ? want : 1) : (size_t)sms * 8),
                             st, ctx, bytes < ((size_t)1 << 22) ? 100 : 1};
                    DEMO_CUDA(cudaMemsetAsync(dst, 0, alloc, st));
                    double t = demo_time_device(run, &j, st, reps) / j.batch;
                    DEMO_CUDA(cudaMemcpy(h_dst, dst + off, bytes, cudaMemcpyDeviceToHost));
                    if (memcmp(h_dst, h_src + off, bytes)) bad++, printf(" (%s WRONG)", kNames[k]);
                    printf(k == 3 ? " %16.1f" : " %10.1f", 2.0 * (double)bytes / t * 1e-9);
                }
                printf("\n");
                if (!offset) break;
            }
        gp_context_destroy(ctx);
        cudaFree(src), cudaFree(dst);
    } else {
        printf("vcopy on the CPU (one thread): GB/s (read + write), median of %d\n", reps);
        printf("%10s %6s %10s %10s %10s %10s\n", "bytes", "offset", "4-byte", "8-byte", "16-byte", "memcpy");
        for (size_t bytes = 1024; bytes <= max; bytes *= 4)
            for (int off = 0; off <= offset; off += offset ? offset : 1) {
                printf("%10zu %6d", bytes, off);
                for (int k = 0; k < 4; k++) {
                    double ts[64];
                    int batch = bytes < ((size_t)1 << 22) ? 100 : 1;
                    for (int r = 0; r < reps; r++) {
                        memset(h_dst, 0, bytes + off);
                        double t0 = demo_now();
                        for (int b = 0; b < batch; b++) {
                            if (k == 0) cpu_copy<uint32_t>(h_dst + off, h_src + off, bytes);
                            else if (k == 1) cpu_copy<uint64_t>(h_dst + off, h_src + off, bytes);
                            else if (k == 2) cpu_copy<uint4>(h_dst + off, h_src + off, bytes);
                            else memcpy(h_dst + off, h_src + off, bytes);
                        }
                        ts[r] = (demo_now() - t0) / batch;
                    }
                    if (memcmp(h_dst + off, h_src + off, bytes)) bad++, printf(" (WRONG)");
                    printf(" %10.1f", 2.0 * (double)bytes / demo_median(ts, reps) * 1e-9);
                }
                printf("\n");
                if (!offset) break;
            }
    }
    printf("vcopy: every copy checked against its source: %s\n", bad ? "FAILED" : "all exact");
    free(h_src), free(h_dst);
    return bad ? 1 : 0;
}
