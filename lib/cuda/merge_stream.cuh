/* SPDX-License-Identifier: BSD-3-Clause */
/* cuda/merge_stream.cuh - the keys-only merge as one streaming kernel
 * (merge.cu launches it).
 *
 * Each block merges a contiguous run of outputs [d0, d1): two block-wide
 * searches at its start find the inputs that run takes, a[as, ae) and
 * b[bs, be), and from then on the block needs no partition: it keeps a
 * ring of upcoming keys of each side in shared memory and loops
 *   - merge the next `tile` outputs out of the rings' fronts (each thread
 *     finds its split along the merge path in shared memory and merges
 *     `items` outputs serially), staging them in shared memory;
 *   - advance each side's cursor by what the tile took from it, and refill
 *     each ring up to a full ring ahead of its cursor with asynchronous
 *     copies (cp.async: the copies land while the block works on);
 *   - write the staged tile out, coalesced.
 * A ring holds more than (lookahead + 1) tiles of its side, so the keys
 * of a tile were requested `lookahead` iterations before it is merged: the
 * loads of the next tiles are always in flight behind the merge, every
 * key is read from global memory once, and nothing past ae or be is read.
 *
 * Comparisons are on order images with the CPU reference's tie rule: b's
 * key goes first only when strictly before a's. Unsorted inputs keep every
 * cursor inside its range (splits are clamped), so every access stays in
 * the buffers. */
#ifndef GPUPRIM_CUDA_MERGE_STREAM_CUH
#define GPUPRIM_CUDA_MERGE_STREAM_CUH

#include "async_copy.cuh"
#include "order_image.cuh"
#include "policy/merge.cuh"

#include <cuda_runtime.h>

#include <stddef.h>

