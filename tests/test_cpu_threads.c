/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_threads.c - the CPU backend's primitives give identical bits
 * with 1, 2, 3, 7 threads and one per processor (0), on sizes around the
 * point where a call starts using threads (64K elements) and odd large
 * ones; with 1 thread they also match plain loops written here. Outputs
 * are poisoned, and compaction must write nothing past its count. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const int thread_counts[] = {1, 2, 3, 7, 0};
static const size_t sizes[] = {0, 1, 65535, 65536, 65537, 131073, 200003, 1000003};

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

static void set_threads(gp_context *ctx, int t) { GPT_OK(ctx, gp_context_set_cpu_threads(ctx, t)); }

/* Compare got with the result of the first thread count. */
static void expect_same(const void *want, const void *got, size_t bytes, const char *what, size_t n, int t)
{
    if (memcmp(want, got, bytes) != 0) fail_msg("%s (n=%zu): %d threads differ from 1 thread", what, n, t);
}

static void scan_and_reduce(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, oi, ti;
    for (si = 0; si < COUNT(sizes); si++)
        for (di = 0; di < COUNT(dtypes); di++) {
            const gp_dtype d = dtypes[di];
            const size_t n = sizes[si], bytes = n * gp_dtype_size(d);
            unsigned char *in = gpt_malloc(bytes + 1), *one = gpt_malloc(bytes + 1), *got = gpt_malloc(bytes + 1);
            gpt_fill_random(d, in, n, 0);
            for (oi = 0; oi < COUNT(ops); oi++) {
                int k;
                unsigned char r1[8], r[8];
                for (k = 0; k < 2; k++) {
                    const gp_scan_kind kind = k ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
                    for (ti = 0; ti < COUNT(thread_counts); ti++) {
                        set_threads(ctx, thread_counts[ti]);
                        gpt_poison(ti ? got : one, bytes);
                        GPT_OK(ctx, gp_scan(ctx, d, ops[oi], kind, in, ti ? got : one, n));
                        if (ti) expect_same(one, got, bytes, "scan", n, thread_counts[ti]);
                    }
                    /* in place, on the most threads */
                    memcpy(got, in, bytes);
                    GPT_OK(ctx, gp_scan(ctx, d, ops[oi], kind, got, got, n));
                    expect_same(one, got, bytes, "scan in place", n, 7);
                }
                for (ti = 0; ti < COUNT(thread_counts); ti++) {
                    set_threads(ctx, thread_counts[ti]);
                    GPT_OK(ctx, gp_reduce(ctx, d, ops[oi], in, n, ti ? r : r1));
                    if (ti) expect_same(r1, r, gp_dtype_size(d), "reduce", n, thread_counts[ti]);
                }
            }
            free(in);
            free(one);
            free(got);
        }
    set_threads(ctx, 0);
}

/* Integer sums against plain loops: inclusive scan of int32 and the
 * reduce of int64 (wrapping), min of uint32. */
static void integer_results_match_plain_loops(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 1000003;
    int32_t *a = gpt_malloc(n * 4), *s = gpt_malloc(n * 4);
    int64_t *b = gpt_malloc(n * 8), sum64, want64 = 0;
    uint32_t min32, want_min = UINT32_MAX;
    int32_t acc = 0;
    size_t i, ti;
    gpt_fill_random(GP_INT32, a, n, 0);
    gpt_fill_random(GP_INT64, b, n, 0);
    for (ti = 0; ti < COUNT(thread_counts); ti++) {
        set_threads(ctx, thread_counts[ti]);
        GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, a, s, n));
        for (i = 0, acc = 0; i < n; i++) {
            acc = (int32_t)((uint32_t)acc + (uint32_t)a[i]);
            if (s[i] != acc) fail_msg("int32 scan at %zu (%d threads)", i, thread_counts[ti]);
        }
        GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_SUM, b, n, &sum64));
        for (i = 0, want64 = 0; i < n; i++) want64 = (int64_t)((uint64_t)want64 + (uint64_t)b[i]);
        assert_true(sum64 == want64);
        GPT_OK(ctx, gp_reduce(ctx, GP_UINT32, GP_OP_MIN, a, n, &min32));
        for (i = 0, want_min = UINT32_MAX; i < n; i++) want_min = (uint32_t)a[i] < want_min ? (uint32_t)a[i] : want_min;
        assert_true(min32 == want_min);
    }
    set_threads(ctx, 0);
    free(a);
    free(s);
    free(b);
}

