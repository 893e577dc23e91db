/* SPDX-License-Identifier: BSD-3-Clause */
/* test_large.c - sizes past 2^31 elements (size_t indexing end to end) and
 * out-of-memory (a clean status, outputs untouched).
 *
 * The n = 2^31 + 17 cases (scan, reduce, compact, compact-indices,
 * find-repeats on the CUDA backend) need a GPU with about 40 GB free and
 * run only when GP_TEST_LARGE=1; without it they are skipped, saying so,
 * even where GP_TEST_REQUIRE_GPU=1 (with both set and no GPU they fail like
 * every GPU case). Run them on their own, not beside other GPU tests: they
 * take most of a device's memory, and the workspace case below fills it
 * completely for a moment:
 *     GP_TEST_LARGE=1 GP_TEST_REQUIRE_GPU=1 build-gpu/tests/test_large
 * Inputs are made on the host from a hash of the index (cheap and
 * deterministic), uploaded in chunks, and every output element is checked
 * against the value computed on the host in one pass (downloaded in chunks),
 * together with the totals. Host memory stays under 1 GB.
 *
 * Unlike the other large suites, a case with less free device memory than
 * it needs fails, saying how much. Knobs (large_fixture.h has the fixture):
 * GP_TEST_LARGE_N=n (any n from 64) runs the large cases at another size (a
 * smaller GPU), GP_TEST_LARGE_BACKEND=cpu runs them on the CPU backend (to
 * try the checks themselves on a machine without a GPU; the CPU backend's
 * "device" memory is then host memory).
 *
 * The out-of-memory case that asks for more than the device has is cheap
 * and runs with the other GPU cases. */
#include "large_fixture.h"

/* splitmix64's finaliser: the value of element i is a hash of i. */
static inline uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* ---- the inputs ----------------------------------------------------------------- */

static int32_t value32(size_t i) { return (int32_t)(uint32_t)(mix(i ^ 0x5ca1ab1eULL) >> 32); }
static int64_t value64(size_t i) { return (int64_t)mix(i ^ 0xfeedULL); }

/* About one in four selected, and always the first, the last and the
 * elements at the boundary. */
static uint8_t flag8(size_t i, size_t n)
{
    size_t b = boundary(n);
    if (i == 0 || i == n - 1 || i == b - 1 || i == b) return 1;
    return (mix(i ^ 0xf1a9ULL) & 3) == 0 ? (uint8_t)(1 + (i & 127)) : 0;
}

/* Values in 0..1023 (a repeat about every 1024 elements), with runs across
 * the boundary and at the very end. */
static int32_t repeat_value(size_t i, size_t n)
{
    size_t b = boundary(n);
    if (i + 2 >= b && i <= b + 1) return 7;
    if (i + 2 >= n) return 9;
    return (int32_t)(mix(i ^ 0x4e9e47ULL) & 1023);
}

typedef enum { IN_VALUE32, IN_VALUE64, IN_FLAG8, IN_REPEAT32 } input_kind;

/* Which input, of how many elements: the arg of gen_input. */
typedef struct input {
    input_kind kind;
    size_t n;
} input;

static void gen_input(void *chunk, size_t first, size_t count, const void *arg)
{
    const input *in = (const input *)arg;
    size_t k;
    switch (in->kind) {
    case IN_VALUE32:
        for (k = 0; k < count; k++) ((int32_t *)chunk)[k] = value32(first + k);
        break;
    case IN_VALUE64:
        for (k = 0; k < count; k++) ((int64_t *)chunk)[k] = value64(first + k);
        break;
    case IN_FLAG8:
        for (k = 0; k < count; k++) ((uint8_t *)chunk)[k] = flag8(first + k, in->n);
        break;
    case IN_REPEAT32:
        for (k = 0; k < count; k++) ((int32_t *)chunk)[k] = repeat_value(first + k, in->n);
        break;
    }
}

/* n of these cases: their inputs are hashes of the index, not the index,
 * so any n from 64 up. */
static size_t hashed_n(void) { return large_n_within(64, SIZE_MAX); }

/* ---- the cases ------------------------------------------------------------------ */

