/* radix/onesweep.cuh - one digit pass of the LSD sort in one kernel, and
 * the finishing copy.
 *
 * A block takes the next tile (kThreads x ITEMS keys) in launch order and:
 *   1. loads it, warp w a contiguous run of 32 x ITEMS keys (lane-strided,
 *      so loads coalesce); an item's place in the input is (w, i, lane);
 *   2. ranks each key among the warp's keys of the same digit, in input
 *      order: items one at a time, lanes of equal digit found with
 *      __match_any_sync, the warp's running count per digit in shared
 *      memory (the highest peer adds the group's size);
 *   3. combines the warps: per digit (thread d), the tile's count and each
 *      warp's start; a block scan over digits gives the tile's digit starts,
 *      so every key has its place in the tile sorted stably by digit;
 *   4. publishes its per-digit counts (look-back status, common.cuh), stages
 *      keys and values in shared memory at their tile places, then each
 *      thread d looks back over earlier tiles for digit d's prefix and
 *      publishes the inclusive count;
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
__global__ __launch_bounds__(kThreads, std::is_same<V, no_value>::value ? GPI_RADIX_MIN_BLOCKS_KEYS
                                                                        : GPI_RADIX_MIN_BLOCKS_PAIRS) void
onesweep_kernel(pass_args a, K flip)
{
    constexpr bool PAIRS = !std::is_same<V, no_value>::value;
    constexpr uint32_t TILE = kThreads * ITEMS;
    constexpr size_t VBYTES = PAIRS ? sizeof(V) : 0;
    constexpr size_t STAGE = TILE * (sizeof(K) + VBYTES);
    constexpr size_t WARP_HIST = kWarps * (kBins + 1) * sizeof(uint32_t); /* + the bin of invalid items */
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

    uint32_t *wh = (uint32_t *)s_raw + warp * (kBins + 1);
    for (int i = lane; i < kBins + 1; i += 32) wh[i] = 0;
    if (tid == 0) s_tile = atomicAdd(a.tile_counter, 1u);
    __syncthreads();
    const uint32_t tile = s_tile;
    const uint32_t base = tile * TILE;
    const uint32_t wbase = base + warp * 32 * ITEMS + lane;
    const uint32_t n = a.n;

    /* 1. load the keys (the values after ranking: fewer live registers) */
    K key[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t idx = wbase + i * 32;
        key[i] = idx < n ? src_keys[idx] : K(0);
    }

    /* 2. rank within the warp; invalid items take the extra bin kBins.
     * slot[i]: digit << 16 | place (in the warp's digit, then in the tile). */
    uint32_t slot[ITEMS];
    const uint32_t lanes_below = (1u << lane) - 1;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t d = wbase + i * 32 < n ? digit_of<K, KIND>(key[i], flip, a.shift, a.mask) : (uint32_t)kBins;
        const uint32_t peers = __match_any_sync(0xffffffffu, d);
        const uint32_t before = wh[d];
        __syncwarp();
        if (lane == 31 - __clz(peers)) wh[d] = before + __popc(peers);
        __syncwarp();
        slot[i] = d << 16 | (before + __popc(peers & lanes_below));
    }
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
    __syncthreads();

    /* 3. combine the warps: thread tid owns digit tid */
    uint32_t count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++) count += ((uint32_t *)s_raw)[w * (kBins + 1) + tid];
    const uint32_t start = block_exclusive_sum(count, s_warp);

    /* 4a. publish the tile's counts at once; its successors may be waiting */
    store_status(&status[tile * kBins + tid], (tile == 0 ? kFlagInclusive : kFlagAggregate) | count);

    {
        uint32_t run = start;
#pragma unroll
        for (int w = 0; w < kWarps; w++) {
            uint32_t *c = &((uint32_t *)s_raw)[w * (kBins + 1) + tid];
            const uint32_t cw = *c;
            *c = run;
            run += cw;
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t d = slot[i] >> 16;
        slot[i] = d < (uint32_t)kBins ? (slot[i] & 0xffffu) + wh[d] : kInvalid;
    }
    __syncthreads(); /* the staging below overwrites the warp counts */

    /* 4b. stage the tile at its sorted places */
    K *s_keys = (K *)s_raw;
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (slot[i] != kInvalid) s_keys[slot[i]] = key[i];
    if constexpr (PAIRS) {
        V *s_vals = (V *)(s_raw + TILE * sizeof(K));
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            if (slot[i] != kInvalid) s_vals[slot[i]] = val[i];
    }

    /* 4c. look back for digit tid's count in earlier tiles */
    uint32_t prefix = 0;
    if (tile > 0) {
        uint32_t j = tile - 1; /* tile 0 is inclusive from the start: j stops there at the latest */
        for (;;) {
            const uint32_t w = load_status(&status[j * kBins + tid]);
            if ((w >> kFlagShift) == 0) { /* not yet published: look again */
                if (GPI_RADIX_POLL_NS) __nanosleep(GPI_RADIX_POLL_NS);
                continue;
            }
            prefix += w & kCountMask;
            if (w & kFlagInclusive) break;
            j--;
        }
        store_status(&status[tile * kBins + tid], kFlagInclusive | (prefix + count));
    }
    /* global place of staged item idx of digit d: s_shift[d] + idx (mod 2^32) */
    s_shift[tid] = a.offsets[tid] + prefix - start;
    status_next[tile * kBins + tid] = 0; /* ready for the next active pass */
    __syncthreads();

    /* 5. write out, staged order */
    const uint32_t valid = n - base < TILE ? n - base : TILE;
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
