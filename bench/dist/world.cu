/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_dist's world and timed loop (see world.h). */
#include "world.h"

const char *const work_name[] = {"reduce int32", "scan int32 (excl. sum)", "compact int32 (u8 flags 50%)",
                                 "Laplacian f32 (periodic)", "renderer", "renderer + gather", "call"};

void gp_ok(gp_status s, gp_context *ctx, const char *what) { check_gp(s, ctx, what, __FILE__, __LINE__); }

__global__ void fill_u32(uint32_t *p, size_t n, uint32_t salt, uint32_t mod)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + salt) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z ^= z >> 31;
        p[i] = (uint32_t)z % mod + (mod == 0xffffffffu ? 0 : 1);
    }
}

__global__ void fill_u8(uint8_t *p, size_t n, uint32_t salt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + salt) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ULL;
        p[i] = (uint8_t)((z >> 40) & 1);
    }
}

__global__ void fill_f32(float *p, size_t n, uint32_t salt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + salt) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        p[i] = (float)((z >> 33) % 2001) * 0.001f - 1.f;
    }
}

void fill(void *p, size_t bytes, uint32_t salt, Fill kind)
{
    if (kind == FLAGS) fill_u8<<<4096, 256>>>((uint8_t *)p, bytes, salt);
    else if (kind == FLOATS) fill_f32<<<4096, 256>>>((float *)p, bytes / 4, salt);
    else fill_u32<<<4096, 256>>>((uint32_t *)p, bytes / 4, salt, 1000);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

void fill_mod(void *p, size_t n, uint32_t salt, uint32_t mod)
{
    fill_u32<<<4096, 256>>>((uint32_t *)p, n, salt, mod);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
}

static void run_op(World &w, int r)
{
    gp_context *ctx = w.ctx[r];
    size_t cnt;
    gp_dist_count dc;
    static const gp_stencil5 lap = {-4, 1, 1, 1, 1};
    const bool one = w.p == 1;
    switch (w.work) {
    case REDUCE:
        gp_ok(one ? gp_reduce(ctx, GP_INT32, GP_OP_SUM, w.in[r], w.n[r], &w.result[r])
                  : gp_dist_reduce(w.comm[r], GP_INT32, GP_OP_SUM, w.in[r], w.n[r], &w.result[r]),
              ctx, "reduce");
        break;
    case SCAN:
        gp_ok(one ? gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, w.in[r], w.out[r], w.n[r])
                  : gp_dist_scan(w.comm[r], GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, w.in[r], w.out[r], w.n[r]),
              ctx, "scan");
        break;
    case COMPACT:
        gp_ok(one ? gp_compact(ctx, GP_INT32, w.in[r], w.flags[r], GP_UINT8_FLAGS, w.out[r], w.n[r], &cnt)
                  : gp_dist_compact(w.comm[r], GP_INT32, w.in[r], w.flags[r], GP_UINT8_FLAGS, w.out[r], w.n[r], &dc),
              ctx, "compact");
        w.result[r] = one ? (int64_t)cnt : (int64_t)dc.total;
        break;
    case LAPLACIAN:
        gp_ok(one ? gp_stencil_2d(ctx, GP_FLOAT32, &lap, GP_BOUNDARY_PERIODIC, w.in[r], w.out[r], w.n[r], w.cols)
                  : gp_dist_stencil_2d(w.comm[r], GP_FLOAT32, &lap, GP_BOUNDARY_PERIODIC, w.in[r], w.out[r], w.n[r],
                                       w.cols),
              ctx, "laplacian");
        break;
    case RENDER:
    case RENDER_GATHER:
        if (one) {
            gp_ok(gp_renderer_render(w.single), ctx, "render");
        } else {
            gp_ok(gp_dist_renderer_render(w.dr[r]), ctx, "dist render");
            if (w.work == RENDER_GATHER)
                gp_ok(gp_dist_renderer_gather(w.dr[r], 0, r == 0 ? (unsigned char *)w.frame : nullptr), ctx, "gather");
        }
        break;
    case CALL:
        w.call(r);
        break;
    }
    gp_ok(gp_context_synchronize(ctx), ctx, "synchronize");
}

