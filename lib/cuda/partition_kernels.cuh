/* SPDX-License-Identifier: BSD-3-Clause */
/* partition_kernels.cuh - the two kernels of the stable partition
 * (partition.cu is the host side).
 *
 * The rejected part starts right after the selected one, so no rejected
 * element can be written before every flag has been counted. Hence two
 * passes, the first over the flags alone:
 *
 * 1. mask kernel: reads the flags once and leaves, per tile of the move
 *    kernel, one 32-bit word per thread holding the bits of exactly the
 *    elements that thread will move (first part; three-way, a second word:
 *    second flag and not first). Each block counts mask_tiles tiles and
 *    chains its counts to the blocks before it by decoupled look-back
 *    (lookback.cuh); the result, each tile's first slot in each part, is
 *    written per tile, and the last block writes the parts' totals to
 *    device memory and to the context's mapped page-locked buffer.
 *    Traffic: the flags, plus n/8 bytes of mask (4-byte elements).
 * 2. move kernel: every tile's place is now known, so tiles are
 *    independent (no look-back): load the tile's elements (16-byte
 *    vectors) and its mask words, scan the per-vector counts across the
 *    block (both parts' counts packed in one 32-bit word), stage the
 *    elements in shared memory in output order, and write each part's run
 *    with 16-byte stores: each run is staged at the same position within a
 *    16-byte vector as its destination in out, so a vector of shared
 *    memory maps onto an aligned vector of out; only a run's first and
 *    last vectors go element by element.
 *
 * Elements move as raw 4- or 8-byte words W. Tile layout: tile_io.cuh's
 * (vector k of thread t covers elements (k * THREADS + t) * VI + [0, VI));
 * mask bit k * VI + j of thread t is element (k * THREADS + t) * VI + j.
 * C: the global count type (32-bit while n fits, else 64-bit); counts
 * within a tile or a mask block are 16-bit fields. */
#ifndef GPUPRIM_CUDA_PARTITION_KERNELS_CUH
#define GPUPRIM_CUDA_PARTITION_KERNELS_CUH

#include "block_scan.cuh"
#include "flags.cuh"
#include "lookback.cuh"
#include "tile_io.cuh"
#include "warp_scan.cuh"
#include "policy/partition.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace gpi {

template <typename W>
struct partition_shape {
    static constexpr int THREADS = partition_policy::threads, VEC = partition_policy::vectors;
    static constexpr int VI = 16 / (int)sizeof(W); /* elements a vector */
    static constexpr int ITEMS = THREADS * VEC * VI;
    /* staging slack: each of three runs may start up to 2 * (VI - 1) later
     * than packed (alignment to its destination), and ends rounded up */
    static constexpr int PAD = 6 * VI;
    static_assert(ITEMS < 65536, "tile counts fit 16 bits");
};

template <typename C>
struct partition_sum {
    __device__ __forceinline__ C operator()(C a, C b) const { return a + b; }
};

/* One warp of mask block blockIdx.x chains part `part`'s count (a 16-bit
 * field of the packed block_total / tile_before) to the blocks before it,
 * then writes the first slot of each of the block's tiles; the last block
 * writes the part's total. */
template <int G, typename C>
__device__ __forceinline__ void partition_chain(tile_state<C> st, C *prefix, unsigned long long *totals,
                                                unsigned long long *totals_host, int part, long long first_tile,
                                                long long tiles, const uint32_t *tile_before, uint32_t block_total)
{
    const int lane = threadIdx.x & 31, shift = 16 * part;
    const long long block = blockIdx.x;
    const C total = (C)(block_total >> shift & 0xffffu);
    C before = 0;
    if (block == 0) {
        if (lane == 0) tile_publish(st, 0, total, TILE_INCLUSIVE);
    } else {
        if (lane == 0) tile_publish(st, block, total, TILE_AGGREGATE);
        before = tile_look_back<C>(st, block, partition_sum<C>(), C(0), lane, partition_policy::delay);
        if (lane == 0) tile_publish(st, block, (C)(before + total), TILE_INCLUSIVE);
    }
    if (lane < G && first_tile + lane < tiles)
        prefix[first_tile + lane] = before + (C)(tile_before[lane] >> shift & 0xffffu);
    if (lane == 0 && block == (long long)gridDim.x - 1) {
        totals[part] = (unsigned long long)(before + total);
        totals_host[part] = (unsigned long long)(before + total);
    }
}

