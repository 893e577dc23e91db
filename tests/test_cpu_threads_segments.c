/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_threads_segments.c - the runs calls (reduce-by-key, unique,
 * unique-by-key, run-length encoding), segmented reduce, scan and sort,
 * and scan by key on the CPU backend's threads: with 2, 3 and 7 threads
 * (an even and two uneven splits), on sizes around the point where a call starts
 * using threads (64K elements) and odd large ones, every dtype, keys in
 * runs of many lengths (all equal, all distinct, NaN and -0.0 keys) and
 * segments of many shapes (one across nearly all, tiny and empty ones, a
 * giant among small ones, equal ones), the outputs (poisoned first) equal
 * bit for bit those of the sequential references (gpi_cpu_runs,
 * gpi_cpu_segmented_*), counts included, and nothing else is written;
 * in place too. */
#include "keys_util.h"
#include "cpu_threads_grid.h"

#include "runs_internal.h"      /* gpi_cpu_runs: the reference */
#include "segmented_internal.h" /* gpi_cpu_segmented_*: the references */

#include <stdio.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

/* Fail, naming the first differing byte, unless want and got agree. */
static void expect_same(const void *want, const void *got, size_t bytes, const char *what, int threads)
{
    size_t i;
    if (!memcmp(want, got, bytes)) return;
    for (i = 0; ((const unsigned char *)want)[i] == ((const unsigned char *)got)[i]; i++) {}
    fail_msg("%s, %d threads: byte %zu of %zu differs from the reference (%02x, want %02x)", what, threads, i, bytes,
             ((const unsigned char *)got)[i], ((const unsigned char *)want)[i]);
}

/* Values: random, floats with a few NaN, -0.0, +0.0 and infinities. */
static void fill_values(gp_dtype d, void *v, size_t n)
{
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY};
    size_t i;
    gpt_fill_random(d, v, n, 0);
    if (d != GP_FLOAT32 && d != GP_FLOAT64) return;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        double x;
        if (r % 64) continue;
        x = r % 4096 == 0 ? NAN : special[(r >> 20) % 4];
        if (d == GP_FLOAT32) ((float *)v)[i] = (float)x;
        else ((double *)v)[i] = x;
    }
}

/* ---- keys in runs ------------------------------------------------------------------- */

enum { KEYS_EQUAL, KEYS_DISTINCT, KEYS_SHORT_RUNS, KEYS_LONG_RUNS, KEYS_SPECIAL, NKEY_SHAPES };
static const char *key_shape_name(int s)
{
    static const char *names[] = {"all-equal", "all-distinct", "runs-1-10", "runs-1-200000", "special"};
    return names[s];
}

static void set_key(gp_dtype d, void *k, size_t i, double v)
{
    switch (d) {
    case GP_INT32: ((int32_t *)k)[i] = (int32_t)v; break;
    case GP_UINT32: ((uint32_t *)k)[i] = (uint32_t)v; break;
    case GP_INT64: ((int64_t *)k)[i] = (int64_t)v; break;
    case GP_UINT64: ((uint64_t *)k)[i] = (uint64_t)v; break;
    case GP_FLOAT32: ((float *)k)[i] = (float)v; break;
    default: ((double *)k)[i] = v; break;
    }
}

static void fill_keys(gp_dtype d, void *k, size_t n, int shape)
{
    static const size_t long_runs[] = {1, 2, 7, 100, 5000, 70000, 3, 200000};
    const int is_float = d == GP_FLOAT32 || d == GP_FLOAT64;
    size_t i = 0, r, run;
    if (shape == KEYS_SPECIAL && !is_float) {
        gpt_fill_random(d, k, n, 3); /* few distinct values */
        return;
    }
    for (run = 0; i < n; run++) {
        size_t len = 1;
        if (shape == KEYS_EQUAL) len = n;
        else if (shape == KEYS_SHORT_RUNS || shape == KEYS_SPECIAL) len = 1 + gpt_rand64() % 10;
        else if (shape == KEYS_LONG_RUNS) len = long_runs[gpt_rand64() % COUNT(long_runs)];
        for (r = 0; r < len && i < n; r++, i++) {
            if (shape != KEYS_SPECIAL) {
                set_key(d, k, i, (double)(shape == KEYS_DISTINCT ? i : run % 1000));
            } else { /* runs of NaN (each a run of its own), of zeros of both signs, of +-1 */
                const int pick = (int)(run % 4);
                const double zero = gpt_rand64() % 2 ? -0.0 : 0.0;
                set_key(d, k, i, pick == 0 ? NAN : pick == 1 ? zero : pick == 2 ? 1.0 : -1.0);
            }
        }
    }
}

