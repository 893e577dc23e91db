/* policy/merge.cuh - the merge kernel's tile shape (merge.cu). */
#ifndef GPUPRIM_CUDA_POLICY_MERGE_CUH
#define GPUPRIM_CUDA_POLICY_MERGE_CUH

#include <stddef.h>

namespace gpi {

/* A tile is threads x items outputs; its keys sit in shared memory once
 * (16 KiB for either key width), the source positions of pairs in 16 bits. */
template <size_t KEY_BYTES>
struct merge_policy {
    static constexpr int threads = 256;
    static constexpr int items = KEY_BYTES == 4 ? 16 : 8;
    static constexpr int tile = threads * items;
    static constexpr int partition_threads = 256;

    static_assert(tile <= 65536, "source positions are 16 bits");
    static_assert(items % (16 / (int)KEY_BYTES) == 0, "a thread's outputs are whole 16-byte vectors");
};

} // namespace gpi

#endif
