/* SPDX-License-Identifier: BSD-3-Clause */
/* internal.h - what the library's own files share: the context's layout,
 * argument-check helpers and the backend entry points. Never installed.
 * Internal symbols use the gpi_ prefix; only gp_ symbols are exported. */
#ifndef GPUPRIM_INTERNAL_H
#define GPUPRIM_INTERNAL_H

#include <gpuprim/gpuprim.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gp_context {
    gp_backend backend;     /* GP_BACKEND_CPU or GP_BACKEND_CUDA, never AUTO */
    int device;             /* CUDA ordinal */
    void *stream;           /* cudaStream_t; NULL = default stream */
    void *cache;            /* workspace cache owned by the context */
    size_t cache_bytes;
    void *user_ws;          /* caller-provided workspace, preferred when big enough */
    size_t user_ws_bytes;
    int cpu_threads;        /* 0 = one per online processor */
    int sm_count;           /* CUDA: the device's multiprocessors (grids sized to fit it at once) */
    int pipelined_scan_ok;  /* CUDA: whether the pipelined scan can run here (sm_90 and a build
                               with its sm_90 code); -1 until the first large scan asks */
    int scan_kernel;        /* CUDA, exact scans past one block: 0 the plain single-pass
                               kernel, 1 the pipelined one from its size threshold on, 2 the
                               pipelined one at every size (GP_CUDA_SCAN=onepass /
                               unset / pipelined: a testing knob, see README) */
    int repeats_kernel;     /* CUDA find-repeats: 0 the one-pass kernel, 1 two passes from
                               their size threshold on, 2 two passes at every size
                               (GP_CUDA_REPEATS=onepass / unset / twopass) */
    void *pinned;           /* CUDA: 256 bytes of mapped page-locked host memory */
    void *pinned_dev;       /* ... its device address: kernels write a result (a sum,
                               a count) straight there, which saves a copy operation
                               (a copy into the caller's pageable memory is staged
                               and costs several microseconds) */
    const char *call;       /* the public call running on the context, which names every detail;
                               NULL for a layered library's call (gp_context_enter) */
    int call_held;          /* a distributed call is running: the calls it makes keep its name */
    char last_error[256];
    struct gpi_buffer_range *buffers; /* CUDA: what gp_malloc gave out and gp_free has not taken
                                         back, sorted (buffer_registry.c) */
    size_t n_buffers, cap_buffers;
};

/* Record a detail message on the context (printf-style) and return status.
 * The detail starts with the running public call's name: a message that
 * does not already start with "<name>:" gets that prefix. */
gp_status gpi_error(gp_context *ctx, gp_status status, const char *fmt, ...);
void gpi_clear_error(gp_context *ctx);

/* Scratch memory of the context's backend, at least `bytes` long, valid
 * until the next call that asks for scratch. Grows the cache as needed
 * (synchronizing the stream before releasing the old block). bytes == 0
 * gives a NULL pointer and GP_SUCCESS. */
gp_status gpi_workspace(gp_context *ctx, size_t bytes, void **ptr);

/* The same with the pointer aligned up to 256 bytes (CUB's temporary
 * storage and the look-back state want it; a caller's workspace may have
 * any alignment): asks gpi_workspace for bytes + 256. Never NULL on
 * success, even for bytes == 0 (CUB reads a NULL as a size query). */
gp_status gpi_workspace_aligned(gp_context *ctx, size_t bytes, void **ptr);

/* A host buffer of `bytes` (several MiB) that is written soon after, on
 * huge pages where the system offers them (fewer page faults); released
 * with free(). NULL when out of memory; bytes == 0 gives a pointer to free. */
void *gpi_host_alloc_large(size_t bytes);

/* a*b into *out, or GP_ERROR_SIZE_OVERFLOW. */
gp_status gpi_mul_size(size_t a, size_t b, size_t *out);

/* Blocks of `threads` for a grid-stride loop over n items: a thread an
 * item up to 65536 blocks, past that each thread loops. */
static inline unsigned gpi_stride_blocks(size_t n, unsigned threads)
{
    const size_t blocks = (n + threads - 1) / threads;
    return (unsigned)(blocks < 65536 ? blocks : 65536);
}

/* Do [a, a+a_bytes) and [b, b+b_bytes) share any byte? */
int gpi_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes);

/* Check that ptr is usable as a buffer of the context's backend for `bytes`
 * bytes: not NULL when bytes > 0; for CUDA, memory the device can address
 * (device, managed or mapped host memory; plain host memory is
 * GP_ERROR_WRONG_MEMORY). `name` appears in the error detail. */
