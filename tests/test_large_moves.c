/* SPDX-License-Identifier: BSD-3-Clause */
/* test_large_moves.c - sizes past 2^31 (and past 2^32 where only a count or
 * an index has to pass it) for the newer families, part two: partition
 * (more than 2^31 selected), gather and scatter (indices past 2^31, and the
 * index check naming a position past 2^31), sorted search (a haystack and
 * answers past 2^32), merge (2^31 + 17 out) and top-k (the chosen keys
 * past 2^31), on the CUDA backend (test_large_families.c has part one).
 *
 * As test_large: only with GP_TEST_LARGE=1, alone on a GPU,
 *     GP_TEST_LARGE=1 GP_TEST_REQUIRE_GPU=1 build-gpu/tests/test_large_moves
 * a case without enough free device memory is skipped, saying so. Inputs
 * have answers in closed form, outputs are poisoned first and every output
 * element is checked in one streaming pass (large_fixture.h has the
 * knobs). */
#include "large_fixture.h"

#include <gpuprim/permute.h>
#include <gpuprim/search.h>

/* ---- partition --------------------------------------------------------------------
 * np = n + n/4 iota values; flag (i % 8) ^ 3, zero only where i % 8 == 3:
 * 7 in 8 selected, more than 2^31. */
static void gen_part_flags(void *chunk, size_t first, size_t count, const void *arg)
{
    uint8_t *c = (uint8_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = (uint8_t)(((first + k) & 7) ^ 3);
}

static void partition_past_2_31(void **state)
{
    const size_t n = large_n(), np = n + n / 4, want_sel = np - (np + 4) / 8;
    gp_context *ctx = large_ctx(state, "partition, uint32 values, uint8 flags", 9 * np);
    void *h = host_alloc(CHUNK * 4);
    void *d_in, *d_flags, *d_out;
    size_t sel = 0, j;
    mismatch m = {0};
    reader rd;
    double t0;

    d_in = make_input(ctx, gen_iota32, NULL, np, 4, h);
    d_flags = dev_alloc(ctx, np);
    fill_periodic(ctx, d_flags, gen_part_flags, NULL, np, 1, h);
    d_out = dev_alloc(ctx, np * 4);
    dev_poison(ctx, d_out, np * 4, h);
    t0 = now_s();
    GPT_OK(ctx, gp_partition(ctx, GP_UINT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, np, &sel));
    print_message("  gp_partition of %zu: %.1f ms, %zu selected (want %zu; 2^31 = %zu)\n", np, timed(ctx, t0), sel,
                  want_sel, B31);
    assert_int_equal(sel, want_sel);
    rd = reader_of(ctx, d_out, np, 4, h);
    for (j = 0; j < np; j++) {
        const size_t q = j % 7;
        /* selected: the j-th i with i % 8 != 3; the rest: 8r + 3 */
        const uint32_t got = read_u32(&rd, j),
                       want = j < sel ? (uint32_t)(j / 7 * 8 + (q >= 3 ? q + 1 : q)) : (uint32_t)(8 * (j - sel) + 3);
        if (got != want) note_bad(&m, j, got, want);
    }
    expect_none(&m, "partition outputs", np);
}

/* ---- gather and scatter -------------------------------------------------------------
 * indices[i] = i * M mod n, M a small prime not dividing n: a permutation
 * that sends the indices on both sides of 2^31 across it. */
typedef struct perm {
    uint64_t n, M;
} perm;

static void gen_perm(void *chunk, size_t first, size_t count, const void *arg)
{
    const perm *p = (const perm *)arg;
    uint64_t *c = (uint64_t *)chunk, v = first % p->n * p->M % p->n;
    size_t k;
    for (k = 0; k < count; k++) {
        c[k] = v;
        v += p->M;
        if (v >= p->n) v -= p->n;
    }
}

/* Every element of a uint32 device array equal to want(i) = i * mul mod n
 * (mul 1: iota). */
static void check_perm32(gp_context *ctx, void *h, const void *d, const perm *p, uint64_t mul, const char *what)
{
    mismatch m = {0};
    reader rd = reader_of(ctx, d, p->n, 4, h);
    size_t i;
    uint64_t v = 0;
    for (i = 0; i < p->n; i++) {
        const uint32_t got = read_u32(&rd, i);
        if (got != (uint32_t)v) note_bad(&m, i, got, v);
        v += mul;
        if (v >= p->n) v -= p->n;
    }
    expect_none(&m, what, p->n);
}

static void expect_poison_at(gp_context *ctx, void *h, const void *d, size_t first, size_t count, const char *what)
{
    const uint32_t *out = fetch(ctx, h, d, 4, first, count);
    size_t k;
    for (k = 0; k < count; k++)
        if (out[k] != POISON32) fail_msg("%s: element %zu written by a call that failed", what, first + k);
}

static void gather_scatter_past_2_31(void **state)
{
    const size_t n = large_n(), b = boundary(n);
    gp_context *ctx = large_ctx(state, "gather / scatter, 4-byte elements, uint64 indices", 16 * n);
    void *h = host_alloc(CHUNK * 8);
    static const uint64_t primes[] = {3, 5, 7, 11, 13, 17, 19, 23, 29}; /* their product passes 2^32 */
    perm p = {n, 0};
    void *d_in, *d_idx, *d_out;
    uint64_t bad = B32 + 5, good;
    char want_msg[64];
    double t0;
    size_t k;

    for (k = 0; n % primes[k] == 0; k++) {
    }
    p.M = primes[k]; /* the first that does not divide n: i -> i * M mod n is a permutation */
    gen_perm(&good, b + 3, 1, &p); /* indices[b + 3] */
    d_in = make_input(ctx, gen_iota32, NULL, n, 4, h);
    d_idx = make_input(ctx, gen_perm, &p, n, 8, h);
    d_out = dev_alloc(ctx, n * 4);

    dev_poison(ctx, d_out, n * 4, h);
    t0 = now_s();
    GPT_OK(ctx, gp_gather(ctx, 4, d_in, n, d_idx, d_out, n, GP_INDEX_SKIP));
    print_message("  gp_gather (indices i * %llu mod n): %.1f ms\n", (unsigned long long)p.M, timed(ctx, t0));
    check_perm32(ctx, h, d_out, &p, p.M, "gathered elements");

    /* one index past 2^32 (5 if cut to 32 bits) at position b + 3: the
     * checked calls refuse it, name the position and write nothing */
    GPT_OK(ctx, gp_upload(ctx, (uint64_t *)d_idx + b + 3, &bad, 8));
    snprintf(want_msg, sizeof want_msg, "indices[%zu]", b + 3);
    dev_poison(ctx, d_out, n * 4, h);
    assert_int_equal(gp_gather(ctx, 4, d_in, n, d_idx, d_out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    print_message("  gp_gather, checked, one bad index: [%s]\n", gp_context_last_error(ctx));
    assert_non_null(strstr(gp_context_last_error(ctx), want_msg));
    assert_int_equal(gp_scatter(ctx, 4, d_in, d_idx, n, d_out, n, GP_INDEX_CHECK), GP_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(gp_context_last_error(ctx), want_msg));
    expect_poison_at(ctx, h, d_out, 0, CHUNK < n ? CHUNK : n, "checked gather/scatter");
    expect_poison_at(ctx, h, d_out, b - 1024, n - (b - 1024) < 4096 ? n - (b - 1024) : 4096, "checked gather/scatter");
    GPT_OK(ctx, gp_upload(ctx, (uint64_t *)d_idx + b + 3, &good, 8));

    /* scatter (checked, valid now), then gather back: the identity */
    t0 = now_s();
    GPT_OK(ctx, gp_scatter(ctx, 4, d_in, d_idx, n, d_out, n, GP_INDEX_CHECK));
    print_message("  gp_scatter (checked): %.1f ms\n", timed(ctx, t0));
    {
        uint32_t at = 0;
        GPT_OK(ctx, gp_download(ctx, &at, (uint32_t *)d_out + good, 4));
        assert_int_equal(at, b + 3); /* out[indices[b + 3]] = in[b + 3] */
    }
    dev_poison(ctx, d_in, n * 4, h);
    GPT_OK(ctx, gp_gather(ctx, 4, d_out, n, d_idx, d_in, n, GP_INDEX_SKIP));
    check_perm32(ctx, h, d_in, &p, 1, "scattered then gathered elements");
}

/* ---- sorted search past 2^32 -------------------------------------------------------
 * Haystack: ns = 2n keys i / 2 (each key twice), so lower_bound(v) =
 * min(2v, ns) and upper_bound(v) = min(2v + 2, ns). */
static void gen_half(void *chunk, size_t first, size_t count, const void *arg)
{
    uint32_t *c = (uint32_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = (uint32_t)((first + k) >> 1);
}

static void search_past_2_32(void **state)
{
    const size_t n = large_n(), ns = 2 * n, m = ((size_t)1 << 22) + 3, b2 = ns > B32 + 16 ? B32 : ns / 2;
    const uint32_t kmax = (uint32_t)((ns - 1) >> 1);
    gp_context *ctx = large_ctx(state, "lower_bound / upper_bound, uint32 keys, 2n of them", ns * 4 + m * 12);
    void *h = host_alloc(CHUNK * 4);
    uint32_t *needles = host_alloc(m * 4);
    uint64_t *pos = host_alloc(m * 8);
    void *d_keys, *d_needles, *d_pos;
    size_t j;
    int upper;

    for (j = 0; j < m; j++) needles[j] = (uint32_t)((j * 2654435761ull) % ((uint64_t)kmax + 3));
    needles[0] = 0, needles[1] = kmax, needles[2] = kmax + 1, needles[3] = UINT32_MAX;
    needles[4] = (uint32_t)(b2 / 2), needles[5] = (uint32_t)(b2 / 2 - 1); /* answers 2^32 and 2^32 - 2 */
    d_keys = make_input(ctx, gen_half, NULL, ns, 4, h);
    d_needles = dev_alloc(ctx, m * 4);
    GPT_OK(ctx, gp_upload(ctx, d_needles, needles, m * 4));
    d_pos = dev_alloc(ctx, m * 8);
    for (upper = 0; upper < 2; upper++) {
        mismatch bad = {0};
        double t0;
        dev_poison(ctx, d_pos, m * 8, h);
        t0 = now_s();
        if (upper) GPT_OK(ctx, gp_upper_bound(ctx, GP_UINT32, GP_SORT_ASCENDING, d_keys, ns, d_needles, m, d_pos));
        else GPT_OK(ctx, gp_lower_bound(ctx, GP_UINT32, GP_SORT_ASCENDING, d_keys, ns, d_needles, m, d_pos));
        print_message("  gp_%s_bound, %zu needles in %zu keys: %.1f ms\n", upper ? "upper" : "lower", m, ns,
                      timed(ctx, t0));
        GPT_OK(ctx, gp_download(ctx, pos, d_pos, m * 8));
        for (j = 0; j < m; j++) {
            uint64_t want = 2 * (uint64_t)needles[j] + (upper ? 2 : 0);
            if (want > ns) want = ns;
            if (pos[j] != want) note_bad(&bad, j, pos[j], want);
        }
        expect_none(&bad, upper ? "upper bounds" : "lower bounds", m);
    }
    print_message("  upper bound of %u: %llu (past 2^32 at full size)\n", needles[4], (unsigned long long)pos[4]);
    assert_true(pos[4] == 2 * (b2 / 2) + 2);
}

/* ---- merge -------------------------------------------------------------------------------
 * Keys: evens and odds merge into 0, 1, ..., n - 1. Pairs: iota keys of
 * both sides, values evens (a) and odds (b): stable, so keys t / 2 and
 * values t. */
static void gen_evens(void *chunk, size_t first, size_t count, const void *arg)
{
    uint32_t *c = (uint32_t *)chunk;
    size_t k;
    for (k = 0; k < count; k++) c[k] = (uint32_t)(2 * (first + k) + (arg ? 1 : 0));
}

static void merge_past_2_31(void **state)
{
    const size_t n = large_n(), na = (n + 1) / 2, nb = n / 2;
    gp_context *ctx = large_ctx(state, "merge keys / pairs, uint32", 4 * (2 * na + nb + 2 * n));
    void *h[2] = {host_alloc(CHUNK * 4), host_alloc(CHUNK * 4)};
    void *d_ev, *d_od, *d_io, *d_ko, *d_vo;
    mismatch mk = {0}, mv = {0};
    reader rk, rv;
    size_t t;
    int one = 1;
    double t0;

    d_ev = make_input(ctx, gen_evens, NULL, na, 4, h[0]);
    d_od = make_input(ctx, gen_evens, &one, nb, 4, h[0]);
    d_io = make_input(ctx, gen_iota32, NULL, na, 4, h[0]);
    d_ko = dev_alloc(ctx, n * 4);
    d_vo = dev_alloc(ctx, n * 4);

    dev_poison(ctx, d_ko, n * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_merge_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, d_ev, na, d_od, nb, d_ko));
    print_message("  gp_merge_keys, %zu + %zu: %.1f ms\n", na, nb, timed(ctx, t0));
    rk = reader_of(ctx, d_ko, n, 4, h[0]);
    for (t = 0; t < n; t++) {
        const uint32_t ko = read_u32(&rk, t);
        if (ko != (uint32_t)t) note_bad(&mk, t, ko, t);
    }
    expect_none(&mk, "merged keys", n);

    dev_poison(ctx, d_ko, n * 4, h[0]);
    dev_poison(ctx, d_vo, n * 4, h[0]);
    t0 = now_s();
    GPT_OK(ctx, gp_merge_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, d_io, d_ev, na, d_io, d_od, nb, 4, d_ko, d_vo));
    print_message("  gp_merge_pairs, %zu + %zu: %.1f ms\n", na, nb, timed(ctx, t0));
    rk = reader_of(ctx, d_ko, n, 4, h[0]);
    rv = reader_of(ctx, d_vo, n, 4, h[1]);
    for (t = 0; t < n; t++) {
        const uint32_t ko = read_u32(&rk, t), vo = read_u32(&rv, t);
        if (ko != (uint32_t)(t / 2)) note_bad(&mk, t, ko, t / 2);
        if (vo != (uint32_t)t) note_bad(&mv, t, vo, t);
    }
    expect_none(&mk, "merged pair keys", n);
    expect_none(&mv, "merged pair values", n);
}

/* ---- top-k ----------------------------------------------------------------------------
 * Keys 10^9 + i % 65536, with planted ones: for the smallest, 300 keys
 * 10 + t/2 at b + 3 + 101t (in tied pairs), 10 at 7 (tied with b + 3, which
 * it precedes) and 5 at n - 1; for the largest, 200 keys 0xFFFFFF00 + t/3
 * at b + 40011 + 97t, 0xFFFFFF42 at 9 and 0xFFFFFFFF at n - 2. The answer:
 * the planted keys in order, then the periodic keys by value (ascending or
 * descending), each value's positions ascending. */
#define TOPK_BASE 1000000000u
#define N_ASC 302
#define N_DESC 202

typedef struct keyed {
    uint32_t key;
    uint64_t pos;
} keyed;

typedef struct topk_plant {
    keyed asc[N_ASC], desc[N_DESC];
    uint64_t at[N_ASC + N_DESC]; /* every planted position, sorted */
} topk_plant;

static void gen_topk_base(void *chunk, size_t first, size_t count, const void *arg)
{
    uint32_t *c = (uint32_t *)chunk;
    size_t k;
    (void)arg;
    for (k = 0; k < count; k++) c[k] = TOPK_BASE + (uint32_t)((first + k) & 0xFFFF);
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_asc(const void *x, const void *y)
{
    const keyed *a = (const keyed *)x, *b = (const keyed *)y;
    return a->key != b->key ? (a->key < b->key ? -1 : 1) : cmp_u64(&a->pos, &b->pos);
}

static int cmp_desc(const void *x, const void *y)
{
    const keyed *a = (const keyed *)x, *b = (const keyed *)y;
    return a->key != b->key ? (a->key > b->key ? -1 : 1) : cmp_u64(&a->pos, &b->pos);
}

static void topk_plant_make(topk_plant *P, size_t n)
{
    const size_t b = boundary(n);
    size_t t;
    for (t = 0; t < 300; t++) P->asc[t] = (keyed){10 + (uint32_t)t / 2, b + 3 + 101 * t};
    P->asc[300] = (keyed){10, 7};
    P->asc[301] = (keyed){5, n - 1};
    for (t = 0; t < 200; t++) P->desc[t] = (keyed){0xFFFFFF00u + (uint32_t)t / 3, b + 40011 + 97 * t};
    P->desc[200] = (keyed){0xFFFFFF42u, 9};
    P->desc[201] = (keyed){0xFFFFFFFFu, n - 2};
    for (t = 0; t < N_ASC; t++) P->at[t] = P->asc[t].pos;
    for (t = 0; t < N_DESC; t++) P->at[N_ASC + t] = P->desc[t].pos;
    qsort(P->asc, N_ASC, sizeof(keyed), cmp_asc);
    qsort(P->desc, N_DESC, sizeof(keyed), cmp_desc);
    qsort(P->at, N_ASC + N_DESC, 8, cmp_u64);
    for (t = 1; t < N_ASC + N_DESC; t++) assert_true(P->at[t - 1] < P->at[t]);
    assert_true(P->at[N_ASC + N_DESC - 1] < n); /* every planted key inside the keys */
}

/* The first k keys of the answer and their positions. */
static void topk_expected(const topk_plant *P, int desc, size_t n, size_t k, uint32_t *key, uint64_t *pos)
{
    const keyed *pl = desc ? P->desc : P->asc;
    const size_t np = desc ? N_DESC : N_ASC;
    size_t j, r;
    for (j = 0; j < k && j < np; j++) key[j] = pl[j].key, pos[j] = pl[j].pos;
    for (r = 0; j < k && r < 65536; r++) {
        const uint64_t res = desc ? 65535 - r : r;
        uint64_t p;
        for (p = res; j < k && p < n; p += 65536)
            if (!bsearch(&p, P->at, N_ASC + N_DESC, 8, cmp_u64)) key[j] = TOPK_BASE + (uint32_t)res, pos[j++] = p;
    }
    assert_int_equal(j, k);
}

static void top_k_past_2_31(void **state)
{
    /* n/64 past the other cases' n: room past b for the planted keys */
    const size_t n = large_n() + large_n() / 64, kbig = ((size_t)1 << 22) + 5 < n / 2 ? ((size_t)1 << 22) + 5 : n / 2;
    /* keys; the outputs; about 1 GB of workspace at most (candidates, k pairs, their sort) */
    gp_context *ctx = large_ctx(state, "top_k, uint32 keys", n * 4 + kbig * 12 + ((size_t)1 << 30));
    const struct {
        gp_sort_order order;
        size_t k, value_size;
    } calls[] = {{GP_SORT_ASCENDING, 1000, 8},
                 {GP_SORT_ASCENDING, kbig, 8},
                 {GP_SORT_DESCENDING, 777, 4},
                 {GP_SORT_DESCENDING, ((size_t)1 << 21) + 3, 0}};
    uint32_t *want_key = host_alloc(kbig * 4), *got_key = host_alloc(kbig * 4);
    uint64_t *want_pos = host_alloc(kbig * 8), *got_pos = host_alloc(kbig * 8);
    void *chunk = host_alloc(CHUNK * 4);
    void *d_keys = dev_alloc(ctx, n * 4), *d_kout = dev_alloc(ctx, kbig * 4), *d_vout = dev_alloc(ctx, kbig * 8);
    topk_plant P;
    size_t c, j;

    fill_periodic(ctx, d_keys, gen_topk_base, NULL, n, 4, chunk);
    topk_plant_make(&P, n);
    for (j = 0; j < N_ASC; j++) put_u32(ctx, d_keys, P.asc[j].pos, P.asc[j].key);
    for (j = 0; j < N_DESC; j++) put_u32(ctx, d_keys, P.desc[j].pos, P.desc[j].key);
    for (c = 0; c < COUNT(calls); c++) {
        const size_t k = calls[c].k < kbig ? calls[c].k : kbig, vs = calls[c].value_size; /* room for kbig */
        const int desc = calls[c].order == GP_SORT_DESCENDING;
        mismatch mk = {0}, mp = {0};
        double t0;
        dev_poison(ctx, d_kout, kbig * 4, chunk);
        dev_poison(ctx, d_vout, kbig * 8, chunk);
        t0 = now_s();
        GPT_OK(ctx, gp_top_k(ctx, GP_UINT32, calls[c].order, d_keys, n, k, d_kout, vs, NULL, vs ? d_vout : NULL));
        print_message("  gp_top_k (%s, k = %zu, positions of %zu bytes): %.1f ms\n", desc ? "largest" : "smallest", k,
                      vs, timed(ctx, t0));
        topk_expected(&P, desc, n, k, want_key, want_pos);
        GPT_OK(ctx, gp_download(ctx, got_key, d_kout, kbig * 4));
        for (j = 0; j < k; j++)
            if (got_key[j] != want_key[j]) note_bad(&mk, j, got_key[j], want_key[j]);
        for (j = k; j < kbig; j++) /* nothing past k */
            if (got_key[j] != POISON32) fail_msg("gp_top_k: keys_out[%zu] written past k = %zu", j, k);
        expect_none(&mk, "top-k keys", k);
        if (vs == 8) GPT_OK(ctx, gp_download(ctx, got_pos, d_vout, k * 8));
        if (vs == 4) { /* uint32 positions, through got_key (its keys are checked) */
            GPT_OK(ctx, gp_download(ctx, got_key, d_vout, k * 4));
            for (j = 0; j < k; j++) got_pos[j] = got_key[j];
        }
        for (j = 0; vs && j < k; j++)
            if (got_pos[j] != want_pos[j]) note_bad(&mp, j, got_pos[j], want_pos[j]);
        if (vs) expect_none(&mp, "top-k positions", k);
    }
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_LARGE(partition_past_2_31),
        GPT_TEST_LARGE(gather_scatter_past_2_31),
        GPT_TEST_LARGE(search_past_2_32),
        GPT_TEST_LARGE(merge_past_2_31),
        GPT_TEST_LARGE(top_k_past_2_31),
    };
    return cmocka_run_group_tests_name("large moves", tests, NULL, NULL);
}
