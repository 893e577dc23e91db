/* SPDX-License-Identifier: BSD-3-Clause */
/* ops.cuh - the operators of scan and reduce on the device, and their
 * identities. Integer sums are instantiated on unsigned types only (wrap
 * without UB). min/max skip NaN (a NaN operand loses), matching the CPU
 * reference, which never lets its running value become NaN. */
#ifndef GPUPRIM_CUDA_OPS_CUH
#define GPUPRIM_CUDA_OPS_CUH

#include <limits>
#include <type_traits>

namespace gpi {

template <typename T>
__device__ __forceinline__ bool is_nan(T x)
{
    if constexpr (std::is_floating_point<T>::value) return x != x;
    else return false;
}

template <typename T>
struct OpSum {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a + b; }
};
template <typename T>
struct OpMin {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return (b < a || is_nan(a)) ? b : a; }
};
template <typename T>
struct OpMax {
    __device__ __forceinline__ T operator()(const T &a, const T &b) const { return (a < b || is_nan(a)) ? b : a; }
};

/* Identity of max (-inf for floats) and of min (+inf for floats). */
template <typename T>
T lowest_value()
{
    if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
}
template <typename T>
T highest_value()
{
    if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
}

} // namespace gpi

#endif