gp_status gpi_check_buffer(gp_context *ctx, const void *ptr, size_t bytes, const char *name);

/* The context's own device buffers (buffer_registry.c): gp_malloc records
 * one, gp_free forgets it, and gpi_check_buffer accepts a range inside one
 * without asking the driver. */
void gpi_buffers_add(gp_context *ctx, const void *ptr, size_t bytes);
void gpi_buffers_remove(gp_context *ctx, const void *ptr);
int gpi_buffers_hold(const gp_context *ctx, const void *ptr, size_t bytes);
void gpi_buffers_release(gp_context *ctx);

/* Start of every public call on a context: records `fn`, the call's public
 * name (its details start with it), clears the last error and, for CUDA,
 * makes the context's device current (one thread may drive contexts on
 * several devices). */
gp_status gpi_enter(gp_context *ctx, const char *fn);
/* The same without the device switch (a call that only sets a field of a
 * valid context): records fn and clears the last error. */
void gpi_begin(gp_context *ctx, const char *fn);

/* Check a context pointer (not NULL, valid backend). */
gp_status gpi_check_context(const gp_context *ctx);

/* Is dtype one of the six known types / op one of the three? */
int gpi_valid_dtype(gp_dtype dtype);
int gpi_valid_op(gp_op op);

/* Number of CPU threads to use for parallel CPU work. */
int gpi_cpu_threads(const gp_context *ctx);

/* ---- argument checks and backend dispatch, shared by the public calls and
 * the distributed ones (lib/comm/). A check writes nothing and records its
 * detail with `fn` naming the call; a run dispatches to the backend. */
gp_status gpi_scan_check(gp_context *ctx, const char *fn, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                         const void *in, const void *out, size_t n);
gp_status gpi_reduce_check(gp_context *ctx, const char *fn, gp_dtype dtype, gp_op op, const void *in, size_t n,
                           const void *result_host);
gp_status gpi_reduce_run(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n, void *result_host);
/* The input checks of a call that reads n elements of a known dtype (reduce,
 * argmin/argmax): n fit a byte count, `in` usable and aligned to the element. */
gp_status gpi_elements_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, size_t n);
/* Bytes a flag of flag_type takes (1 or 4), 0 for an unknown type. */
size_t gpi_flag_size(gp_flag_type t);
/* The checks a flag-driven call (compact, partition) starts with, in this
 * order: a known dtype and flag type, count_out not NULL (count_name names it
 * in the detail), n elements and n flags fit a byte count. Gives the element
 * and flag sizes and the byte counts of n of each. */
gp_status gpi_flagged_sizes(gp_context *ctx, const char *fn, gp_dtype dtype, gp_flag_type flag_type, size_t n,
                            const void *count_out, const char *count_name, size_t *es, size_t *fs, size_t *bytes,
                            size_t *flag_bytes);
/* The sort checks shared by gp_sort_*, gp_segmented_sort_* and gp_dist_sort_*
 * (lib/sort.c). Key: a known key dtype and order, a bit range within the key.
 * Value size (gp_sort_pairs, gp_segmented_sort_pairs): 4 or 8, n values fit
 * vbytes, and with values_in NULL the indices fit the value.
 * Keys buffers: keys_in and keys_out usable for kbytes, equal or apart,
 * aligned to the ks-byte key. Values buffers (value size vs, vbytes for n):
 * values_in (NULL allowed) and values_out usable, equal or apart, apart from
 * the keys, aligned to vs. */
gp_status gpi_sort_key_check(gp_context *ctx, const char *fn, gp_dtype key_dtype, gp_sort_order order, int begin_bit,
                             int end_bit);
/* What every ordered call (sorts, merge, search, top-k) checks first: a
 * known key dtype and order. */
gp_status gpi_key_order_check(gp_context *ctx, const char *fn, gp_dtype key_dtype, gp_sort_order order);
gp_status gpi_sort_value_size_check(gp_context *ctx, const char *fn, size_t vs, const void *values_in, size_t n,
                                    size_t *vbytes);
gp_status gpi_sort_keys_buffers_check(gp_context *ctx, const char *fn, const void *keys_in, const void *keys_out,
                                      size_t n, size_t ks, size_t kbytes);
gp_status gpi_sort_values_buffers_check(gp_context *ctx, const char *fn, const void *keys_in, const void *keys_out,
                                        size_t kbytes, const void *values_in, const void *values_out, size_t n,
                                        size_t vs, size_t vbytes);
gp_status gpi_compact_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, const void *flags,
                            gp_flag_type flag_type, const void *out, size_t n, const void *count_out);