/* Warm-up: w.warm calls and at least kSettleMs (common.h, Settle). The
 * previous row frees up to 16 GiB here; without the settle the 1-GPU and
 * p-GPU rows would each lose a different share of their samples to the
 * slow window after it. Rank 0 decides when warm-up ends; the barrier
 * publishes it. */
static const double kSettleMs = 100.0;

static gp_status rank_main(gp_comm *c, void *arg)
{
    World &w = *(World *)arg;
    int r = 0;
    gp_comm_rank(c, &r);
    const Settle settle(w.warm, kSettleMs);
    for (int it = 0;; it++) {
        pthread_barrier_wait(&w.bar);
        run_op(w, r);
        pthread_barrier_wait(&w.bar);
        if (r == 0) w.warming = settle.warming(it + 1);
        pthread_barrier_wait(&w.bar);
        if (!w.warming) break;
    }
    for (int it = 0; it < w.iters; it++) {
        double t0 = 0;
        pthread_barrier_wait(&w.bar);
        if (r == 0) t0 = now_ms();
        run_op(w, r);
        pthread_barrier_wait(&w.bar);
        if (r == 0) w.samples.push_back(now_ms() - t0);
    }
    return GP_SUCCESS;
}

double timed(World &w, Work work, int iters)
{
    w.work = work;
    w.iters = iters;
    w.samples.clear();
    if (w.p == 1) {
        rank_main(nullptr, &w);
    } else {
        gp_ok(gp_comm_run(w.comm, w.p, rank_main, &w), w.ctx[0], "gp_comm_run");
    }
    return median_of(w.samples);
}

void open_world(World &w, int p)
{
    w.p = p;
    for (int r = 0; r < p; r++) {
        gp_status s = gp_context_create(&w.ctx[r], GP_BACKEND_CUDA, r);
        if (s) die("gp_context_create(%d): %s", r, gp_status_string(s));
        /* as bench_prims: each context on its own non-blocking stream */
        CK(cudaSetDevice(r));
        CK(cudaStreamCreateWithFlags(&w.stream[r], cudaStreamNonBlocking));
        gp_ok(gp_context_set_stream(w.ctx[r], w.stream[r]), w.ctx[r], "set_stream");
    }
    if (p > 1) gp_ok(gp_comm_init_all(w.comm, w.ctx, p, 0), w.ctx[0], "gp_comm_init_all");
    pthread_barrier_init(&w.bar, nullptr, (unsigned)p);
}

void close_world(World &w)
{
    for (int r = 0; r < w.p; r++) gp_comm_destroy(w.comm[r]);
    for (int r = 0; r < w.p; r++) gp_context_destroy(w.ctx[r]);
    for (int r = 0; r < w.p; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamDestroy(w.stream[r]));
    }
    pthread_barrier_destroy(&w.bar);
}

void free_bufs(World &w)
{
    for (int r = 0; r < w.p; r++) {
        CK(cudaSetDevice(r));
        if (w.in[r]) CK(cudaFree(w.in[r]));
        if (w.out[r]) CK(cudaFree(w.out[r]));
        if (w.flags[r]) CK(cudaFree(w.flags[r]));
        w.in[r] = w.out[r] = w.flags[r] = nullptr;
    }
}

void alloc_shards(World &w, size_t total, size_t es, bool with_out, bool with_flags)
{
    for (int r = 0; r < w.p; r++) {
        size_t lo = total * r / w.p, hi = total * (r + 1) / w.p;
        w.n[r] = hi - lo;
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&w.in[r], w.n[r] * es));
        fill(w.in[r], w.n[r] * es, (uint32_t)lo, w.cols ? FLOATS : INTS);
        if (with_out) CK(cudaMalloc(&w.out[r], w.n[r] * es));
        if (with_flags) {
            CK(cudaMalloc(&w.flags[r], w.n[r]));
            fill(w.flags[r], w.n[r], (uint32_t)lo, FLAGS);
        }
    }
}

