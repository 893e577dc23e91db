/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/key_runs.h - runs of equal consecutive keys, for the CPU calls that
 * cut an array of keys among threads by runs (cpu/runs.c, scan by key in
 * cpu/segmented_threads.c). A run starts at i when i == 0 or keys[i] !=
 * keys[i-1], compared as the key dtype compares: integers all bits, floats
 * with == (NaN equals nothing, -0.0 == +0.0). == is transitive where it
 * holds, so comparing with a run's first key is comparing with the one
 * before. */
#ifndef GPUPRIM_CPU_KEY_RUNS_H
#define GPUPRIM_CPU_KEY_RUNS_H

#include <gpuprim/gpuprim.h>

#include <stddef.h>
#include <stdint.h>

#define GPI_DEFINE_KEY_RUNS(SUF, T)                                                          \
    static inline size_t gpi_first_start_##SUF(const void *keys, size_t lo, size_t hi)       \
    {                                                                                        \
        const T *k = (const T *)keys;                                                        \
        size_t i = lo;                                                                       \
        if (i > 0)                                                                           \
            while (i < hi && k[i] == k[i - 1]) i++;                                          \
        return i;                                                                            \
    }                                                                                        \
    static inline size_t gpi_count_starts_##SUF(const void *keys, size_t lo, size_t hi,      \
                                                 size_t *first)                              \
    {                                                                                        \
        const T *k = (const T *)keys;                                                        \
        size_t i = gpi_first_start_##SUF(keys, lo, hi), c = 1;                               \
        *first = i;                                                                          \
        if (i >= hi) return 0;                                                               \
        for (i++; i < hi; i++) c += !(k[i] == k[i - 1]);                                     \
        return c;                                                                            \
    }                                                                                        \
    static inline size_t gpi_run_end_##SUF(const void *keys, size_t b, size_t end)           \
    {                                                                                        \
        const T *k = (const T *)keys;                                                        \
        const T first = k[b];                                                                \
        size_t e = b + 1;                                                                    \
        while (e < end && k[e] == first) e++;                                                \
        return e;                                                                            \
    }

GPI_DEFINE_KEY_RUNS(k32, uint32_t)
GPI_DEFINE_KEY_RUNS(k64, uint64_t)
GPI_DEFINE_KEY_RUNS(f32, float)
GPI_DEFINE_KEY_RUNS(f64, double)

/* The loops above for a key dtype. */
#define GPI_KEY_RUNS_DISPATCH(D, NAME, ...)                                                  \
    switch (D) {                                                                             \
    case GP_INT32:                                                                           \
    case GP_UINT32: return gpi_##NAME##_k32(__VA_ARGS__);                                    \
    case GP_INT64:                                                                           \
    case GP_UINT64: return gpi_##NAME##_k64(__VA_ARGS__);                                    \
    case GP_FLOAT32: return gpi_##NAME##_f32(__VA_ARGS__);                                   \
    default: return gpi_##NAME##_f64(__VA_ARGS__);                                           \
    }

/* The first run start in [lo, hi); hi: none. */
static inline size_t gpi_key_first_start(gp_dtype d, const void *keys, size_t lo, size_t hi)
{
    GPI_KEY_RUNS_DISPATCH(d, first_start, keys, lo, hi)
}

/* The run starts in [lo, hi), and the first of them in *first (hi: none). */
static inline size_t gpi_key_count_starts(gp_dtype d, const void *keys, size_t lo, size_t hi, size_t *first)
{
    GPI_KEY_RUNS_DISPATCH(d, count_starts, keys, lo, hi, first)
}

/* The end of the run that starts at b (end: the array's). */
static inline size_t gpi_key_run_end(gp_dtype d, const void *keys, size_t b, size_t end)
{
    GPI_KEY_RUNS_DISPATCH(d, run_end, keys, b, end)
}

#endif
