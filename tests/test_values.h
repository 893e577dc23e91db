/* SPDX-License-Identifier: BSD-3-Clause */
/* test_values.h - a dtype-generic value for the brute-force references of
 * the scan and reduce suites, written independently of lib/cpu/. Static
 * inline so each suite takes what it uses. */
#ifndef GPUPRIM_TEST_VALUES_H
#define GPUPRIM_TEST_VALUES_H

#include <gpuprim/gpuprim.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "test_util.h"

static inline const char *op_name(gp_op op) { return op == GP_OP_SUM ? "sum" : op == GP_OP_MIN ? "min" : "max"; }
static inline int is_float(gp_dtype d) { return d == GP_FLOAT32 || d == GP_FLOAT64; }
/* ---- an independent brute force ------------------------------------------
 * Values travel as a generic pair: integers as 64-bit words (sign-extended
 * for signed types, so 64-bit compares order them right), floats as double.
 * Float32 sums are rounded to float after each step: a double holds the
 * exact sum of two floats closely enough that this equals float addition. */
typedef struct {
    uint64_t u;
    double f;
} val;

static inline val load(gp_dtype d, const void *p, size_t i)
{
    val v = {0, 0.0};
    switch (d) {
    case GP_INT32: v.u = (uint64_t)(int64_t)((const int32_t *)p)[i]; break;
    case GP_UINT32: v.u = ((const uint32_t *)p)[i]; break;
    case GP_INT64: v.u = (uint64_t)((const int64_t *)p)[i]; break;
    case GP_UINT64: v.u = ((const uint64_t *)p)[i]; break;
    case GP_FLOAT32: v.f = ((const float *)p)[i]; break;
    case GP_FLOAT64: v.f = ((const double *)p)[i]; break;
    }
    return v;
}

static inline void store(gp_dtype d, void *p, size_t i, val v)
{
    switch (d) {
    case GP_INT32: ((int32_t *)p)[i] = (int32_t)(uint32_t)v.u; break;
    case GP_UINT32: ((uint32_t *)p)[i] = (uint32_t)v.u; break;
    case GP_INT64: ((int64_t *)p)[i] = (int64_t)v.u; break;
    case GP_UINT64: ((uint64_t *)p)[i] = v.u; break;
    case GP_FLOAT32: ((float *)p)[i] = (float)v.f; break;
    case GP_FLOAT64: ((double *)p)[i] = v.f; break;
    }
}

static inline val identity(gp_dtype d, gp_op op)
{
    val v = {0, 0.0};
    if (op == GP_OP_SUM) return v;
    switch (d) {
    case GP_INT32: v.u = op == GP_OP_MIN ? (uint64_t)INT32_MAX : (uint64_t)(int64_t)INT32_MIN; break;
    case GP_UINT32: v.u = op == GP_OP_MIN ? UINT32_MAX : 0; break;
    case GP_INT64: v.u = op == GP_OP_MIN ? (uint64_t)INT64_MAX : (uint64_t)INT64_MIN; break;
    case GP_UINT64: v.u = op == GP_OP_MIN ? UINT64_MAX : 0; break;
    default: v.f = op == GP_OP_MIN ? INFINITY : -INFINITY; break;
    }
    return v;
}

static inline val combine(gp_dtype d, gp_op op, val a, val b)
{
    int less; /* b < a */
    if (op == GP_OP_SUM) {
        a.u += b.u; /* wraps mod 2^64; store() truncates to the width */
        a.f = d == GP_FLOAT32 ? (double)(float)(a.f + b.f) : a.f + b.f;
        return a;
    }
    if (is_float(d)) less = b.f < a.f;
    else if (d == GP_INT32 || d == GP_INT64) less = (int64_t)b.u < (int64_t)a.u;
    else less = b.u < a.u;
    if (op == GP_OP_MIN) return less ? b : a;
    /* max: b wins only when strictly greater */
    if (is_float(d)) return b.f > a.f ? b : a;
    if (d == GP_INT32 || d == GP_INT64) return (int64_t)b.u > (int64_t)a.u ? b : a;
    return b.u > a.u ? b : a;
}

/* Integers: the full range (sums wrap). Float sums: integers in [-8, 8),
 * whose partial sums stay far below 2^24, so every summation order gives
 * the exact same result and the CUDA result can be compared exactly. Float
 * min/max: real values in [-1000, 1000). */
static inline void fill_input(gp_dtype d, gp_op op, void *buf, size_t n)
{
    size_t i;
    if (is_float(d) && op == GP_OP_SUM) {
        gpt_fill_random(d, buf, n, 16);
        for (i = 0; i < n; i++) {
            if (d == GP_FLOAT32) ((float *)buf)[i] -= 8.0f;
            else ((double *)buf)[i] -= 8.0;
        }
    } else {
        gpt_fill_random(d, buf, n, 0);
    }
}

static inline void expect_equal(const void *want, const void *got, gp_dtype d, size_t n, const char *what)
{
    size_t es = gp_dtype_size(d), i;
    if (n == 0 || memcmp(want, got, n * es) == 0) return;
    for (i = 0; i < n; i++)
        if (memcmp((const char *)want + i * es, (const char *)got + i * es, es) != 0) break;
    fail_msg("%s (%s, n=%zu): first mismatch at element %zu", what, gpt_dtype_name(d), n, i);
}

#endif
