/* SPDX-License-Identifier: BSD-3-Clause */
/* cpu/segmented_threads.c - segmented reduce, scan and sort on the
 * context's threads, with the bits of the references in cpu/segmented.c.
 *
 * A segment is never split among parts: each stays on one thread, so a
 * float chain keeps the reference's order. Parts are balanced by elements:
 * segment s weighs its length plus one (a segment's fixed cost), and part p
 * takes the segments whose weight before them falls in its share.
 * Segments of at least `large` elements (about a quarter of a part's
 * share, and at least 2 * GPI_POOL_MIN_PART) are left out of the parts and
 * done after them, one at a time on all threads, by the one-array call
 * (gpi_cpu_reduce, gpi_cpu_scan, gpi_cpu_sort), whose result does not
 * depend on the number of threads; float sums of scan keep one left-to-right
 * chain, so they have no large segments. They are found without reading
 * every offset: any segment of at least `large` elements holds one of the
 * positions offsets[0] + k * large. Scan by key cuts the array into pieces
 * instead; a part takes the runs of equal keys that start in its piece. */
#include "key_runs.h"
#include "ops.h"
#include "pool.h"
#include "segmented_internal.h"
#include "vec_kernels.h"

#include <stdlib.h>
#include <string.h>

enum {
    kMaxLarge = 4 * GPI_POOL_MAX_PARTS + 4, /* large segments of one call: at most 4 a part (plus rounding) */
    kPartDeferred = 4                       /* scan by key: large runs a part leaves for after */
};

/* The segments [s_lo, s_hi) of a call on the calling thread, less those of
 * at least `large` elements. */
typedef gp_status (*segments_fn)(const void *job, size_t s_lo, size_t s_hi, size_t large);
/* Segment s on `threads` threads. */
typedef gp_status (*large_fn)(const void *job, size_t s, int threads);

typedef struct seg_plan {
    const void *job;
    segments_fn segments;
    const uint64_t *offsets;
    size_t n_segments;
    size_t large;                     /* SIZE_MAX: none */
    size_t weight;                    /* of the segments the parts share */
    size_t n_large;
    size_t large_seg[kMaxLarge];      /* ascending */
    size_t large_sum[kMaxLarge + 1];  /* elements of large_seg[0, i) */
    gp_status status[GPI_POOL_MAX_PARTS];
} seg_plan;

/* The weight of the parts' segments before segment s. */
static size_t weight_before(const seg_plan *pl, size_t s)
{
    size_t lo = 0, hi = pl->n_large;
    while (lo < hi) { /* large segments before s */
        const size_t mid = lo + (hi - lo) / 2;
        if (pl->large_seg[mid] < s) lo = mid + 1;
        else hi = mid;
    }
    return (size_t)(pl->offsets[s] - pl->offsets[0]) + s - pl->large_sum[lo];
}

/* The first segment whose weight before it is at least w (n_segments when
 * w is the whole weight). */
