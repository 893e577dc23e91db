/* SPDX-License-Identifier: BSD-3-Clause */
/* test_large_families.c - sizes past 2^31 (and past 2^32 where only a count
 * or an index has to pass it) for the newer families, part one: runs
 * (unique, unique by key, run-length encoding, reduce by key), segmented
 * reduce / scan / sort and scan by key, arg-min/max and even histograms, on
 * the CUDA backend (test_large_moves.c has the rest).
 *
 * Like test_large, every case runs only with GP_TEST_LARGE=1 (else it is
 * skipped, saying so) and needs most of a GPU to itself:
 *     GP_TEST_LARGE=1 GP_TEST_REQUIRE_GPU=1 build-gpu/tests/test_large_families
 * A case with less free device memory than it needs is skipped, saying how
 * much it needs. Inputs have answers known in closed form (keys i - i/256,
 * iota values, reversed segments, planted extremes, periodic samples), so
 * the host checks every output element in one streaming pass, without a
 * CPU reference over 2^31 elements; outputs are poisoned first, and the
 * parts a call must not write are checked to be still poison. Each case
 * prints its calls' times and its own. See large_fixture.h for the knobs
 * (GP_TEST_LARGE_N, GP_TEST_LARGE_BACKEND=cpu). */
#include "large_fixture.h"

#include <gpuprim/argminmax.h>
#include <gpuprim/histogram.h>
#include <gpuprim/permute.h>
#include <gpuprim/runs.h>

#include "large_segments.h"

/* ---- runs: keys i - floor(i / 256), values i ------------------------------------
 * Each key is a run of one, except that positions 256p - 1 and 256p share a
 * key (a run of two, one across 2^31), so there are more than 2^31 runs.
 * Run j starts at first_of(j); nr = n + n/128 keys. */