/* ---- pass 1: flags -> mask words, tile offsets, totals ---------------------------------- */
/* Block b covers tiles [b * mask_tiles, ...). mask0/mask1: tiles * THREADS
 * words; prefix0/prefix1: the first slot of each tile within part 0 / part
 * 1 (three-way only for the second of each). totals (device) and
 * totals_host (mapped host memory): the parts' lengths, from the last
 * block. fvec: the flag arrays are aligned to a vector's flags. */
template <typename W, typename F, bool THREE, typename C>
__global__ void __launch_bounds__(partition_policy::threads)
partition_mask_kernel(const F *__restrict__ f1, const F *__restrict__ f2, long long n, long long tiles, bool fvec,
                      uint32_t *__restrict__ mask0, uint32_t *__restrict__ mask1, C *__restrict__ prefix0,
                      C *__restrict__ prefix1, tile_state<C> st0, tile_state<C> st1,
                      unsigned long long *__restrict__ totals, unsigned long long *__restrict__ totals_host)
{
    using S = partition_shape<W>;
    constexpr int G = partition_policy::mask_tiles, WARPS = S::THREADS / 32;
    __shared__ uint32_t warp_counts[G][WARPS];
    __shared__ uint32_t tile_before[G]; /* packed: tiles of this block before tile g */
    __shared__ uint32_t block_total;    /* packed */
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long block = blockIdx.x, first_tile = block * G;

    /* every load first, then the stores: G * VEC independent loads in flight */
    uint32_t w0[G], w1[G];
#pragma unroll
    for (int g = 0; g < G; g++) {
        const long long tile = first_tile + g, base = tile * S::ITEMS;
        const bool full = base + S::ITEMS <= n;
        w0[g] = w1[g] = 0u;
        if (tile < tiles) {
#pragma unroll
            for (int k = 0; k < S::VEC; k++) {
                const long long e = base + ((long long)k * S::THREADS + t) * S::VI;
                const unsigned m0 = flag_mask<F, S::VI>(f1, e, n, full, fvec);
                w0[g] |= m0 << (k * S::VI);
                if constexpr (THREE) w1[g] |= (flag_mask<F, S::VI>(f2, e, n, full, fvec) & ~m0) << (k * S::VI);
            }
        }
    }
#pragma unroll
    for (int g = 0; g < G; g++) {
        const long long tile = first_tile + g;
        if (tile < tiles) {
            mask0[tile * S::THREADS + t] = w0[g];
            if constexpr (THREE) mask1[tile * S::THREADS + t] = w1[g];
        }
        const uint32_t c = warp_reduce((uint32_t)__popc(w0[g]) | (uint32_t)__popc(w1[g]) << 16,
                                       partition_sum<uint32_t>());
        if (lane == 0) warp_counts[g][warp] = c;
    }
    __syncthreads();
    if (warp == 0) {
        uint32_t c = 0;
        if (lane < G) {
#pragma unroll
            for (int w = 0; w < WARPS; w++) c += warp_counts[lane][w];
        }
        const uint32_t incl = warp_inclusive_scan(c, partition_sum<uint32_t>(), lane);
        if (lane < G) tile_before[lane] = incl - c;
        if (lane == 31) block_total = incl; /* lanes from G on add nothing */
    }
    __syncthreads();
    /* warp 0 chains each counted part */
    if (warp == 0) {
        partition_chain<G>(st0, prefix0, totals, totals_host, 0, first_tile, tiles, tile_before, block_total);
        if constexpr (THREE)
            partition_chain<G>(st1, prefix1, totals, totals_host, 1, first_tile, tiles, tile_before, block_total);
    }
    if (!THREE && t == 0 && block == (long long)gridDim.x - 1) totals[1] = totals_host[1] = 0ull;
}

