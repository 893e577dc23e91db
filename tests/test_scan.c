/* SPDX-License-Identifier: BSD-3-Clause */
/* test_scan.c - gp_scan: the CPU reference against a brute force, every
 * dtype x op x kind on each backend against the reference at every test
 * size, in place, bad arguments, run-to-run determinism, and the CPU
 * backend's documented order of float sums. */
#include "test_util.h"
#include "test_values.h"

#include "internal.h" /* gpi_cpu_scan: the reference */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};
static const gp_scan_kind kinds[] = {GP_SCAN_EXCLUSIVE, GP_SCAN_INCLUSIVE};

static const char *kind_name(gp_scan_kind k) { return k == GP_SCAN_EXCLUSIVE ? "exclusive" : "inclusive"; }

/* O(n^2): every output recomputed from scratch. */
static void brute_scan(gp_dtype d, gp_op op, gp_scan_kind kind, const void *in, void *out, size_t n)
{
    size_t i, j;
    for (i = 0; i < n; i++) {
        val acc = identity(d, op);
        size_t end = kind == GP_SCAN_INCLUSIVE ? i + 1 : i;
        for (j = 0; j < end; j++) acc = combine(d, op, acc, load(d, in, j));
        store(d, out, i, acc);
    }
}


/* ---- (1) the reference against the brute force --------------------------- */
static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 64, 100, 257};
    size_t di, oi, ki, si;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (ki = 0; ki < COUNT(kinds); ki++)
                for (si = 0; si < COUNT(sizes); si++) {
                    gp_dtype d = dtypes[di];
                    size_t n = sizes[si], bytes = n * gp_dtype_size(d);
                    void *in = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *brute = gpt_malloc(bytes);
                    /* Real-valued floats here: the brute force adds in the same order. */
                    gpt_fill_random(d, in, n, 0);
                    gpt_poison(ref, bytes);
                    assert_int_equal(gpi_cpu_scan(d, ops[oi], kinds[ki], in, ref, n, 1), GP_SUCCESS);
                    brute_scan(d, ops[oi], kinds[ki], in, brute, n);
                    expect_equal(brute, ref, d, n, "reference vs brute force");
                    /* The reference in place gives the same. */
                    assert_int_equal(gpi_cpu_scan(d, ops[oi], kinds[ki], in, in, n, 1), GP_SUCCESS);
                    expect_equal(brute, in, d, n, "reference in place vs brute force");
                    free(in);
                    free(ref);
                    free(brute);
                }
}

/* Small hand-checked cases, including wrapping sums. */
static void reference_known_values(void **state)
{
    int32_t a[3] = {INT32_MAX, 1, -5}, out[3];
    uint64_t b[2] = {UINT64_MAX, 2}, outb[2];
    float f[3] = {3.0f, -1.0f, 2.0f}, outf[3];
    (void)state;
    gpi_cpu_scan(GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, a, out, 3, 1);
    assert_int_equal(out[0], INT32_MAX);
    assert_int_equal(out[1], INT32_MIN);
    assert_int_equal(out[2], INT32_MIN - 5LL + 4294967296LL);
    gpi_cpu_scan(GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, a, out, 3, 1);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[2], INT32_MIN);
    gpi_cpu_scan(GP_UINT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, b, outb, 2, 1);
    assert_true(outb[1] == 1);
    gpi_cpu_scan(GP_FLOAT32, GP_OP_MIN, GP_SCAN_EXCLUSIVE, f, outf, 3, 1);
    assert_true(isinf(outf[0]) && outf[0] > 0 && outf[1] == 3.0f && outf[2] == -1.0f);
    gpi_cpu_scan(GP_FLOAT32, GP_OP_MAX, GP_SCAN_EXCLUSIVE, f, outf, 3, 1);
    assert_true(isinf(outf[0]) && outf[0] < 0 && outf[1] == 3.0f && outf[2] == 3.0f);
    gpi_cpu_scan(GP_INT32, GP_OP_MAX, GP_SCAN_EXCLUSIVE, a, out, 1, 1);
    assert_int_equal(out[0], INT32_MIN);
}