/* Exclusive int32 sum scan out of place (wrapping), every output checked,
 * then the int32 sum reduce of the same input. */
static void scan_and_reduce_int32_past_2_31(void **state)
{
    const size_t n = hashed_n();
    gp_context *ctx = large_ctx_or_fail(state, "scan / reduce, int32", 2 * n * 4);
    void *chunk = host_alloc(CHUNK * 8), *out_chunk = host_alloc(CHUNK * 4);
    void *d_in, *d_out;
    reader rd;
    uint32_t sum = 0;
    int32_t total = 0;
    size_t i, bad = 0, first_bad = 0;
    double t0, ms;

    print_message("  n = %zu\n", n);
    d_in = make_input(ctx, gen_input, &(input){IN_VALUE32, n}, n, 4, chunk);
    d_out = dev_alloc(ctx, n * 4);
    t0 = now_s();
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_EXCLUSIVE, d_in, d_out, n));
    ms = timed(ctx, t0);
    print_message("  gp_scan (int32 sum, exclusive): %.1f ms\n", ms);

    rd = reader_of(ctx, d_out, n, 4, out_chunk);
    t0 = now_s();
    for (i = 0; i < n; i++) {
        int32_t got = *(const int32_t *)read_at(&rd, i);
        if (got != (int32_t)sum && bad++ == 0) first_bad = i;
        sum += (uint32_t)value32(i);
    }
    print_message("  checked all %zu outputs in %.1f s: %zu wrong\n", n, now_s() - t0, bad);
    if (bad)
        fail_msg("scan: %zu of %zu outputs wrong, the first at %zu (boundary 2^31 = %zu)", bad, n, first_bad, B31);

    t0 = now_s();
    GPT_OK(ctx, gp_reduce(ctx, GP_INT32, GP_OP_SUM, d_in, n, &total));
    print_message("  gp_reduce (int32 sum): %.1f ms, %d (want %d)\n", 1e3 * (now_s() - t0), total, (int32_t)sum);
    assert_int_equal(total, (int32_t)sum);
    dev_release(d_out);
    dev_release(d_in);
}

/* int64 sum (wrapping), min and max of n int64. */
static void reduce_int64_past_2_31(void **state)
{
    const size_t n = hashed_n();
    gp_context *ctx = large_ctx_or_fail(state, "reduce, int64", n * 8);
    void *chunk = host_alloc(CHUNK * 8);
    void *d_in;
    uint64_t sum = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN, got_sum = 0, got_lo = 0, got_hi = 0;
    size_t i;
    double t0;

    print_message("  n = %zu\n", n);
    d_in = make_input(ctx, gen_input, &(input){IN_VALUE64, n}, n, 8, chunk);
    t0 = now_s();
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_SUM, d_in, n, &got_sum));
    print_message("  gp_reduce (int64 sum): %.1f ms\n", 1e3 * (now_s() - t0));
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_MIN, d_in, n, &got_lo));
    GPT_OK(ctx, gp_reduce(ctx, GP_INT64, GP_OP_MAX, d_in, n, &got_hi));
    for (i = 0; i < n; i++) {
        int64_t v = value64(i);
        sum += (uint64_t)v;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    print_message("  sum %lld (want %lld), min %lld (want %lld), max %lld (want %lld)\n", (long long)got_sum,
                  (long long)(int64_t)sum, (long long)got_lo, (long long)lo, (long long)got_hi, (long long)hi);
    assert_true(got_sum == (int64_t)sum);
    assert_true(got_lo == lo);
    assert_true(got_hi == hi);
    dev_release(d_in);
}

/* Compaction of int32 with uint8 flags, every output element checked; then
 * gp_compact_indices of the same flags (indices past 2^31 as uint64). */
