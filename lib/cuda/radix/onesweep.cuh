/* SPDX-License-Identifier: BSD-3-Clause */
/* radix/onesweep.cuh - one digit pass of the LSD sort in one kernel, and
 * the finishing copy.
 *
 * A block takes the next tile (kThreads x ITEMS keys) in launch order and:
 *   1. loads it, warp w a contiguous run of 32 x ITEMS keys (lane-strided,
 *      so loads coalesce); an item's place in the input is (w, i, lane);
 *      values are loaded once the keys are staged (4b);
 *   2. ranks each key among the warp's keys of the same digit, in input
 *      order: items one at a time, lanes of equal digit found with one
 *      ballot per digit bit, the warp's running count per digit in shared
 *      memory (the highest peer adds the group's size);
 *   3. combines the warps: per digit (thread d), the tile's count and each
 *      warp's start; a block scan over digits gives the tile's digit starts,
 *      so every key has its place in the tile sorted stably by digit;
 *   4. publishes its per-digit counts (look-back status, common.cuh), stages
 *      keys and values in shared memory at their tile places, then each
 *      thread d looks back over earlier tiles for digit d's prefix and
 *      publishes the inclusive count (reading several tiles at once);
 *   5. writes the staged keys (and values) out in tile order: neighbours in
 *      shared memory of one digit go to neighbouring global addresses.
 * Stable: ranks follow input order within a tile and tiles take their
 * places in tile order. */
#ifndef GPUPRIM_CUDA_RADIX_ONESWEEP_CUH
#define GPUPRIM_CUDA_RADIX_ONESWEEP_CUH

#include "common.cuh"

#include <type_traits>

namespace gpi_radix {

struct pass_args {
    const plan *pl;
    uint32_t n;
    int pass, shift;
    uint32_t mask;
    uint32_t *tile_counter;
    const uint32_t *offsets; /* the pass's exclusive digit offsets (kBins) */
    uint32_t *status0, *status1; /* look-back status, by the active pass's ordinal parity */
};

template <typename K, typename V, int KIND, int ITEMS>
__global__ __launch_bounds__(kThreads,
                             pass_min_blocks<sizeof(K), std::is_same<V, no_value>::value ? 0 : sizeof(V)>::value) void
onesweep_kernel(pass_args a, K flip)
{
    constexpr bool PAIRS = !std::is_same<V, no_value>::value;
    constexpr uint32_t TILE = kThreads * ITEMS;
    constexpr size_t VBYTES = PAIRS ? sizeof(V) : 0;
    constexpr size_t STAGE = TILE * (sizeof(K) + VBYTES);
    constexpr size_t WARP_HIST = kWarps * kBins * sizeof(uint32_t);
    constexpr uint32_t kInvalid = 0xffffffffu; /* the slot of an item past n */
    static_assert(TILE <= 65536, "a place in the tile takes 16 bits");
    /* The warps' digit counts live where the tile is staged later. */
    __shared__ __align__(16) unsigned char s_raw[STAGE > WARP_HIST ? STAGE : WARP_HIST];
    __shared__ uint32_t s_shift[kBins];
    __shared__ uint32_t s_warp[kWarps];
    __shared__ uint32_t s_tile;

    const plan *pl = a.pl;
    if (!pl->active[a.pass]) return; /* the digit is constant: nothing moves */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint32_t ordinal = pl->ordinal[a.pass];
    const K *src_keys = (const K *)pl->src_keys[a.pass];
    K *dst_keys = (K *)pl->dst_keys[a.pass];
    uint32_t *status = ordinal & 1 ? a.status1 : a.status0;
    uint32_t *status_next = ordinal & 1 ? a.status0 : a.status1;

    uint32_t *wh = (uint32_t *)s_raw + warp * kBins;
    for (int i = lane; i < kBins; i += 32) wh[i] = 0;
    if (tid == 0) s_tile = atomicAdd(a.tile_counter, 1u);
    __syncthreads();
    const uint32_t tile = s_tile;
    const uint32_t base = tile * TILE;
    const uint32_t wbase = base + warp * 32 * ITEMS + lane;
    const uint32_t n = a.n;

    /* 1. load the keys (the values after staging the keys: fewer live registers) */
    K key[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t idx = wbase + i * 32;
        key[i] = idx < n ? src_keys[idx] : K(0);
    }

    /* 2. rank within the warp. The lanes sharing an item's digit (its
     * peers) come from one ballot per digit bit, no match instruction;
     * the highest peer adds the group's size to the warp's count of the
     * digit and hands the count before to its peers. Items past n take the
     * pass's largest digit: they rank after every valid key of the tile
     * (they follow all of them in input order) and are never staged.
     * slot[i]: digit << 16 | place (in the warp's digit, then in the tile). */
    uint32_t slot[ITEMS];
    const uint32_t lanes_below = (1u << lane) - 1;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t d = wbase + i * 32 < n ? digit_of<K, KIND>(key[i], flip, a.shift, a.mask) : a.mask;
        uint32_t peers = 0xffffffffu;
#pragma unroll
        for (int b = 0; b < kDigitBits; b++) {
            const uint32_t bit = (d >> b) & 1u;
            const uint32_t vote = __ballot_sync(0xffffffffu, bit);
            peers &= vote ^ (bit - 1u); /* bit 0: the lanes whose bit is 0 too */
        }
        const int leader = 31 - __clz(peers);
        uint32_t before = 0;
        if (lane == leader) before = atomicAdd(&wh[d], (uint32_t)__popc(peers));
        __syncwarp(); /* the next item's counts follow this one's */
        before = __shfl_sync(0xffffffffu, before, leader);
        slot[i] = d << 16 | (before + __popc(peers & lanes_below));
    }
    __syncthreads();