/* ---- runs --------------------------------------------------------------------------- */

enum { REDUCE_BY_KEY, UNIQUE, UNIQUE_BY_KEY, RLE };
static const char *call_name(int c)
{
    static const char *names[] = {"reduce_by_key", "unique", "unique_by_key", "run_length_encode"};
    return names[c];
}

typedef struct runs_bufs {
    char *keys, *values;           /* the inputs */
    char *wk, *wv, *gk, *gv;       /* reference and threaded outputs (n entries + guard) */
    uint64_t *wl, *gl;
} runs_bufs;

/* The public call on the context's threads. */
static gp_status runs_public(gp_context *ctx, int call, gp_dtype kd, gp_dtype vd, gp_op op, const void *kin,
                             const void *vin, size_t n, void *kout, void *vout, uint64_t *lens, size_t *count)
{
    switch (call) {
    case REDUCE_BY_KEY: return gp_reduce_by_key(ctx, kd, vd, op, kin, vin, n, kout, vout, lens, count);
    case UNIQUE: return gp_unique(ctx, kd, kin, n, kout, count);
    case UNIQUE_BY_KEY: return gp_unique_by_key(ctx, kd, vd, kin, vin, n, kout, vout, count);
    default: return gp_run_length_encode(ctx, kd, kin, n, kout, lens, count);
    }
}

/* One call, every thread count, against gpi_cpu_runs: out of place, or in
 * place (keys_out == keys_in, values_out == values_in, the buffers past
 * the count keeping the inputs as the reference leaves them). */
static void runs_case(gp_context *ctx, runs_bufs *b, int call, gp_dtype kd, gp_dtype vd, gp_op op, int shape,
                      size_t n, int in_place, int with_lengths)
{
    const size_t ks = gp_dtype_size(kd), vs = gp_dtype_size(vd);
    const size_t kbytes = n * ks + kGuard, vbytes = n * vs + kGuard, lbytes = n * 8 + kGuard;
    const int with_values = call == REDUCE_BY_KEY || call == UNIQUE_BY_KEY;
    const gpi_runs_values mode = call == REDUCE_BY_KEY ? GPI_RUNS_REDUCE
                                 : call == UNIQUE_BY_KEY ? GPI_RUNS_FIRST : GPI_RUNS_NO_VALUES;
    size_t want_count = 0, count, ti;
    char what[160];
    gpi_runs_args a;
    snprintf(what, sizeof what, "%s keys %s values %s op %d, %s keys, n=%zu%s%s", call_name(call), gpt_dtype_name(kd),
             gpt_dtype_name(vd), (int)op, key_shape_name(shape), n, in_place ? ", in place" : "",
             with_lengths ? ", lengths" : "");
    with_lengths = with_lengths || call == RLE;
    gpt_poison(b->wk, kbytes), gpt_poison(b->wv, vbytes), gpt_poison(b->wl, lbytes);
    if (in_place) {
        memcpy(b->wk, b->keys, n * ks);
        memcpy(b->wv, b->values, n * vs);
    }
    a.key_dtype = kd, a.keys_in = in_place ? b->wk : b->keys, a.keys_out = b->wk, a.n = n;
    a.values = mode, a.value_dtype = vd, a.op = op;
    a.values_in = with_values ? (in_place ? b->wv : b->values) : NULL;
    a.values_out = with_values ? b->wv : NULL;
    a.lengths_out = with_lengths ? b->wl : NULL;
    assert_int_equal(gpi_cpu_runs(&a, &want_count), GP_SUCCESS);
    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
        const int t = thread_counts[ti];
        set_threads(ctx, t);
        gpt_poison(b->gk, kbytes), gpt_poison(b->gv, vbytes), gpt_poison(b->gl, lbytes);
        if (in_place) {
            memcpy(b->gk, b->keys, n * ks);
            memcpy(b->gv, b->values, n * vs);
        }
        count = (size_t)-1;
        GPT_OK(ctx, runs_public(ctx, call, kd, vd, op, in_place ? b->gk : b->keys,
                                with_values ? (in_place ? b->gv : b->values) : NULL, n, b->gk,
                                with_values ? b->gv : NULL, with_lengths ? b->gl : NULL, &count));
        if (count != want_count) fail_msg("%s, %d threads: count %zu, want %zu", what, t, count, want_count);
        expect_same(b->wk, b->gk, kbytes, what, t);
        expect_same(b->wv, b->gv, vbytes, what, t);
        expect_same(b->wl, b->gl, lbytes, what, t);
    }
}