/* ---- pass 2: move the elements -------------------------------------------------------- */
/* vec: in is 16-byte aligned. out need only be aligned to W. */
template <typename W, bool THREE, typename C>
__global__ void __launch_bounds__(partition_policy::threads, partition_policy::min_blocks)
partition_move_kernel(const W *__restrict__ in, long long n, bool vec, const uint32_t *__restrict__ mask0,
                      const uint32_t *__restrict__ mask1, const C *__restrict__ prefix0,
                      const C *__restrict__ prefix1, const unsigned long long *__restrict__ totals,
                      W *__restrict__ out)
{
    using S = partition_shape<W>;
    constexpr int THREADS = S::THREADS, VEC = S::VEC, VI = S::VI;
    constexpr uint32_t VMASK = (1u << VI) - 1u;
    __shared__ __align__(16) W staged[S::ITEMS + S::PAD];
    const int t = threadIdx.x;
    const long long tile = blockIdx.x, base = tile * S::ITEMS;
    const bool full = base + S::ITEMS <= n;

    const uint32_t w0 = mask0[tile * THREADS + t];
    const uint32_t w1 = THREE ? mask1[tile * THREADS + t] : 0u;
    /* loaded now, used after the block scan: their latency hides behind it
     * (the second part's, three-way only, after it: registers) */
    const C p0 = prefix0[tile];
    const unsigned long long total0 = totals[0];
    W x[VEC][VI];
#pragma unroll
    for (int k = 0; k < VEC; k++)
        load_vector<W, VI>(in, base + ((long long)k * THREADS + t) * VI, n, full && vec, x[k], W(0));

    /* per-vector counts, part 0 in the low 16 bits, part 1 in the high */
    uint32_t cnt[VEC], before[VEC];
#pragma unroll
    for (int k = 0; k < VEC; k++)
        cnt[k] = (uint32_t)__popc(w0 >> (k * VI) & VMASK) | (uint32_t)__popc(w1 >> (k * VI) & VMASK) << 16;
    const uint32_t tile_total = block_vector_prefixes<uint32_t, partition_sum<uint32_t>, THREADS, VEC, false>(
        cnt, before, tile, 0u, tile_state<uint32_t>{}, partition_policy::delay, 0u);
    const uint32_t s0 = tile_total & 0xffffu, s1 = tile_total >> 16;
    const uint32_t items = full ? (uint32_t)S::ITEMS : (uint32_t)(n - base);
    const uint32_t s2 = items - s0 - s1;

    const C p1 = THREE ? prefix1[tile] : C(0);
    const unsigned long long total1 = THREE ? totals[1] : 0ull;
    /* the first slot in out of this tile's run of each part */
    const long long d0 = (long long)p0, d1 = (long long)(total0 + p1);
    const long long d2 = (long long)(total0 + total1) + (base - (long long)p0 - (long long)p1);
    /* Where each run starts in staged: at the position within a vector that
     * its destination has in out, after the previous run's last vector. */
    const unsigned long long out_phase = (uintptr_t)out / sizeof(W);
    auto phase = [&](long long d) { return (uint32_t)((out_phase + (unsigned long long)d) & (VI - 1)); };
    auto round_up = [](uint32_t i) { return (i + (VI - 1)) & ~(uint32_t)(VI - 1); };
    const uint32_t a0 = phase(d0), end0 = round_up(a0 + s0);
    const uint32_t a1 = end0 + (THREE ? phase(d1) : 0u), end1 = round_up(a1 + s1);
    const uint32_t a2 = end1 + phase(d2), end2 = round_up(a2 + s2);

#pragma unroll
    for (int k = 0; k < VEC; k++) {
        const uint32_t first = (uint32_t)((k * THREADS + t) * VI); /* tile elements before this vector */
        const uint32_t b0 = before[k] & 0xffffu, b1 = before[k] >> 16;
        uint32_t q0 = a0 + b0, q1 = a1 + b1, q2 = a2 + (first - b0 - b1);
        const uint32_t m0 = w0 >> (k * VI), m1 = w1 >> (k * VI);
#pragma unroll
        for (int j = 0; j < VI; j++) { /* static j: x stays in registers */
            if (!full && base + first + j >= n) break;
            const bool in0 = (m0 >> j & 1u) != 0, in1 = THREE && (m1 >> j & 1u) != 0;
            staged[in0 ? q0 : in1 ? q1 : q2] = x[k][j];
            q0 += in0;
            q1 += in1;
            q2 += !in0 && !in1;
        }
    }
    __syncthreads();

    /* Vector v of staged lies in one run (runs start in distinct vectors). */
    for (uint32_t v = (uint32_t)t * VI; v < end2; v += THREADS * VI) {
        uint32_t a, s;
        long long d;
        if (v < end0) {
            a = a0, s = s0, d = d0;
        } else if (v < end1) {
            a = a1, s = s1, d = d1;
        } else {
            a = a2, s = s2, d = d2;
        }
        const uint32_t lo = max(v, a), hi = min(v + VI, a + s);
        if (lo == v && hi == v + VI) {
            /* out[d + v - a] is 16-byte aligned: a and d share their phase */
            *reinterpret_cast<uint4 *>(out + (d + (long long)(v - a))) = *reinterpret_cast<const uint4 *>(&staged[v]);
        } else {
            for (uint32_t i = lo; i < hi; i++) out[d + (long long)(i - a)] = staged[i];
        }
    }
}

} // namespace gpi

#endif
