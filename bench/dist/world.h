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
#include <pthread.h>
#include <vector>

enum Work { REDUCE, SCAN, COMPACT, LAPLACIAN, RENDER, RENDER_GATHER };
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

/* bench_dist --ranks 1 (one_rank.cu): every distributed call on one CUDA
 * rank against the single-context call; via_id: the communicator made
 * through a unique id. Returns main's exit status. */
int run_one_rank(bool quick, bool via_id, const char *csv);