/* Compaction (values of 4 and 8 bytes, both flag types) and compaction of
 * indices: against a plain loop, and nothing written past the count. */
static void compact_and_indices(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const int density[] = {0, 1, 50, 100}; /* percent of flags set */
    size_t si, fi, ti, pi, i;
    for (si = 0; si < COUNT(sizes); si++)
        for (pi = 0; pi < COUNT(density); pi++)
            for (fi = 0; fi < 2; fi++) {
                const size_t n = sizes[si];
                const gp_flag_type ft = fi ? GP_INT32_FLAGS : GP_UINT8_FLAGS;
                uint64_t *in = gpt_malloc(n * 8 + 8), *want = gpt_malloc(n * 8 + 8), *got = gpt_malloc(n * 8 + 8);
                uint64_t *want_idx = gpt_malloc(n * 8 + 8);
                void *flags = gpt_malloc(n * 4 + 4);
                size_t k = 0, count;
                gpt_fill_random(GP_UINT64, in, n, 0);
                for (i = 0; i < n; i++) {
                    const int set = (int)(gpt_rand64() % 100) < density[pi];
                    if (fi) ((int32_t *)flags)[i] = set ? (int32_t)(gpt_rand64() | 1) : 0;
                    else ((uint8_t *)flags)[i] = set ? (uint8_t)(gpt_rand64() | 1) : 0;
                    if (set) want_idx[k] = i, want[k++] = in[i];
                }
                for (ti = 0; ti < COUNT(thread_counts); ti++) {
                    char what[64];
                    set_threads(ctx, thread_counts[ti]);
                    snprintf(what, sizeof what, "compact 8-byte (%d threads)", thread_counts[ti]);
                    gpt_poison(got, n * 8 + 8);
                    GPT_OK(ctx, gp_compact(ctx, GP_UINT64, in, flags, ft, got, n, &count));
                    assert_true(count == k);
                    if (memcmp(got, want, k * 8)) fail_msg("%s: wrong survivors (n=%zu)", what, n);
                    gpt_expect_poison(got, k * 8, n * 8 + 8, what);
                    gpt_poison(got, n * 8 + 8);
                    GPT_OK(ctx, gp_compact(ctx, GP_INT32, in, flags, ft, got, n, &count));
                    assert_true(count == k);
                    for (i = 0; i < k; i++)
                        if (((uint32_t *)got)[i] != ((uint32_t *)in)[want_idx[i]])
                            fail_msg("compact 4-byte at %zu (n=%zu, %d threads)", i, n, thread_counts[ti]);
                    gpt_expect_poison(got, k * 4, n * 8 + 8, "compact 4-byte");
                    gpt_poison(got, n * 8 + 8);
                    GPT_OK(ctx, gp_compact_indices(ctx, flags, ft, got, n, &count));
                    assert_true(count == k);
                    if (memcmp(got, want_idx, k * 8)) fail_msg("compact_indices (n=%zu, %d threads)", n, thread_counts[ti]);
                    gpt_expect_poison(got, k * 8, n * 8 + 8, "compact_indices");
                }
                free(in);
                free(want);
                free(got);
                free(want_idx);
                free(flags);
            }
    set_threads(ctx, 0);
}

