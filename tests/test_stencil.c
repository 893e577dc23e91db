/* SPDX-License-Identifier: BSD-3-Clause */
/* gp_stencil_1d, gp_stencil_2d, gp_laplacian_2d: hand-computed values,
 * the CPU reference against an independent brute force, each backend
 * against the CPU reference bit for bit (the header fixes the order of the
 * arithmetic and forbids FMA) for both float types, all three boundaries and
 * awkward sizes, and every kind of bad argument with outputs untouched. */
#include "test_util.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const gp_dtype float_types[] = {GP_FLOAT32, GP_FLOAT64};
static const gp_boundary boundaries[] = {GP_BOUNDARY_PERIODIC, GP_BOUNDARY_CLAMP, GP_BOUNDARY_ZERO};

static const char *boundary_name(gp_boundary b)
{
    return b == GP_BOUNDARY_PERIODIC ? "periodic" : b == GP_BOUNDARY_CLAMP ? "clamp" : "zero";
}

static double random_weight(void) { return gpt_uniform() * 4.0 - 2.0; }

/* ---- brute force ----------------------------------------------------------
 * Written independently of lib/cpu/stencil.c: any position p is resolved
 * with modular arithmetic; the arithmetic itself is the header's. */

static int bf_index(long long p, long long n, gp_boundary b, long long *j)
{
    if (p >= 0 && p < n) {
        *j = p;
        return 1;
    }
    if (b == GP_BOUNDARY_PERIODIC) {
        *j = ((p % n) + n) % n;
        return 1;
    }
    if (b == GP_BOUNDARY_CLAMP) {
        *j = p < 0 ? 0 : n - 1;
        return 1;
    }
    return 0;
}

#define DEFINE_BRUTE(T, SUFFIX)                                                                          \
    static void bf_1d_##SUFFIX(const gp_stencil3 *w, gp_boundary b, const T *in, T *out, long long n)     \
    {                                                                                                    \
        long long i, j, d;                                                                               \
        for (i = 0; i < n; i++) {                                                                        \
            T v[3], p[3];                                                                                \
            for (d = -1; d <= 1; d++) v[d + 1] = bf_index(i + d, n, b, &j) ? in[j] : (T)0;               \
            p[0] = (T)w->left * v[0];                                                                    \
            p[1] = (T)w->center * v[1];                                                                  \
            p[2] = (T)w->right * v[2];                                                                   \
            out[i] = (T)(p[0] + p[1]) + p[2];                                                            \
        }                                                                                                \
    }                                                                                                    \
    static T bf_at_##SUFFIX(const T *in, long long rows, long long cols, gp_boundary b, long long r,      \
                            long long c)                                                                 \
    {                                                                                                    \
        long long rr, cc;                                                                                \
        if (!bf_index(r, rows, b, &rr) || !bf_index(c, cols, b, &cc)) return (T)0;                      \
        return in[rr * cols + cc];                                                                       \
    }                                                                                                    \
    static void bf_2d_##SUFFIX(const gp_stencil5 *w, gp_boundary b, const T *in, T *out, long long rows,  \
                               long long cols)                                                           \
    {                                                                                                    \
        long long r, c;                                                                                  \
        for (r = 0; r < rows; r++)                                                                       \
            for (c = 0; c < cols; c++) {                                                                 \
                T pc = (T)w->center * bf_at_##SUFFIX(in, rows, cols, b, r, c);                           \
                T pn = (T)w->north * bf_at_##SUFFIX(in, rows, cols, b, r - 1, c);                        \
                T ps = (T)w->south * bf_at_##SUFFIX(in, rows, cols, b, r + 1, c);                        \
                T pw = (T)w->west * bf_at_##SUFFIX(in, rows, cols, b, r, c - 1);                         \
                T pe = (T)w->east * bf_at_##SUFFIX(in, rows, cols, b, r, c + 1);                         \
                T s = pc + pn;                                                                           \
                s = s + ps;                                                                              \
                s = s + pw;                                                                              \
                out[r * cols + c] = s + pe;                                                              \
            }                                                                                            \
    }

DEFINE_BRUTE(float, f32)
DEFINE_BRUTE(double, f64)