static void compact_int32_past_2_31(void **state)
{
    const size_t n = hashed_n();
    gp_context *ctx = large_ctx_or_fail(state, "compact / compact_indices, int32 values, uint8 flags", 2 * n * 4 + n);
    void *chunk = host_alloc(CHUNK * 8), *out_chunk = host_alloc(CHUNK * 8);
    void *d_in, *d_flags, *d_out;
    reader rd;
    size_t count = 0, want = 0, i, bad = 0, first_bad = 0;
    double t0;

    print_message("  n = %zu\n", n);
    d_in = make_input(ctx, gen_input, &(input){IN_VALUE32, n}, n, 4, chunk);
    d_flags = make_input(ctx, gen_input, &(input){IN_FLAG8, n}, n, 1, chunk);
    d_out = dev_alloc(ctx, n * 4);
    t0 = now_s();
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, n, &count));
    print_message("  gp_compact: %.1f ms, count %zu\n", 1e3 * (now_s() - t0), count);

    rd = reader_of(ctx, d_out, count, 4, out_chunk);
    for (i = 0; i < n; i++) {
        if (!flag8(i, n)) continue;
        if (want < count && *(const int32_t *)read_at(&rd, want) != value32(i) && bad++ == 0) first_bad = want;
        want++;
    }
    print_message("  host: %zu selected; %zu output elements wrong\n", want, bad);
    assert_int_equal(count, want);
    if (bad) fail_msg("compact: %zu of %zu output elements wrong, the first at %zu", bad, count, first_bad);
    dev_release(d_out);
    dev_release(d_in);

    /* The same flags, indices only (n uint64 of room). */
    d_out = dev_alloc(ctx, n * 8);
    count = 0;
    t0 = now_s();
    GPT_OK(ctx, gp_compact_indices(ctx, d_flags, GP_UINT8_FLAGS, (uint64_t *)d_out, n, &count));
    print_message("  gp_compact_indices: %.1f ms, count %zu\n", 1e3 * (now_s() - t0), count);
    assert_int_equal(count, want);
    rd = reader_of(ctx, d_out, count, 8, out_chunk);
    want = 0;
    for (i = 0; i < n; i++) {
        if (!flag8(i, n)) continue;
        if (*(const uint64_t *)read_at(&rd, want) != (uint64_t)i && bad++ == 0) first_bad = want;
        want++;
    }
    if (bad) fail_msg("compact_indices: %zu of %zu indices wrong, the first at %zu", bad, count, first_bad);
    /* The last selected index is n - 1, past 2^31. */
    assert_true(*(const uint64_t *)read_at(&rd, count - 1) == (uint64_t)(n - 1));
    dev_release(d_out);
    dev_release(d_flags);
}

/* find-repeats over n int32 with runs across 2^31 and at the end. */
static void find_repeats_int32_past_2_31(void **state)
{
    const size_t n = hashed_n();
    gp_context *ctx = large_ctx_or_fail(state, "find_repeats, int32", n * 4 + (n - 1) * 8);
    void *chunk = host_alloc(CHUNK * 8), *out_chunk = host_alloc(CHUNK * 8);
    void *d_in, *d_out;
    reader rd;
    size_t count = 0, want = 0, i, bad = 0, first_bad = 0, b = boundary(n);
    int32_t prev;
    double t0;

    print_message("  n = %zu\n", n);
    d_in = make_input(ctx, gen_input, &(input){IN_REPEAT32, n}, n, 4, chunk);
    d_out = dev_alloc(ctx, (n - 1) * 8);
    t0 = now_s();
    GPT_OK(ctx, gp_find_repeats(ctx, GP_INT32, d_in, n, (uint64_t *)d_out, &count));
    print_message("  gp_find_repeats: %.1f ms, count %zu\n", 1e3 * (now_s() - t0), count);

    rd = reader_of(ctx, d_out, count, 8, out_chunk);
    prev = repeat_value(0, n);
    for (i = 0; i + 1 < n; i++) {
        int32_t next = repeat_value(i + 1, n);
        if (prev == next) {
            if (want < count && *(const uint64_t *)read_at(&rd, want) != (uint64_t)i && bad++ == 0) first_bad = want;
            want++;
        }
        prev = next;
    }
    print_message("  host: %zu repeats; %zu indices wrong\n", want, bad);
    assert_int_equal(count, want);
    if (bad) fail_msg("find_repeats: %zu of %zu indices wrong, the first at %zu", bad, count, first_bad);
    /* The forced runs: b-2, b-1, b (indices around 2^31) and the last pair n-2. */
    {
        size_t k, found = 0;
        for (k = count >= 8 ? count - 8 : 0; k < count; k++)
            if (*(const uint64_t *)read_at(&rd, k) == (uint64_t)(n - 2)) found = 1;
        assert_true(found);
    }
    {
        size_t lo = 0, hi = count, k, seen = 0;
        /* Binary search for the first index >= b - 2, then read on. */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (*(const uint64_t *)read_at(&rd, mid) < (uint64_t)(b - 2)) lo = mid + 1;
            else hi = mid;
        }
        for (k = lo; k < count && k < lo + 3; k++)
            if (*(const uint64_t *)read_at(&rd, k) == (uint64_t)(b - 2 + (k - lo))) seen++;
        assert_int_equal(seen, 3);
    }
    dev_release(d_out);
    dev_release(d_in);
}

