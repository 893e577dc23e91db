/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_common.cuh - what the two runs kernels (runs_kernel.cuh,
 * runs_ordered_kernel.cuh) share: the call's mode and value types. */
#ifndef GPUPRIM_CUDA_RUNS_COMMON_CUH
#define GPUPRIM_CUDA_RUNS_COMMON_CUH

#include <cuda_runtime.h>

#include <cstdint>

namespace gpi {

/* NO_VALUES: unique and run-length encoding; FIRST: unique-by-key (each
 * run's first value); REDUCE: reduce-by-key. */
enum runs_mode { RUNS_NO_VALUES, RUNS_FIRST, RUNS_REDUCE };

/* Integer sums wrap: they run on the unsigned type of the width. */
template <typename T>
struct sum_type {
    using type = T;
};
template <>
struct sum_type<int32_t> {
    using type = uint32_t;
};
template <>
struct sum_type<long long> {
    using type = unsigned long long;
};

/* The operator of modes without a reduction (the carried value is unused). */
template <typename T>
struct OpFirst {
    __device__ __forceinline__ T operator()(const T &a, const T &) const { return a; }
};

} // namespace gpi

#endif