static void runs_family(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, ki, vi, oi;
    int shape;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si], big = n * 8 + kGuard;
        runs_bufs b;
        b.keys = gpt_malloc(big), b.values = gpt_malloc(big);
        b.wk = gpt_malloc(big), b.wv = gpt_malloc(big), b.gk = gpt_malloc(big), b.gv = gpt_malloc(big);
        b.wl = gpt_malloc(big), b.gl = gpt_malloc(big);
        for (shape = 0; shape < NKEY_SHAPES; shape++)
            for (ki = 0; ki < COUNT(dtypes); ki++) {
                const gp_dtype kd = dtypes[ki];
                fill_keys(kd, b.keys, n, shape);
                for (vi = 0; vi < COUNT(dtypes); vi++) {
                    const gp_dtype vd = dtypes[vi];
                    if (vi != ki && (vi + ki) % 3) continue; /* each value dtype with some key dtypes */
                    fill_values(vd, b.values, n);
                    /* reduce-by-key: every op with the key's own dtype, one in
                     * turn with the others; in place and lengths on some */
                    for (oi = vi == ki ? 0 : (vi + ki) % COUNT(ops); oi < COUNT(ops); oi += vi == ki ? 1 : COUNT(ops))
                        runs_case(ctx, &b, REDUCE_BY_KEY, kd, vd, ops[oi], shape, n, (vi + oi) % 3 == 0,
                                  (vi + oi) % 2 == 0);
                    runs_case(ctx, &b, UNIQUE_BY_KEY, kd, vd, GP_OP_SUM, shape, n, vi % 2, 0);
                }
                runs_case(ctx, &b, UNIQUE, kd, kd, GP_OP_SUM, shape, n, 0, 0);
                runs_case(ctx, &b, UNIQUE, kd, kd, GP_OP_SUM, shape, n, 1, 0);
                runs_case(ctx, &b, RLE, kd, kd, GP_OP_SUM, shape, n, 0, 1);
                runs_case(ctx, &b, RLE, kd, kd, GP_OP_SUM, shape, n, 1, 1);
            }
        free(b.keys), free(b.values), free(b.wk), free(b.wv), free(b.gk), free(b.gv), free(b.wl), free(b.gl);
    }
    set_threads(ctx, 0);
}

/* ---- segments ----------------------------------------------------------------------- */

enum { SEG_ONE, SEG_TINY, SEG_MIXED, SEG_SKEWED, SEG_EQUAL, SEG_NONE, NSEG_SHAPES };
static const char *seg_shape_name(int s)
{
    static const char *names[] = {"one", "tiny", "mixed", "giant-among-small", "equal-70000", "none"};
    return names[s];
}

/* Offsets of n elements in the shape into off (room for 2n + 4); returns
 * the number of segments. Some elements at the ends belong to none. */
