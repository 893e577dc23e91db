// cpu_bench_sort.cpp - the std::sort anchor of cpu_bench.c, on one thread.
#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" void cpu_bench_std_sort(uint32_t *keys, size_t n) { std::sort(keys, keys + n); }
