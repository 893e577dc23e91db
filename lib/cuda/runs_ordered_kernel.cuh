/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_ordered_kernel.cuh - reduce-by-key of float sums, whose bits must
 * be the sequential sum (((v0 + v1) + v2) + ...) of each run (runs.h).
 * runs.cu uses this kernel for float sums only (ORDERED); every exact case
 * (integer sums, min, max, unique, run-length encoding) goes to the faster
 * runs_kernel.cuh. The kernel still handles the exact operators too (the
 * !ORDERED branches below), which keeps it the reference it was written as.
 *
 * Tiles of runs_tile_items elements, a block a tile; thread t of a tile owns
 * runs_per_thread consecutive elements. Each thread loads its keys (and the
 * key before its first, across thread and tile boundaries), marks run heads
 * (an element whose key differs from the one before it), counts them, and
 * folds its values from its last head: its "carry", the value of the run it
 * leaves open, with that run's head position.
 *
 * Two chains cross tiles, both through a per-tile status published with a
 * fence before its flag:
 *   - the head count: an exclusive sum gives every run its output slot
 *     (aggregate, then inclusive prefix: decoupled look-back);
 *   - the open run: a tile holding a head knows the run it leaves open
 *     without looking back, and publishes it at once; only a tile without
 *     heads (inside a run longer than a tile) inherits it from its
 *     predecessor. Exact operators (integer sums, min, max) publish such a
 *     tile's own aggregate and the look-back combines aggregates; float sums
 *     (ORDERED) do not: the tile waits for its predecessor's open run and
 *     folds onto it, value by value.
 * The same two rules hold within the tile: exact operators combine the
 * threads' carries with a segmented scan (earlier operand on the left, so
 * min/max keep the earliest of equal values); float sums pass the open run
 * from thread to thread, each thread without a head adding its values to it
 * in order. So a float sum is (((v0 + v1) + v2) + ...) over the run, exactly
 * the CPU backend's sequential sum; its cost grows with the longest run.
 *
 * A run's key (and, for unique-by-key, its value) is written by the thread
 * holding its head; its reduction and length by the thread that holds the
 * next head, or the last element. Each tile reads all of its input before
 * it publishes anything and writes only after its look-back, and every
 * output entry lands at or before the input position it comes from: in place
 * (keys_out == keys_in, values_out == values_in) is safe. */
#ifndef GPUPRIM_CUDA_RUNS_ORDERED_KERNEL_CUH
#define GPUPRIM_CUDA_RUNS_ORDERED_KERNEL_CUH

#include "ops.cuh"
#include "runs_common.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "warp_scan.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace gpi {

