/* SPDX-License-Identifier: BSD-3-Clause */
/* runs_internal.h - what the runs calls (reduce-by-key, unique,
 * unique-by-key, run-length encoding) share inside the library: one checked
 * argument record and the backend entry points. Never installed. */
#ifndef GPUPRIM_RUNS_INTERNAL_H
#define GPUPRIM_RUNS_INTERNAL_H

#include "internal.h"

#include <gpuprim/runs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What each run puts out besides its first key. */
typedef enum gpi_runs_values {
    GPI_RUNS_NO_VALUES = 0, /* unique, run-length encoding */
    GPI_RUNS_FIRST = 1,     /* unique-by-key: the value at the run's first key */
    GPI_RUNS_REDUCE = 2     /* reduce-by-key: the run's values reduced by op */
} gpi_runs_values;

/* A checked call, as the backends receive it. */
typedef struct gpi_runs_args {
    gp_dtype key_dtype;
    const void *keys_in;
    void *keys_out;
    size_t n;
    gpi_runs_values values;
    gp_dtype value_dtype;   /* unless GPI_RUNS_NO_VALUES */
    gp_op op;               /* GPI_RUNS_REDUCE only */
    const void *values_in;
    void *values_out;
    uint64_t *lengths_out;  /* NULL: not wanted */
} gpi_runs_args;

/* Checks every argument (fn names the call in the detail message); writes
 * nothing. lengths_required: lengths_out must be given (run-length encoding). */
gp_status gpi_runs_check(gp_context *ctx, const char *fn, const gpi_runs_args *a, int lengths_required,
                         const void *count_out);
/* Dispatches a checked call to the context's backend. */
gp_status gpi_runs_run(gp_context *ctx, const gpi_runs_args *a, size_t *count_host);

/* The sequential reference (lib/cpu/runs.c) and the CUDA form (lib/cuda/runs.cu). */
gp_status gpi_cpu_runs(const gpi_runs_args *a, size_t *count);
/* The same on `threads` threads (gpi_cpu_threads): bit for bit the
 * sequential reference's result whatever the count (lib/cpu/runs.c). */
gp_status gpi_cpu_runs_threads(const gpi_runs_args *a, size_t *count, int threads);
gp_status gpi_cuda_runs(gp_context *ctx, const gpi_runs_args *a, size_t *count_host);

#ifdef __cplusplus
}
#endif

#endif