static void gen_run_keys(void *chunk, size_t first, size_t count, const void *arg)
{
    uint32_t *c = (uint32_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = (uint32_t)((first + k) - (first + k) / 256);
}

static size_t first_of(size_t j) { return j == 0 ? 0 : 256 * ((j - 1) / 255) + (j - 1) % 255 + 1; }

/* Checks count runs against first_of: keys (j), first values, run lengths
 * and run sums of the iota values, each output optional; then that the
 * entries past count are still poison. */
static void check_runs(gp_context *ctx, const char *what, size_t nr, size_t count, const void *d_keys,
                       const void *d_first, const void *d_len, const void *d_sum, void *h[4])
{
    mismatch mk = {0}, mf = {0}, ml = {0}, ms = {0};
    size_t base, k, want_count = nr - (nr - 1) / 256;
    assert_int_equal(count, want_count);
    for (base = 0; base < count; base += CHUNK) {
        const size_t m = count - base < CHUNK ? count - base : CHUNK;
        const uint32_t *keys = d_keys ? fetch(ctx, h[0], d_keys, 4, base, m) : NULL;
        const uint32_t *firsts = d_first ? fetch(ctx, h[1], d_first, 4, base, m) : NULL;
        const uint64_t *lens = d_len ? fetch(ctx, h[2], d_len, 8, base, m) : NULL;
        const uint32_t *sums = d_sum ? fetch(ctx, h[3], d_sum, 4, base, m) : NULL;
        for (k = 0; k < m; k++) {
            const size_t j = base + k, f = first_of(j), e = j + 1 < count ? first_of(j + 1) : nr;
            if (keys && keys[k] != (uint32_t)j) note_bad(&mk, j, keys[k], (uint32_t)j);
            if (firsts && firsts[k] != (uint32_t)f) note_bad(&mf, j, firsts[k], (uint32_t)f);
            if (lens && lens[k] != e - f) note_bad(&ml, j, lens[k], e - f);
            if (sums && sums[k] != range_sum32(f, e)) note_bad(&ms, j, sums[k], range_sum32(f, e));
        }
    }
    expect_none(&mk, "run keys", count);
    expect_none(&mf, "run first values", count);
    expect_none(&ml, "run lengths", count);
    expect_none(&ms, "run sums", count);
    /* nothing past the count: the rest of the room is still poison */
    for (base = count; base < nr; base += CHUNK) {
        const size_t m = nr - base < CHUNK ? nr - base : CHUNK;
        const uint32_t *keys = d_keys ? fetch(ctx, h[0], d_keys, 4, base, m) : NULL;
        const uint32_t *vals = d_first || d_sum ? fetch(ctx, h[1], d_first ? d_first : d_sum, 4, base, m) : NULL;
        const uint64_t *lens = d_len ? fetch(ctx, h[2], d_len, 8, base, m) : NULL;
        for (k = 0; k < m; k++) {
            if (keys && keys[k] != POISON32) fail_msg("%s: keys_out[%zu] written past the count", what, base + k);
            if (vals && vals[k] != POISON32) fail_msg("%s: values_out[%zu] written past the count", what, base + k);
            if (lens && lens[k] != POISON64) fail_msg("%s: lengths_out[%zu] written past the count", what, base + k);
        }
    }
}

static void runs_past_2_31(void **state)
{
    const size_t n = large_n(), nr = n + n / 128;
    gp_context *ctx = large_ctx(state, "unique / unique_by_key / run_length_encode / reduce_by_key, uint32 keys",
                                24 * nr);
    void *h[4] = {host_alloc(CHUNK * 4), host_alloc(CHUNK * 4), host_alloc(CHUNK * 8), host_alloc(CHUNK * 4)};
    void *d_keys, *d_vals, *d_o1, *d_o2, *d_len;
    size_t count = 0;
    double t0;

    print_message("  %zu keys, %zu runs (2^31 = %zu)\n", nr, nr - (nr - 1) / 256, B31);
    d_keys = make_input(ctx, gen_run_keys, NULL, nr, 4, h[2]);
    d_vals = make_input(ctx, gen_iota32, NULL, nr, 4, h[2]);
    d_o1 = dev_alloc(ctx, nr * 4);
    d_o2 = dev_alloc(ctx, nr * 4);
    d_len = dev_alloc(ctx, nr * 8);

    dev_poison(ctx, d_o1, nr * 4, h[2]);
    t0 = now_s();
    GPT_OK(ctx, gp_unique(ctx, GP_UINT32, d_keys, nr, d_o1, &count));
    print_message("  gp_unique: %.1f ms, count %zu\n", timed(ctx, t0), count);
    check_runs(ctx, "gp_unique", nr, count, d_o1, NULL, NULL, NULL, h);

    dev_poison(ctx, d_o1, nr * 4, h[2]);
    dev_poison(ctx, d_len, nr * 8, h[2]);
    t0 = now_s();
    GPT_OK(ctx, gp_run_length_encode(ctx, GP_UINT32, d_keys, nr, d_o1, d_len, &count));
    print_message("  gp_run_length_encode: %.1f ms, count %zu\n", timed(ctx, t0), count);
    check_runs(ctx, "gp_run_length_encode", nr, count, d_o1, NULL, d_len, NULL, h);

    dev_poison(ctx, d_o1, nr * 4, h[2]);
    dev_poison(ctx, d_o2, nr * 4, h[2]);
    t0 = now_s();
    GPT_OK(ctx, gp_unique_by_key(ctx, GP_UINT32, GP_UINT32, d_keys, d_vals, nr, d_o1, d_o2, &count));
    print_message("  gp_unique_by_key: %.1f ms, count %zu\n", timed(ctx, t0), count);
    check_runs(ctx, "gp_unique_by_key", nr, count, d_o1, d_o2, NULL, NULL, h);

    dev_poison(ctx, d_o1, nr * 4, h[2]);
    dev_poison(ctx, d_o2, nr * 4, h[2]);
    dev_poison(ctx, d_len, nr * 8, h[2]);
    t0 = now_s();
    GPT_OK(ctx, gp_reduce_by_key(ctx, GP_UINT32, GP_UINT32, GP_OP_SUM, d_keys, d_vals, nr, d_o1, d_o2, d_len, &count));
    print_message("  gp_reduce_by_key (uint32 sum): %.1f ms, count %zu\n", timed(ctx, t0), count);
    check_runs(ctx, "gp_reduce_by_key", nr, count, d_o1, NULL, d_len, d_o2, h);
}

/* ---- segmented reduce and scan, scan by key -------------------------------------
 * The segment layout of large_segments.h over iota values: segment sums are
 * range sums, scans running sums. */
static void segmented_reduce_scan_past_2_31(void **state)
{
    const size_t n = segmented_n();
    gp_context *ctx = large_ctx(state, "segmented reduce / segmented scan / scan_by_key, uint32", 14 * n);
    void *h[3] = {host_alloc(CHUNK * 4), host_alloc(CHUNK * 4), host_alloc(CHUNK * 4)};
    seg_layout L = seg_layout_make(n);
    void *d_in, *d_out, *d_keys, *d_off, *d_red;
    uint32_t *red = host_alloc(L.nseg * 4);
    mismatch m = {0};
    size_t s, i;
    seg_cursor c;
    reader rd;
    uint32_t run = 0;
    double t0;

    seg_layout_print(&L);
    d_in = make_input(ctx, gen_iota32, NULL, n, 4, h[0]);
    d_off = dev_alloc(ctx, (L.nseg + 1) * 8);
    GPT_OK(ctx, gp_upload(ctx, d_off, L.off, (L.nseg + 1) * 8));
    d_red = dev_alloc(ctx, L.nseg * 4);

    /* reduce: sum and min of every segment (identities for the empty ones) */
    dev_poison(ctx, d_red, L.nseg * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_UINT32, GP_OP_SUM, d_in, n, d_off, L.nseg, d_red));
    print_message("  gp_segmented_reduce (sum, %zu segments): %.1f ms\n", L.nseg, timed(ctx, t0));
    GPT_OK(ctx, gp_download(ctx, red, d_red, L.nseg * 4));
    for (s = 0; s < L.nseg; s++)
        if (red[s] != range_sum32(L.off[s], L.off[s + 1])) note_bad(&m, s, red[s], range_sum32(L.off[s], L.off[s + 1]));
    expect_none(&m, "segment sums", L.nseg);
    dev_poison(ctx, d_red, L.nseg * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_segmented_reduce(ctx, GP_UINT32, GP_OP_MIN, d_in, n, d_off, L.nseg, d_red));
    print_message("  gp_segmented_reduce (min): %.1f ms\n", timed(ctx, t0));
    GPT_OK(ctx, gp_download(ctx, red, d_red, L.nseg * 4));
    for (s = 0; s < L.nseg; s++) {
        const uint32_t want = L.off[s] < L.off[s + 1] ? (uint32_t)L.off[s] : UINT32_MAX;
        if (red[s] != want) note_bad(&m, s, red[s], want);
    }
    expect_none(&m, "segment minima", L.nseg);

    /* exclusive scan: running sum from 0 at each segment start */
    d_out = dev_alloc(ctx, n * 4);
    dev_poison(ctx, d_out, n * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_segmented_scan(ctx, GP_UINT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, d_in, d_out, n, d_off, L.nseg));
    print_message("  gp_segmented_scan (sum, exclusive): %.1f ms\n", timed(ctx, t0));
    c = seg_cursor_at(&L, 0);
    rd = reader_of(ctx, d_out, n, 4, h[0]);
    for (i = 0; i < n; i++) {
        const int64_t sg = seg_of(&c, i);
        const uint32_t got = read_u32(&rd, i);
        uint32_t want = POISON32; /* outside every segment: not written */
        if (sg >= 0) {
            if (i == L.off[sg]) run = 0;
            want = run;
            run += (uint32_t)i;
        }
        if (got != want) note_bad(&m, i, got, want);
    }
    expect_none(&m, "segmented scan outputs", n);
    dev_release(d_red);

    /* scan by key, inclusive: keys are segment numbers (the head and the
     * tail outside the segments get keys of their own) */
    d_keys = make_input(ctx, gen_segment_ids, &L, n, 4, h[0]);
    dev_poison(ctx, d_out, n * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_scan_by_key(ctx, GP_UINT32, d_keys, GP_UINT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_out, n));
    print_message("  gp_scan_by_key (sum, inclusive): %.1f ms\n", timed(ctx, t0));
    c = seg_cursor_at(&L, 0);
    rd = reader_of(ctx, d_out, n, 4, h[0]);
    {
        uint32_t prev_key = 0;
        for (i = 0; i < n; i++) {
            const uint32_t key = segment_id_key(&c, i), got = read_u32(&rd, i);
            if (i == 0 || key != prev_key) run = 0;
            run += (uint32_t)i;
            prev_key = key;
            if (got != run) note_bad(&m, i, got, run);
        }
    }
    expect_none(&m, "scan-by-key outputs", n);
}