/* ---- out of memory ---------------------------------------------------------------- */

static void check_small_scan(gp_context *ctx)
{
    int32_t host[1000], back[1000], sum = 0;
    void *d = NULL;
    int i;
    for (i = 0; i < 1000; i++) host[i] = i * 7 - 3000;
    GPT_OK(ctx, gp_malloc(ctx, &d, sizeof host));
    GPT_OK(ctx, gp_upload(ctx, d, host, sizeof host));
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d, d, 1000));
    GPT_OK(ctx, gp_download(ctx, back, d, sizeof back));
    GPT_OK(ctx, gp_free(ctx, d));
    for (i = 0; i < 1000; i++) {
        sum += host[i];
        assert_int_equal(back[i], sum);
    }
}

/* gp_malloc of more than the device holds: GP_ERROR_OUT_OF_MEMORY, the
 * pointer untouched, a message, no sticky CUDA error; the context then runs
 * a scan correctly. Cheap: runs with the ordinary GPU cases. */
static void malloc_beyond_the_device_is_out_of_memory(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    size_t free_b = 0, total_b = 0;
    void *p = (void *)0x1234;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) fail_msg("cudaMemGetInfo: %s", cudaGetErrorName(e));
    assert_int_equal(gp_malloc(ctx, &p, total_b + ((size_t)1 << 30)), GP_ERROR_OUT_OF_MEMORY);
    assert_ptr_equal(p, (void *)0x1234);
    assert_true(strlen(gp_context_last_error(ctx)) > 0);
    assert_int_equal(cudaPeekAtLastError(), cudaSuccess);
    check_small_scan(ctx);
    assert_string_equal(gp_context_last_error(ctx), "");
}

/* A primitive whose workspace cannot be allocated: a fresh context (empty
 * workspace cache) meets a device whose memory is all taken. The call
 * returns GP_ERROR_OUT_OF_MEMORY without touching its outputs, and once
 * memory is back the same context runs it correctly. Fills the device for
 * a moment, so it runs only with GP_TEST_LARGE=1 (alone). */
