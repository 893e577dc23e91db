/* SPDX-License-Identifier: BSD-3-Clause */
/* distinct_top10: how many distinct values 10 million random int32 hold, and
 * the 10 most frequent, with library calls only: sort the values, run-length
 * encode them (each distinct value once, with its count), then sort the
 * (count, value) pairs by count, descending. Runs on the GPU when present,
 * else on the CPU (GP_BACKEND=cpu|cuda chooses). */
#include <gpuprim/gpuprim.h>
#include <gpuprim/runs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

/* The input: products of two random numbers in 1..1000, so values with
 * many factorizations (like 360 or 720) come up most often. */
static int32_t *make_input(size_t n)
{
    int32_t *v = malloc(n * sizeof *v);
    uint64_t x = 88172645463325252ull; /* xorshift64 */
    size_t i;
    if (!v) return NULL;
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = (int32_t)((1 + (x >> 11) % 1000) * (1 + (x >> 37) % 1000));
    }
    return v;
}

int main(void)
{
    const size_t n = 10000000;
    int32_t *host = make_input(n), top_values[10];
    uint64_t top_counts[10], total = 0;
    size_t distinct = 0, i, shown;
    gp_context *ctx = NULL;
    void *d_in, *d_sorted, *d_values, *d_counts, *d_top_values, *d_top_counts;

    if (!host) return 1;
    CHECK(gp_context_create(&ctx, backend_from_env(), 0));
    CHECK(gp_malloc(ctx, &d_in, n * sizeof(int32_t)));
    CHECK(gp_malloc(ctx, &d_sorted, n * sizeof(int32_t)));
    CHECK(gp_malloc(ctx, &d_values, n * sizeof(int32_t)));
    CHECK(gp_malloc(ctx, &d_counts, n * sizeof(uint64_t)));
    CHECK(gp_malloc(ctx, &d_top_values, n * sizeof(int32_t)));
    CHECK(gp_malloc(ctx, &d_top_counts, n * sizeof(uint64_t)));
    CHECK(gp_upload(ctx, d_in, host, n * sizeof(int32_t)));

    /* equal values side by side, then one run each: the distinct values and their counts */
    CHECK(gp_sort_keys(ctx, GP_INT32, GP_SORT_ASCENDING, d_in, d_sorted, n, 0, 32));
    CHECK(gp_run_length_encode(ctx, GP_INT32, d_sorted, n, d_values, d_counts, &distinct));
    /* most frequent first; equal counts keep ascending value order (stable sort) */
    CHECK(gp_sort_pairs(ctx, GP_UINT64, GP_SORT_DESCENDING, d_counts, d_top_counts, 4, d_values, d_top_values,
                        distinct, 0, 64));
    CHECK(gp_reduce(ctx, GP_UINT64, GP_OP_SUM, d_counts, distinct, &total));

    shown = distinct < 10 ? distinct : 10;
    CHECK(gp_download(ctx, top_values, d_top_values, shown * sizeof(int32_t)));
    CHECK(gp_download(ctx, top_counts, d_top_counts, shown * sizeof(uint64_t)));
    printf("%zu values, %zu distinct; the %zu most frequent:\n", n, distinct, shown);
    for (i = 0; i < shown; i++) printf("  %10d  x %llu\n", top_values[i], (unsigned long long)top_counts[i]);

    gp_free(ctx, d_in);
    gp_free(ctx, d_sorted);
    gp_free(ctx, d_values);
    gp_free(ctx, d_counts);
    gp_free(ctx, d_top_values);
    gp_free(ctx, d_top_counts);
    gp_context_destroy(ctx);
    free(host);
    /* the counts add up to n, and the top ten come in descending order */
    for (i = 1; i < shown; i++)
        if (top_counts[i] > top_counts[i - 1]) return 1;
    return !(total == n && distinct > 0 && distinct <= n);
}
