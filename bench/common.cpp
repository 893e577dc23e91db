/* SPDX-License-Identifier: BSD-3-Clause */
/* What both benchmark programs share (see common.h). */
#include "common.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>

static const char *g_program = "bench";

void set_program_name(const char *name) { g_program = name; }
const char *program_name() { return g_program; }

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "%s: FATAL: ", g_program);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

void check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
    if (e != cudaSuccess)
        die("%s:%d: %s -> %s (%s)", file, line, what, cudaGetErrorName(e), cudaGetErrorString(e));
}

void check_gp(gp_status s, gp_context *ctx, const char *what, const char *file, int line)
{
    if (s != GP_SUCCESS)
        die("%s:%d: %s -> gp_status %d (%s); context says: \"%s\"", file, line, what, (int)s, gp_status_string(s),
            ctx ? gp_context_last_error(ctx) : "");
}

int require_gpus(int at_least)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
        die("no usable CUDA device (%s): this benchmark needs an NVIDIA GPU and its driver",
            e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none");
    if (n < at_least)
        die("needs %d GPUs, found %d", at_least, n);
    return n;
}

double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median_of(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void CsvFile::open(const std::string &path, const char *header_line)
{
    path_ = path;
    partial_ = path + ".partial";
    f_ = fopen(partial_.c_str(), "w");
    if (!f_)
        die("cannot open %s for writing: %s", partial_.c_str(), strerror(errno));
    fprintf(f_, "%s\n", header_line);
    fflush(f_);
}

void CsvFile::row(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f_, fmt, ap);
    va_end(ap);
    fflush(f_);
}

void CsvFile::commit()
{
    const bool ok = !ferror(f_);
    const int closed = fclose(f_);
    f_ = nullptr;
    if (closed != 0 || !ok || rename(partial_.c_str(), path_.c_str()) != 0)
        die("cannot write %s (the rows are in %s; %s unchanged): %s", path_.c_str(), partial_.c_str(),
            path_.c_str(), strerror(errno));
}

std::string csv_field(std::string s)
{
    for (char &c : s)
        if (c == ',' || c == '\n' || c == '"')
            c = ';';
    return s;
}

std::string strf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}
