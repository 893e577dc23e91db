/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/reduce.cuh - the shape of the device reduction's float-sum tree
 * (reduce.cu). Not a free knob: the shape fixes the order of the float
 * additions, so it is part of the result (tests/test_reduce.c replays the
 * same tree on the host). Other sums, min and max go through CUB, tuned by
 * CUB. */
#ifndef GPUPRIM_CUDA_POLICY_REDUCE_CUH
#define GPUPRIM_CUDA_POLICY_REDUCE_CUH

namespace gpi {

struct reduce_policy {
    static constexpr int tree_threads = 256;    /* a block of the tree */
    static constexpr int tree_per_thread = 16;  /* elements a thread adds, in order */

    static_assert(tree_threads == 256, "the block's final combination is written for 8 warps");
};

} // namespace gpi

#endif
