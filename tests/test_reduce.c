/* SPDX-License-Identifier: BSD-3-Clause */
/* test_reduce.c - gp_reduce: the CPU reference against a brute force,
 * every dtype x op on each backend against the reference at every test size,
 * identities for n == 0, bad arguments, run-to-run determinism, and float
 * sums in the documented tree on both backends. */
#include "test_util.h"
#include "test_values.h"

#include "internal.h" /* gpi_cpu_reduce: the reference */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The documented float-sum tree, replayed by the test itself (section 5). */
static float tree_sum_f32(const float *x, size_t m);
static double tree_sum_f64(const double *x, size_t m);

static const gp_dtype dtypes[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64, GP_FLOAT32, GP_FLOAT64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_MIN, GP_OP_MAX};

/* Written backwards from the end for min/max (order does not matter for
 * them), forwards for sums; float sums (n > 0) in the documented tree. */
static void brute_reduce(gp_dtype d, gp_op op, const void *in, size_t n, void *out)
{
    val acc = identity(d, op);
    size_t i;
    if (op == GP_OP_SUM && n > 0 && d == GP_FLOAT32) {
        float r = tree_sum_f32((const float *)in, n);
        memcpy(out, &r, sizeof r);
        return;
    }
    if (op == GP_OP_SUM && n > 0 && d == GP_FLOAT64) {
        double r = tree_sum_f64((const double *)in, n);
        memcpy(out, &r, sizeof r);
        return;
    }
    if (op == GP_OP_SUM)
        for (i = 0; i < n; i++) acc = combine(d, op, acc, load(d, in, i));
    else
        for (i = n; i-- > 0;) acc = combine(d, op, acc, load(d, in, i));
    store(d, out, 0, acc);
}


/* The result lands in a 16-byte poisoned host area: exactly the element's
 * bytes may change. */
static void check_result_area(const unsigned char *area, gp_dtype d)
{
    size_t i;
    for (i = gp_dtype_size(d); i < 16; i++)
        if (area[i] != 0xA5) fail_msg("gp_reduce wrote past the %zu-byte result", gp_dtype_size(d));
}

/* ---- (1) the reference against the brute force --------------------------- */
static void reference_matches_brute_force(void **state)
{
    static const size_t sizes[] = {0, 1, 2, 3, 7, 31, 64, 100, 257, 4097};
    size_t di, oi, si;
    (void)state;
    gpt_seed_once();
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (si = 0; si < COUNT(sizes); si++) {
                gp_dtype d = dtypes[di];
                size_t n = sizes[si];
                void *in = gpt_malloc(n * gp_dtype_size(d));
                unsigned char ref[16], brute[16];
                gpt_fill_random(d, in, n, 0);
                gpt_poison(ref, 16);
                gpt_poison(brute, 16);
                assert_int_equal(gpi_cpu_reduce(d, ops[oi], in, n, ref, 1), GP_SUCCESS);
                brute_reduce(d, ops[oi], in, n, brute);
                check_result_area(ref, d);
                expect_equal(brute, ref, d, 1, "reference vs brute force");
                free(in);
            }
}

static void reference_known_values(void **state)
{
    int32_t a[2] = {INT32_MAX, 1}, r32;
    uint64_t b[3] = {UINT64_MAX, 5, 0}, r64;
    double f[4] = {2.5, -7.0, 1e300, -1e300}, rf;
    (void)state;
    gpi_cpu_reduce(GP_INT32, GP_OP_SUM, a, 2, &r32, 1);
    assert_int_equal(r32, INT32_MIN);
    gpi_cpu_reduce(GP_UINT64, GP_OP_SUM, b, 3, &r64, 1);
    assert_true(r64 == 4);
    gpi_cpu_reduce(GP_UINT64, GP_OP_MIN, b, 3, &r64, 1);
    assert_true(r64 == 0);
    gpi_cpu_reduce(GP_FLOAT64, GP_OP_MAX, f, 4, &rf, 1);
    assert_true(rf == 1e300);
    gpi_cpu_reduce(GP_FLOAT64, GP_OP_MIN, f, 4, &rf, 1);
    assert_true(rf == -1e300);
}

/* ---- (2) every dtype x op on the backend, every size -------------------------- */
static void run_case(gp_context *ctx, gp_dtype d, gp_op op, size_t n)
{
    size_t bytes = n * gp_dtype_size(d);
    void *host = gpt_malloc(bytes), *in;
    unsigned char ref[16], got[16];
    char what[64];
    fill_input(d, op, host, n);
    gpi_cpu_reduce(d, op, host, n, ref, 1);
    in = gpt_buffer_from(ctx, host, bytes);
    gpt_poison(got, 16);
    GPT_OK(ctx, gp_reduce(ctx, d, op, in, n, got));
    check_result_area(got, d);
    snprintf(what, sizeof what, "%s reduce [%s]", op_name(op), gpt_backend_name(ctx));
    expect_equal(ref, got, d, 1, what);
    gpt_buffer_free(ctx, in);
    free(host);
}

