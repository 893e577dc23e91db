/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The performance targets, one entry per target,
 * keyed by the row they judge. Each measured row prints the verdict of
 * every entry whose key it matches, and a full run lists them all again
 * after the summary. A --quick run judges none (its sizes are not the
 * targets' sizes). A new primitive's target is one more line here.
 *
 * Key: op and variant equal the row's; size equals the row's, or is a
 * prefix of it when it ends in '*'; anchor is a prefix of the row's anchor
 * name ("" for any), so that of two rows with the same op and size (two
 * anchors) only one is judged.
 */
#pragma once

enum class Goal {
    FracOfCopy,   /* ours_GBps / the copy ceiling >= bound */
    RatioAtLeast, /* anchor_ms / ours_ms >= bound */
    MsAtMost,     /* ours_ms <= bound */
};

struct Target {
    const char *op, *size, *variant, *anchor;
    Goal goal;
    double bound;
};

static const Target kTargets[] = {
    {"scan", "2^28", "", "cub", Goal::FracOfCopy, 0.90},
    {"scan", "10000", "graph", "cub", Goal::RatioAtLeast, 1.0},
    {"scan", "10000", "", "cub", Goal::RatioAtLeast, 1.0},
    {"reduce", "2^28", "", "cub", Goal::RatioAtLeast, 1.0},
    {"compact", "2^28", "", "cub", Goal::FracOfCopy, 0.85},
    {"find_repeats", "2^28 3.*", "", "cub", Goal::FracOfCopy, 0.90},
    {"transpose", "16384x16384 4B", "", "cublas", Goal::RatioAtLeast, 1.05},
    {"stencil", "16384x16384 f32", "", "naive", Goal::FracOfCopy, 0.90},
    {"sort", "2^28 u32 keys", "", "cub", Goal::RatioAtLeast, 1.25},
    {"sort", "2^28 u32 keys 16 bits", "", "cub", Goal::RatioAtLeast, 1.2},
    {"sort", "2^28 u32+u32 pairs", "", "cub", Goal::RatioAtLeast, 1.3},
    {"sort", "2^26 u64 keys", "", "cub", Goal::RatioAtLeast, 1.2},
    {"search", "2^24 in 2^28 lower", "", "thrust", Goal::RatioAtLeast, 1.2},
    {"search", "2^24 in 2^28 upper", "", "thrust", Goal::RatioAtLeast, 1.2},
    {"merge", "2x2^27 u32 keys", "", "cub", Goal::RatioAtLeast, 1.0},
    {"topk", "2^28 k=10", "", "cub", Goal::RatioAtLeast, 8.0},
    {"topk", "2^28 k=1000", "", "cub", Goal::RatioAtLeast, 8.0},
    {"topk", "2^28 k=1000000", "", "cub", Goal::RatioAtLeast, 3.0},
    {"reduce_by_key", "2^28 L=10", "", "cub", Goal::RatioAtLeast, 1.3},
    {"reduce_by_key", "2^28 L=10", "", "cub", Goal::FracOfCopy, 0.80},
    {"rle", "2^28 L=10", "", "cub", Goal::RatioAtLeast, 1.5},
    {"unique", "2^28 L=10", "", "cub", Goal::RatioAtLeast, 1.2},
    {"seg_reduce", "1e6 segs 0..512", "", "cub", Goal::RatioAtLeast, 2.0},
    {"seg_reduce", "100 segs 2^28", "", "cub", Goal::RatioAtLeast, 2.0},
    {"seg_sort", "1e6 segs 0..512", "", "cub", Goal::RatioAtLeast, 3.0},
    {"seg_sort", "100 segs 2^28", "", "cub", Goal::RatioAtLeast, 1.5},
    {"scan_by_key", "2^28 runs of 10", "", "cub", Goal::RatioAtLeast, 1.1},
    {"argmin", "2^28 *", "", "cub", Goal::RatioAtLeast, 1.0},
    {"argmax", "2^28 *", "", "cub", Goal::RatioAtLeast, 1.0},
    {"histogram", "2^28 i32 256 *", "", "cub::DeviceHistogram::HistogramEven", Goal::FracOfCopy, 0.80},
    {"histogram", "2^28 f32 256 *", "", "cub::DeviceHistogram::HistogramEven", Goal::FracOfCopy, 0.80},
    {"histogram", "2^28 i32 64Ki *", "", "cub::DeviceHistogram::HistogramEven", Goal::RatioAtLeast, 5.0},
    {"histogram", "2^28 f32 64Ki *", "", "cub::DeviceHistogram::HistogramEven", Goal::RatioAtLeast, 5.0},
    {"histogram", "2^28 i32 256 range", "", "cub", Goal::RatioAtLeast, 1.5},
    {"histogram", "2^28 f32 256 range", "", "cub", Goal::RatioAtLeast, 1.5},
    {"partition", "2^28", "", "cub", Goal::RatioAtLeast, 1.2},
    {"gather", "2^28 4B sorted skip", "", "", Goal::FracOfCopy, 0.85},
    {"gather", "2^28 16B sorted skip", "", "", Goal::FracOfCopy, 0.85},
};
