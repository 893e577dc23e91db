/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_dist's world: p ranks of one process, each with a gp_context on its
 * own non-blocking stream, a communicator, and its shard of the buffers;
 * and the timed loop every row uses (see timed()).
 */
#pragma once

#include <cuda_runtime.h>

#include "../common.h"
#include "gpuprim/dist.h"
#include "gpuprim/gpuprim.h"
#include "gpuprim/render.h"

#include <cstdint>
#include <functional>
#include <pthread.h>
#include <string>
#include <vector>

/* CALL: World::call(rank), any call the row sets (exchange.cu's rows). */
enum Work { REDUCE, SCAN, COMPACT, LAPLACIAN, RENDER, RENDER_GATHER, CALL };
/* RENDER_GATHER: the bands gathered into a buffer on rank 0's GPU (where
 * the one-GPU frame also is); bringing either to the host costs the same. */
extern const char *const work_name[];

struct World {
    int p = 0;
    gp_context *ctx[8] = {};
    gp_comm *comm[8] = {};
    pthread_barrier_t bar;
    /* per rank */
    void *in[8] = {}, *out[8] = {}, *flags[8] = {};
    size_t n[8] = {}; /* elements, or rows for the Laplacian */
    size_t cols = 0;
    gp_dist_renderer *dr[8] = {};
    gp_renderer *single = nullptr;
    std::vector<unsigned char> rgb;
    void *frame = nullptr; /* rank 0's gathered frame (device) */
    cudaStream_t stream[8] = {};
    std::function<void(int)> call; /* Work CALL: rank r's call */
    /* the run */
    Work work = REDUCE;
    int warm = 2, iters = 10;
    bool warming = true; /* set by rank 0 between barriers during warm-up */
    std::vector<double> samples;
    int64_t result[8] = {};
};

/* gp_status check naming the context's detail; dies on error. */
void gp_ok(gp_status s, gp_context *ctx, const char *what);

enum Fill { INTS, FLAGS, FLOATS };
/* Random (an index hash, never 0 for INTS) on the current device, synchronized. */
void fill(void *p, size_t bytes, uint32_t salt, Fill kind);
/* n uint32 from the same hash: 1..mod, or with mod 0xffffffff any value below it. */
void fill_mod(void *p, size_t n, uint32_t salt, uint32_t mod);

/* The median wall time of `iters` samples of `work` on every rank (after
 * warm-up): from a host barrier all ranks pass to the moment the last rank's
 * stream is idle. One GPU: the plain gp_* calls; p GPUs: gp_dist_*. */
double timed(World &w, Work work, int iters);

void open_world(World &w, int p);
void close_world(World &w);
void free_bufs(World &w);
/* Shards of `total` elements (rows) of es bytes: in, out, and flags if asked. */
void alloc_shards(World &w, size_t total, size_t es, bool with_out, bool with_flags);

/* A row of the p-GPU tables: the 1-GPU time beside the p-GPU time; ideal
 * is the speedup bound (strong) or 0 where none is stated. */
struct Row {
    std::string work, size;
    double t1, tp, ideal;
};

/* The all-to-all calls on p GPUs (exchange.cu): the sort (strong and weak
 * scaling; uniform and skewed keys; pairs), the shuffle beside NCCL's own
 * all-to-all, group-by and top-k, each against the 1-GPU call on the same
 * work. Rows are appended; the shuffle's own table is printed there. */
void run_exchange(int p, bool quick, std::vector<Row> &strong, std::vector<Row> &weak, std::vector<Row> &shuffle);

/* NCCL's own bandwidth on p GPUs (nccl_ceiling.cu), the link ceiling. */
struct NcclBw {
    double allreduce_ms, allreduce_busbw, allgather_ms, allgather_busbw;
};
NcclBw nccl_bandwidth(int p, size_t bytes);
/* An all-to-all of bytes_per_rank bytes a rank (bytes_per_rank / p to each
 * rank, itself included) with grouped ncclSend/ncclRecv: median ms. */
double nccl_all_to_all_ms(int p, size_t bytes_per_rank);

/* bench_dist --ranks 1 (one_rank.cu): every distributed call on one CUDA
 * rank against the single-context call; via_id: the communicator made
 * through a unique id. Returns main's exit status. */
int run_one_rank(bool quick, bool via_id, const char *csv);
