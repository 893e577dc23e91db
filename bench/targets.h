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
    {"topk", "2^28 k=1000", "", "cub", Goal::RatioAtLeast, 8.0},
    {"topk", "2^28 k=1000000", "", "cub", Goal::RatioAtLeast, 3.0},
};
