/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What both benchmark programs (bench_prims, bench_dist) share: fatal
 * errors, the check macros, the median, the warm-up rule, the "is there a
 * GPU" check and the CSV file written beside its target and renamed into
 * place.
 */
#pragma once

#include <cuda_runtime.h>

#include "gpuprim/gpuprim.h"

#include <cstdio>
#include <string>
#include <vector>

/* ---- fatal errors ------------------------------------------------------------ */

/* The program's name in messages ("bench_prims"); set first thing in main. */
void set_program_name(const char *name);
const char *program_name();

/* Print "<program>: FATAL: <message>" to stderr and exit(2). A benchmark
 * stops at the first error: a number measured after one is meaningless. */
[[noreturn]] void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void check_cuda(cudaError_t e, const char *what, const char *file, int line);
/* ctx (may be null) supplies gp_context_last_error's detail. */
void check_gp(gp_status s, gp_context *ctx, const char *what, const char *file, int line);

#define CK(call) check_cuda((call), #call, __FILE__, __LINE__)
#define CK_LAUNCH() check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

/* The number of CUDA devices; dies with a plain message when there is no
 * usable one (no driver, no device) or fewer than `at_least`. */
int require_gpus(int at_least);

/* ---- time ---------------------------------------------------------------------- */

/* Host wall clock, milliseconds (monotonic). */
double now_ms();

/* The median (the mean of the two middle values for an even count); 0 for
 * no samples. */
double median_of(std::vector<double> v);

/* The warm-up rule: keep warming until at least min_calls calls are done
 * AND at least min_ms have passed since it began. Right after large cudaFree
 * calls (the previous row's buffers) every kernel and cudaMemcpy runs ~11%
 * slower for 10-20 ms on an H200 (about 2 ms per GiB freed); warming for a
 * fixed time as well as a fixed count waits that window out. */
struct Settle {
    int min_calls;
    double min_ms;
    double t0;
    Settle(int calls, double ms) : min_calls(calls), min_ms(ms), t0(now_ms()) {}
    bool warming(int calls_done) const { return calls_done < min_calls || now_ms() - t0 < min_ms; }
};

/* ---- CSV --------------------------------------------------------------------------- */

/* Rows go to PATH.partial as they are written (a crash keeps them there);
 * commit() renames it over PATH, so an earlier PATH stays as it was until a
 * whole run replaces it. */
class CsvFile {
public:
    void open(const std::string &path, const char *header_line);
    void row(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    void commit();
    bool is_open() const { return f_ != nullptr; }

private:
    FILE *f_ = nullptr;
    std::string path_, partial_;
};

/* s with the characters that would break a CSV field (, " newline) replaced by ';'. */
std::string csv_field(std::string s);

/* printf into a std::string. */
std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