gp_status gpi_compact_run(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count_host);
gp_status gpi_compact_indices_check(gp_context *ctx, const char *fn, const void *flags, gp_flag_type flag_type,
                                    const uint64_t *indices_out, size_t n, const void *count_out);
gp_status gpi_compact_indices_run(gp_context *ctx, const void *flags, gp_flag_type flag_type, uint64_t *indices_out,
                                  size_t n, size_t *count_host);
/* out_room: entries indices_out must hold (n - 1 for gp_find_repeats). */
gp_status gpi_find_repeats_check(gp_context *ctx, const char *fn, gp_dtype dtype, const void *in, size_t n,
                                 const uint64_t *indices_out, size_t out_room, const void *count_out);
gp_status gpi_find_repeats_run(gp_context *ctx, gp_dtype dtype, const void *in, size_t n, uint64_t *indices_out,
                               size_t *count_host);
gp_status gpi_stencil_2d_check(gp_context *ctx, const char *fn, gp_dtype dtype, const gp_stencil5 *weights,
                               gp_boundary boundary, const void *in, const void *out, size_t rows, size_t cols);
gp_status gpi_stencil_2d_run(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *weights, gp_boundary boundary,
                             const void *in, void *out, size_t rows, size_t cols);

/* A checked sort call (lib/sort.c), as the backends receive it. */
typedef struct gpi_sort_args {
    gp_dtype key_dtype;
    int descending;
    const void *keys_in;
    void *keys_out;
    size_t value_size;      /* 0: keys only */
    const void *values_in;  /* NULL with value_size != 0: the indices */
    void *values_out;
    size_t n;
    int begin_bit, end_bit; /* begin_bit < end_bit */
} gpi_sort_args;

/* The order image of a float key (see gpuprim.h) and back; the CPU and CUDA
 * backends (host and device code) both use these. */
#ifdef __CUDACC__
#define GPI_HOSTDEV __host__ __device__
#else
#define GPI_HOSTDEV
#endif
static inline GPI_HOSTDEV uint32_t gpi_f32_image(uint32_t b)
{
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return b - 0x7fffffu;
}
static inline GPI_HOSTDEV uint32_t gpi_f32_from_image(uint32_t u)
{
    u += 0x7fffffu;
    return (u & 0x80000000u) ? (u ^ 0x80000000u) : ~u;
}
static inline GPI_HOSTDEV uint64_t gpi_f64_image(uint64_t b)
{
    b = (b >> 63) ? ~b : (b | 0x8000000000000000ull);
    return b - 0xfffffffffffffull;
}
static inline GPI_HOSTDEV uint64_t gpi_f64_from_image(uint64_t u)
{
    u += 0xfffffffffffffull;
    return (u >> 63) ? (u ^ 0x8000000000000000ull) : ~u;
}

/* ---- CPU backend (lib/cpu/): arguments already checked ------------------ *
 * `threads`: how many threads the call may use (gpi_cpu_threads(ctx); below
 * 1 counts as 1). Inputs under 64K elements run on the calling thread. The
 * results never depend on the number of threads. */
gp_status gpi_cpu_sort(const gpi_sort_args *a, int threads);
/* gpi_cpu_sort on caller scratch (host memory aligned to the key size) of
 * gpi_cpu_sort_scratch_bytes(a) bytes: n keys, then (pairs) n values; a
 * keys-only sort uses only the first n * key size bytes. NULL: allocated
 * and freed by the call, as gpi_cpu_sort does. */
size_t gpi_cpu_sort_scratch_bytes(const gpi_sort_args *a);
gp_status gpi_cpu_sort_with(const gpi_sort_args *a, int threads, void *scratch);
/* Float sums add left to right within tiles of 16384 elements, each tile
 * started from the sum of the tiles before (cpu/scan.c); other operators
 * and integer sums equal one left-to-right pass. */
gp_status gpi_cpu_scan(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n,
                       int threads);
/* The same with the running value started from *seed (one element of the
 * dtype, host memory) instead of the identity; seed NULL is gpi_cpu_scan. */
gp_status gpi_cpu_scan_seeded(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n,
                              const void *seed, int threads);
/* One left-to-right pass on the calling thread, float sums included. */
gp_status gpi_cpu_scan_in_order(gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n);
/* Float sums in the fixed tree of gp_reduce (gpi_cpu_tree_sum_*). */
gp_status gpi_cpu_reduce(gp_dtype dtype, gp_op op, const void *in, size_t n, void *result, int threads);
/* One left-to-right pass on the calling thread, float sums included (from
 * +0.0): for short arrays whose order is promised, such as the ranks'
 * partial results of a distributed reduce. */