/* ---- segmented sort --------------------------------------------------------------
 * Keys (len - 1 - k) / 2 at place k of a segment of len: reversed, in equal
 * pairs. Sorted ascending, place t holds key t / 2; stable, so of a pair the
 * lower original place comes first (see sorted_origin). Values: original
 * positions (values_in NULL), uint32. */
static void segmented_sort_past_2_31(void **state)
{
    const size_t n = segmented_n();
    /* keys in, keys out, positions out; workspace: positions and CUB's
     * double buffers of keys and positions (per-segment plan) */
    gp_context *ctx = large_ctx(state, "segmented sort pairs, uint32 keys, uint32 positions", 24 * n);
    void *h[2] = {host_alloc(CHUNK * 4), host_alloc(CHUNK * 4)};
    seg_layout L = seg_layout_make(n);
    void *d_keys, *d_kout, *d_vout, *d_off;
    mismatch mk = {0}, mv = {0};
    size_t i;
    seg_cursor c;
    reader rk, rv;
    double t0;

    seg_layout_print(&L);
    d_keys = make_input(ctx, gen_segment_sort_keys, &L, n, 4, h[0]);
    d_off = dev_alloc(ctx, (L.nseg + 1) * 8);
    GPT_OK(ctx, gp_upload(ctx, d_off, L.off, (L.nseg + 1) * 8));
    d_kout = dev_alloc(ctx, n * 4);
    d_vout = dev_alloc(ctx, n * 4);
    dev_poison(ctx, d_kout, n * 4, h[0]);
    dev_poison(ctx, d_vout, n * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_segmented_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, d_keys, d_kout, 4, NULL, d_vout, n, d_off,
                                        L.nseg, 0, 32));
    print_message("  gp_segmented_sort_pairs (%zu segments): %.1f ms\n", L.nseg, timed(ctx, t0));
    c = seg_cursor_at(&L, 0);
    rk = reader_of(ctx, d_kout, n, 4, h[0]);
    rv = reader_of(ctx, d_vout, n, 4, h[1]);
    for (i = 0; i < n; i++) {
        const int64_t sg = seg_of(&c, i);
        const uint32_t ko = read_u32(&rk, i), vo = read_u32(&rv, i);
        uint32_t want_k = POISON32, want_v = POISON32; /* outside every segment: not written */
        if (sg >= 0) {
            const uint64_t a = L.off[sg], len = L.off[sg + 1] - a, t = i - a;
            want_k = (uint32_t)(t / 2);
            want_v = (uint32_t)(a + sorted_origin(t, len));
        }
        if (ko != want_k) note_bad(&mk, i, ko, want_k);
        if (vo != want_v) note_bad(&mv, i, vo, want_v);
    }
    expect_none(&mk, "sorted keys", n);
    expect_none(&mv, "sorted positions", n);
}

