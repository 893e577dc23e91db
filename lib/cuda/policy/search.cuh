/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/search.cuh - the sorted search's kernel shape (search.cu). */
#ifndef GPUPRIM_CUDA_POLICY_SEARCH_CUH
#define GPUPRIM_CUDA_POLICY_SEARCH_CUH

namespace gpi {

template <int KEY_BYTES>
struct search_policy {
    static constexpr int threads = 256;
    static constexpr int per_thread = 8;     /* needles a thread searches in lockstep */
    static constexpr int pivots = 4096;      /* the top of the search, in shared memory (a power of two) */
    static constexpr int sector = 32 / KEY_BYTES; /* keys the last step reads at once (one 32-byte sector) */
    static constexpr int blocks_per_sm = 8;  /* grid cap: SMs x this (blocks loop over tiles of needles) */
    /* The index (the last key of each line of keys, a compact copy the L2
     * cache keeps): with it, the steps that miss the L2 cache are only the
     * few within one line of keys. Built when the keys take at least
     * index_min_bytes and there are at least a needle per
     * index_lines_per_needle lines. */
    static constexpr int index_line_bytes = 128;
    static constexpr size_t index_min_bytes = (size_t)64 << 20;
    static constexpr size_t index_lines_per_needle = 4;

    static_assert((pivots & (pivots - 1)) == 0, "pivots: a power of two");
};

} // namespace gpi

#endif