/* Fail at the first element whose bits differ. */
static void compare_exact(gp_dtype dt, const void *got, const void *want, size_t n, const char *what)
{
    const size_t es = gp_dtype_size(dt);
    size_t i;
    if (memcmp(got, want, n * es) == 0) return;
    for (i = 0; i < n; i++) {
        if (memcmp((const char *)got + i * es, (const char *)want + i * es, es) == 0) continue;
        if (dt == GP_FLOAT32)
            fail_msg("%s: element %zu of %zu: got %a, want %a", what, i, n, (double)((const float *)got)[i],
                     (double)((const float *)want)[i]);
        fail_msg("%s: element %zu of %zu: got %a, want %a", what, i, n, ((const double *)got)[i],
                 ((const double *)want)[i]);
    }
}

/* ---- runners: the backend against the CPU reference ------------------------ */

static void check_1d(gp_context *ctx, gp_dtype dt, const gp_stencil3 *w, gp_boundary b, size_t n)
{
    const size_t bytes = n * gp_dtype_size(dt);
    void *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes);
    void *in, *out;
    char what[160];

    gpt_fill_random(dt, host, n, 0);
    in = gpt_buffer_from(ctx, host, bytes);
    out = gpt_poisoned_buffer(ctx, bytes);
    GPT_OK(ctx, gp_stencil_1d(ctx, dt, w, b, in, out, n));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_buffer_to(ctx, got, out, bytes);
    assert_int_equal(gpi_cpu_stencil_1d(dt, w, b, host, ref, n, 1), GP_SUCCESS);
    snprintf(what, sizeof what, "stencil_1d [%s] %s %s n=%zu", gpt_backend_name(ctx), gpt_dtype_name(dt),
             boundary_name(b), n);
    compare_exact(dt, got, ref, n, what);
    gpt_buffer_to(ctx, got, in, bytes);
    assert_memory_equal(got, host, bytes);

    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    free(host);
    free(ref);
    free(got);
}

/* laplacian != 0: call gp_laplacian_2d and compare with weights {-4,1,1,1,1}. */
static void check_2d(gp_context *ctx, gp_dtype dt, const gp_stencil5 *w, int laplacian, gp_boundary b, size_t rows,
                     size_t cols)
{
    static const gp_stencil5 lap = {-4.0, 1.0, 1.0, 1.0, 1.0};
    const size_t n = rows * cols, bytes = n * gp_dtype_size(dt);
    void *host = gpt_malloc(bytes), *ref = gpt_malloc(bytes), *got = gpt_malloc(bytes);
    void *in, *out;
    char what[160];

    gpt_fill_random(dt, host, n, 0);
    in = gpt_buffer_from(ctx, host, bytes);
    out = gpt_poisoned_buffer(ctx, bytes);
    if (laplacian) GPT_OK(ctx, gp_laplacian_2d(ctx, dt, b, in, out, rows, cols));
    else GPT_OK(ctx, gp_stencil_2d(ctx, dt, w, b, in, out, rows, cols));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_buffer_to(ctx, got, out, bytes);
    assert_int_equal(gpi_cpu_stencil_2d(dt, laplacian ? &lap : w, b, host, ref, rows, cols, 1), GP_SUCCESS);
    snprintf(what, sizeof what, "%s [%s] %s %s %zu x %zu", laplacian ? "laplacian_2d" : "stencil_2d",
             gpt_backend_name(ctx), gpt_dtype_name(dt), boundary_name(b), rows, cols);
    compare_exact(dt, got, ref, n, what);
    gpt_buffer_to(ctx, got, in, bytes);
    assert_memory_equal(got, host, bytes);

    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    free(host);
    free(ref);
    free(got);
}

/* ---- hand-computed values ---------------------------------------------------- */

