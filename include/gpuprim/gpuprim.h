/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpuprim.h - GPU parallel primitives with a CPU reference backend.
 *
 * This header is the manual. It is C99, also usable from C++, and holds no
 * CUDA or C++ types: a CUDA stream travels as an opaque `void *`.
 *
 * Model
 *   - Every call goes through a context (gp_context). A context owns one
 *     backend (a CUDA device, or the CPU reference implementation), a stream
 *     (CUDA only) and a workspace cache that grows as needed, so repeated
 *     calls allocate nothing on the hot path.
 *   - Data pointers handed to a primitive are "buffers": memory of the
 *     context's backend. For the CUDA backend that is device memory (or
 *     managed memory); for the CPU backend it is ordinary host memory.
 *     gp_malloc/gp_free/gp_upload/gp_download let one program run unchanged
 *     on either backend. Device memory need not come from gp_malloc: memory
 *     the caller got from cudaMalloc, cudaMallocManaged, mapped page-locked
 *     memory, or another library on the same device (CuPy, PyTorch, ...)
 *     may be passed directly; the context's device must be the one it lives
 *     on (or one with peer access to it).
 *   - Every function returns a gp_status. No function aborts, prints or
 *     exits. On any error status the outputs are left untouched: argument
 *     checks happen before any work. A function that takes a non-const
 *     context also records a detail message, starting "<function name>: "
 *     (gp_context_last_error); the getters that take a const context
 *     (gp_context_get_backend, gp_context_get_stream) return the status alone.
 *   - Sizes are size_t: arrays past 2^31 elements are supported.
 *   - CUDA backend: primitives whose results stay in buffers are
 *     asynchronous on the context's stream. Functions that return a value to
 *     the host (a count, a reduction) synchronize the stream; each says so.
 *   - Element types travel as a gp_dtype argument rather than as one entry
 *     point per type: 6 types x 3 operators x 2 scan kinds would be 36 scan
 *     symbols alone, and a dtype argument lets later versions add types
 *     without growing the ABI (the same choice NCCL and cuBLASLt make).
 *
 * Thread safety: a context must not be used by two threads at once. Separate
 * contexts are independent and may be used concurrently.
 */
#ifndef GPUPRIM_GPUPRIM_H
#define GPUPRIM_GPUPRIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- export macro ------------------------------------------------------ */
/* GP_API marks the library's exported functions: the shared library exports
 * these and hides everything else. */
#if defined(_WIN32)
#  define GP_API
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define GP_API __attribute__((visibility("default")))
#else
#  define GP_API
#endif

/* ---- version ------------------------------------------------------------ */
/* The version of these headers, MAJOR.MINOR.PATCH. */
#define GP_VERSION_MAJOR 0
#define GP_VERSION_MINOR 5
#define GP_VERSION_PATCH 0
/* MAJOR*10000 + MINOR*100 + PATCH, as zstd does. */
#define GP_VERSION_NUMBER (GP_VERSION_MAJOR * 10000 + GP_VERSION_MINOR * 100 + GP_VERSION_PATCH)
/* "MAJOR.MINOR.PATCH", made from the three numbers above (the build reads
 * them from this header too: the version is written once). */
#define GP_VERSION_STR_(x) #x
#define GP_VERSION_XSTR_(x) GP_VERSION_STR_(x)
#define GP_VERSION_STRING                                                        \
    GP_VERSION_XSTR_(GP_VERSION_MAJOR) "." GP_VERSION_XSTR_(GP_VERSION_MINOR) "." \
    GP_VERSION_XSTR_(GP_VERSION_PATCH)

/* The version of the library actually loaded (compare with GP_VERSION_NUMBER
 * to detect a header/library mismatch). Never fails. */
GP_API unsigned gp_version_number(void);
GP_API const char *gp_version_string(void);

/* ---- status codes ------------------------------------------------------- */
/* What every call returns: GP_SUCCESS, or why it failed (gp_status_string
 * gives a message, gp_context_last_error the detail). */