static size_t make_offsets(uint64_t *off, size_t n, int shape)
{
    static const uint64_t mixed[] = {0, 1, 5, 64, 65, 100, 4096, 4097, 5000, 70000};
    const size_t cap = 2 * n + 3, head = n > 10 ? 3 : 0, end = n > 10 ? n - 2 : n;
    size_t ns = 0;
    uint64_t pos = head;
    off[0] = pos;
    if (shape == SEG_NONE) return 0;
    if (shape == SEG_ONE) {
        off[1] = end;
        return 1;
    }
    while (ns + 1 < cap) {
        uint64_t len;
        switch (shape) {
        case SEG_TINY: len = gpt_rand64() % 4; break;
        case SEG_MIXED: len = mixed[gpt_rand64() % COUNT(mixed)]; break;
        case SEG_SKEWED: len = pos >= n / 4 && pos < n / 4 + 100 ? n / 2 : gpt_rand64() % 101; break;
        default: len = 70000; break;
        }
        if (pos + len > end) break;
        off[++ns] = pos += len;
    }
    if (pos < end && ns + 1 < cap) off[++ns] = end; /* the rest as one more */
    return ns;
}

typedef struct seg_bufs {
    char *in, *want, *got;
    char *keys; /* scan by key */
    uint64_t *off;
} seg_bufs;

static void segmented_reduce(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, oi, ti;
    int shape;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        seg_bufs b;
        b.in = gpt_malloc(n * 8 + kGuard), b.off = gpt_malloc((2 * n + 4) * 8);
        b.want = gpt_malloc((2 * n + 4) * 8 + kGuard), b.got = gpt_malloc((2 * n + 4) * 8 + kGuard);
        for (shape = 0; shape < NSEG_SHAPES; shape++) {
            const size_t ns = make_offsets(b.off, n, shape);
            for (di = 0; di < COUNT(dtypes); di++) {
                const gp_dtype d = dtypes[di];
                const size_t obytes = ns * gp_dtype_size(d) + kGuard;
                fill_values(d, b.in, n);
                for (oi = 0; oi < COUNT(ops); oi++) {
                    char what[128];
                    snprintf(what, sizeof what, "segmented_reduce %s op %d, %s segments (%zu), n=%zu",
                             gpt_dtype_name(d), (int)ops[oi], seg_shape_name(shape), ns, n);
                    gpt_poison(b.want, obytes);
                    assert_int_equal(gpi_cpu_segmented_reduce(d, ops[oi], b.in, b.off, ns, b.want), GP_SUCCESS);
                    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
                        set_threads(ctx, thread_counts[ti]);
                        gpt_poison(b.got, obytes);
                        GPT_OK(ctx, gp_segmented_reduce(ctx, d, ops[oi], b.in, n, b.off, ns, b.got));
                        expect_same(b.want, b.got, obytes, what, thread_counts[ti]);
                    }
                }
            }
        }
        free(b.in), free(b.off), free(b.want), free(b.got);
    }
    set_threads(ctx, 0);
}

/* One scan (segmented, or by key when keys is not NULL), every thread
 * count, against gpi_cpu_segmented_scan; in place: in == out. */
static void scan_case(gp_context *ctx, seg_bufs *b, gp_dtype d, gp_op op, int inclusive, size_t n, size_t ns,
                      gp_dtype kd, int by_key, int in_place, const char *what)
{
    const size_t bytes = n * gp_dtype_size(d) + kGuard;
    const gp_scan_kind kind = inclusive ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
    gpi_segscan_args a;
    size_t ti;
    gpt_poison(b->want, bytes);
    if (in_place) memcpy(b->want, b->in, n * gp_dtype_size(d));
    a.dtype = d, a.op = op, a.inclusive = inclusive, a.in = in_place ? b->want : b->in, a.out = b->want, a.n = n;
    a.offsets = by_key ? NULL : b->off, a.n_segments = by_key ? 0 : ns, a.key_dtype = kd, a.keys = b->keys;
    if (n && (by_key || ns)) assert_int_equal(gpi_cpu_segmented_scan(&a), GP_SUCCESS);
    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
        const void *in = in_place ? b->got : b->in;
        set_threads(ctx, thread_counts[ti]);
        gpt_poison(b->got, bytes);
        if (in_place) memcpy(b->got, b->in, n * gp_dtype_size(d));
        if (by_key) GPT_OK(ctx, gp_scan_by_key(ctx, kd, b->keys, d, op, kind, in, b->got, n));
        else GPT_OK(ctx, gp_segmented_scan(ctx, d, op, kind, in, b->got, n, b->off, ns));
        expect_same(b->want, b->got, bytes, what, thread_counts[ti]);
    }
}