/* ---- (2) every dtype x op x kind on the backend, every size ----------------- */
static void run_case(gp_context *ctx, gp_dtype d, gp_op op, gp_scan_kind kind, size_t n, int in_place)
{
    size_t bytes = n * gp_dtype_size(d);
    void *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes);
    void *in, *out;
    char what[96];
    fill_input(d, op, host, n);
    assert_int_equal(gpi_cpu_scan(d, op, kind, host, ref, n, 1), GP_SUCCESS);
    in = gpt_buffer_from(ctx, host, bytes);
    out = in_place ? in : gpt_poisoned_buffer(ctx, bytes);
    GPT_OK(ctx, gp_scan(ctx, d, op, kind, in, out, n));
    gpt_buffer_to(ctx, got, out, bytes);
    snprintf(what, sizeof what, "%s %s scan%s [%s]", kind_name(kind), op_name(op), in_place ? " in place" : "",
             gpt_backend_name(ctx));
    expect_equal(ref, got, d, n, what);
    if (!in_place) { /* the input is left alone */
        gpt_buffer_to(ctx, got, in, bytes);
        expect_equal(host, got, d, n, "scan input after the call");
        gpt_buffer_free(ctx, out);
    }
    gpt_buffer_free(ctx, in);
    free(host);
    free(ref);
    free(got);
}

static void scan_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, oi, ki, si;
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (ki = 0; ki < COUNT(kinds); ki++)
                for (si = 0; sizes[si] != SIZE_MAX; si++) run_case(ctx, dtypes[di], ops[oi], kinds[ki], sizes[si], 0);
}

static void scan_in_place(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, oi, ki, si;
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (ki = 0; ki < COUNT(kinds); ki++)
                for (si = 0; sizes[si] != SIZE_MAX; si++)
                    if (sizes[si] <= 1000003) run_case(ctx, dtypes[di], ops[oi], kinds[ki], sizes[si], 1);
}

/* Buffers aligned to the element but not to 16 bytes (a view one element
 * into an allocation): the CUDA scan must fall back from its 16-byte loads.
 * Sizes cover the one-block path and the multi-tile path. */
static void scan_unaligned_views(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype ds[] = {GP_INT32, GP_UINT64, GP_FLOAT32};
    static const size_t ns[] = {1, 33, 4097, 16385, 1000003};
    size_t di, ni;
    for (di = 0; di < COUNT(ds); di++)
        for (ni = 0; ni < COUNT(ns); ni++) {
            gp_dtype d = ds[di];
            size_t es = gp_dtype_size(d), n = ns[ni], bytes = (n + 1) * es;
            gp_op op = d == GP_FLOAT32 ? GP_OP_MAX : GP_OP_SUM;
            char *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes);
            char *in, *out;
            fill_input(d, op, host, n + 1);
            assert_int_equal(gpi_cpu_scan(d, op, GP_SCAN_INCLUSIVE, host + es, ref, n, 1), GP_SUCCESS);
            in = gpt_buffer_from(ctx, host, bytes);
            out = gpt_poisoned_buffer(ctx, bytes);
            GPT_OK(ctx, gp_scan(ctx, d, op, GP_SCAN_INCLUSIVE, in + es, out + es, n));
            gpt_buffer_to(ctx, got, out, bytes);
            expect_equal(ref, got + es, d, n, "scan of views one element into their buffers");
            {   /* the element before the view stays poisoned */
                char poison[8];
                memset(poison, 0xA5, sizeof poison);
                assert_memory_equal(got, poison, es);
            }
            gpt_buffer_free(ctx, in);
            gpt_buffer_free(ctx, out);
            free(host);
            free(ref);
            free(got);
        }
}

/* Grids larger than the GPU holds at once (132 SMs x 4 tiles x 8192
 * elements = 4.3M on an H100/H200: tiles then wait on tiles that start
 * later than they do). Both kinds, every exact operator, in place and out,
 * and a size ending in a partial tile. */