typedef enum gp_status {
    GP_SUCCESS = 0,                /* the call did what it says */
    GP_ERROR_INVALID_ARGUMENT = 1, /* NULL where data is needed, unknown enum value, bad shape */
    GP_ERROR_SIZE_OVERFLOW = 2,    /* a byte count or index would overflow size_t / the index type */
    GP_ERROR_OVERLAP = 3,          /* input and output overlap where that is not allowed */
    GP_ERROR_WRONG_MEMORY = 4,     /* a pointer the backend cannot use (host memory given to CUDA) */
    GP_ERROR_UNSUPPORTED = 5,      /* valid arguments, but this type/operator combination is not offered */
    GP_ERROR_NO_DEVICE = 6,        /* no CUDA driver or no CUDA device */
    GP_ERROR_OUT_OF_MEMORY = 7,    /* device or host allocation failed; the context stays usable */
    GP_ERROR_CUDA = 8,             /* any other CUDA runtime error (see gp_context_last_error) */
    GP_ERROR_IO = 9,               /* a file could not be opened, read or written */
    GP_ERROR_PARSE = 10,           /* a file's content is malformed */
    GP_ERROR_INTERNAL = 11,        /* a bug in gpuprim: please report it */
    GP_ERROR_COMM = 12,            /* a communicator failed: NCCL error, or another rank failed or
                                      rejected its arguments (see gp_context_last_error) */
    GP_ERROR_TIMEOUT = 13,         /* a collective or communicator set-up did not complete in time;
                                      the communicator is aborted and must be destroyed */
    GP_ERROR_NO_NCCL = 14          /* NCCL (libnccl.so.2) could not be loaded: see gpuprim/dist.h */
} gp_status;

/* A static, human-readable message for any status (also for unknown values).
 * Never returns NULL. */
GP_API const char *gp_status_string(gp_status status);

/* ---- element types and operators --------------------------------------- */
/* Values start at 1 so that a zeroed struct or variable is never a valid type. */
typedef enum gp_dtype {
    GP_INT32 = 1,   /* int32_t */
    GP_UINT32 = 2,  /* uint32_t */
    GP_INT64 = 3,   /* int64_t */
    GP_UINT64 = 4,  /* uint64_t */
    GP_FLOAT32 = 5, /* float, IEEE binary32 */
    GP_FLOAT64 = 6  /* double, IEEE binary64 */
} gp_dtype;

/* Size in bytes of one element, or 0 for an unknown dtype. */
GP_API size_t gp_dtype_size(gp_dtype dtype);

/* The operator of scans and reductions. */
typedef enum gp_op {
    GP_OP_SUM = 1, /* integers wrap (two's complement); floats are IEEE sums */
    GP_OP_MIN = 2, /* the smaller; NaN never wins (see gp_scan) */
    GP_OP_MAX = 3  /* the larger; NaN never wins (see gp_scan) */
} gp_op;

/* ---- contexts ------------------------------------------------------------ */
/* The implementation a context runs on. */
typedef enum gp_backend {
    GP_BACKEND_AUTO = 0, /* CUDA when a device is present, else CPU */
    GP_BACKEND_CPU = 1,  /* the CPU reference implementation */
    GP_BACKEND_CUDA = 2  /* a CUDA device: the ordinal given to gp_context_create */
} gp_backend;

/* An opaque handle: one backend, its stream and its workspace cache (see
 * Model above). */
typedef struct gp_context gp_context;

/* Number of CUDA devices usable by this process. Writes 0 (and returns
 * GP_SUCCESS) where there is no driver or no device. */
GP_API gp_status gp_cuda_device_count(int *count);

/* Create a context.
 *   backend  GP_BACKEND_AUTO, _CPU or _CUDA.
 *   device   the CUDA device ordinal (ignored for the CPU backend; AUTO uses it
 *            when it picks CUDA).
 * Returns GP_ERROR_NO_DEVICE for GP_BACKEND_CUDA without driver or device,
 * GP_ERROR_INVALID_ARGUMENT for a NULL `ctx`, an unknown backend or a device
 * ordinal out of range, GP_ERROR_OUT_OF_MEMORY when the context itself cannot
 * be allocated. On success *ctx is a new context with the default stream
 * (CUDA's legacy default stream, NULL). A CUDA context owns 256 bytes of
 * mapped page-locked host memory, into which kernels write results that come
 * back to the host (a sum, a count). */
GP_API gp_status gp_context_create(gp_context **ctx, gp_backend backend, int device);

/* Release the context and its workspace cache. Waits for work queued on its
 * stream. NULL is allowed and does nothing. Never fails. */
GP_API void gp_context_destroy(gp_context *ctx);

/* The backend the context actually uses (never GP_BACKEND_AUTO). */
GP_API gp_status gp_context_get_backend(const gp_context *ctx, gp_backend *backend);