static void segmented_scan(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, oi;
    int shape, k;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        seg_bufs b;
        b.in = gpt_malloc(n * 8 + kGuard), b.off = gpt_malloc((2 * n + 4) * 8), b.keys = NULL;
        b.want = gpt_malloc(n * 8 + kGuard), b.got = gpt_malloc(n * 8 + kGuard);
        for (shape = 0; shape < NSEG_SHAPES; shape++) {
            const size_t ns = make_offsets(b.off, n, shape);
            for (di = 0; di < COUNT(dtypes); di++) {
                fill_values(dtypes[di], b.in, n);
                for (oi = 0; oi < COUNT(ops); oi++)
                    for (k = 0; k < 2; k++) {
                        char what[128];
                        snprintf(what, sizeof what, "segmented_scan %s op %d %s, %s segments (%zu), n=%zu",
                                 gpt_dtype_name(dtypes[di]), (int)ops[oi], k ? "inclusive" : "exclusive",
                                 seg_shape_name(shape), ns, n);
                        scan_case(ctx, &b, dtypes[di], ops[oi], k, n, ns, GP_INT32, 0, (oi + (size_t)k) % 2, what);
                    }
            }
        }
        free(b.in), free(b.off), free(b.want), free(b.got);
    }
    set_threads(ctx, 0);
}

static void scan_by_key(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, oi, ki;
    int shape, k;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        seg_bufs b;
        b.in = gpt_malloc(n * 8 + kGuard), b.keys = gpt_malloc(n * 8 + kGuard), b.off = NULL;
        b.want = gpt_malloc(n * 8 + kGuard), b.got = gpt_malloc(n * 8 + kGuard);
        for (shape = 0; shape < NKEY_SHAPES; shape++)
            for (ki = 0; ki < COUNT(dtypes); ki++) {
                fill_keys(dtypes[ki], b.keys, n, shape);
                /* every value dtype, op and kind, each with some key dtypes */
                for (di = 0; di < COUNT(dtypes); di++) {
                    if ((di + ki) % 3 && di != ki) continue;
                    fill_values(dtypes[di], b.in, n);
                    for (oi = 0; oi < COUNT(ops); oi++)
                        for (k = (int)(oi + di + ki) % 2; k < 2; k += 2) { /* one kind, in turn */
                            char what[128];
                            snprintf(what, sizeof what, "scan_by_key keys %s values %s op %d %s, %s keys, n=%zu",
                                     gpt_dtype_name(dtypes[ki]), gpt_dtype_name(dtypes[di]), (int)ops[oi],
                                     k ? "inclusive" : "exclusive", key_shape_name(shape), n);
                            scan_case(ctx, &b, dtypes[di], ops[oi], k, n, 0, dtypes[ki], 1, (oi + ki) % 2, what);
                        }
                }
            }
        free(b.in), free(b.keys), free(b.want), free(b.got);
    }
    set_threads(ctx, 0);
}

/* Sorts: keys only, pairs of 4- and 8-byte values, sorted indices of 4 and
 * 8 bytes; both orders, the whole key or some of its bits; in place. */
enum { SORT_KEYS, SORT_PAIRS4, SORT_PAIRS8, SORT_INDEX4, SORT_INDEX8, NSORT_KINDS };