static void reduce_matches_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, oi, si;
    for (di = 0; di < COUNT(dtypes); di++)
        for (oi = 0; oi < COUNT(ops); oi++)
            for (si = 0; sizes[si] != SIZE_MAX; si++) run_case(ctx, dtypes[di], ops[oi], sizes[si]);
}

/* Integer sums wrap on the backend too: n copies of the type's largest value. */
static void reduce_integer_sums_wrap(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 100003;
    int32_t *a = gpt_malloc(n * 4), r32 = 0;
    int64_t *b = gpt_malloc(n * 8), r64 = 0;
    void *buf;
    size_t i;
    for (i = 0; i < n; i++) {
        a[i] = INT32_MAX;
        b[i] = INT64_MAX;
    }
    buf = gpt_buffer_from(ctx, a, n * 4);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_SUM, buf, n, &r32));
    /* n * (2^31 - 1) mod 2^32, as a two's complement int32 */
    assert_true((uint32_t)r32 == (uint32_t)((uint64_t)n * (uint64_t)INT32_MAX));
    gpt_buffer_free(ctx, buf);
    buf = gpt_buffer_from(ctx, b, n * 8);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_SUM, buf, n, &r64));
    assert_true((uint64_t)r64 == (uint64_t)n * (uint64_t)INT64_MAX);
    gpt_buffer_free(ctx, buf);
    free(a);
    free(b);
}

/* Real-valued float sums: within a bound scaled to sum |x| and the length
 * of the plain left-to-right sum (a check independent of any tree). */
static void reduce_float_sum_real_values(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_sizes();
    size_t di, si, i;
    for (di = 4; di < 6; di++)
        for (si = 0; sizes[si] != SIZE_MAX; si++) {
            gp_dtype d = dtypes[di];
            size_t n = sizes[si], bytes = n * gp_dtype_size(d);
            double eps = d == GP_FLOAT32 ? FLT_EPSILON : DBL_EPSILON, abs_sum = 0, r, g, tol;
            void *host = gpt_malloc(bytes), *in;
            unsigned char ref[16], got[16];
            gpt_fill_random(d, host, n, 0);
            if (d == GP_FLOAT32) {
                float acc = 0.0f;
                for (i = 0; i < n; i++) acc = acc + ((const float *)host)[i];
                memcpy(ref, &acc, sizeof acc);
            } else {
                double acc = 0.0;
                for (i = 0; i < n; i++) acc = acc + ((const double *)host)[i];
                memcpy(ref, &acc, sizeof acc);
            }
            in = gpt_buffer_from(ctx, host, bytes);
            gpt_poison(got, 16);
            GPT_OK(ctx, gp_reduce(ctx, d, GP_OP_SUM, in, n, got));
            check_result_area(got, d);
            for (i = 0; i < n; i++) abs_sum += fabs(load(d, host, i).f);
            r = load(d, ref, 0).f;
            g = load(d, got, 0).f;
            tol = 2.0 * eps * abs_sum * (64.0 + sqrt((double)n));
            if (!(fabs(g - r) <= tol))
                fail_msg("float sum (%s, n=%zu) [%s]: got %.17g want %.17g (tol %.3g)", gpt_dtype_name(d), n,
                         gpt_backend_name(ctx), g, r, tol);
            gpt_buffer_free(ctx, in);
            free(host);
        }
}

/* n == 0 gives the identity, on every backend. */
static void reduce_empty_gives_identity(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_SUM, NULL, 0, &i32));
    assert_int_equal(i32, 0);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_MIN, NULL, 0, &i32));
    assert_int_equal(i32, INT32_MAX);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_MAX, NULL, 0, &i32));
    assert_int_equal(i32, INT32_MIN);
    GPT_OK(ctx, gp_reduce(ctx, GP_UINT32, GP_OP_MIN, NULL, 0, &u32));
    assert_true(u32 == UINT32_MAX);
    GPT_OK(ctx, gp_reduce(ctx, GP_UINT32, GP_OP_MAX, NULL, 0, &u32));
    assert_true(u32 == 0);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_MIN, NULL, 0, &i64));
    assert_true(i64 == INT64_MAX);
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_MAX, NULL, 0, &i64));
    assert_true(i64 == INT64_MIN);
    GPT_OK(ctx, gp_reduce(ctx, GP_UINT64, GP_OP_MIN, NULL, 0, &u64));
    assert_true(u64 == UINT64_MAX);
    GPT_OK(ctx, gp_reduce(ctx, GP_UINT64, GP_OP_SUM, NULL, 0, &u64));
    assert_true(u64 == 0);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_MIN, NULL, 0, &f32));
    assert_true(isinf(f32) && f32 > 0);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_SUM, NULL, 0, &f32));
    assert_true(f32 == 0.0f && !signbit(f32));
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT64, GP_OP_MAX, NULL, 0, &f64));
    assert_true(isinf(f64) && f64 < 0);
}

