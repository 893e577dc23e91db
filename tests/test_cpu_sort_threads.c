/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cpu_sort_threads.c - the CPU sort on 1, 2, 3 and 8 threads against a
 * plain stable merge sort written here, for every key dtype, both orders,
 * bit ranges, keys only and pairs (given values and indices), in place and
 * out of place, on awkward sizes (around the insertion-sort cut, the point
 * where threads start, odd large ones) and shapes: all equal, all distinct,
 * skewed, already descending, few varying bits far apart, float specials
 * (-0.0, +-inf, NaNs of both signs with payloads, denormals). Outputs are
 * poisoned first. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int thread_counts[] = {1, 2, 3, 8};
static const size_t sizes[] = {0, 1, 31, 32, 33, 64, 65, 4095, 4097, 131073, 1000003};
static const gp_dtype dtypes[] = {GP_UINT32, GP_INT32, GP_FLOAT32, GP_UINT64, GP_INT64, GP_FLOAT64};
enum { kShapes = 6 };
static const char *const shape_names[kShapes] = {"equal", "distinct", "skewed", "descending", "sparse bits",
                                                 "float specials"};

/* ---- the reference ----------------------------------------------------------- */

/* The order image of gpuprim.h, written out again from its definition. */
static uint64_t image(gp_dtype d, uint64_t k)
{
    switch (d) {
    case GP_UINT32: case GP_UINT64: return k;
    case GP_INT32: return k ^ 0x80000000u;
    case GP_INT64: return k ^ 0x8000000000000000ull;
    case GP_FLOAT32: {
        uint32_t b = (uint32_t)k;
        b = (b >> 31) ? ~b : (b | 0x80000000u);
        return (uint32_t)(b - ((1u << 23) - 1));
    }
    default: {
        uint64_t b = k;
        b = (b >> 63) ? ~b : (b | 0x8000000000000000ull);
        return b - ((1ull << 52) - 1);
    }
    }
}

