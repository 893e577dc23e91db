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

    static_assert((pivots & (pivots - 1)) == 0, "pivots: a power of two");
};

} // namespace gpi

#endif