static void scan_beyond_one_wave(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const gp_dtype ds[] = {GP_INT32, GP_UINT32};
    const size_t n = gpt_quick() ? 9000011 : 25165843; /* not a multiple of the tile */
    size_t di, oi, ki;
    if (!gpt_on_cuda(ctx)) { /* the CPU backend has one path: one case */
        run_case(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, n, 0);
        return;
    }
    for (di = 0; di < COUNT(ds); di++)
        for (oi = 0; oi < 3; oi++)
            for (ki = 0; ki < 2; ki++) {
                static const gp_op o[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};
                static const gp_scan_kind k[] = {GP_SCAN_EXCLUSIVE, GP_SCAN_INCLUSIVE};
                run_case(ctx, ds[di], o[oi], k[ki], n, (int)(oi == 0 && ki == 1));
            }
}

/* The pipelined kernel (sm_90; large scans take it by themselves) at the
 * sizes it would not get alone: a few tiles (8192 4-byte or 4096 8-byte
 * elements each) with a partial last one, fewer tiles than SMs, one more
 * tile than an H100/H200 has SMs, more tiles than a block's stages hold.
 * Its context is made with GP_CUDA_SCAN=pipelined, unless the
 * environment already names a kernel (racecheck runs with "onepass");
 * elsewhere the plain kernel answers and the case passes for it. */
static int setup_pipelined(void **state)
{
    return gpt_setup_context_env(state, "GP_CUDA_SCAN", "pipelined");
}

static void scan_pipelined_any_size(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t full[] = {16385, 65537, 1000003, 132 * 8192 + 1, 132 * 8192 * 6 + 5};
    static const size_t quick[] = {16385, 132 * 8192 + 1};
    const size_t *ns = gpt_quick() ? quick : full;
    const size_t count = gpt_quick() ? COUNT(quick) : COUNT(full);
    size_t di, oi, ki, ni;
    for (ni = 0; ni < count; ni++)
        for (di = 0; di < 4; di++) /* the exact dtypes; float sums never take it */
            for (oi = 0; oi < COUNT(ops); oi++)
                for (ki = 0; ki < COUNT(kinds); ki++)
                    run_case(ctx, dtypes[di], ops[oi], kinds[ki], ns[ni], (int)(oi == 0 && ki == 1));
}

/* Real-valued float sums: exact on the CPU backend; on CUDA within a bound
 * scaled to the magnitude (the prefix of |x|) and the length. */
static void scan_float_sum_real_values(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, ki, si, i;
    for (di = 4; di < 6; di++)
        for (ki = 0; ki < COUNT(kinds); ki++)
            for (si = 0; sizes[si] != SIZE_MAX; si++) {
                gp_dtype d = dtypes[di];
                gp_scan_kind kind = kinds[ki];
                size_t n = sizes[si], bytes = n * gp_dtype_size(d);
                double eps = d == GP_FLOAT32 ? FLT_EPSILON : DBL_EPSILON, abs_prefix = 0;
                void *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes);
                void *in, *out;
                gpt_fill_random(d, host, n, 0);
                gpi_cpu_scan(d, GP_OP_SUM, kind, host, ref, n, 1);
                in = gpt_buffer_from(ctx, host, bytes);
                out = gpt_poisoned_buffer(ctx, bytes);
                GPT_OK(ctx, gp_scan(ctx, d, GP_OP_SUM, kind, in, out, n));
                gpt_buffer_to(ctx, got, out, bytes);
                if (!gpt_on_cuda(ctx)) {
                    expect_equal(ref, got, d, n, "real-valued float sum scan [cpu]");
                } else {
                    for (i = 0; i < n; i++) {
                        double x = d == GP_FLOAT32 ? ((float *)host)[i] : ((double *)host)[i];
                        double r = d == GP_FLOAT32 ? ((float *)ref)[i] : ((double *)ref)[i];
                        double g = d == GP_FLOAT32 ? ((float *)got)[i] : ((double *)got)[i];
                        double tol;
                        if (kind == GP_SCAN_INCLUSIVE) abs_prefix += fabs(x);
                        /* Both results err by at most ~eps * sum|x| * depth; the
                         * sequential reference's error grows like sqrt(i). */
                        tol = 2.0 * eps * abs_prefix * (64.0 + sqrt((double)i + 1.0));
                        if (!(fabs(g - r) <= tol))
                            fail_msg("%s float sum scan (%s, n=%zu) at %zu: got %.17g want %.17g (tol %.3g)",
                                     kind_name(kind), gpt_dtype_name(d), n, i, g, r, tol);
                        if (kind == GP_SCAN_EXCLUSIVE) abs_prefix += fabs(x);
                    }
                }
                gpt_buffer_free(ctx, in);
                gpt_buffer_free(ctx, out);
                free(host);
                free(ref);
                free(got);
            }
}