static void stencil_known_values(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    /* Powers of ten as weights make each neighbour visible as a digit. */
    const gp_stencil3 w3 = {1.0, 10.0, 100.0};
    const gp_stencil5 w5 = {1.0, 10.0, 100.0, 1000.0, 10000.0};
    const float in1[4] = {1, 2, 3, 4}, in2[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3: {1 2 3; 4 5 6} */
    static const float want1[3][4] = {
        {214, 321, 432, 143}, /* periodic */
        {211, 321, 432, 443}, /* clamp */
        {210, 321, 432, 43},  /* zero */
    };
    static const float want2[3][6] = {
        {23441, 31552, 12663, 56114, 64225, 45336}, /* periodic */
        {21411, 31522, 32633, 54414, 64525, 65636}, /* clamp */
        {20401, 31502, 2603, 50014, 64025, 5036},   /* zero */
    };
    float got[6];
    void *in = gpt_buffer(ctx, sizeof in2), *out = gpt_buffer(ctx, sizeof got);
    size_t bi;

    for (bi = 0; bi < 3; bi++) {
        const gp_boundary b = boundaries[bi];
        GPT_OK(ctx, gp_upload(ctx, in, in1, sizeof in1));
        GPT_OK(ctx, gp_stencil_1d(ctx, GP_FLOAT32, &w3, b, in, out, 4));
        gpt_buffer_to(ctx, got, out, 4 * sizeof(float));
        assert_memory_equal(got, want1[bi], 4 * sizeof(float));

        /* n == 1: the periodic and clamped neighbours are the element itself. */
        got[0] = 5;
        GPT_OK(ctx, gp_upload(ctx, in, got, sizeof(float)));
        GPT_OK(ctx, gp_stencil_1d(ctx, GP_FLOAT32, &w3, b, in, out, 1));
        gpt_buffer_to(ctx, got, out, sizeof(float));
        assert_true(got[0] == (b == GP_BOUNDARY_ZERO ? 50.0f : 555.0f));

        GPT_OK(ctx, gp_upload(ctx, in, in2, sizeof in2));
        GPT_OK(ctx, gp_stencil_2d(ctx, GP_FLOAT32, &w5, b, in, out, 2, 3));
        gpt_buffer_to(ctx, got, out, sizeof got);
        assert_memory_equal(got, want2[bi], sizeof got);
    }

    /* A ZERO-boundary neighbour is a +0 that is still multiplied and added:
     * (1*(+0) + 1*(-0)) + 1*(+0) is +0, where skipping the terms gives -0. */
    {
        const gp_stencil3 ones = {1.0, 1.0, 1.0};
        const double minus_zero = -0.0;
        double r = 1.0;
        void *d_in = gpt_buffer_from(ctx, &minus_zero, sizeof minus_zero), *d_out = gpt_buffer(ctx, sizeof r);
        GPT_OK(ctx, gp_stencil_1d(ctx, GP_FLOAT64, &ones, GP_BOUNDARY_ZERO, d_in, d_out, 1));
        gpt_buffer_to(ctx, &r, d_out, sizeof r);
        assert_true(r == 0.0 && !signbit(r));
        GPT_OK(ctx, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_ZERO, d_in, d_out, 1, 1));
        gpt_buffer_to(ctx, &r, d_out, sizeof r);
        assert_true(r == 0.0 && !signbit(r));
        gpt_buffer_free(ctx, d_in);
        gpt_buffer_free(ctx, d_out);
    }

    /* The Laplacian of a linear ramp along a row is 0 inside, under CLAMP
     * the edges see one missing difference. */
    {
        const double ramp[5] = {0, 1, 2, 3, 4}, want[5] = {1, 0, 0, 0, -1};
        double r[5];
        void *d_in = gpt_buffer_from(ctx, ramp, sizeof ramp), *d_out = gpt_buffer(ctx, sizeof r);
        GPT_OK(ctx, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_CLAMP, d_in, d_out, 1, 5));
        gpt_buffer_to(ctx, r, d_out, sizeof r);
        assert_memory_equal(r, want, sizeof r);
        gpt_buffer_free(ctx, d_in);
        gpt_buffer_free(ctx, d_out);
    }
    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
}

/* ---- the reference against the brute force ---------------------------------- */