namespace gpi_merge_stream {

/* Whether a[p] is among the first d outputs: it goes before b[d - 1 - p]
 * unless that one is strictly before it. */
template <typename W, int KIND>
__device__ __forceinline__ bool a_first(const W *a, const W *b, size_t d, size_t p, W flip)
{
    return !(gpi_order::image<W, KIND>(b[d - 1 - p], flip) < gpi_order::image<W, KIND>(a[p], flip));
}

/* Narrows [lo, hi), which holds a split, by the count c of probes that
 * were a_first among the H probes at lo + (k + 1) * len / (H + 1), or, for
 * len <= H, at lo + k (then the split is lo + c). Probes are strictly
 * increasing, so the result stays a sub-range even for unsorted keys. */
template <int H>
__device__ __forceinline__ void narrow(size_t &lo, size_t &hi, size_t c)
{
    const size_t len = hi - lo;
    if (len == 0) return;
    if (len <= (size_t)H) {
        lo += c;
        hi = lo;
        return;
    }
    const size_t nlo = c ? lo + c * len / (H + 1) + 1 : lo;
    const size_t nhi = c < (size_t)H ? lo + (c + 1) * len / (H + 1) : hi;
    lo = nlo;
    hi = nhi;
}

/* The splits of diagonals d0 and d1 (elements of a among the first d
 * outputs), searched together by the whole block: half the threads probe
 * for each, so each round cuts a range by THREADS / 2 + 1 (four or five
 * rounds of global loads for 2^28 keys). Every thread gets both. */
template <typename W, int KIND, int THREADS>
__device__ void block_splits(const W *a, size_t na, const W *b, size_t nb, size_t d0, size_t d1, W flip,
                             size_t &s0, size_t &s1)
{
    constexpr int H = THREADS / 2;
    const int half = (int)threadIdx.x / H, r = (int)threadIdx.x % H;
    const size_t d = half ? d1 : d0;
    size_t lo0 = d0 > nb ? d0 - nb : 0, hi0 = d0 < na ? d0 : na;
    size_t lo1 = d1 > nb ? d1 - nb : 0, hi1 = d1 < na ? d1 : na;
    while (lo0 < hi0 || lo1 < hi1) {
        const size_t lo = half ? lo1 : lo0, len = (half ? hi1 : hi0) - lo;
        bool yes = false;
        if (len > (size_t)H) yes = a_first<W, KIND>(a, b, d, lo + (size_t)(r + 1) * len / (H + 1), flip);
        else if ((size_t)r < len) yes = a_first<W, KIND>(a, b, d, lo + (size_t)r, flip);
        const size_t c0 = (size_t)__syncthreads_count(yes && half == 0);
        const size_t c1 = (size_t)__syncthreads_count(yes && half == 1);
        narrow<H>(lo0, hi0, c0);
        narrow<H>(lo1, hi1, c1);
    }
    s0 = lo0;
    s1 = lo1;
}

/* One thread's outputs [dt, dt + ITEMS) of the merge of the rings' fronts:
 * a's la keys from ring slot ar on, b's lb keys from slot br on (RING
 * slots each; b's ring follows a's). Keys go to x; returns how many of a's
 * keys the outputs before dt + ITEMS take. Never reads outside the rings
 * (slots wrap); keys past la or lb are read but never used (the kernel
 * has the first of each landed, and no copy in flight to the others'
 * slots). ITEMS is odd, so the threads of a warp staging at dt + j fall in
 * different banks. */
template <typename W, int KIND, int ITEMS, int RING>
__device__ __forceinline__ int ring_merge(const W *ring, unsigned ar, int la, unsigned br, int lb, int dt, W flip,
                                          W (&x)[ITEMS])
{
    constexpr unsigned kMask = RING - 1;
    const W *rb = ring + RING;
    int lo = dt > lb ? dt - lb : 0, hi = dt < la ? dt : la;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (!(gpi_order::image<W, KIND>(rb[(br + (unsigned)(dt - 1 - mid)) & kMask], flip) <
              gpi_order::image<W, KIND>(ring[(ar + (unsigned)mid) & kMask], flip)))
            lo = mid + 1;
        else
            hi = mid;
    }
    int ai = lo, bi = dt - lo;
    W ka = ring[(ar + (unsigned)ai) & kMask], kb = rb[(br + (unsigned)bi) & kMask];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const bool take_a =
            ai < la && (bi >= lb || !(gpi_order::image<W, KIND>(kb, flip) < gpi_order::image<W, KIND>(ka, flip)));
        x[j] = take_a ? ka : kb;
        ai += take_a ? 1 : 0;
        bi += take_a ? 0 : 1;
        /* one shared read a step, the successor of the side taken */
        const W next = ring[take_a ? ((ar + (unsigned)ai) & kMask) : RING + ((br + (unsigned)bi) & kMask)];
        ka = take_a ? next : ka;
        kb = take_a ? kb : next;
    }
    return ai;
}

/* Dynamic shared memory of the kernel: the two rings, then the staged tile. */
template <typename W>
constexpr size_t smem_bytes()
{
    using P = gpi::merge_policy<sizeof(W)>;
    return (2 * (size_t)P::ring + P::stream_tile) * sizeof(W);
}

/* Block i merges outputs [i * per_block, (i + 1) * per_block) of the
 * na + nb (per_block a multiple of the tile). */
