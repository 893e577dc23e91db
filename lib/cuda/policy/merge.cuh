/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/merge.cuh - the merge kernels' shapes (merge.cu, merge_stream.cuh). */
#ifndef GPUPRIM_CUDA_POLICY_MERGE_CUH
#define GPUPRIM_CUDA_POLICY_MERGE_CUH

#include <stddef.h>

namespace gpi {

/* Both kernels: a tile is threads x items outputs, a thread merging items
 * consecutive ones; items is odd, so that a warp's accesses at stride
 * items in shared memory fall in distinct banks. */
template <size_t KEY_BYTES>
struct merge_policy {
    static constexpr int threads = 256;

    /* Pairs (partition, then a block a tile): the tile's keys sit in shared
     * memory once (about 15 KiB for either key width), the source
     * positions of pairs in 16 bits. */
    static constexpr int items = KEY_BYTES == 4 ? 15 : 7;
    static constexpr int tile = threads * items;
    /* resident blocks an SM (caps the registers; the gather of values
     * wants more with 8-byte values) */
    static constexpr int pairs_blocks(int value_bytes) { return value_bytes == 4 ? 3 : 2; }
    static constexpr int partition_threads = 256;

    /* Keys only (streaming): a ring of 32 KiB of keys for each side, and a
     * smaller tile (9 KiB or 10 KiB), so that a ring holds lookahead + 1
     * tiles and the key after them: loads for the next `lookahead` tiles
     * are in flight while one is merged (about 18 KiB a block, 55 KiB an
     * SM at stream_blocks: more than twice what covers the memory latency
     * at full bandwidth). */
    static constexpr int stream_items = KEY_BYTES == 4 ? 9 : 5;
    static constexpr int stream_tile = threads * stream_items;
    static constexpr int ring = (int)(32768 / KEY_BYTES);
    static constexpr int lookahead = (ring - 1) / stream_tile - 1;
    /* resident blocks an SM: 3 x 74 KiB of shared memory (of 228) */
    static constexpr int stream_blocks = 3;

    static_assert(tile <= 65536, "source positions are 16 bits");
    static_assert(items % 2 == 1 && stream_items % 2 == 1, "odd items: conflict-free strided shared accesses");
    static_assert((ring & (ring - 1)) == 0, "ring slots wrap by a mask");
    static_assert(lookahead >= 1, "a ring holds at least two tiles");
};

} // namespace gpi

#endif