gp_status gpi_cpu_reduce_in_order(gp_dtype dtype, gp_op op, const void *in, size_t n, void *result);
/* The float-sum tree of gp_reduce (gpuprim.h) over x[0, n) into *sum, the
 * same bits as the CUDA backend. n may be 0 (gives +0.0).
 * GP_ERROR_OUT_OF_MEMORY when the block sums (n / 4096 of them) cannot be
 * allocated. */
gp_status gpi_cpu_tree_sum_f32(const float *x, size_t n, float *sum, int threads);
gp_status gpi_cpu_tree_sum_f64(const double *x, size_t n, double *sum, int threads);
gp_status gpi_cpu_compact(gp_dtype dtype, const void *in, const void *flags, gp_flag_type flag_type,
                          void *out, size_t n, size_t *count, int threads);
gp_status gpi_cpu_compact_indices(const void *flags, gp_flag_type flag_type, uint64_t *out, size_t n,
                                  size_t *count, int threads);
gp_status gpi_cpu_find_repeats(gp_dtype dtype, const void *in, size_t n, uint64_t *out, size_t *count,
                               int threads);
gp_status gpi_cpu_transpose(size_t elem_size, const void *in, void *out, size_t rows, size_t cols, int threads);
gp_status gpi_cpu_stencil_1d(gp_dtype dtype, const gp_stencil3 *w, gp_boundary b, const void *in,
                             void *out, size_t n, int threads);
gp_status gpi_cpu_stencil_2d(gp_dtype dtype, const gp_stencil5 *w, gp_boundary b, const void *in,
                             void *out, size_t rows, size_t cols, int threads);

/* ---- CUDA backend (lib/cuda/): arguments already checked ---------------- *
 * Each runs on ctx->stream, takes scratch through gpi_workspace, and maps
 * CUDA errors through gpi_cuda_status. */
gp_status gpi_cuda_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in,
                        void *out, size_t n);
/* Seeded as gpi_cpu_scan_seeded (seed: host memory, NULL = identity). */
gp_status gpi_cuda_scan_seeded(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind, const void *in,
                               void *out, size_t n, const void *seed);
gp_status gpi_cuda_reduce(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                          void *result_host);
/* The same into device memory (one element), asynchronous. */
gp_status gpi_cuda_reduce_device(gp_context *ctx, gp_dtype dtype, gp_op op, const void *in, size_t n,
                                 void *result_dev);
gp_status gpi_cuda_compact(gp_context *ctx, gp_dtype dtype, const void *in, const void *flags,
                           gp_flag_type flag_type, void *out, size_t n, size_t *count_host);
gp_status gpi_cuda_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                                   uint64_t *out, size_t n, size_t *count_host);
gp_status gpi_cuda_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                                uint64_t *out, size_t *count_host);
gp_status gpi_cuda_transpose(gp_context *ctx, size_t elem_size, const void *in, void *out, size_t rows,
                             size_t cols);
gp_status gpi_cuda_stencil_1d(gp_context *ctx, gp_dtype dtype, const gp_stencil3 *w, gp_boundary b,
                              const void *in, void *out, size_t n);
gp_status gpi_cuda_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *w, gp_boundary b,
                              const void *in, void *out, size_t rows, size_t cols);

gp_status gpi_cuda_sort(gp_context *ctx, const gpi_sort_args *a);
/* gp_copy's device-to-device copy: a 16-byte kernel or cudaMemcpyAsync. */
gp_status gpi_cuda_copy(gp_context *ctx, void *dst, const void *src, size_t bytes);
/* gp_sort_keys_double_buffer's backend (lib/sort.c checks first): sort n
 * integer keys (GP_UINT32, GP_INT32, GP_UINT64, GP_INT64) of `keys` on bits
 * [begin_bit, end_bit), alternating with `alt` (n keys); *in_alt becomes 1
 * when the sorted keys end in alt. tmp is temporary storage of tmp_bytes,
 * at least what gpi_cuda_sort_scratch_bytes gives for the same n and bits. */
gp_status gpi_cuda_sort_scratch_bytes(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit, int end_bit,
                                      size_t *tmp_bytes);
gp_status gpi_cuda_sort_double_buffer(gp_context *ctx, gp_dtype key_dtype, int descending, void *keys, void *alt,
                                      size_t n, int begin_bit, int end_bit, void *tmp, size_t tmp_bytes, int *in_alt);

/* Map a cudaError_t (passed as int so C files need no CUDA header) to a
 * status, recording cudaGetErrorName and `what` on the context.
 * 0 (cudaSuccess) gives GP_SUCCESS. */
gp_status gpi_cuda_status(gp_context *ctx, int cuda_error, const char *what);

#ifdef __cplusplus
}
#endif

#endif