/* ---- (3) bad arguments: a status, a message, and outputs untouched --------- */
static void reduce_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = 100;
    void *in = gpt_poisoned_buffer(ctx, (n + 1) * 8);
    unsigned char res[16];
    size_t i;
    gpt_poison(res, sizeof res);

    assert_int_equal(gp_reduce(NULL, GP_INT32, GP_OP_SUM, in, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, (gp_dtype)0, GP_OP_SUM, in, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_reduce(ctx, (gp_dtype)99, GP_OP_SUM, in, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, (gp_op)0, in, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, (gp_op)99, in, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, GP_OP_SUM, NULL, n, res), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, n, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_reduce(ctx, GP_INT32, GP_OP_SUM, in, SIZE_MAX, res), GP_ERROR_SIZE_OVERFLOW);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(gp_reduce(ctx, GP_UINT64, GP_OP_MAX, in, SIZE_MAX / 8 + 1, res), GP_ERROR_SIZE_OVERFLOW);
    assert_int_equal(gp_reduce(ctx, GP_INT64, GP_OP_MAX, (char *)in + 4, n, res), GP_ERROR_INVALID_ARGUMENT);
    if (gpt_on_cuda(ctx)) {
        unsigned char host[800];
        gpt_poison(host, sizeof host);
        assert_int_equal(gp_reduce(ctx, GP_INT32, GP_OP_SUM, host, n, res), GP_ERROR_WRONG_MEMORY);
    }
    for (i = 0; i < sizeof res; i++)
        if (res[i] != 0xA5) fail_msg("result byte %zu changed by a failing call", i);
    gpt_buffer_free(ctx, in);
}

/* ---- (4) float sums are identical bit for bit on two runs -------------------- */
static void reduce_deterministic(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = gpt_quick() ? 65537 : 4194305;
    size_t di;
    for (di = 4; di < 6; di++) {
        gp_dtype d = dtypes[di];
        size_t bytes = n * gp_dtype_size(d);
        void *host = gpt_malloc(bytes), *in;
        unsigned char a[16], b[16];
        gpt_fill_random(d, host, n, 0);
        in = gpt_buffer_from(ctx, host, bytes);
        gpt_poison(a, 16);
        gpt_poison(b, 16);
        GPT_OK(ctx, gp_reduce(ctx, d, GP_OP_SUM, in, n, a));
        GPT_OK(ctx, gp_reduce(ctx, d, GP_OP_SUM, in, n, b));
        assert_memory_equal(a, b, 16);
        gpt_buffer_free(ctx, in);
        free(host);
    }
}

/* ---- (5) float sums follow the documented tree, wherever the data sits ------
 * The tree of gpuprim.h replayed by the test (written from the header's
 * words, not from either backend): both backends must equal it bit for bit,
 * with the same values placed at element offsets 0..3 of an allocation (so
 * 16-byte aligned and not). */
#define DEFINE_TREE_SUM(NAME, T)                                                                     \
    static T NAME(const T *x, size_t m)                                                              \
    {                                                                                                \
        T *level = NULL;                                                                             \
        const T *src = x;                                                                            \
        for (;;) {                                                                                   \
            size_t blocks = (m + 4095) / 4096, c;                                                    \
            T *next = gpt_malloc(blocks * sizeof(T));                                                \
            for (c = 0; c < blocks; c++) {                                                           \
                T s[256];                                                                            \
                int t, j, d;                                                                         \
                for (t = 0; t < 256; t++) {                                                          \
                    T acc = (T)-0.0;                                                                 \
                    for (j = 0; j < 16; j++) {                                                       \
                        size_t i = c * 4096 + (size_t)j * 256 + (size_t)t;                           \
                        acc = acc + (i < m ? src[i] : (T)-0.0);                                      \
                    }                                                                                \
                    s[t] = acc;                                                                      \
                }                                                                                    \
                for (d = 16; d > 0; d >>= 1) /* lane l takes lane l + d's value of the round before */ \
                    for (t = 0; t < 256; t++)                                                        \
                        if ((t & 31) + d < 32) s[t] = s[t] + s[t + d];                               \
                next[c] = ((s[0] + s[128]) + (s[64] + s[192])) + ((s[32] + s[160]) + (s[96] + s[224])); \
            }                                                                                        \
            free(level);                                                                             \
            level = next;                                                                            \
            src = next;                                                                              \
            m = blocks;                                                                              \
            if (m == 1) {                                                                            \
                T r = level[0];                                                                      \
                free(level);                                                                         \
                return r;                                                                            \
            }                                                                                        \
        }                                                                                            \
    }
