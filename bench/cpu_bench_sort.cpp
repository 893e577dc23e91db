/* SPDX-License-Identifier: BSD-3-Clause */
// cpu_bench_sort.cpp - the std::sort anchors of cpu_bench.c, on one thread.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" void cpu_bench_std_sort(uint32_t *keys, size_t n) { std::sort(keys, keys + n); }

// Pairs packed as key << 32 | value: std::sort of the words orders by key,
// then by value (with positions as values, the stable order).
extern "C" void cpu_bench_std_sort_pairs(const uint32_t *keys, const uint32_t *values, uint32_t *keys_out,
                                         uint32_t *values_out, size_t n)
{
    std::vector<uint64_t> w(n);
    for (size_t i = 0; i < n; i++) w[i] = (uint64_t)keys[i] << 32 | values[i];
    std::sort(w.begin(), w.end());
    for (size_t i = 0; i < n; i++) {
        keys_out[i] = (uint32_t)(w[i] >> 32);
        values_out[i] = (uint32_t)w[i];
    }
}