/* Set the cudaStream_t (as void *) that later calls run on. NULL selects the
 * default stream. The caller keeps ownership of the stream. For the CPU
 * backend only NULL is accepted (else GP_ERROR_INVALID_ARGUMENT). */
GP_API gp_status gp_context_set_stream(gp_context *ctx, void *stream);
GP_API gp_status gp_context_get_stream(const gp_context *ctx, void **stream);

/* Hand the context a caller-owned workspace buffer (memory of the context's
 * backend) of `bytes` bytes. Calls whose scratch needs fit use it instead of
 * the internal cache; larger needs fall back to the cache. Pass NULL, 0 to
 * go back to the internal cache. The buffer must outlive its use on the
 * stream. */
GP_API gp_status gp_context_set_workspace(gp_context *ctx, void *workspace, size_t bytes);

/* Number of CPU threads the CPU backend may use: every primitive (scan,
 * reduce, compact, find-repeats, transpose, stencils, sort, the by-key,
 * runs and segmented calls, arg-min/max, histograms, partition, gather and
 * scatter, sorted search, merge, top-k) and the renderer split their work
 * over them (inputs under 64K elements run on the calling thread). 0 means
 * one per online processor (the default). Results never depend on the
 * number. Counts above 1024 are taken as 1024 (GP_SUCCESS): more never
 * helps, and any count, INT_MAX included, is safe to pass. Negative:
 * GP_ERROR_INVALID_ARGUMENT, with a detail message. */
GP_API gp_status gp_context_set_cpu_threads(gp_context *ctx, int threads);

/* Wait until all work queued on the context's stream has finished. */
GP_API gp_status gp_context_synchronize(gp_context *ctx);

/* A message describing the last error this context met, with detail a
 * status code cannot carry (for instance the CUDA error name). Empty string
 * when there was none. Valid until the next call on the context. NULL ctx
 * gives "". */
GP_API const char *gp_context_last_error(const gp_context *ctx);

/* ---- for libraries built on gpuprim ----------------------------------------
 * A library that takes its caller's context (gpuprim's own renderer,
 * libgpuprim-render, is one) can report through it exactly as gpuprim's
 * calls do: the caller then finds every detail in gp_context_last_error. */

/* Begin a call made on the context: checks the context (not NULL, a known
 * backend: GP_ERROR_INVALID_ARGUMENT otherwise, nothing recorded), clears
 * its last error and, for CUDA, makes the context's device current on the
 * calling thread (one thread may drive contexts on several devices). Every
 * gpuprim call does this first. */
GP_API gp_status gp_context_enter(gp_context *ctx);

/* Record a detail message (printf-style, cut to 255 bytes) as the context's
 * last error and return `status` unchanged, so that a layered library can
 * write `return gp_context_set_error(ctx, GP_ERROR_..., "fn: ...", ...)`.
 * NULL ctx records nothing. */