static void reference_matches_brute_force(void **state)
{
    size_t ti, bi, n, rows, cols;
    (void)state;
    gpt_seed_once();
    for (ti = 0; ti < 2; ti++)
        for (bi = 0; bi < 3; bi++) {
            const gp_dtype dt = float_types[ti];
            const gp_boundary b = boundaries[bi];
            const size_t es = gp_dtype_size(dt);
            for (n = 1; n <= 300; n += (n < 40 ? 1 : 37)) {
                gp_stencil3 w;
                void *in = gpt_malloc(n * es), *a = gpt_malloc(n * es), *c = gpt_malloc(n * es);
                w.left = random_weight();
                w.center = random_weight();
                w.right = random_weight();
                gpt_fill_random(dt, in, n, 0);
                gpt_poison(a, n * es);
                assert_int_equal(gpi_cpu_stencil_1d(dt, &w, b, in, a, n, 1), GP_SUCCESS);
                if (dt == GP_FLOAT32) bf_1d_f32(&w, b, in, c, (long long)n);
                else bf_1d_f64(&w, b, in, c, (long long)n);
                compare_exact(dt, a, c, n, "reference stencil_1d");
                free(in);
                free(a);
                free(c);
            }
            for (rows = 1; rows <= 40; rows += (rows < 8 ? 1 : 13))
                for (cols = 1; cols <= 40; cols += (cols < 8 ? 1 : 11)) {
                    gp_stencil5 w;
                    const size_t cnt = rows * cols;
                    void *in = gpt_malloc(cnt * es), *a = gpt_malloc(cnt * es), *c = gpt_malloc(cnt * es);
                    w.center = random_weight();
                    w.north = random_weight();
                    w.south = random_weight();
                    w.west = random_weight();
                    w.east = random_weight();
                    gpt_fill_random(dt, in, cnt, 0);
                    gpt_poison(a, cnt * es);
                    assert_int_equal(gpi_cpu_stencil_2d(dt, &w, b, in, a, rows, cols, 1), GP_SUCCESS);
                    if (dt == GP_FLOAT32) bf_2d_f32(&w, b, in, c, (long long)rows, (long long)cols);
                    else bf_2d_f64(&w, b, in, c, (long long)rows, (long long)cols);
                    compare_exact(dt, a, c, cnt, "reference stencil_2d");
                    free(in);
                    free(a);
                    free(c);
                }
        }
}

/* ---- the backend against the reference ---------------------------------------- */

static void stencil_1d_sizes(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t ti, bi, k;
    for (ti = 0; ti < 2; ti++)
        for (bi = 0; bi < 3; bi++) {
            const size_t *sizes = gpt_sizes();
            for (k = 0; sizes[k] != SIZE_MAX; k++) {
                gp_stencil3 w;
                w.left = random_weight();
                w.center = random_weight();
                w.right = random_weight();
                check_1d(ctx, float_types[ti], &w, boundaries[bi], sizes[k]);
            }
        }
}

static void stencil_2d_shapes(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const int quick = gpt_quick();
    const size_t shapes[][2] = {{1, 1},     {1, 1000},   {1000, 1},   {2, 2},     {2, 3},
                                {31, 33},   {32, 32},    {33, 31},    {17, 1000}, {1000, 17},
                                {63, 257},  {65, 255},   {129, 513},  {1023, 1025},
                                {1, 100003}, {100003, 1}, {quick ? 257 : 2049, quick ? 385 : 3001},
                                /* 16-byte rows: the vector kernel, its last strip partial and swept
                                   upwards (1003 = 167 * 6 + 1; 35 = 5 * 6 + 5) */
                                {1003, 1024}, {35, 64}};
    size_t ti, bi, k;
    for (ti = 0; ti < 2; ti++)
        for (bi = 0; bi < 3; bi++)
            for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                gp_stencil5 w;
                w.center = random_weight();
                w.north = random_weight();
                w.south = random_weight();
                w.west = random_weight();
                w.east = random_weight();
                check_2d(ctx, float_types[ti], &w, 0, boundaries[bi], shapes[k][0], shapes[k][1]);
                check_2d(ctx, float_types[ti], NULL, 1, boundaries[bi], shapes[k][0], shapes[k][1]);
            }
}

/* More row strips than a grid's y dimension holds (65535 x 64 rows): the
 * kernel loops over strips. */