static void sort_case(gp_context *ctx, seg_bufs *b, char *vals, char *wantv, char *gotv, gp_dtype kd, int sk,
                      int desc, int partial_bits, int in_place, size_t n, size_t ns, const char *what)
{
    const size_t ks = gp_dtype_size(kd), vs = sk == SORT_KEYS ? 0 : sk == SORT_PAIRS4 || sk == SORT_INDEX4 ? 4 : 8;
    const size_t kbytes = n * ks + kGuard, vbytes = n * 8 + kGuard;
    const int indices = sk == SORT_INDEX4 || sk == SORT_INDEX8;
    const int begin = partial_bits ? 3 : 0, end = partial_bits ? (int)(4 * ks) + 1 : (int)(8 * ks);
    const gp_sort_order order = desc ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
    gpi_segsort_args a;
    size_t ti;
    gpt_poison(b->want, kbytes), gpt_poison(wantv, vbytes);
    if (in_place) memcpy(b->want, b->in, n * ks), memcpy(wantv, vals, n * vs);
    a.sort.key_dtype = kd, a.sort.descending = desc, a.sort.keys_in = in_place ? b->want : b->in;
    a.sort.keys_out = b->want, a.sort.value_size = vs;
    a.sort.values_in = !vs || indices ? NULL : in_place ? wantv : vals;
    a.sort.values_out = vs ? wantv : NULL, a.sort.n = n, a.sort.begin_bit = begin, a.sort.end_bit = end;
    a.offsets = b->off, a.n_segments = ns;
    if (n && ns) assert_int_equal(gpi_cpu_segmented_sort(&a), GP_SUCCESS);
    for (ti = next_turn(); ti < COUNT(thread_counts); ti = COUNT(thread_counts)) {
        const void *kin = in_place ? b->got : b->in, *vin = indices ? NULL : in_place ? gotv : vals;
        set_threads(ctx, thread_counts[ti]);
        gpt_poison(b->got, kbytes), gpt_poison(gotv, vbytes);
        if (in_place) memcpy(b->got, b->in, n * ks), memcpy(gotv, vals, n * vs);
        if (vs)
            GPT_OK(ctx, gp_segmented_sort_pairs(ctx, kd, order, kin, b->got, vs, vin, gotv, n, b->off, ns, begin, end));
        else GPT_OK(ctx, gp_segmented_sort_keys(ctx, kd, order, kin, b->got, n, b->off, ns, begin, end));
        expect_same(b->want, b->got, kbytes, what, thread_counts[ti]);
        expect_same(wantv, gotv, vbytes, what, thread_counts[ti]);
    }
}

static void segmented_sort(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, ki;
    int shape, sk;
    for (si = 0; si < size_count(); si++) {
        const size_t n = sizes[si];
        char *vals = gpt_malloc(n * 8 + kGuard), *wantv = gpt_malloc(n * 8 + kGuard);
        char *gotv = gpt_malloc(n * 8 + kGuard);
        seg_bufs b;
        b.in = gpt_malloc(n * 8 + kGuard), b.off = gpt_malloc((2 * n + 4) * 8), b.keys = NULL;
        b.want = gpt_malloc(n * 8 + kGuard), b.got = gpt_malloc(n * 8 + kGuard);
        gpt_fill_random(GP_UINT64, vals, n, 0);
        for (shape = 0; shape < NSEG_SHAPES; shape++) {
            const size_t ns = make_offsets(b.off, n, shape);
            for (ki = 0; ki < COUNT(gpk_dtypes); ki++) {
                const gp_dtype kd = gpk_dtypes[ki];
                gpk_fill(kd, b.in, n, (int)((ki + (size_t)shape) % GPK_NDISTS));
                for (sk = 0; sk < NSORT_KINDS; sk++) {
                    const int desc = (int)(ki + (size_t)sk) % 2, partial = (sk + shape) % 4 == 1;
                    const int in_place = (int)(ki + (size_t)sk + (size_t)shape) % 3 == 0;
                    char what[160];
                    snprintf(what, sizeof what, "segmented_sort %s kind %d %s%s%s, %s segments (%zu), n=%zu",
                             gpt_dtype_name(kd), sk, desc ? "descending" : "ascending", partial ? ", some bits" : "",
                             in_place ? ", in place" : "", seg_shape_name(shape), ns, n);
                    sort_case(ctx, &b, vals, wantv, gotv, kd, sk, desc, partial, in_place, n, ns, what);
                }
            }
        }
        free(vals), free(wantv), free(gotv), free(b.in), free(b.off), free(b.want), free(b.got);
    }
    set_threads(ctx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(runs_family),
        GPT_TEST_CPU(segmented_reduce),
        GPT_TEST_CPU(segmented_scan),
        GPT_TEST_CPU(scan_by_key),
        GPT_TEST_CPU(segmented_sort),
    };
    gpt_seed_once();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