namespace ordered {

constexpr int runs_threads = 256;
constexpr int runs_per_thread = 8;
constexpr long long runs_tile_items = (long long)runs_threads * runs_per_thread;

struct runs_count_add {
    __device__ __forceinline__ unsigned long long operator()(unsigned long long a, unsigned long long b) const
    {
        return a + b;
    }
};

/* ---- per-tile status --------------------------------------------------------------
 * flags: RUNS_AGG (agg_count, and for a tile without heads under an exact
 * operator agg_value, are there), RUNS_INCL (incl_count and the open run's
 * incl_value / incl_pos through this tile are there), RUNS_HEAD (the tile
 * holds a head: incl_value / incl_pos are there from RUNS_AGG on). */
enum : uint32_t { RUNS_AGG = 1, RUNS_INCL = 2, RUNS_HEAD = 4 };

template <typename V>
struct runs_state {
    uint32_t *flags;
    unsigned long long *agg_count, *incl_count, *incl_pos;
    V *agg_value, *incl_value;
};

template <typename V>
size_t runs_state_bytes(long long tiles)
{
    const size_t t = (size_t)tiles;
    return align256(t * sizeof(uint32_t)) + 3 * align256(t * 8) + 2 * align256(t * sizeof(V));
}

/* Lay the state out in ws (256-byte aligned) and clear the flags. */
template <typename V>
cudaError_t runs_state_clear(void *ws, long long tiles, cudaStream_t stream, runs_state<V> *st)
{
    const size_t t = (size_t)tiles;
    char *p = static_cast<char *>(ws);
    st->flags = reinterpret_cast<uint32_t *>(p);
    p += align256(t * sizeof(uint32_t));
    st->agg_count = reinterpret_cast<unsigned long long *>(p);
    p += align256(t * 8);
    st->incl_count = reinterpret_cast<unsigned long long *>(p);
    p += align256(t * 8);
    st->incl_pos = reinterpret_cast<unsigned long long *>(p);
    p += align256(t * 8);
    st->agg_value = reinterpret_cast<V *>(p);
    p += align256(t * sizeof(V));
    st->incl_value = reinterpret_cast<V *>(p);
    return cudaMemsetAsync(st->flags, 0, t * sizeof(uint32_t), stream);
}

template <typename T>
__device__ __forceinline__ void runs_put(T *p, T v)
{
    *(volatile T *)p = v;
}
template <typename T>
__device__ __forceinline__ T runs_get(const T *p)
{
    return *(volatile const T *)p;
}

/* Wait until tile j has published something; returns its flags. */
__device__ __forceinline__ uint32_t runs_wait(const uint32_t *flags, long long j)
{
    uint32_t f;
    while ((f = runs_get(flags + j)) == 0) __nanosleep(200);
    __threadfence(); /* the data published before the flag */
    return f;
}

/* The open run: value, head position, and whether a head was seen. */
template <typename V>
struct run_carry {
    V v;
    unsigned long long pos;
    int h;
};

/* a then b (a earlier): b alone if b holds a head, else b folded onto a. */
template <typename V, typename Op>
__device__ __forceinline__ run_carry<V> carry_combine(const run_carry<V> &a, const run_carry<V> &b)
{
    if (b.h) return b;
    return run_carry<V>{Op()(a.v, b.v), a.pos, a.h};
}

template <typename K, typename V, typename Op, runs_mode MODE, bool ORDERED, bool START_ID>
__global__ void __launch_bounds__(runs_threads)
runs_kernel(const K *keys, const V *vals, long long n, K *keys_out, V *vals_out, unsigned long long *lengths,
            runs_state<V> st, V identity, unsigned long long *count_out)
{
    constexpr int T = runs_threads, P = runs_per_thread, WARPS = T / 32;
    constexpr bool REDUCE = MODE == RUNS_REDUCE;
    static_assert(!ORDERED || REDUCE, "only reductions need the ordered chain");
    __shared__ unsigned long long s_warp_count[WARPS];
    __shared__ V s_wv[WARPS];
    __shared__ unsigned long long s_wpos[WARPS];
    __shared__ int s_wh[WARPS];
    /* ORDERED: the open run entering each thread, and whether it is known yet */
    __shared__ V s_v[ORDERED ? T : 1];
    __shared__ unsigned long long s_pos[ORDERED ? T : 1];
    __shared__ int s_known[ORDERED ? T : 1];
    __shared__ unsigned long long s_before;     /* runs before the tile */
    __shared__ V s_in_v, s_out_v;               /* the open run entering / leaving the tile */
    __shared__ unsigned long long s_in_pos, s_out_pos;
    Op op;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const long long tile = blockIdx.x;
    const long long first = tile * runs_tile_items + (long long)t * P;
    const int valid = first >= n ? 0 : (n - first < P ? (int)(n - first) : P);
    const bool need_carry = REDUCE || lengths != nullptr; /* the open run's value or head position */

    /* ---- load, mark heads ---- */
    K k[P];
    V v[P];
    unsigned heads = 0;
    {
        K prev = valid && first > 0 ? keys[first - 1] : K();
#pragma unroll
        for (int i = 0; i < P; i++) {
            k[i] = K();
            v[i] = V();
            if (i < valid) {
                k[i] = keys[first + i];
                if (MODE != RUNS_NO_VALUES) v[i] = vals[first + i];
                if (first + i == 0 || !(prev == k[i])) heads |= 1u << i;
                prev = k[i];
            }
        }
    }
    /* A run's value starts from its first value (sums), or from the
     * identity (min, max: a NaN first value is skipped like the others). */
    auto open = [&](V x) { return START_ID ? op(identity, x) : x; };

    /* ---- this thread's carry: from its last head, else all its values ---- */
    run_carry<V> own{identity, 0ull, heads != 0};
    if (heads) own.pos = (unsigned long long)(first + 31 - __clz(heads));
    if (REDUCE) {
        V acc = identity;
#pragma unroll
        for (int i = 0; i < P; i++)
            if (i < valid) acc = (heads >> i & 1u) ? open(v[i]) : op(acc, v[i]);
        own.v = acc; /* ORDERED without heads: not used */
    }

    /* ---- block: head counts (exclusive sum), carries (segmented scan) ---- */
    const unsigned long long cnt = (unsigned long long)__popc(heads);
    const unsigned long long cnt_incl = warp_inclusive_scan(cnt, runs_count_add(), lane);
    if (lane == 31) s_warp_count[warp] = cnt_incl;
    run_carry<V> lane_ex{identity, 0ull, 0};
    if (!ORDERED && need_carry) {
        run_carry<V> c = own;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const run_carry<V> y{__shfl_up_sync(0xffffffffu, c.v, off), __shfl_up_sync(0xffffffffu, c.pos, off),
                                 __shfl_up_sync(0xffffffffu, c.h, off)};
            if (lane >= off) c = carry_combine<V, Op>(y, c);
        }
        const run_carry<V> y{__shfl_up_sync(0xffffffffu, c.v, 1), __shfl_up_sync(0xffffffffu, c.pos, 1),
                             __shfl_up_sync(0xffffffffu, c.h, 1)};
        if (lane > 0) lane_ex = y;
        if (lane == 31) {
            s_wv[warp] = c.v;
            s_wpos[warp] = c.pos;
            s_wh[warp] = c.h;
        }
    }
    if (ORDERED) s_known[t] = 0;
    __syncthreads();
    unsigned long long cnt_before = cnt_incl - cnt, tile_count = 0;
    run_carry<V> thread_ex{identity, 0ull, 0}, tile_agg{identity, 0ull, 0};
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        const unsigned long long c = s_warp_count[w];
        if (w < warp) cnt_before += c;
        tile_count += c;
        if (!ORDERED && need_carry) {
            const run_carry<V> wc{s_wv[w], s_wpos[w], s_wh[w]};
            if (w == warp) thread_ex = carry_combine<V, Op>(thread_ex, lane_ex);
            tile_agg = carry_combine<V, Op>(tile_agg, wc);
            if (w < warp) thread_ex = carry_combine<V, Op>(thread_ex, wc);
        }
    }

    /* Fold this thread's values onto the open run entering it (ORDERED, a
     * thread without heads). */
    auto fold = [&](V acc) {
#pragma unroll
        for (int i = 0; i < P; i++)
            if (i < valid) acc = op(acc, v[i]);
        return acc;
    };
    /* ORDERED: pass the open run on from each thread whose entering run is
     * known and that has no head, one thread per step, until nothing moves. */
    auto chain = [&]() {
        for (;;) {
            const bool act = t + 1 < T && s_known[t] && !heads && !s_known[t + 1];
            V nv = identity;
            unsigned long long np = 0;
            if (act) {
                nv = fold(s_v[t]);
                np = s_pos[t];
            }
            __syncthreads();
            if (act) {
                s_v[t + 1] = nv;
                s_pos[t + 1] = np;
                s_known[t + 1] = 1;
            }
            if (!__syncthreads_or(act)) break;
        }
    };
    if (ORDERED) {
        /* The runs that start in this tile need nothing from before it. */
        if (heads && t + 1 < T) {
            s_v[t + 1] = own.v;
            s_pos[t + 1] = own.pos;
            s_known[t + 1] = 1;
        }
        __syncthreads();
        chain();
        if (t == T - 1 && tile_count > 0) {
            s_out_v = heads ? own.v : fold(s_v[t]);
            s_out_pos = heads ? own.pos : s_pos[t];
        }
        __syncthreads();
    }

    /* ---- thread 0: publish, look back ---- */
    if (t == 0) {
        const bool tile_head = tile_count > 0;
        const V head_v = ORDERED ? s_out_v : tile_agg.v;
        const unsigned long long head_pos = ORDERED ? s_out_pos : tile_agg.pos;
        unsigned long long before = 0, in_pos = 0;
        V in_v = identity;
        if (tile == 0) {
            runs_put(st.incl_count, tile_count);
            runs_put(st.incl_value, head_v);
            runs_put(st.incl_pos, head_pos);
            __threadfence();
            runs_put(st.flags, (uint32_t)(RUNS_INCL | RUNS_HEAD));
        } else {
            runs_put(st.agg_count + tile, tile_count);
            if (tile_head) {
                runs_put(st.incl_value + tile, head_v);
                runs_put(st.incl_pos + tile, head_pos);
            } else if (!ORDERED) {
                runs_put(st.agg_value + tile, tile_agg.v);
            }
            __threadfence();
            runs_put(st.flags + tile, (uint32_t)(RUNS_AGG | (tile_head ? RUNS_HEAD : 0)));
            /* the head count before this tile */
            for (long long j = tile - 1;; j--) {
                const uint32_t f = runs_wait(st.flags, j);
                if (f & RUNS_INCL) {
                    before += runs_get(st.incl_count + j);
                    break;
                }
                before += runs_get(st.agg_count + j);
            }
            /* the run open where this tile starts */
            if (need_carry) {
                bool any = false;
                for (long long j = tile - 1;; j--) {
                    uint32_t f = runs_wait(st.flags, j);
                    if (ORDERED)
                        while (!(f & (RUNS_HEAD | RUNS_INCL))) {
                            __nanosleep(200);
                            f = runs_get(st.flags + j);
                        }
                    __threadfence();
                    if (f & (RUNS_HEAD | RUNS_INCL)) {
                        const V x = runs_get(st.incl_value + j);
                        in_v = any ? op(x, in_v) : x;
                        in_pos = runs_get(st.incl_pos + j);
                        break;
                    }
                    const V x = runs_get(st.agg_value + j);
                    in_v = any ? op(x, in_v) : x;
                    any = true;
                }
            }
            if (!ORDERED || tile_head) {
                runs_put(st.incl_count + tile, before + tile_count);
                if (!tile_head) {
                    runs_put(st.incl_value + tile, op(in_v, tile_agg.v));
                    runs_put(st.incl_pos + tile, in_pos);
                }
                __threadfence();
                runs_put(st.flags + tile, (uint32_t)(RUNS_INCL | (tile_head ? RUNS_HEAD : 0)));
            }
            if (ORDERED) {
                s_v[0] = in_v;
                s_pos[0] = in_pos;
                s_known[0] = 1;
            }
        }
        s_before = before;
        s_in_v = in_v;
        s_in_pos = in_pos;
    }
    __syncthreads();

    /* ---- the open run entering each thread ---- */
    run_carry<V> cin{identity, 0ull, 0};
    if (ORDERED) {
        chain(); /* the leading threads, from the run entering the tile */
        if (t == T - 1 && tile > 0 && tile_count == 0) {
            /* a tile without heads: its open run is known only now */
            runs_put(st.incl_count + tile, s_before);
            runs_put(st.incl_value + tile, fold(s_v[t]));
            runs_put(st.incl_pos + tile, s_pos[t]);
            __threadfence();
            runs_put(st.flags + tile, (uint32_t)RUNS_INCL);
        }
        if (t > 0 || tile > 0) cin = run_carry<V>{s_v[t], s_pos[t], 1};
    } else if (need_carry) {
        cin = carry_combine<V, Op>(run_carry<V>{s_in_v, s_in_pos, tile > 0}, thread_ex);
    }

    /* ---- write the runs ---- */
    unsigned long long slot = s_before + cnt_before;
    V acc = cin.v;
    unsigned long long start = cin.pos;
#pragma unroll
    for (int i = 0; i < P; i++) {
        if (i < valid) {
            const long long e = first + i;
            if (heads >> i & 1u) {
                if (e > 0) { /* the run before this one ends here */
                    if (REDUCE) vals_out[slot - 1] = acc;
                    if (lengths) lengths[slot - 1] = (unsigned long long)e - start;
                }
                keys_out[slot] = k[i];
                if (MODE == RUNS_FIRST) vals_out[slot] = v[i];
                if (REDUCE) acc = open(v[i]);
                start = (unsigned long long)e;
                slot++;
            } else if (REDUCE) {
                acc = op(acc, v[i]);
            }
            if (e == n - 1) { /* the last run ends here */
                if (REDUCE) vals_out[slot - 1] = acc;
                if (lengths) lengths[slot - 1] = (unsigned long long)n - start;
                *count_out = slot;
            }
        }
    }
}

} // namespace ordered
} // namespace gpi

#endif