DEFINE_TREE_SUM(tree_sum_f32, float)
DEFINE_TREE_SUM(tree_sum_f64, double)

static void reduce_float_sum_tree_and_alignment(void **state)
{
    static const size_t full_sizes[] = {1, 2, 31, 255, 256, 257, 4095, 4096, 4097, 65535, 65537, 1000003,
                                        4096 * 4096 + 3};
    static const size_t quick_sizes[] = {1, 31, 257, 4097, 65537, 1000003};
    gp_context *ctx = gpt_ctx(state);
    const size_t *sizes = gpt_quick() ? quick_sizes : full_sizes;
    const size_t nsizes = gpt_quick() ? COUNT(quick_sizes) : COUNT(full_sizes);
    size_t si, di, off;
    for (di = 4; di < 6; di++)
        for (si = 0; si < nsizes; si++) {
            gp_dtype d = dtypes[di];
            size_t n = sizes[si], es = gp_dtype_size(d);
            unsigned char want[8], got[16];
            char *host = gpt_malloc((n + 3) * es), *buf;
            gpt_fill_random(d, host, n + 3, 0);
            buf = gpt_buffer_from(ctx, host, (n + 3) * es);
            for (off = 0; off < 4; off++) {
                const char *x = host + off * es;
                if (d == GP_FLOAT32) {
                    float r = tree_sum_f32((const float *)x, n);
                    memcpy(want, &r, 4);
                } else {
                    double r = tree_sum_f64((const double *)x, n);
                    memcpy(want, &r, 8);
                }
                gpt_poison(got, sizeof got);
                GPT_OK(ctx, gp_reduce(ctx, d, GP_OP_SUM, buf + off * es, n, got));
                if (memcmp(got, want, es) != 0)
                    fail_msg("float sum (%s, n=%zu, offset %zu elements) [%s]: bits differ from the documented tree",
                             gpt_dtype_name(d), n, off, gpt_backend_name(ctx));
                gpt_expect_poison(got, es, sizeof got, "float sum result");
            }
            gpt_buffer_free(ctx, buf);
            free(host);
        }
}

/* 2^24 copies of 0.1f: the tree keeps the partial sums small, so the result
 * is near 2^24 * 0.1 = 1677721.6 (the tree's bits exactly), where one
 * left-to-right float loop stalls far off (adding 0.1f to a sum past 2^21
 * rounds by a large fraction of it). */
static void reduce_float_sum_of_tenths(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t n = (size_t)1 << 24;
    float *host = gpt_malloc(n * sizeof *host), got = 0.0f, want, sequential = 0.0f;
    void *in;
    size_t i;
    for (i = 0; i < n; i++) host[i] = 0.1f;
    for (i = 0; i < n; i++) sequential = sequential + host[i];
    want = tree_sum_f32(host, n);
    assert_true(fabs((double)want - 1677721.6) < 0.5);
    assert_true(fabs((double)sequential - 1677721.6) > 100000.0); /* the order matters here */
    in = gpt_buffer_from(ctx, host, n * sizeof *host);
    GPT_OK(ctx, gp_reduce(ctx, GP_FLOAT32, GP_OP_SUM, in, n, &got));
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("sum of 2^24 x 0.1f [%s]: got %.9g want the tree's %.9g (left to right: %.9g)",
                 gpt_backend_name(ctx), (double)got, (double)want, (double)sequential);
    gpt_buffer_free(ctx, in);
    free(host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        cmocka_unit_test(reference_known_values),
        GPT_TEST_BOTH(reduce_matches_reference),
        GPT_TEST_BOTH(reduce_integer_sums_wrap),
        GPT_TEST_BOTH(reduce_float_sum_real_values),
        GPT_TEST_BOTH(reduce_float_sum_tree_and_alignment),
        GPT_TEST_BOTH(reduce_float_sum_of_tenths),
        GPT_TEST_BOTH(reduce_empty_gives_identity),
        GPT_TEST_BOTH(reduce_bad_arguments),
        GPT_TEST_BOTH(reduce_deterministic),
    };
    return cmocka_run_group_tests_name("reduce", tests, NULL, NULL);
}