/* ---- arg-min / arg-max past 2^32 -------------------------------------------------
 * 2n int32 zeros with planted extremes: the minimum -7 first at 2^32 + 5
 * (an index that 32 bits would cut to 5), the maximum 50 first at 2^31 + 7
 * (negative as an int32). Decoys: -6 and 49 earlier, ties later. */
static void gen_zero32(void *chunk, size_t first, size_t count, const void *arg)
{
    int32_t *c = (int32_t *)chunk;
    size_t k;
    (void)first;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = 0;
}

static void argminmax_past_2_32(void **state)
{
    const size_t n = large_n(), na = 2 * n, b = boundary(n), b2 = na > B32 + 16 ? B32 : na / 2;
    gp_context *ctx = large_ctx(state, "argmin / argmax, int32, 2n elements", na * 4);
    void *chunk = host_alloc(CHUNK * 4);
    void *d = dev_alloc(ctx, na * 4);
    int32_t v = 0;
    uint64_t idx = 0;
    double t0;

    fill_periodic(ctx, d, gen_zero32, NULL, na, 4, chunk);
    put_u32(ctx, d, 3, (uint32_t)-6);
    put_u32(ctx, d, b + 5, (uint32_t)-6);
    put_u32(ctx, d, b2 + 5, (uint32_t)-7);
    put_u32(ctx, d, b2 + 9, (uint32_t)-7);
    put_u32(ctx, d, 1, 49);
    put_u32(ctx, d, b + 7, 50);
    put_u32(ctx, d, b2 + 11, 50);
    put_u32(ctx, d, na - 1, 50);
    t0 = now_s();
    GPT_OK(ctx, gp_argmin(ctx, GP_INT32, d, na, &v, &idx));
    print_message("  gp_argmin over %zu: %.1f ms, %d at %llu (want -7 at %zu)\n", na, 1e3 * (now_s() - t0), v,
                  (unsigned long long)idx, b2 + 5);
    assert_int_equal(v, -7);
    assert_true(idx == b2 + 5);
    t0 = now_s();
    GPT_OK(ctx, gp_argmax(ctx, GP_INT32, d, na, &v, &idx));
    print_message("  gp_argmax over %zu: %.1f ms, %d at %llu (want 50 at %zu)\n", na, 1e3 * (now_s() - t0), v,
                  (unsigned long long)idx, b + 7);
    assert_int_equal(v, 50);
    assert_true(idx == b + 7);
    /* index only (value_host NULL), over the first n: the -6 at 3 wins */
    GPT_OK(ctx, gp_argmin(ctx, GP_INT32, d, n, NULL, &idx));
    assert_true(idx == 3);
}