    /* 3. combine the warps: thread tid owns digit tid */
    uint32_t count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++) count += ((uint32_t *)s_raw)[w * kBins + tid];
    const uint32_t valid = n - base < TILE ? n - base : TILE;
    if (tid == (int)a.mask) count -= TILE - valid; /* the items past n (the last tile) */
    const uint32_t start = block_exclusive_sum(count, s_warp);

    /* 4a. publish the tile's counts at once; its successors may be waiting */
    store_status(&status[tile * kBins + tid], (tile == 0 ? kFlagInclusive : kFlagAggregate) | count);

    {
        uint32_t run = start;
#pragma unroll
        for (int w = 0; w < kWarps; w++) {
            uint32_t *c = &((uint32_t *)s_raw)[w * kBins + tid];
            const uint32_t cw = *c;
            *c = run;
            run += cw;
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) slot[i] = wbase + i * 32 < n ? (slot[i] & 0xffffu) + wh[slot[i] >> 16] : kInvalid;
    __syncthreads(); /* the staging below overwrites the warp counts */

    /* 4b. stage the tile at its sorted places */
    K *s_keys = (K *)s_raw;
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (slot[i] != kInvalid) s_keys[slot[i]] = key[i];
    /* the values now that the keys are staged (fewer live registers);
     * their loads overlap the look-back, they are staged after it */
    V val[ITEMS];
    if constexpr (PAIRS) {
        const V *src_vals = (const V *)pl->src_vals[a.pass];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            const uint32_t idx = wbase + i * 32;
            if (!src_vals) val[i] = (V)idx; /* the first pass of an index sort */
            else val[i] = idx < n ? src_vals[idx] : V(0);
        }
    }

    /* 4c. look back for digit tid's count in earlier tiles, kLookBack
     * tiles at a time (their loads overlap): add aggregates until an
     * inclusive count; at a tile that has published nothing yet, look again
     * from there. */
    uint32_t prefix = 0;
    if (tile > 0) {
        constexpr int kLookBack = 4;
        int j = (int)tile - 1; /* tile 0 is inclusive from the start: j stops there at the latest */
        for (;;) {
            uint32_t w[kLookBack];
#pragma unroll
            for (int q = 0; q < kLookBack; q++) w[q] = j - q >= 0 ? load_status(&status[(j - q) * kBins + tid]) : 0u;
            bool stop = false, done = false;
            int used = 0;
#pragma unroll
            for (int q = 0; q < kLookBack; q++) {
                if (stop) continue;
                if ((w[q] >> kFlagShift) == 0) { /* not yet published */
                    stop = true;
                    continue;
                }
                prefix += w[q] & kCountMask;
                used++;
                if (w[q] & kFlagInclusive) stop = done = true;
            }
            if (done) break;
            j -= used;
            if (GPI_RADIX_POLL_NS && used == 0) __nanosleep(GPI_RADIX_POLL_NS);
        }
        store_status(&status[tile * kBins + tid], kFlagInclusive | (prefix + count));
    }
    if constexpr (PAIRS) {
        V *s_vals = (V *)(s_raw + TILE * sizeof(K));
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (slot[i] != kInvalid) s_vals[slot[i]] = val[i];
    }
    /* global place of staged item idx of digit d: s_shift[d] + idx (mod 2^32) */
    s_shift[tid] = a.offsets[tid] + prefix - start;
    status_next[tile * kBins + tid] = 0; /* ready for the next active pass */
    __syncthreads();

    /* 5. write out, staged order */
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const uint32_t idx = j * kThreads + tid;
        if (idx < valid) {
            const K k = s_keys[idx];
            const uint32_t g = s_shift[digit_of<K, KIND>(k, flip, a.shift, a.mask)] + idx;
            dst_keys[g] = k;
            if constexpr (PAIRS) ((V *)pl->dst_vals[a.pass])[g] = ((const V *)(s_raw + TILE * sizeof(K)))[idx];
        }
    }
}

/* What no pass left in the outputs (the plan's finish fields). */
template <typename K, typename V>
__global__ void finish_kernel(const plan *pl, K *keys_out, V *vals_out, size_t n)
{
    constexpr bool PAIRS = !std::is_same<V, no_value>::value;
    if (!pl->finish) return;
    const K *kf = (const K *)pl->finish_keys_from;
    const V *vf = (const V *)pl->finish_vals_from;
    const bool iota = pl->finish_iota != 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        if (kf) keys_out[i] = kf[i];
        if constexpr (PAIRS) {
            if (vf) vals_out[i] = vf[i];
            else if (iota) vals_out[i] = (V)i;
        }
    }
}

}  // namespace gpi_radix

#endif