template <typename W, int KIND>
__global__ void __launch_bounds__(gpi::merge_policy<sizeof(W)>::threads, gpi::merge_policy<sizeof(W)>::stream_blocks)
    merge_keys_kernel(const W *__restrict__ a, size_t na, const W *__restrict__ b, size_t nb, W *__restrict__ out,
                      size_t per_block, W flip)
{
    using P = gpi::merge_policy<sizeof(W)>;
    constexpr int kThreads = P::threads, kItems = P::stream_items, kTile = P::stream_tile;
    constexpr int kRing = P::ring, kAhead = P::lookahead;
    constexpr size_t kMask = (size_t)kRing - 1;
    extern __shared__ __align__(16) unsigned char merge_smem[];
    W *const ring = (W *)merge_smem; /* a's ring, then b's */
    W *const out_s = ring + 2 * kRing;
    __shared__ int taken_a; /* of the tile just merged */

    const size_t n = na + nb, d0 = (size_t)blockIdx.x * per_block;
    if (d0 >= n) return;
    const size_t d1 = d0 + per_block < n ? d0 + per_block : n, total = d1 - d0;
    size_t as, ae;
    block_splits<W, KIND, kThreads>(a, na, b, nb, d0, d1, flip, as, ae);
    /* sorted inputs give as <= ae <= as + total; the clamp keeps unsorted
     * ones inside the buffers (b's range then is [d0 - as, d1 - ae]) */
    ae = max(ae, max(as, d1 > nb ? d1 - nb : (size_t)0));
    ae = min(ae, min(as + total, na));
    const size_t be = d1 - ae;
    const size_t bs = d0 - as;
    size_t ac = as, bc = bs; /* cursors: next key of each side to merge */
    size_t fa = ac, fb = bc; /* ends of what has been requested */

    /* one copy group: each side's keys up to ta and tb */
    auto request = [&](size_t ta, size_t tb) {
        for (size_t i = fa + threadIdx.x; i < ta; i += kThreads) gpi::async_copy(ring + (i & kMask), a + i);
        for (size_t i = fb + threadIdx.x; i < tb; i += kThreads) gpi::async_copy(ring + kRing + (i & kMask), b + i);
        fa = ta;
        fb = tb;
        gpi::async_commit();
    };
    /* the first ring's worth in kAhead + 1 groups, a tile's worth each but
     * the last, so that the first tile waits for its own keys only (and
     * the key after them, which the merge reads ahead) */
#pragma unroll
    for (int g = 0; g <= kAhead; g++) {
        const size_t ahead = g < kAhead ? (size_t)(g + 1) * kTile + 1 : (size_t)kRing;
        request(min(ae, as + ahead), min(be, bs + ahead));
    }

    for (size_t done = 0; done < total;) {
        /* this tile's keys, and the one after each side's, are in groups
         * older than the kAhead newest: the one that requested them filled
         * a ring (more than kAhead + 1 tiles) ahead of a cursor at most
         * kAhead tiles behind this one. So no key read here is still in
         * flight: a slot past a window holds a landed key or none. */
        gpi::async_wait<kAhead>();
        __syncthreads();
        const int count = (int)min((size_t)kTile, total - done);
        const int la = (int)min((size_t)kTile, ae - ac), lb = (int)min((size_t)kTile, be - bc);
        const int dt = min((int)threadIdx.x * kItems, count);
        W x[kItems];
        const int a_end = ring_merge<W, KIND, kItems, kRing>(ring, (unsigned)(ac & kMask), la,
                                                            (unsigned)(bc & kMask), lb, dt, flip, x);
#pragma unroll
        for (int j = 0; j < kItems; j++)
            if (dt + j < count) out_s[dt + j] = x[j];
        /* the last thread ends at output kTile: for a full tile, its a_end
         * is what the tile took from a (a partial tile is the last one) */
        if (threadIdx.x == kThreads - 1) taken_a = a_end;
        __syncthreads();
        if (done + (size_t)count < total) {
            ac += (size_t)taken_a;
            bc += (size_t)(count - taken_a);
            /* into the slots of keys merged already */
            request(min(ae, ac + kRing), min(be, bc + kRing));
        }
        W *const o = out + d0 + done;
        const bool full = count == kTile;
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const int i = j * kThreads + (int)threadIdx.x;
            if (full || i < count) o[i] = out_s[i];
        }
        done += (size_t)count;
    }
    gpi::async_wait<0>(); /* every copy landed before its keys were merged; no block exits with one in flight */
}

} // namespace gpi_merge_stream

#endif