static uint64_t load(size_t ks, const void *p, size_t i)
{
    return ks == 4 ? ((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
}

/* Stable merge sort of positions by sort key (a copy, descending: flipped). */
static void merge_sort(size_t *idx, size_t *tmp, const uint64_t *sk, size_t n)
{
    size_t width, lo;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n; lo += 2 * width) {
            const size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) tmp[o++] = sk[idx[b]] < sk[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

/* idx: the positions of the keys in stable sorted order. */
static void reference(gp_dtype d, gp_sort_order order, const void *keys, size_t n, int begin, int end, size_t *idx)
{
    const size_t ks = gp_dtype_size(d);
    const uint64_t mask = end - begin == 64 ? ~0ull : ((1ull << (end - begin)) - 1) << begin;
    uint64_t *sk = gpt_malloc(n * 8 + 8);
    size_t *tmp = gpt_malloc(n * sizeof *tmp + 8), i;
    for (i = 0; i < n; i++) {
        sk[i] = image(d, load(ks, keys, i)) & mask;
        if (order == GP_SORT_DESCENDING) sk[i] = ~sk[i];
        idx[i] = i;
    }
    merge_sort(idx, tmp, sk, n);
    free(sk);
    free(tmp);
}

/* ---- inputs -------------------------------------------------------------------- */

static uint64_t float_special(size_t ks, uint64_t r)
{
    static const uint32_t f[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                 0x7f800001u, 0xff800123u, 0x00000001u, 0x80000001u, 0x3f800000u, 0xbf800000u};
    static const uint64_t g[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                 0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                 0xfff0000000000abcull, 1, 0x8000000000000001ull, 0x3ff0000000000000ull,
                                 0xbff0000000000000ull};
    if (r % 3 == 0) return ks == 4 ? (uint32_t)(r >> 32) : r * 0x9e3779b97f4a7c15ull; /* any bits */
    return ks == 4 ? f[(r >> 8) % COUNT(f)] : g[(r >> 8) % COUNT(g)];
}

static void make_keys(gp_dtype d, int shape, void *keys, size_t n)
{
    const size_t ks = gp_dtype_size(d);
    const uint64_t one = gpt_rand64(), two = gpt_rand64();
    size_t i;
    for (i = 0; i < n; i++) {
        const uint64_t r = gpt_rand64();
        uint64_t k;
        switch (shape) {
        case 0: k = one; break;
        case 1: k = (uint64_t)i * 0x9e3779b97f4a7c15ull + one; break; /* distinct: a bijection of i */
        case 2: k = r % 8 < 5 ? one : r % 8 < 7 ? two : r; break;
        case 3: /* descending numbers */
            if (d == GP_FLOAT32) {
                float f = (float)(n / 2.0 - (double)i);
                uint32_t b;
                memcpy(&b, &f, 4);
                k = b;
            } else if (d == GP_FLOAT64) {
                double f = n / 2.0 - (double)i;
                memcpy(&k, &f, 8);
            } else {
                k = (uint64_t)(n / 2) - (uint64_t)i;
            }
            break;
        case 4: k = r & (ks == 4 ? 0x80020008ull : 0x8000400002000008ull); break;
        default: k = float_special(ks, r); break;
        }
        if (ks == 4) ((uint32_t *)keys)[i] = (uint32_t)k;
        else ((uint64_t *)keys)[i] = k;
    }
}

/* ---- one configuration on every thread count --------------------------------- */

typedef struct {
    gp_dtype d;
    int shape;
    gp_sort_order order;
    int begin, end;
    size_t n;
} config;

static void describe(const config *c, int threads, const char *mode, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s n=%zu %s bits [%d,%d) %d threads %s", gpt_dtype_name(c->d), shape_names[c->shape], c->n,
             c->order == GP_SORT_ASCENDING ? "asc" : "desc", c->begin, c->end, threads, mode);
}

static void expect_keys(const config *c, const void *keys, const size_t *idx, const void *got, int t,
                        const char *mode)
{
    const size_t ks = gp_dtype_size(c->d);
    size_t i;
    for (i = 0; i < c->n; i++)
        if (load(ks, got, i) != load(ks, keys, idx[i])) {
            char what[200];
            describe(c, t, mode, what, sizeof what);
            fail_msg("%s: key %zu is %#llx, want %#llx (input %zu)", what, i, (unsigned long long)load(ks, got, i),
                     (unsigned long long)load(ks, keys, idx[i]), idx[i]);
        }
}

static void expect_values(const config *c, const void *values, size_t vs, const size_t *idx, const void *got, int t,
                          const char *mode)
{
    size_t i;
    for (i = 0; i < c->n; i++) {
        const uint64_t want = values ? load(vs, values, idx[i]) : (uint64_t)idx[i];
        if (load(vs, got, i) != want) {
            char what[200];
            describe(c, t, mode, what, sizeof what);
            fail_msg("%s: value %zu is %#llx, want %#llx", what, i, (unsigned long long)load(vs, got, i),
                     (unsigned long long)want);
        }
    }
}

static void run_config(gp_context *ctx, const config *c, const void *keys, const uint64_t *values)
{
    const size_t n = c->n, ks = gp_dtype_size(c->d), kb = n * ks;
    size_t *idx = gpt_malloc(n * sizeof *idx + 8), ti;
    unsigned char *ko = gpt_malloc(kb + 8);
    uint64_t *vo = gpt_malloc(n * 8 + 8);
    uint32_t *vi = gpt_malloc(n * 4 + 8), *vo4 = gpt_malloc(n * 4 + 8);
    size_t i;
    for (i = 0; i < n; i++) vi[i] = (uint32_t)values[i];
    reference(c->d, c->order, keys, n, c->begin, c->end, idx);
    for (ti = 0; ti < COUNT(thread_counts); ti++) {
        const int t = thread_counts[ti];
        GPT_OK(ctx, gp_context_set_cpu_threads(ctx, t));
        /* keys only, out of place */
        gpt_poison(ko, kb + 8);
        GPT_OK(ctx, gp_sort_keys(ctx, c->d, c->order, keys, ko, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "keys");
        gpt_expect_poison(ko, kb, kb + 8, "gp_sort_keys past n");
        /* keys only, in place */
        memcpy(ko, keys, kb);
        GPT_OK(ctx, gp_sort_keys(ctx, c->d, c->order, ko, ko, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "keys in place");
        /* pairs, 8-byte values, out of place */
        gpt_poison(ko, kb);
        gpt_poison(vo, n * 8 + 8);
        GPT_OK(ctx, gp_sort_pairs(ctx, c->d, c->order, keys, ko, 8, values, vo, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "pairs8");
        expect_values(c, values, 8, idx, vo, t, "pairs8");
        gpt_expect_poison(vo, n * 8, n * 8 + 8, "gp_sort_pairs values past n");
        /* pairs, 4-byte values, in place (keys and values) */
        memcpy(ko, keys, kb);
        memcpy(vo4, vi, n * 4);
        GPT_OK(ctx, gp_sort_pairs(ctx, c->d, c->order, ko, ko, 4, vo4, vo4, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "pairs4 in place");
        expect_values(c, vi, 4, idx, vo4, t, "pairs4 in place");
        /* indices: uint32 with keys in place, uint64 out of place */
        memcpy(ko, keys, kb);
        gpt_poison(vo4, n * 4);
        GPT_OK(ctx, gp_sort_pairs(ctx, c->d, c->order, ko, ko, 4, NULL, vo4, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "indices4");
        expect_values(c, NULL, 4, idx, vo4, t, "indices4");
        gpt_poison(ko, kb);
        gpt_poison(vo, n * 8);
        GPT_OK(ctx, gp_sort_pairs(ctx, c->d, c->order, keys, ko, 8, NULL, vo, n, c->begin, c->end));
        expect_keys(c, keys, idx, ko, t, "indices8");
        expect_values(c, NULL, 8, idx, vo, t, "indices8");
    }
    GPT_OK(ctx, gp_context_set_cpu_threads(ctx, 0));
    free(idx);
    free(ko);
    free(vo);
    free(vi);
    free(vo4);
}

/* Bit ranges: the full one, a middle one, one bit at each end, and empty. */
static void ranges(int width, int which, int *begin, int *end)
{
    switch (which) {
    case 0: *begin = 0, *end = width; break;
    case 1: *begin = 3, *end = width - 5; break;
    case 2: *begin = 0, *end = 1; break;
    case 3: *begin = width - 1, *end = width; break;
    default: *begin = *end = width / 2; break;
    }
}

static void against_reference(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t si, di, i;
    int shape, combo = 0;
    for (si = 0; si < COUNT(sizes); si++)
        for (di = 0; di < COUNT(dtypes); di++)
            for (shape = 0; shape < kShapes; shape++) {
                const gp_dtype d = dtypes[di];
                const size_t n = sizes[si], ks = gp_dtype_size(d);
                const int width = (int)(8 * ks), large = n > 100000;
                void *keys;
                uint64_t *values;
                int o, r;
                if (shape == 5 && d != GP_FLOAT32 && d != GP_FLOAT64) continue;
                keys = gpt_malloc(n * ks + 8);
                values = gpt_malloc(n * 8 + 8);
                make_keys(d, shape, keys, n);
                for (i = 0; i < n; i++) values[i] = gpt_rand64();
                for (o = 0; o < 2; o++)
                    for (r = 0; r < 5; r++) {
                        config c;
                        /* large inputs: one order and range in turn */
                        if (large && (o != combo % 2 || r != (combo / 2) % 4)) continue;
                        c.d = d, c.shape = shape, c.n = n;
                        c.order = o ? GP_SORT_DESCENDING : GP_SORT_ASCENDING;
                        ranges(width, r, &c.begin, &c.end);
                        run_config(ctx, &c, keys, values);
                    }
                combo++;
                free(keys);
                free(values);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(against_reference),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("cpu_sort_threads", tests, NULL, NULL);
}