/* The CPU backend's float sums follow its documented tiles of 16384
 * elements (internal.h): tile k is added left to right from P(k), with
 * P(0) = +0.0 and P(k+1) = P(k) + (tile k added left to right from +0.0),
 * whatever the number of threads. Replayed here from those words. */
#define DEFINE_TILED_SCAN(NAME, T)                                                            \
    static void NAME(int inclusive, const T *in, T *out, size_t n)                            \
    {                                                                                         \
        T before = (T)0;                                                                      \
        size_t lo, i;                                                                         \
        for (lo = 0; lo < n; lo += 16384) {                                                   \
            const size_t hi = n - lo < 16384 ? n : lo + 16384;                                \
            T acc = before, total = (T)0;                                                     \
            for (i = lo; i < hi; i++) total = total + in[i];                                  \
            for (i = lo; i < hi; i++) {                                                       \
                const T next = acc + in[i];                                                   \
                out[i] = inclusive ? next : acc;                                              \
                acc = next;                                                                   \
            }                                                                                 \
            before = before + total;                                                          \
        }                                                                                     \
    }
DEFINE_TILED_SCAN(tiled_scan_f32, float)
DEFINE_TILED_SCAN(tiled_scan_f64, double)

static void scan_float_sum_cpu_tiles(void **state)
{
    static const size_t ns[] = {16383, 16384, 16385, 65537, 100003, 1000003};
    static const int threads[] = {1, 2, 3, 0};
    gp_context *ctx = gpt_ctx(state);
    size_t di, ki, ni, ti;
    for (di = 4; di < 6; di++)
        for (ni = 0; ni < COUNT(ns); ni++) {
            gp_dtype d = dtypes[di];
            size_t n = ns[ni], bytes = n * gp_dtype_size(d);
            void *in = gpt_malloc(bytes), *want = gpt_malloc(bytes), *got = gpt_malloc(bytes);
            gpt_fill_random(d, in, n, 0);
            for (ki = 0; ki < COUNT(kinds); ki++) {
                const int inclusive = kinds[ki] == GP_SCAN_INCLUSIVE;
                if (d == GP_FLOAT32) tiled_scan_f32(inclusive, (const float *)in, (float *)want, n);
                else tiled_scan_f64(inclusive, (const double *)in, (double *)want, n);
                for (ti = 0; ti < COUNT(threads); ti++) {
                    GPT_OK(ctx, gp_context_set_cpu_threads(ctx, threads[ti]));
                    gpt_poison(got, bytes);
                    GPT_OK(ctx, gp_scan(ctx, d, GP_OP_SUM, kinds[ki], in, got, n));
                    if (memcmp(got, want, bytes) != 0)
                        fail_msg("%s float sum scan (%s, n=%zu, %d threads): not the documented tiles",
                                 kind_name(kinds[ki]), gpt_dtype_name(d), n, threads[ti]);
                }
            }
            free(in);
            free(want);
            free(got);
        }
    GPT_OK(ctx, gp_context_set_cpu_threads(ctx, 0));
}

/* A caller workspace that is not 256-byte aligned still gives right results. */
static void scan_with_user_workspace(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = gpt_quick() ? 65537 : 1000003;
    void *ws = gpt_buffer(ctx, 1 << 20);
    GPT_OK(ctx, gp_context_set_workspace(ctx, (char *)ws + 8, (1 << 20) - 8));
    run_case(ctx, GP_INT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, n, 0);
    run_case(ctx, GP_FLOAT64, GP_OP_MAX, GP_SCAN_EXCLUSIVE, n, 1);
    run_case(ctx, GP_UINT32, GP_OP_MIN, GP_SCAN_INCLUSIVE, n, 0);
    GPT_OK(ctx, gp_context_set_workspace(ctx, NULL, 0));
    gpt_buffer_free(ctx, ws);
}