static size_t segment_at(const seg_plan *pl, size_t w)
{
    size_t lo = 0, hi = pl->n_segments;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (weight_before(pl, mid) < w) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The segments of at least pl->large elements, through the positions
 * offsets[0] + k * large; none (large SIZE_MAX) if they do not fit. */
static void find_large(seg_plan *pl)
{
    const uint64_t *off = pl->offsets;
    const size_t ns = pl->n_segments;
    uint64_t g;
    pl->n_large = 0;
    pl->large_sum[0] = 0;
    for (g = off[0]; g < off[ns]; g += pl->large) {
        size_t lo = 1, hi = ns, s, m;
        while (lo < hi) { /* the first offset past g: segment lo - 1 holds g */
            const size_t mid = lo + (hi - lo) / 2;
            if (off[mid] <= g) lo = mid + 1;
            else hi = mid;
        }
        s = lo - 1;
        m = (size_t)(off[s + 1] - off[s]);
        if (m < pl->large || (pl->n_large && pl->large_seg[pl->n_large - 1] == s)) continue;
        if (pl->n_large == kMaxLarge) {
            pl->n_large = 0;
            pl->large = SIZE_MAX;
            return;
        }
        pl->large_seg[pl->n_large] = s;
        pl->large_sum[pl->n_large + 1] = pl->large_sum[pl->n_large] + m;
        pl->n_large++;
    }
}

static void segments_part(void *arg, int part, int parts)
{
    seg_plan *pl = (seg_plan *)arg;
    size_t lo, hi;
    gpi_pool_range(pl->weight, part, parts, 1, &lo, &hi);
    pl->status[part] = pl->segments(pl->job, segment_at(pl, lo), segment_at(pl, hi), pl->large);
}

/* Every segment of a call: the parts' in parallel, then the large ones
 * (large NULL: none). Without threads, or memory for the plan, all on the
 * calling thread. */
static gp_status run_segments(const void *job, segments_fn segments, large_fn large, const uint64_t *offsets,
                              size_t ns, int threads)
{
    const size_t total = (size_t)(offsets[ns] - offsets[0]) + ns;
    const int parts = gpi_pool_parts(total, threads);
    seg_plan *pl;
    gp_status st = GP_SUCCESS;
    size_t i;
    int p;
    if (parts <= 1 || !(pl = (seg_plan *)malloc(sizeof *pl))) return segments(job, 0, ns, SIZE_MAX);
    pl->job = job;
    pl->segments = segments;
    pl->offsets = offsets;
    pl->n_segments = ns;
    pl->large = SIZE_MAX;
    pl->n_large = 0;
    pl->large_sum[0] = 0;
    if (large) {
        const size_t quarter = total / (4 * (size_t)parts);
        pl->large = quarter > 2 * GPI_POOL_MIN_PART ? quarter : 2 * GPI_POOL_MIN_PART;
        find_large(pl);
    }
    pl->weight = total - pl->large_sum[pl->n_large];
    p = gpi_pool_parts(pl->weight, threads);
    if (p <= 1) {
        st = segments(job, 0, ns, pl->large);
    } else {
        gpi_pool_run(p, segments_part, pl);
        while (p-- > 0) /* the first part's error */
            if (pl->status[p]) st = pl->status[p];
    }
    for (i = 0; i < pl->n_large && !st; i++) st = large(job, pl->large_seg[i], threads);
    free(pl);
    return st;
}

/* ---- segmented reduce --------------------------------------------------- */

typedef struct reduce_job {
    gp_dtype dtype;
    gp_op op;
    const void *in;
    const uint64_t *offsets;
    void *out;
    int avx2_sum32; /* a 32-bit integer sum: the AVX2 kernel, as gpi_cpu_reduce */
} reduce_job;

/* A segment's sum as gpi_cpu_reduce gives it on one thread: integers
 * folded from 0, floats in the tree. */
#define DEFINE_INT_SUM(SUF, T)                                                                       \
    static gp_status sum_##SUF(const T *x, size_t m, T *r)                                            \
    {                                                                                                 \
        *r = ops_##SUF##_fold(GP_OP_SUM, x, m, 0);                                                    \
        return GP_SUCCESS;                                                                            \
    }
DEFINE_INT_SUM(i32, int32_t)
DEFINE_INT_SUM(u32, uint32_t)
DEFINE_INT_SUM(i64, int64_t)
DEFINE_INT_SUM(u64, uint64_t)
static gp_status sum_f32(const float *x, size_t m, float *r) { return gpi_cpu_tree_sum_f32(x, m, r, 1); }
static gp_status sum_f64(const double *x, size_t m, double *r) { return gpi_cpu_tree_sum_f64(x, m, r, 1); }

/* Each segment reduced as gpi_cpu_reduce does on one thread: min and max
 * folded from the identity. */
#define DEFINE_REDUCE(SUF, T)                                                                        \
    static gp_status reduce_##SUF(const reduce_job *j, size_t s_lo, size_t s_hi, size_t large)        \
    {                                                                                                 \
        const T *in = (const T *)j->in;                                                               \
        T *out = (T *)j->out;                                                                         \
        size_t s;                                                                                     \
        for (s = s_lo; s < s_hi; s++) {                                                               \
            const size_t b = (size_t)j->offsets[s], m = (size_t)(j->offsets[s + 1] - j->offsets[s]);  \
            T r;                                                                                      \
            if (m >= large) continue;                                                                 \
            if (j->op == GP_OP_SUM) {                                                                 \
                const gp_status st = sum_##SUF(in + b, m, &r);                                        \
                if (st) return st;                                                                    \
            } else {                                                                                  \
                r = ops_##SUF##_fold(j->op, in + b, m, ops_##SUF##_identity(j->op));                  \
            }                                                                                         \
            out[s] = r;                                                                               \
        }                                                                                             \
        return GP_SUCCESS;                                                                            \
    }
DEFINE_REDUCE(i32, int32_t)
DEFINE_REDUCE(u32, uint32_t)
DEFINE_REDUCE(i64, int64_t)
DEFINE_REDUCE(u64, uint64_t)
DEFINE_REDUCE(f32, float)
DEFINE_REDUCE(f64, double)

#if GPI_HAVE_AVX2_KERNELS
static gp_status reduce_sum32_avx2(const reduce_job *j, size_t s_lo, size_t s_hi, size_t large)
{
    const uint32_t *in = (const uint32_t *)j->in;
    uint32_t *out = (uint32_t *)j->out;
    size_t s;
    for (s = s_lo; s < s_hi; s++) {
        const size_t b = (size_t)j->offsets[s], m = (size_t)(j->offsets[s + 1] - j->offsets[s]);
        if (m < large) out[s] = m >= 64 ? gpi_avx2_sum_u32(in + b, m, 0) : ops_u32_fold(GP_OP_SUM, in + b, m, 0);
    }
    return GP_SUCCESS;
}
#endif

static gp_status reduce_segments(const void *job, size_t s_lo, size_t s_hi, size_t large)
{
    const reduce_job *j = (const reduce_job *)job;
#if GPI_HAVE_AVX2_KERNELS
    if (j->avx2_sum32) return reduce_sum32_avx2(j, s_lo, s_hi, large);
#endif
    switch (j->dtype) {
    case GP_INT32: return reduce_i32(j, s_lo, s_hi, large);
    case GP_UINT32: return reduce_u32(j, s_lo, s_hi, large);
    case GP_INT64: return reduce_i64(j, s_lo, s_hi, large);
    case GP_UINT64: return reduce_u64(j, s_lo, s_hi, large);
    case GP_FLOAT32: return reduce_f32(j, s_lo, s_hi, large);
    case GP_FLOAT64: return reduce_f64(j, s_lo, s_hi, large);
    default: return GP_ERROR_INTERNAL;
    }
}

static gp_status reduce_large(const void *job, size_t s, int threads)
{
    const reduce_job *j = (const reduce_job *)job;
    const size_t es = gp_dtype_size(j->dtype), b = (size_t)j->offsets[s];
    return gpi_cpu_reduce(j->dtype, j->op, (const char *)j->in + b * es, (size_t)(j->offsets[s + 1] - j->offsets[s]),
                          (char *)j->out + s * es, threads);
}

gp_status gpi_cpu_segmented_reduce_threads(gp_dtype dtype, gp_op op, const void *in, const uint64_t *offsets,
                                           size_t n_segments, void *out, int threads)
{
    reduce_job j;
    if (n_segments == 0) return GP_SUCCESS;
    j.dtype = dtype;
    j.op = op;
    j.in = in;
    j.offsets = offsets;
    j.out = out;
    j.avx2_sum32 = op == GP_OP_SUM && (dtype == GP_INT32 || dtype == GP_UINT32) && gpi_cpu_avx2();
    return run_segments(&j, reduce_segments, reduce_large, offsets, n_segments, threads);
}

/* ---- segmented scan and scan by key ------------------------------------- */

/* Scan by key on threads: per part, its status and its large runs
 * ([begin, end)) left for after. */
typedef struct key_parts {
    gp_status status[GPI_POOL_MAX_PARTS];
    size_t n_deferred[GPI_POOL_MAX_PARTS];
    size_t deferred[GPI_POOL_MAX_PARTS][kPartDeferred][2];
} key_parts;

typedef struct scan_job {
    const gpi_segscan_args *a;
    gp_scan_kind kind;
    size_t es;
    size_t large;    /* scan by key: runs of at least this many elements go to the part's list */
    key_parts *kp;   /* NULL: on the calling thread alone */
} scan_job;

static gp_status scan_range(const scan_job *j, size_t b, size_t e, int threads)
{
    const gpi_segscan_args *a = j->a;
    const char *in = (const char *)a->in + b * j->es;
    char *out = (char *)a->out + b * j->es;
    if (threads > 1) return gpi_cpu_scan(a->dtype, a->op, j->kind, in, out, e - b, threads);
    return gpi_cpu_scan_in_order(a->dtype, a->op, j->kind, in, out, e - b);
}

static gp_status scan_segments(const void *job, size_t s_lo, size_t s_hi, size_t large)
{
    const scan_job *j = (const scan_job *)job;
    const uint64_t *off = j->a->offsets;
    size_t s;
    for (s = s_lo; s < s_hi; s++) {
        gp_status st;
        if (off[s + 1] - off[s] >= large) continue;
        if ((st = scan_range(j, (size_t)off[s], (size_t)off[s + 1], 1))) return st;
    }
    return GP_SUCCESS;
}

static gp_status scan_large(const void *job, size_t s, int threads)
{
    const scan_job *j = (const scan_job *)job;
    return scan_range(j, (size_t)j->a->offsets[s], (size_t)j->a->offsets[s + 1], threads);
}

/* The runs of equal keys that start in [lo, hi), each to its end; those of
 * at least j->large elements into the part's list while it has room. */
static gp_status scan_runs(const scan_job *j, int part, size_t lo, size_t hi)
{
    const gpi_segscan_args *a = j->a;
    size_t b, e;
    for (b = gpi_key_first_start(a->key_dtype, a->keys, lo, hi); b < hi; b = e) {
        gp_status st;
        e = gpi_key_run_end(a->key_dtype, a->keys, b, a->n);
        if (e - b >= j->large && j->kp->n_deferred[part] < kPartDeferred) {
            j->kp->deferred[part][j->kp->n_deferred[part]][0] = b;
            j->kp->deferred[part][j->kp->n_deferred[part]++][1] = e;
            continue;
        }
        if ((st = scan_range(j, b, e, 1))) return st;
    }
    return GP_SUCCESS;
}

static void runs_part(void *arg, int part, int parts)
{
    const scan_job *j = (const scan_job *)arg;
    size_t lo, hi;
    gpi_pool_range(j->a->n, part, parts, 1, &lo, &hi);
    j->kp->n_deferred[part] = 0;
    j->kp->status[part] = scan_runs(j, part, lo, hi);
}

static gp_status scan_by_key(scan_job *j, int threads)
{
    const gpi_segscan_args *a = j->a;
    const int parts = gpi_pool_parts(a->n, threads);
    const int float_sum = a->op == GP_OP_SUM && (a->dtype == GP_FLOAT32 || a->dtype == GP_FLOAT64);
    const size_t quarter = a->n / (4 * (size_t)parts);
    gp_status st = GP_SUCCESS;
    size_t k;
    int p;
    j->large = SIZE_MAX;
    if (parts <= 1 || !(j->kp = (key_parts *)malloc(sizeof *j->kp))) {
        j->kp = NULL;
        return scan_runs(j, 0, 0, a->n);
    }
    /* float sums: one left-to-right chain a run, never cut */
    if (!float_sum) j->large = quarter > 2 * GPI_POOL_MIN_PART ? quarter : 2 * GPI_POOL_MIN_PART;
    gpi_pool_run(parts, runs_part, j);
    for (p = parts - 1; p >= 0; p--) /* the first part's error */
        if (j->kp->status[p]) st = j->kp->status[p];
    for (p = 0; p < parts && !st; p++)
        for (k = 0; k < j->kp->n_deferred[p] && !st; k++)
            st = scan_range(j, j->kp->deferred[p][k][0], j->kp->deferred[p][k][1], threads);
    free(j->kp);
    return st;
}

gp_status gpi_cpu_segmented_scan_threads(const gpi_segscan_args *a, int threads)
{
    const int float_sum = a->op == GP_OP_SUM && (a->dtype == GP_FLOAT32 || a->dtype == GP_FLOAT64);
    scan_job j;
    j.a = a;
    j.kind = a->inclusive ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
    j.es = gp_dtype_size(a->dtype);
    if (!a->offsets) return a->n ? scan_by_key(&j, threads) : GP_SUCCESS;
    if (a->n_segments == 0) return GP_SUCCESS;
    /* float sums: one left-to-right chain a segment, never cut */
    return run_segments(&j, scan_segments, float_sum ? NULL : scan_large, a->offsets, a->n_segments, threads);
}

/* ---- segmented sort ------------------------------------------------------ */

/* The sort of segment s alone (the reference's per-segment arguments). */
static gpi_sort_args segment_sort_args(const gpi_segsort_args *sa, size_t s)
{
    const gpi_sort_args *a = &sa->sort;
    const size_t ks = gp_dtype_size(a->key_dtype), vs = a->value_size, b = (size_t)sa->offsets[s];
    gpi_sort_args seg = *a;
    seg.keys_in = (const char *)a->keys_in + b * ks;
    seg.keys_out = (char *)a->keys_out + b * ks;
    if (vs) {
        seg.values_in = a->values_in ? (const char *)a->values_in + b * vs : NULL;
        seg.values_out = (char *)a->values_out + b * vs;
    }
    seg.n = (size_t)(sa->offsets[s + 1] - sa->offsets[s]);
    return seg;
}

/* Sorted indices: positions within the segment -> in the array. */
static void shift_indices(const gpi_segsort_args *sa, const gpi_sort_args *seg, size_t s)
{
    const size_t b = (size_t)sa->offsets[s];
    size_t i;
    if (!seg->value_size || sa->sort.values_in) return;
    for (i = 0; i < seg->n; i++) {
        if (seg->value_size == 4) ((uint32_t *)seg->values_out)[i] += (uint32_t)b;
        else ((uint64_t *)seg->values_out)[i] += (uint64_t)b;
    }
}

/* One scratch block for the part's segments, grown as they need; when it
 * cannot grow, gpi_cpu_sort allocates its own as the reference does. */
static gp_status sort_segments(const void *job, size_t s_lo, size_t s_hi, size_t large)
{
    const gpi_segsort_args *sa = (const gpi_segsort_args *)job;
    void *scratch = NULL;
    size_t room = 0, s;
    gp_status st = GP_SUCCESS;
    for (s = s_lo; s < s_hi && !st; s++) {
        const gpi_sort_args seg = segment_sort_args(sa, s);
        const size_t need = gpi_cpu_sort_scratch_bytes(&seg); /* 0 for short segments */
        if (seg.n == 0 || seg.n >= large) continue;
        if (need > room) {
            free(scratch);
            room = need > 2 * room ? need : 2 * room;
            if (!(scratch = malloc(room))) room = 0;
        }
        if (!(st = gpi_cpu_sort_with(&seg, 1, need && need <= room ? scratch : NULL))) shift_indices(sa, &seg, s);
    }
    free(scratch);
    return st;
}

static gp_status sort_large(const void *job, size_t s, int threads)
{
    const gpi_segsort_args *sa = (const gpi_segsort_args *)job;
    const gpi_sort_args seg = segment_sort_args(sa, s);
    gp_status st = gpi_cpu_sort(&seg, threads);
    if (!st) shift_indices(sa, &seg, s);
    return st;
}

gp_status gpi_cpu_segmented_sort_threads(const gpi_segsort_args *sa, int threads)
{
    if (sa->n_segments == 0) return GP_SUCCESS;
    return run_segments(sa, sort_segments, sort_large, sa->offsets, sa->n_segments, threads);
}
