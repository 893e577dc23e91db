/* SPDX-License-Identifier: BSD-3-Clause */
/* policy/topk.cuh - top-k's kernel shapes and its choice between the
 * sampled one-pass select and the exact multi-pass select (topk.cu). */
#ifndef GPUPRIM_CUDA_POLICY_TOPK_CUH
#define GPUPRIM_CUDA_POLICY_TOPK_CUH

#include <stddef.h>

namespace gpi {

struct topk_policy {
    static constexpr int threads = 256;         /* streaming kernels */
    static constexpr int vectors = 4;           /* 16-byte loads a thread has in flight in the filter */
    static constexpr int blocks_per_sm = 8;     /* grid cap of the streaming kernels: SMs x this */
    static constexpr int select_threads = 1024; /* the one-block select of the sample */
    static constexpr size_t pass_items = 8192;  /* candidates a block of the select passes takes, at least */
    static constexpr int pass_blocks_per_sm = 4; /* grid cap of the select passes: SMs x this */
    static constexpr size_t sample = 65536;     /* keys sampled to place the threshold */
    static constexpr size_t min_capacity = (size_t)1 << 18; /* candidate capacity beyond 2k */
    static constexpr size_t max_capacity = (size_t)1 << 22; /* larger: the exact multi-pass select */
};

} // namespace gpi

#endif