static void find_repeats(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype ds[] = {GP_INT32, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
    size_t si, di, ti, i;
    for (si = 0; si < COUNT(sizes); si++)
        for (di = 0; di < COUNT(ds); di++) {
            const size_t n = sizes[si], es = gp_dtype_size(ds[di]);
            unsigned char *in = gpt_malloc(n * es + 1);
            uint64_t *want = gpt_malloc(n * 8 + 8), *got = gpt_malloc(n * 8 + 8);
            size_t k = 0, count;
            gpt_fill_random(ds[di], in, n, 3); /* few values: many repeats */
            for (i = 0; i + 1 < n; i++) {
                int same;
                switch (ds[di]) {
                case GP_INT32: same = ((int32_t *)in)[i] == ((int32_t *)in)[i + 1]; break;
                case GP_UINT64: same = ((uint64_t *)in)[i] == ((uint64_t *)in)[i + 1]; break;
                case GP_FLOAT32: same = ((float *)in)[i] == ((float *)in)[i + 1]; break;
                default: same = ((double *)in)[i] == ((double *)in)[i + 1]; break;
                }
                if (same) want[k++] = i;
            }
            for (ti = 0; ti < COUNT(thread_counts); ti++) {
                set_threads(ctx, thread_counts[ti]);
                gpt_poison(got, n * 8 + 8);
                GPT_OK(ctx, gp_find_repeats(ctx, ds[di], in, n, got, &count));
                assert_true(count == k);
                if (memcmp(got, want, k * 8))
                    fail_msg("find_repeats %s (n=%zu, %d threads)", gpt_dtype_name(ds[di]), n, thread_counts[ti]);
                gpt_expect_poison(got, k * 8, n * 8 + 8, "find_repeats");
            }
            free(in);
            free(want);
            free(got);
        }
    set_threads(ctx, 0);
}

static void transpose(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t shapes[][2] = {{1, 1}, {1000, 1003}, {3, 200001}, {200001, 3}, {517, 517}, {255, 4099}};
    static const size_t es_list[] = {4, 8, 16};
    size_t si, ei, ti, r, c;
    for (si = 0; si < COUNT(shapes); si++)
        for (ei = 0; ei < COUNT(es_list); ei++) {
            const size_t rows = shapes[si][0], cols = shapes[si][1], es = es_list[ei], bytes = rows * cols * es;
            int off;
            for (off = 0; off < 2; off++) { /* aligned, and misaligned by 4 bytes */
                unsigned char *inb = gpt_malloc(bytes + 8), *want = gpt_malloc(bytes + 8), *gotb = gpt_malloc(bytes + 8);
                unsigned char *in = inb + off * 4, *got = gotb + off * 4;
                gpt_fill_random(GP_UINT32, in, bytes / 4, 0);
                for (r = 0; r < rows; r++)
                    for (c = 0; c < cols; c++) memcpy(want + (c * rows + r) * es, in + (r * cols + c) * es, es);
                for (ti = 0; ti < COUNT(thread_counts); ti++) {
                    set_threads(ctx, thread_counts[ti]);
                    gpt_poison(gotb, bytes + 8);
                    GPT_OK(ctx, gp_transpose(ctx, es, in, got, rows, cols));
                    if (memcmp(got, want, bytes))
                        fail_msg("transpose %zux%zu of %zu bytes, offset %d (%d threads)", rows, cols, es, off * 4,
                                 thread_counts[ti]);
                }
                free(inb);
                free(want);
                free(gotb);
            }
        }
    set_threads(ctx, 0);
}

static void stencils(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t shapes[][2] = {{1, 1000003}, {1001, 517}, {3, 70001}, {70001, 3}, {1, 1}};
    static const gp_boundary bs[] = {GP_BOUNDARY_PERIODIC, GP_BOUNDARY_CLAMP, GP_BOUNDARY_ZERO};
    const gp_stencil3 w3 = {0.25, -0.5, 0.75};
    const gp_stencil5 w5 = {-4.0, 1.25, 0.5, 1.0, 0.75};
    size_t si, di, bi, ti;
    for (si = 0; si < COUNT(shapes); si++)
        for (di = 4; di < 6; di++)
            for (bi = 0; bi < COUNT(bs); bi++) {
                const size_t rows = shapes[si][0], cols = shapes[si][1], n = rows * cols;
                const size_t bytes = n * gp_dtype_size(dtypes[di]);
                void *in = gpt_malloc(bytes), *one1 = gpt_malloc(bytes), *one2 = gpt_malloc(bytes);
                void *got = gpt_malloc(bytes);
                gpt_fill_random(dtypes[di], in, n, 0);
                for (ti = 0; ti < COUNT(thread_counts); ti++) {
                    set_threads(ctx, thread_counts[ti]);
                    gpt_poison(ti ? got : one1, bytes);
                    GPT_OK(ctx, gp_stencil_1d(ctx, dtypes[di], &w3, bs[bi], in, ti ? got : one1, n));
                    if (ti) expect_same(one1, got, bytes, "stencil_1d", n, thread_counts[ti]);
                    gpt_poison(ti ? got : one2, bytes);
                    GPT_OK(ctx, gp_stencil_2d(ctx, dtypes[di], &w5, bs[bi], in, ti ? got : one2, rows, cols));
                    if (ti) expect_same(one2, got, bytes, "stencil_2d", n, thread_counts[ti]);
                }
                free(in);
                free(one1);
                free(one2);
                free(got);
            }
    set_threads(ctx, 0);
}

static void sort(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype ds[] = {GP_UINT32, GP_FLOAT32, GP_INT64};
    size_t si, di, ti;
    for (si = 0; si < COUNT(sizes); si++)
        for (di = 0; di < COUNT(ds); di++) {
            const size_t n = sizes[si], ks = gp_dtype_size(ds[di]);
            unsigned char *keys = gpt_malloc(n * ks + 1), *k1 = gpt_malloc(n * ks + 1), *kt = gpt_malloc(n * ks + 1);
            uint64_t *v1 = gpt_malloc(n * 8 + 8), *vt = gpt_malloc(n * 8 + 8);
            gpt_fill_random(ds[di], keys, n, di == 0 ? 1000 : 0); /* u32: many equal keys (stability) */
            for (ti = 0; ti < COUNT(thread_counts); ti++) {
                set_threads(ctx, thread_counts[ti]);
                GPT_OK(ctx, gp_sort_pairs(ctx, ds[di], GP_SORT_ASCENDING, keys, ti ? kt : k1, 8, NULL, ti ? vt : v1,
                                          n, 0, (int)(8 * ks)));
                if (ti) {
                    expect_same(k1, kt, n * ks, "sort_pairs keys", n, thread_counts[ti]);
                    expect_same(v1, vt, n * 8, "sort_pairs values", n, thread_counts[ti]);
                }
            }
            free(keys);
            free(k1);
            free(kt);
            free(v1);
            free(vt);
        }
    set_threads(ctx, 0);
}

/* The 32-bit integer sum scans, reduce and uint8-flag compaction have
 * AVX2 forms (used where the processor has AVX2; GP_CPU_NO_AVX2=1
 * turns them off): both forms against plain loops, at the edges of their
 * tiles (16384 elements), of the threads' shares (multiples of 64K), with
 * outputs shifted off 32-byte alignment, in place, and at a size whose
 * output is stored non-temporally (64 MiB and more on any machine). */
static void vector_paths_match_plain_loops(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t big = ((size_t)64 << 20) / 4 + 4099;
    const size_t ns[] = {7, 16383, 16384, 16385, 32767, 32769, 65535, 65536, 65537, 131071, 131072, 131073,
                         3 * 65536 + 1, 1000003, gpt_quick() ? 1000003 : big};
    static const int tcounts[] = {1, 2, 3};
    static const int density[] = {0, 50, 100};
    const size_t most = gpt_quick() ? 1000003 : big;
    uint32_t *in = gpt_malloc(most * 4), *want = gpt_malloc(most * 4), *got = gpt_malloc((most + 16) * 4 + 64);
    uint64_t *in8 = gpt_malloc(most * 8), *got8 = gpt_malloc((most + 16) * 8 + 64); /* outputs and their poisoned tails */
    uint8_t *flag_sets[COUNT(density)];
    size_t si, ti, pi, i, count;
    int mode, no_avx2, incl, shift;
    gpt_fill_random(GP_UINT32, in, most, 0);
    gpt_fill_random(GP_UINT64, in8, most, 0);
    for (pi = 0; pi < COUNT(density); pi++) {
        flag_sets[pi] = gpt_malloc(most);
        for (i = 0; i < most; i++) {
            const uint64_t x = gpt_rand64();
            flag_sets[pi][i] = (int)(x % 100) < density[pi] ? (uint8_t)(x >> 32 | 1) : 0;
        }
    }
    /* mode 0: AVX2; 1: AVX2, a look-back that does a late predecessor's
     * tile at once instead of waiting (GP_CPU_HELP_SPINS=0); 2: plain loops */
    for (mode = 0; mode < 3; mode++) {
        no_avx2 = mode == 2;
        if (mode == 1) setenv("GP_CPU_HELP_SPINS", "0", 1);
        if (no_avx2) setenv("GP_CPU_NO_AVX2", "1", 1);
        for (si = 0; si < COUNT(ns); si++)
            for (ti = 0; ti < COUNT(tcounts); ti++) {
                const size_t n = ns[si];
                uint32_t acc = 0, r;
                if (n > 1000003 && tcounts[ti] != 2) continue; /* the large size: one thread count */
                set_threads(ctx, tcounts[ti]);
                for (incl = 0; incl < 2; incl++)
                    for (shift = 0; shift < 8; shift += si + 1 < COUNT(ns) ? 3 : 7) {
                        const gp_scan_kind kind = incl ? GP_SCAN_INCLUSIVE : GP_SCAN_EXCLUSIVE;
                        for (acc = 0, i = 0; i < n; i++) {
                            want[i] = incl ? acc + in[i] : acc;
                            acc += in[i];
                        }
                        gpt_poison(got, (n + 16) * 4);
                        GPT_OK(ctx, gp_scan(ctx, GP_UINT32, GP_OP_SUM, kind, in, got + shift, n));
                        if (memcmp(got + shift, want, n * 4))
                            fail_msg("u32 scan (n=%zu, %d threads, shift %d, no_avx2 %d)", n, tcounts[ti], shift,
                                     no_avx2);
                        gpt_expect_poison(got, 0, (size_t)shift * 4, "scan before out");
                        gpt_expect_poison(got, (n + (size_t)shift) * 4, (n + 16) * 4, "scan past out");
                        memcpy(got + shift, in, n * 4); /* in place */
                        GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, kind, got + shift, got + shift, n));
                        if (memcmp(got + shift, want, n * 4))
                            fail_msg("i32 scan in place (n=%zu, %d threads)", n, tcounts[ti]);
                    }
                GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_SUM, in + 1, n - 1, &r));
                assert_true(r == acc - in[0]);
                for (pi = 0; pi < COUNT(density); pi++)
                    for (shift = 0; shift < 8; shift += 5) {
                        const uint8_t *flags = flag_sets[pi];
                        size_t k = 0;
                        for (i = 0; i < n; i++)
                            if (flags[i]) want[k++] = (uint32_t)i;
                        gpt_poison(got, (n + 16) * 4);
                        GPT_OK(ctx, gp_compact(ctx, GP_UINT32, in, flags, GP_UINT8_FLAGS, got + shift, n, &count));
                        if (count != k)
                            fail_msg("compact 4-byte count %zu, want %zu (n=%zu, %d threads, mode %d, %d%%)", count, k, n,
                                     tcounts[ti], mode, density[pi]);
                        for (i = 0; i < k; i++)
                            if (got[shift + i] != in[want[i]])
                                fail_msg("compact 4-byte at %zu (n=%zu, %d threads)", i, n, tcounts[ti]);
                        gpt_expect_poison(got, 0, (size_t)shift * 4, "compact before out");
                        gpt_expect_poison(got, (k + (size_t)shift) * 4, (n + 16) * 4, "compact past count");
                        gpt_poison(got8, (n + 16) * 8);
                        GPT_OK(ctx, gp_compact(ctx, GP_FLOAT64, in8, flags, GP_UINT8_FLAGS, got8 + shift, n, &count));
                        if (count != k)
                            fail_msg("compact 8-byte count %zu, want %zu (n=%zu, %d threads, mode %d, %d%%)", count, k, n,
                                     tcounts[ti], mode, density[pi]);
                        for (i = 0; i < k; i++)
                            if (got8[shift + i] != in8[want[i]])
                                fail_msg("compact 8-byte at %zu (n=%zu, %d threads)", i, n, tcounts[ti]);
                        gpt_expect_poison(got8, (k + (size_t)shift) * 8, (n + 16) * 8, "compact 8 past count");
                    }
            }
        unsetenv("GP_CPU_NO_AVX2");
        unsetenv("GP_CPU_HELP_SPINS");
    }
    set_threads(ctx, 0);
    free(in), free(want), free(got), free(in8), free(got8);
    for (pi = 0; pi < COUNT(density); pi++) free(flag_sets[pi]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(scan_and_reduce),
        GPT_TEST_CPU(integer_results_match_plain_loops),
        GPT_TEST_CPU(compact_and_indices),
        GPT_TEST_CPU(vector_paths_match_plain_loops),
        GPT_TEST_CPU(find_repeats),
        GPT_TEST_CPU(transpose),
        GPT_TEST_CPU(stencils),
        GPT_TEST_CPU(sort),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("cpu_threads", tests, NULL, NULL);
}