/* ---- even histogram past 2^32 samples ----------------------------------------------
 * Sample i (period 128): i % 128 == 0 gives (i / 128) % 8, i % 128 == 64 gives
 * -1 or 16 (outside [0, 16)), every other one 5. Over 2n samples bin 5
 * passes 2^32 (uint64 counts); over the first n, 2^31 (uint32 counts). */
static void gen_hist(void *chunk, size_t first, size_t count, const void *arg)
{
    int32_t *c = (int32_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) {
        const size_t i = first + k, r = i & 127;
        c[k] = r == 0 ? (int32_t)((i >> 7) & 7) : r == 64 ? (((i >> 7) & 1) ? -1 : 16) : 5;
    }
}

static void hist_want(size_t N, uint64_t want[16])
{
    const uint64_t m0 = (N + 127) / 128, m64 = (N + 63) / 128;
    int v;
    for (v = 0; v < 16; v++) want[v] = v < 8 ? (m0 + 7 - (uint64_t)v) / 8 : 0;
    want[5] += N - m0 - m64;
}

/* gp_histogram_even over the first N samples into counts of counts_dtype
 * (GP_UINT64 or GP_UINT32), poisoned first; every bin checked. */
static void check_histogram(gp_context *ctx, const void *d, size_t N, gp_dtype counts_dtype, void *d_counts,
                            void *chunk)
{
    const int32_t lo = 0, hi = 16;
    const char *type = counts_dtype == GP_UINT64 ? "uint64" : "uint32";
    uint64_t want[16], got[16];
    uint32_t got32[16];
    double t0;
    int v;

    dev_poison(ctx, d_counts, 16 * 8, chunk);
    t0 = now_s();
    GPT_OK(ctx, gp_histogram_even(ctx, GP_INT32, d, N, &lo, &hi, 16, counts_dtype, d_counts));
    print_message("  gp_histogram_even over %zu (%s counts): %.1f ms\n", N, type, timed(ctx, t0));
    if (counts_dtype == GP_UINT64) {
        GPT_OK(ctx, gp_download(ctx, got, d_counts, sizeof got));
    } else {
        GPT_OK(ctx, gp_download(ctx, got32, d_counts, sizeof got32));
        for (v = 0; v < 16; v++) got[v] = got32[v];
    }
    hist_want(N, want);
    print_message("  bin 5: %llu (want %llu)\n", (unsigned long long)got[5], (unsigned long long)want[5]);
    for (v = 0; v < 16; v++)
        if (got[v] != want[v])
            fail_msg("%s counts: bin %d is %llu, want %llu", type, v, (unsigned long long)got[v],
                     (unsigned long long)want[v]);
}

static void histogram_even_past_2_32(void **state)
{
    const size_t n = large_n(), nh = 2 * n;
    gp_context *ctx = large_ctx(state, "histogram_even, int32 samples, 2n of them", nh * 4);
    void *chunk = host_alloc(CHUNK * 4);
    void *d = dev_alloc(ctx, nh * 4), *d_counts = dev_alloc(ctx, 16 * 8);

    fill_periodic(ctx, d, gen_hist, NULL, nh, 4, chunk);
    check_histogram(ctx, d, nh, GP_UINT64, d_counts, chunk); /* bin 5 past 2^32 */
    check_histogram(ctx, d, n, GP_UINT32, d_counts, chunk);  /* bin 5 past 2^31 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_LARGE(runs_past_2_31),
        GPT_TEST_LARGE(segmented_reduce_scan_past_2_31),
        GPT_TEST_LARGE(segmented_sort_past_2_31),
        GPT_TEST_LARGE(argminmax_past_2_32),
        GPT_TEST_LARGE(histogram_even_past_2_32),
    };
    return cmocka_run_group_tests_name("large families", tests, NULL, NULL);
}