static void workspace_out_of_memory(void **state)
{
    gp_context *ctx = large_ctx_or_fail(state, "workspace out of memory (fills the device for a moment)", 0);
    gp_context *fresh = NULL;
    const size_t n = (size_t)1 << 24;
    int32_t *host = NULL, *back = NULL;
    uint8_t *flags = NULL;
    void *d_in, *d_flags, *d_out, *d_scan;
    void *hog[4096];
    size_t nhog = 0, size, count = 0, want = 0, i, hogged = 0;
    gp_status s_compact, s_scan;
    char msg_compact[256] = "", msg_scan[256] = "";
    if (!gpt_on_cuda(ctx)) {
        print_message("SKIPPED: the workspace case needs the CUDA backend\n");
        skip();
    }
    host = host_alloc(n * 4);
    back = host_alloc(n * 4);
    flags = host_alloc(n);
    gpt_fill_random(GP_INT32, host, n, 0);
    for (i = 0; i < n; i++) {
        flags[i] = (uint8_t)(gpt_rand64() & 1);
        want += flags[i];
    }
    d_in = dev_alloc(ctx, n * 4);
    d_flags = dev_alloc(ctx, n);
    d_out = dev_alloc(ctx, n * 4);
    d_scan = dev_alloc(ctx, n * 4);
    GPT_OK(ctx, gp_upload(ctx, d_in, host, n * 4));
    GPT_OK(ctx, gp_upload(ctx, d_flags, flags, n));
    /* Warm up on the fixture's context: the kernels are loaded now, not
     * when memory is gone. */
    GPT_OK(ctx, gp_compact(ctx, GP_INT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, n, &count));
    assert_int_equal(count, want);
    GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_scan, n));
    GPT_OK(ctx, gp_context_synchronize(ctx));
    GPT_OK(ctx, gp_context_create(&second_ctx, GP_BACKEND_CUDA, 0));
    fresh = second_ctx;

    /* Poison the outputs, then take every byte the device has left. */
    gpt_poison(back, n * 4);
    GPT_OK(ctx, gp_upload(ctx, d_out, back, n * 4));
    GPT_OK(ctx, gp_upload(ctx, d_scan, back, n * 4));
    for (size = (size_t)1 << 30; size >= 256 && nhog < 4096;) {
        void *p = NULL;
        if (cudaMalloc(&p, size) == cudaSuccess) {
            hog[nhog++] = p;
            hogged += size;
        } else {
            (void)cudaGetLastError();
            size /= 2;
        }
    }
    count = 12345;
    s_compact = gp_compact(fresh, GP_INT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, n, &count);
    snprintf(msg_compact, sizeof msg_compact, "%s", gp_context_last_error(fresh));
    s_scan = gp_scan(fresh, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_scan, n);
    snprintf(msg_scan, sizeof msg_scan, "%s", gp_context_last_error(fresh));
    for (i = 0; i < nhog; i++) cudaFree(hog[i]);
    print_message("  took %.2f GB in %zu blocks; gp_compact -> %s [%s]; gp_scan -> %s [%s]\n", (double)hogged / 1e9,
                  nhog, gp_status_string(s_compact), msg_compact, gp_status_string(s_scan), msg_scan);

    assert_int_equal(s_compact, GP_ERROR_OUT_OF_MEMORY);
    assert_int_equal(count, 12345); /* untouched */
    assert_true(strlen(msg_compact) > 0);
    assert_int_equal(s_scan, GP_ERROR_OUT_OF_MEMORY);
    {
        int32_t *now = host_alloc(n * 4);
        GPT_OK(ctx, gp_download(ctx, now, d_out, n * 4));
        assert_memory_equal(now, back, n * 4);
        GPT_OK(ctx, gp_download(ctx, now, d_scan, n * 4));
        assert_memory_equal(now, back, n * 4);
    }
    assert_int_equal(cudaPeekAtLastError(), cudaSuccess);

    /* Memory is back: the same fresh context works. */
    GPT_OK(fresh, gp_compact(fresh, GP_INT32, d_in, d_flags, GP_UINT8_FLAGS, d_out, n, &count));
    assert_int_equal(count, want);
    GPT_OK(fresh, gp_scan(fresh, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_scan, n));
    GPT_OK(fresh, gp_download(fresh, back, d_scan, n * 4));
    {
        int32_t sum = 0;
        for (i = 0; i < n; i++) {
            sum = (int32_t)((uint32_t)sum + (uint32_t)host[i]);
            if (back[i] != sum) fail_msg("scan after out-of-memory: element %zu is %d, want %d", i, back[i], sum);
        }
    }
    check_small_scan(fresh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CUDA(malloc_beyond_the_device_is_out_of_memory),
        GPT_TEST_LARGE(scan_and_reduce_int32_past_2_31),
        GPT_TEST_LARGE(reduce_int64_past_2_31),
        GPT_TEST_LARGE(compact_int32_past_2_31),
        GPT_TEST_LARGE(find_repeats_int32_past_2_31),
        GPT_TEST_LARGE(workspace_out_of_memory),
    };
    return cmocka_run_group_tests_name("large", tests, NULL, NULL);
}