GP_API gp_status gp_context_set_error(gp_context *ctx, gp_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The number of CPU threads the CPU backend uses for parallel work: the
 * gp_context_set_cpu_threads setting, or (for 0) one per online processor,
 * at most 256. Any backend. */
GP_API gp_status gp_context_get_cpu_threads(const gp_context *ctx, int *threads);

/* The CUDA device ordinal of a CUDA context (for a layered library whose
 * own CUDA code must run on it: a second copy of the CUDA runtime, as in a
 * library that links it statically, keeps its own current device); -1 for
 * a CPU context. */
GP_API gp_status gp_context_get_device(const gp_context *ctx, int *device);

/* ---- buffers --------------------------------------------------------------
 * Memory of the context's backend. gp_malloc of 0 bytes succeeds with *ptr
 * set to NULL. gp_free(ctx, NULL) is a no-op. Memory from gp_malloc goes
 * back through gp_free on the same context, before the context is
 * destroyed: a CUDA context keeps a list of the buffers it gave out, and a
 * call checks a pointer into one of them without asking the driver (a
 * microsecond saved a buffer a call). Freed any other way (cudaFree,
 * another context), the range stays on the list, and a later call given a
 * pointer into it runs on freed memory instead of returning
 * GP_ERROR_WRONG_MEMORY. gp_upload and gp_download are
 * synchronous: when they return, the copy is complete. gp_copy is
 * asynchronous on the stream (buffer to buffer). Overlapping ranges are
 * GP_ERROR_OVERLAP for gp_copy. */
GP_API gp_status gp_malloc(gp_context *ctx, void **ptr, size_t bytes);
GP_API gp_status gp_free(gp_context *ctx, void *ptr);
GP_API gp_status gp_upload(gp_context *ctx, void *dst_buffer, const void *src_host, size_t bytes);
GP_API gp_status gp_download(gp_context *ctx, void *dst_host, const void *src_buffer, size_t bytes);
GP_API gp_status gp_copy(gp_context *ctx, void *dst_buffer, const void *src_buffer, size_t bytes);

/* ---- scan -------------------------------------------------------------------
 * out[i] = in[0] op in[1] op ... op in[i]        (GP_SCAN_INCLUSIVE)
 * out[i] = identity op in[0] op ... op in[i-1]   (GP_SCAN_EXCLUSIVE)
 * identity: 0 for SUM, the type's largest value for MIN (+inf for floats),
 * its lowest for MAX (-inf for floats).
 * NaN: MIN and MAX skip NaN elements (a NaN never wins, as with fmin/fmax),
 * so the result is NaN-free; an all-NaN prefix gives the identity. Which of
 * -0.0 and +0.0 comes out of MIN/MAX over equal zeros is unspecified. SUM
 * propagates NaN as IEEE addition does. The same holds for gp_reduce.
 * in and out are buffers of n elements of `dtype`. in == out (in place) is
 * allowed; any other overlap is GP_ERROR_OVERLAP. n == 0 does nothing.
 * Float sums are not associative. The CPU backend adds left to right within
 * tiles of 16384 elements, each tile started from the sum of the tiles
 * before it (tile totals added left to right from +0.0), whatever the
 * number of threads. The CUDA order comes from its look-back kernels and
 * is not stated here: its float sums may differ from the CPU's by
 * rounding, but are the same run to run on one device.
 * Asynchronous on the CUDA backend. All types, all operators. */
typedef enum gp_scan_kind {
    GP_SCAN_EXCLUSIVE = 1,
    GP_SCAN_INCLUSIVE = 2
} gp_scan_kind;

/* out[0, n) = the `kind` scan of in[0, n) under `op`, as described above. */
GP_API gp_status gp_scan(gp_context *ctx, gp_dtype dtype, gp_op op, gp_scan_kind kind,
                         const void *in, void *out, size_t n);

/* ---- reduce -----------------------------------------------------------------
 * *result_host = in[0] op in[1] op ... op in[n-1]; the identity (see scan)
 * for n == 0. `in` is a buffer, `result_host` is host memory of one element
 * of `dtype`. Synchronizes the stream. Float sums on the CUDA backend add
 * in a fixed tree that depends on n alone: blocks of 4096 elements, in each
 * thread t of 256 adding elements t, t+256, ..., t+3840 in order from -0.0,
 * then pairs of lanes 16, 8, 4, 2, 1 apart within each warp of 32 threads,
 * then the 8 warp sums as ((w0+w4) + (w2+w6)) + ((w1+w5) + (w3+w7)); the
 * block sums are reduced the same way until one is left. So the bits depend
 * on the values and n only: not on the run, the buffer's address or
 * alignment, or the GPU model. The CPU backend adds in the same tree, so
 * both backends give the same bits (it no longer adds left to right from
 * +0.0, whatever its number of threads). Integer sums, min
 * and max are exact everywhere (of +0.0 and -0.0, min and max on CUDA may
 * return either). */
GP_API gp_status gp_reduce(gp_context *ctx, gp_dtype dtype, gp_op op,
                           const void *in, size_t n, void *result_host);

/* ---- compact ------------------------------------------------------------------
 * Stable stream compaction: out receives, in order, every in[i] whose
 * flags[i] is non-zero; *count_host receives how many. `flags` holds n
 * elements of flag_type, which must be GP_UINT8_FLAGS (bytes) or
 * GP_INT32_FLAGS (int32). out must have room for n elements (only the first
 * *count_host are written, nothing past them). in, flags and out are buffers; out may not
 * overlap in or flags. Synchronizes the stream (to return the count). */
typedef enum gp_flag_type {
    GP_UINT8_FLAGS = 1,
    GP_INT32_FLAGS = 2
} gp_flag_type;

/* Compact in[0, n) by flags into out, as described above. */
GP_API gp_status gp_compact(gp_context *ctx, gp_dtype dtype,
                            const void *in, const void *flags, gp_flag_type flag_type,
                            void *out, size_t n, size_t *count_host);

/* Predicate-free form: the flags alone. indices_out receives, ascending,
 * every i with flags[i] != 0 as uint64; *count_host how many. indices_out
 * must have room for n entries; nothing past *count_host is written. */
GP_API gp_status gp_compact_indices(gp_context *ctx, const void *flags, gp_flag_type flag_type,
                                    uint64_t *indices_out, size_t n, size_t *count_host);

/* ---- find-repeats ---------------------------------------------------------------
 * indices_out receives, ascending, every i in [0, n-1) with in[i] == in[i+1]
 * (as uint64); *count_host receives how many (at most n-1). indices_out must
 * have room for n-1 entries (none for n <= 1); only the first *count_host
 * are written, nothing past them. Floats compare
 * with ==: NaN never repeats, -0.0 equals +0.0. in and indices_out are
 * buffers and may not overlap. Synchronizes the stream. On CUDA, inputs of
 * about 6M elements and more use n/8 bytes of workspace (where that cannot
 * be allocated, a slower form that needs almost none runs instead). */
GP_API gp_status gp_find_repeats(gp_context *ctx, gp_dtype dtype, const void *in, size_t n,
                                 uint64_t *indices_out, size_t *count_host);

/* ---- sort ------------------------------------------------------------------------
 * Stable LSD radix sort. Keys of any gp_dtype, ordered as follows:
 *   - unsigned and signed integers: numerically;
 *   - floats: IEEE total order, -inf < negative < -0.0 < +0.0 < positive <
 *     +inf < NaNs. NaNs sort last whatever their sign: positive NaNs
 *     (ascending by payload) then negative NaNs (descending by payload).
 *     Every key keeps its bits (NaN payloads, the sign of zero).
 * Only bits [begin_bit, end_bit) of the key's order image take part; keys
 * equal on them keep their input order (stable). The order image is the key
 * itself for unsigned keys, the key with its sign bit flipped for signed
 * ones, and for floats the IEEE total-order image (sign bit set on positive
 * values, all bits flipped on negative ones) minus 2^23 - 1 (doubles: 2^52 -
 * 1) modulo 2^32 (2^64), which moves negative NaNs above positive ones. The
 * full range is [0, 8 * key size); a narrower one sorts faster (bits known to
 * be zero, or a key whose high bits are all that matter). begin_bit ==
 * end_bit copies the input. GP_SORT_DESCENDING gives the reverse order (NaNs
 * first), equal keys still in input order.
 *
 * keys_in/keys_out (and values_in/values_out) are buffers of n elements.
 * keys_out == keys_in sorts in place (likewise values); any other overlap
 * among the four is GP_ERROR_OVERLAP. Out of place is the fastest form: in
 * place and float keys need another n keys (and values) of workspace.
 * Asynchronous on the CUDA backend; n past 2^32 is supported. */
typedef enum gp_sort_order {
    GP_SORT_ASCENDING = 1, /* smallest first (NaNs last) */
    GP_SORT_DESCENDING = 2 /* largest first (NaNs first) */
} gp_sort_order;

/* Sort keys_in[0, n) into keys_out, as described above. */
GP_API gp_status gp_sort_keys(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                              const void *keys_in, void *keys_out, size_t n, int begin_bit, int end_bit);

/* Key-value pairs: each value travels with its key. value_size is 4 or 8
 * (bytes, copied as they are). values_in == NULL sorts the indices: values_out
 * receives the original position of each sorted key, as uint32 (value_size 4,
 * n <= 2^32, else GP_ERROR_SIZE_OVERFLOW) or uint64 (value_size 8). */
GP_API gp_status gp_sort_pairs(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order,
                               const void *keys_in, void *keys_out,
                               size_t value_size, const void *values_in, void *values_out,
                               size_t n, int begin_bit, int end_bit);

/* Sort keys with caller-owned memory, for callers that keep their own
 * scratch across calls (a layered library sharing its caller's context,
 * whose workspace it must not take over). `keys` and `keys_alt` are buffers
 * of n keys each (not overlapping): the two halves of a double buffer the
 * radix passes alternate between, so no pass copies the keys; the sorted
 * keys end in one of them, *sorted_in_alt (host) says which (0: keys,
 * 1: keys_alt); the other holds unspecified keys. `scratch` is a buffer of
 * scratch_bytes (>= what gp_sort_scratch_bytes gives for the same dtype,
 * n and bits; GP_ERROR_INVALID_ARGUMENT otherwise), used as the sort's
 * temporary storage: the context's workspace is not touched and nothing is
 * allocated on the CUDA backend (the CPU backend may allocate host memory,
 * and needs no scratch). Integer key dtypes (GP_UINT32, GP_INT32, GP_UINT64,
 * GP_INT64; floats: GP_ERROR_UNSUPPORTED), ordered and stable as gp_sort_keys.
 * Asynchronous on the CUDA backend. */
GP_API gp_status gp_sort_scratch_bytes(gp_context *ctx, gp_dtype key_dtype, size_t n, int begin_bit, int end_bit,
                                       size_t *scratch_bytes);
GP_API gp_status gp_sort_keys_double_buffer(gp_context *ctx, gp_dtype key_dtype, gp_sort_order order, void *keys,
                                            void *keys_alt, size_t n, int begin_bit, int end_bit, void *scratch,
                                            size_t scratch_bytes, int *sorted_in_alt);

/* ---- transpose ------------------------------------------------------------------
 * in is a row-major rows x cols matrix of elements of elem_size bytes (4, 8
 * or 16); out receives the row-major cols x rows transpose. Any shape;
 * rows == 0 or cols == 0 does nothing. Out of place only: overlap is
 * GP_ERROR_OVERLAP. Asynchronous on the CUDA backend. */
GP_API gp_status gp_transpose(gp_context *ctx, size_t elem_size,
                              const void *in, void *out, size_t rows, size_t cols);

/* ---- stencils ---------------------------------------------------------------------
 * Boundary rule for neighbours outside the array:
 *   GP_BOUNDARY_PERIODIC wraps around, GP_BOUNDARY_CLAMP repeats the edge
 *   value, GP_BOUNDARY_ZERO reads 0. */
typedef enum gp_boundary {
    GP_BOUNDARY_PERIODIC = 1,
    GP_BOUNDARY_CLAMP = 2,
    GP_BOUNDARY_ZERO = 3
} gp_boundary;

/* Three-point weights: out[i] = (left*in[i-1] + center*in[i]) + right*in[i+1],
 * evaluated in that order in the element type, without fused multiply-add,
 * so the CUDA and CPU results agree exactly. The weights are given as
 * doubles and rounded to the element type first: a float stencil uses
 * (float)left, (float)center, (float)right (likewise gp_stencil5). */
typedef struct gp_stencil3 {
    double left, center, right;
} gp_stencil3;

/* Five-point weights on a row-major rows x cols grid (north = row - 1):
 * out = (((center*c + north*n) + south*s) + west*w) + east*e, evaluated in
 * that order in the element type, without fused multiply-add. The discrete
 * Laplacian is {-4, 1, 1, 1, 1}: see gp_laplacian_2d. */
typedef struct gp_stencil5 {
    double center, north, south, west, east;
} gp_stencil5;

/* 1-D three-point stencil over n elements of GP_FLOAT32 or GP_FLOAT64 (other
 * types: GP_ERROR_UNSUPPORTED). Out of place only. in and out must be
 * aligned to the element size (else GP_ERROR_INVALID_ARGUMENT). Asynchronous. */
GP_API gp_status gp_stencil_1d(gp_context *ctx, gp_dtype dtype, const gp_stencil3 *weights,
                               gp_boundary boundary, const void *in, void *out, size_t n);

/* 2-D five-point stencil over a rows x cols grid of GP_FLOAT32 or
 * GP_FLOAT64. Out of place only; buffers aligned to the element size.
 * Asynchronous. */
GP_API gp_status gp_stencil_2d(gp_context *ctx, gp_dtype dtype, const gp_stencil5 *weights,
                               gp_boundary boundary, const void *in, void *out,
                               size_t rows, size_t cols);

/* The discrete Laplacian: gp_stencil_2d with weights {-4, 1, 1, 1, 1}. */
GP_API gp_status gp_laplacian_2d(gp_context *ctx, gp_dtype dtype, gp_boundary boundary,
                                 const void *in, void *out, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

/* The families beyond the core primitives, each documented in its own header. */
#include <gpuprim/argminmax.h>
#include <gpuprim/histogram.h>
#include <gpuprim/permute.h>
#include <gpuprim/runs.h>
#include <gpuprim/search.h>
#include <gpuprim/segmented.h>

#endif /* GPUPRIM_GPUPRIM_H */