static void stencil_2d_tall(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const size_t rows = gpt_quick() ? 70001 : 4200001;
    size_t ti, bi;
    for (ti = 0; ti < 2; ti++)
        for (bi = 0; bi < 3; bi++) {
            check_2d(ctx, float_types[ti], NULL, 1, boundaries[bi], rows, 1);
            check_2d(ctx, float_types[ti], NULL, 1, boundaries[bi], rows / 1000, 3);
        }
}

/* ---- bad arguments ----------------------------------------------------------- */

static void stencil_bad_arguments(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    const gp_stencil3 w3 = {1, -2, 1};
    const gp_stencil5 w5 = {-4, 1, 1, 1, 1};
    static const gp_dtype bad_types[] = {(gp_dtype)0, (gp_dtype)99};
    static const gp_dtype int_types[] = {GP_INT32, GP_UINT32, GP_INT64, GP_UINT64};
    static const gp_boundary bad_bounds[] = {(gp_boundary)0, (gp_boundary)99};
    const size_t n = 64, rows = 8, cols = 8, bytes = 64 * 8;
    unsigned char *host = gpt_malloc(bytes), *back = gpt_malloc(2 * bytes);
    unsigned char *in, *out, *big;
    gp_backend backend;
    size_t i, ti;

    gpt_fill_random(GP_FLOAT64, host, n, 0);
    in = gpt_buffer_from(ctx, host, bytes);
    out = gpt_poisoned_buffer(ctx, bytes);
    big = gpt_poisoned_buffer(ctx, 2 * bytes);

    /* No context. */
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(NULL, GP_FLOAT32, &w3, GP_BOUNDARY_ZERO, in, out, n));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_stencil_2d(NULL, GP_FLOAT32, &w5, GP_BOUNDARY_ZERO, in, out, rows, cols));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(NULL, GP_FLOAT32, GP_BOUNDARY_ZERO, in, out, rows, cols));

    /* Unknown dtype, integer dtypes, unknown boundary, NULL weights: also for
     * an empty grid. */
    for (i = 0; i < 2; i++) {
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, bad_types[i], &w3, GP_BOUNDARY_ZERO, in, out, n));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_1d(ctx, bad_types[i], &w3, GP_BOUNDARY_ZERO, NULL, NULL, 0));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_2d(ctx, bad_types[i], &w5, GP_BOUNDARY_ZERO, in, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_laplacian_2d(ctx, bad_types[i], GP_BOUNDARY_ZERO, in, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, &w3, bad_bounds[i], in, out, n));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_2d(ctx, GP_FLOAT64, &w5, bad_bounds[i], in, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_2d(ctx, GP_FLOAT64, &w5, bad_bounds[i], NULL, NULL, 0, 0));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(ctx, GP_FLOAT64, bad_bounds[i], in, out, rows, cols));
        assert_true(strlen(gp_context_last_error(ctx)) > 0);
    }
    for (i = 0; i < 4; i++) {
        EXPECT_STATUS(GP_ERROR_UNSUPPORTED, gp_stencil_1d(ctx, int_types[i], &w3, GP_BOUNDARY_CLAMP, in, out, n));
        EXPECT_STATUS(GP_ERROR_UNSUPPORTED,
                      gp_stencil_2d(ctx, int_types[i], &w5, GP_BOUNDARY_CLAMP, in, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_UNSUPPORTED, gp_laplacian_2d(ctx, int_types[i], GP_BOUNDARY_CLAMP, in, out, rows, cols));
    }
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, in, out, n));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, in, out, 0));
    EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                  gp_stencil_2d(ctx, GP_FLOAT32, NULL, GP_BOUNDARY_ZERO, in, out, rows, cols));

    for (ti = 0; ti < 2; ti++) {
        const gp_dtype dt = float_types[ti];
        const size_t es = gp_dtype_size(dt), cnt = bytes / es;
        /* NULL data. */
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_PERIODIC, NULL, out, n));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_PERIODIC, in, NULL, n));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_PERIODIC, NULL, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_PERIODIC, in, NULL, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(ctx, dt, GP_BOUNDARY_PERIODIC, NULL, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT, gp_laplacian_2d(ctx, dt, GP_BOUNDARY_PERIODIC, in, NULL, rows, cols));
        /* Sizes whose byte count overflows size_t. */
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_CLAMP, in, out, SIZE_MAX / 2));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW,
                      gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_CLAMP, in, out, SIZE_MAX / es + 1));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_CLAMP, in, out, SIZE_MAX / 2, 3));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_CLAMP, in, out, 3, SIZE_MAX / 2));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW,
                      gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_CLAMP, in, out, SIZE_MAX / es / 2 + 1, 2));
        EXPECT_STATUS(GP_ERROR_SIZE_OVERFLOW, gp_laplacian_2d(ctx, dt, GP_BOUNDARY_CLAMP, in, out, SIZE_MAX / 2, 3));
        assert_true(strlen(gp_context_last_error(ctx)) > 0);
        /* Out of place only. */
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_ZERO, big, big, cnt));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_ZERO, big, big + es, cnt));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_ZERO, big + bytes - es, big, cnt));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_ZERO, big, big + es, cnt / 8, 8));
        EXPECT_STATUS(GP_ERROR_OVERLAP, gp_laplacian_2d(ctx, dt, GP_BOUNDARY_ZERO, big + es, big, cnt / 8, 8));
        /* Buffers not aligned to the element size. */
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_ZERO, big + 1, big + bytes + es, cnt - 1));
        EXPECT_STATUS(GP_ERROR_INVALID_ARGUMENT,
                      gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_ZERO, big, big + bytes + 2, 2, 3));
        /* Empty grids do nothing, NULLs allowed. */
        EXPECT_STATUS(GP_SUCCESS, gp_stencil_1d(ctx, dt, &w3, GP_BOUNDARY_ZERO, NULL, NULL, 0));
        EXPECT_STATUS(GP_SUCCESS, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_ZERO, NULL, NULL, 0, cols));
        EXPECT_STATUS(GP_SUCCESS, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_ZERO, NULL, NULL, rows, 0));
        EXPECT_STATUS(GP_SUCCESS, gp_stencil_2d(ctx, dt, &w5, GP_BOUNDARY_ZERO, in, out, 0, SIZE_MAX));
        EXPECT_STATUS(GP_SUCCESS, gp_laplacian_2d(ctx, dt, GP_BOUNDARY_ZERO, NULL, NULL, 0, 0));
    }

    GPT_OK(ctx, gp_context_get_backend(ctx, &backend));
    if (backend == GP_BACKEND_CUDA) {
        /* Host memory handed to the CUDA backend. */
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY, gp_stencil_1d(ctx, GP_FLOAT64, &w3, GP_BOUNDARY_ZERO, host, out, n));
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY, gp_stencil_1d(ctx, GP_FLOAT64, &w3, GP_BOUNDARY_ZERO, in, back, n));
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY,
                      gp_stencil_2d(ctx, GP_FLOAT64, &w5, GP_BOUNDARY_ZERO, host, out, rows, cols));
        EXPECT_STATUS(GP_ERROR_WRONG_MEMORY, gp_laplacian_2d(ctx, GP_FLOAT64, GP_BOUNDARY_ZERO, in, back, rows, cols));
    }

    /* Nothing was written anywhere. */
    GPT_OK(ctx, gp_context_synchronize(ctx));
    gpt_expect_untouched(ctx, out, bytes);
    gpt_expect_untouched(ctx, big, 2 * bytes);
    gpt_buffer_to(ctx, back, in, bytes);
    assert_memory_equal(back, host, bytes);

    gpt_buffer_free(ctx, in);
    gpt_buffer_free(ctx, out);
    gpt_buffer_free(ctx, big);
    free(host);
    free(back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_brute_force),
        GPT_TEST_BOTH(stencil_known_values),
        GPT_TEST_BOTH(stencil_1d_sizes),
        GPT_TEST_BOTH(stencil_2d_shapes),
        GPT_TEST_BOTH(stencil_2d_tall),
        GPT_TEST_BOTH(stencil_bad_arguments),
    };
    return cmocka_run_group_tests_name("stencil", tests, NULL, NULL);
}
