/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/vec_kernels.h - AVX2 inner loops of the CPU backend's memory-bound
 * passes (scan, reduce, compact), chosen at run time.
 *
 * The library is built for the baseline ISA; these loops carry their own
 * target attribute and run only where gpi_cpu_avx2() says the processor
 * and the OS support AVX2 (nothing needs AVX-512). Elsewhere (no AVX2, a
 * compiler without the attribute, not x86) the callers keep their plain C
 * loops. Every kernel gives exactly the plain loop's result: integer sums
 * wrap in 32 bits, so the order of the adds does not matter. Setting the
 * environment variable GP_CPU_NO_AVX2 to a non-empty value other than
 * "0" turns the kernels off (the tests use it to check the plain loops). */
#ifndef GPUPRIM_CPU_VEC_KERNELS_H
#define GPUPRIM_CPU_VEC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifndef GPI_HAVE_AVX2_KERNELS /* may be set to 0 to build without them */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) /* 64-bit popcount */
#define GPI_HAVE_AVX2_KERNELS 1
#else
#define GPI_HAVE_AVX2_KERNELS 0
#endif
#endif

/* 1 when the AVX2 kernels below may run (checked per call: cheap). */
int gpi_cpu_avx2(void);

/* How long a tile's look-back spins on a predecessor that has not
 * published before it does that tile's work itself: 256 pauses, or
 * GP_CPU_HELP_SPINS (0 helps at once: the tests' way to reach that path). */
unsigned gpi_cpu_help_spins(void);

/* 1 when an output of `bytes` bytes is large enough that its stores should
 * bypass the caches (non-temporal): a pass that writes more than the
 * last-level cache holds only evicts its own input and pays a read for
 * ownership of every output line otherwise. */
int gpi_cpu_stream_output(size_t bytes);

#if GPI_HAVE_AVX2_KERNELS
/* acc + in[0] + ... + in[n-1], wrapping. */
uint32_t gpi_avx2_sum_u32(const uint32_t *in, size_t n, uint32_t acc);

/* The sum scan of in[0, n) to out from `carry` (inclusive or exclusive),
 * wrapping; returns carry + the sum of in[0, n). in == out allowed. With
 * `stream`, out is written with non-temporal stores (ordered by a fence
 * before the return). out must be 4-byte aligned. With fold_n > 0 it also
 * sets *fold_sum to the sum of fold[0, fold_n) (the caller's next piece,
 * not overlapping out), read between these stores so that the reads of
 * the next piece overlap the writes of this one. */
uint32_t gpi_avx2_scan_u32(const uint32_t *in, uint32_t *out, size_t n, uint32_t carry, int inclusive, int stream,
                           const uint32_t *fold, size_t fold_n, uint32_t *fold_sum);

/* The number of non-zero bytes among f[0, n). */
size_t gpi_avx2_count_u8(const uint8_t *f, size_t n);

/* The elements of in[0, n) whose flag byte is non-zero, in order, to buf;
 * returns how many. buf must have room for n + 8 elements (whole vectors
 * are stored past the survivors). */
size_t gpi_avx2_select4_u8(const uint32_t *in, const uint8_t *f, size_t n, uint32_t *buf);
size_t gpi_avx2_select8_u8(const uint64_t *in, const uint8_t *f, size_t n, uint64_t *buf);

/* memcpy of `bytes` (a multiple of 4) with non-temporal stores for the
 * 32-byte aligned middle of dst; dst must be 4-byte aligned. No fence:
 * the caller issues gpi_avx2_store_fence() once it is done. */
void gpi_avx2_copy_stream(void *dst, const void *src, size_t bytes);
void gpi_avx2_store_fence(void);
#endif

#endif