/* ---- (3) bad arguments: a status, a message, and outputs untouched --------- */
static void scan_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 100;
    void *in = gpt_poisoned_buffer(ctx, (n + 1) * 4), *out = gpt_poisoned_buffer(ctx, (n + 1) * 4);
    char *inb = (char *)in;

    assert_int_equal(gp_scan(NULL, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, (gp_dtype)0, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_scan(ctx, (gp_dtype)99, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, (gp_op)0, GP_SCAN_INCLUSIVE, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, (gp_op)99, GP_SCAN_INCLUSIVE, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, (gp_scan_kind)0, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, (gp_scan_kind)99, in, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, out, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, NULL, n), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, SIZE_MAX), GP_ERROR_SIZE_OVERFLOW);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_scan(ctx, GP_FLOAT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, SIZE_MAX / 4),
                     GP_ERROR_SIZE_OVERFLOW);
    /* Partial overlap either way is refused; exact aliasing is in place. */
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, inb + 4, n), GP_ERROR_OVERLAP);
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, inb + 4, in, n), GP_ERROR_OVERLAP);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    /* Elements must be aligned to their size. */
    assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, (char *)out + 2, n - 1),
                     GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_scan(ctx, GP_INT64, GP_OP_SUM, GP_SCAN_INCLUSIVE, inb + 4, out, n / 2),
                     GP_ERROR_INVALID_ARGUMENT);
    gpt_expect_untouched(ctx, in, (n + 1) * 4);
    gpt_expect_untouched(ctx, out, (n + 1) * 4);

    /* n == 0 does nothing and needs no pointers. */
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, NULL, 0));
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, out, 0));
    gpt_expect_untouched(ctx, out, (n + 1) * 4);

    if (gpt_on_cuda(ctx)) {
        /* Host memory handed to the CUDA backend. */
        unsigned char host[400];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, host, out, n), GP_ERROR_WRONG_MEMORY);
        assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, in, host, n), GP_ERROR_WRONG_MEMORY);
        gpt_expect_untouched(ctx, out, (n + 1) * 4);
    }
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
}

/* ---- (4) float sums are identical bit for bit on two runs -------------------- */
static void scan_deterministic(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = gpt_quick() ? 65537 : 4194305;
    size_t di, ki;
    for (di = 4; di < 6; di++)
        for (ki = 0; ki < COUNT(kinds); ki++) {
            gp_dtype d = dtypes[di];
            size_t bytes = n * gp_dtype_size(d);
            void *host = gpt_malloc(bytes), *a = gpt_malloc(bytes), *b = gpt_malloc(bytes);
            void *in, *out1, *out2;
            gpt_fill_random(d, host, n, 0);
            in = gpt_buffer_from(ctx, host, bytes);
            out1 = gpt_poisoned_buffer(ctx, bytes);
            out2 = gpt_poisoned_buffer(ctx, bytes);
            GPT_OK(ctx, gp_scan(ctx, d, GP_OP_SUM, kinds[ki], in, out1, n));
            GPT_OK(ctx, gp_scan(ctx, d, GP_OP_SUM, kinds[ki], in, out2, n));
            gpt_buffer_to(ctx, a, out1, bytes);
            gpt_buffer_to(ctx, b, out2, bytes);
            expect_equal(a, b, d, n, "float sum scan run 1 vs run 2");
            gpt_buffer_free(ctx, in);
            gpt_buffer_free(ctx, out1);
            gpt_buffer_free(ctx, out2);
            free(host);
            free(a);
            free(b);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        cmocka_unit_test(reference_known_values),
        GPT_TEST_BOTH(scan_matches_reference),
        GPT_TEST_BOTH(scan_in_place),
        GPT_TEST_BOTH(scan_unaligned_views),
        GPT_TEST_BOTH(scan_beyond_one_wave),
        {"scan_pipelined_any_size [cuda]", scan_pipelined_any_size, setup_pipelined, gpt_teardown_context, &gpt_cuda},
        GPT_TEST_BOTH(scan_float_sum_real_values),
        GPT_TEST_CPU(scan_float_sum_cpu_tiles),
        GPT_TEST_BOTH(scan_with_user_workspace),
        GPT_TEST_BOTH(scan_bad_arguments),
        GPT_TEST_BOTH(scan_deterministic),
    };
    return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}
