/* SPDX-License-Identifier: BSD-3-Clause */
/* test_error_details.c - every public call that fails names itself: its
 * detail (gp_context_last_error) starts with "<function>: ", also when the
 * detail is set deep in an argument check shared by several calls, and
 * when the call before it on the context failed under another name.
 * CPU contexts: the checks run before any backend work. */
#include "test_util.h"

#include <gpuprim/dist.h>

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define EXPECT(ctx, want, name, call) expect_detail((ctx), (call), (want), (name), #call)

static void expect_detail(gp_context *ctx, gp_status got, gp_status want, const char *name, const char *text)
{
    const char *d = gp_context_last_error(ctx);
    const size_t len = strlen(name);
    /* ... and the name once: a nested call's name may follow, not the same one again */
    if (got != want || strncmp(d, name, len) != 0 || d[len] != ':' || d[len + 1] != ' ' || !d[len + 2] ||
        (strncmp(d + len + 2, name, len) == 0 && d[2 * len + 2] == ':')) {
        print_error("%s\n  status %d (want %d), detail \"%s\" (want \"%s: ...\", the name once)\n", text, (int)got,
                    (int)want, d, name);
        fail();
    }
}

static gp_context *cpu_context(void)
{
    gp_context *ctx = NULL;
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    return ctx;
}

static void context_and_memory_calls(void **state)
{
    gp_context *ctx = cpu_context();
    uint32_t a[16] = {0};
    (void)state;
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_malloc", gp_malloc(ctx, NULL, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_upload", gp_upload(ctx, NULL, a, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_download", gp_download(ctx, a, NULL, 16));
    EXPECT(ctx, GP_ERROR_OVERLAP, "gp_copy", gp_copy(ctx, a, a + 1, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_stream", gp_context_set_stream(ctx, (void *)a));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_workspace", gp_context_set_workspace(ctx, NULL, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_workspace", gp_context_set_workspace(ctx, a, 0));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_context_set_cpu_threads", gp_context_set_cpu_threads(ctx, -1));
    gp_context_destroy(ctx);
}

/* Each family's calls, each with one bad argument; most fail in a check
 * shared with other calls (a NULL buffer, an unknown dtype or order). */
static void primitive_calls(void **state)
{
    gp_context *ctx = cpu_context();
    uint32_t a[16] = {0}, b[16] = {0}, o[16], ov[16], lo = 0, hi = 16;
    uint64_t idx[16], offsets[2] = {0, 16}, pos[16];
    size_t cnt, counts3[3];
    const gp_stencil3 w3 = {1.0, 1.0, 1.0};
    const gp_stencil5 w5 = {-4.0, 1.0, 1.0, 1.0, 1.0};
    const float f[16] = {0};
    float fo[16];
    const gp_dtype bad = (gp_dtype)99;
    (void)state;

    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_scan", gp_scan(ctx, GP_UINT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, o, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_reduce", gp_reduce(ctx, GP_UINT32, GP_OP_SUM, NULL, 16, &lo));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact",
           gp_compact(ctx, GP_UINT32, a, NULL, GP_UINT8_FLAGS, o, 16, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_compact_indices",
           gp_compact_indices(ctx, b, GP_UINT8_FLAGS, NULL, 16, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_find_repeats", gp_find_repeats(ctx, bad, a, 16, idx, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_sort_keys",
           gp_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, NULL, o, 16, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_sort_pairs",
           gp_sort_pairs(ctx, GP_UINT32, GP_SORT_ASCENDING, a, o, 4, b, NULL, 16, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_sort_scratch_bytes",
           gp_sort_scratch_bytes(ctx, GP_UINT32, 16, 0, 32, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_sort_keys_double_buffer",
           gp_sort_keys_double_buffer(ctx, GP_UINT32, GP_SORT_ASCENDING, o, ov, 16, 0, 32, NULL, 0, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_transpose", gp_transpose(ctx, 4, NULL, o, 4, 4));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_stencil_1d",
           gp_stencil_1d(ctx, GP_FLOAT32, &w3, GP_BOUNDARY_CLAMP, NULL, fo, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_stencil_2d",
           gp_stencil_2d(ctx, GP_FLOAT32, &w5, GP_BOUNDARY_CLAMP, f, NULL, 4, 4));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_laplacian_2d",
           gp_laplacian_2d(ctx, GP_FLOAT32, GP_BOUNDARY_CLAMP, NULL, fo, 4, 4));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_reduce_by_key",
           gp_reduce_by_key(ctx, GP_UINT32, GP_UINT32, GP_OP_SUM, NULL, b, 16, o, ov, idx, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_unique", gp_unique(ctx, GP_UINT32, a, 16, o, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_unique_by_key",
           gp_unique_by_key(ctx, GP_UINT32, bad, a, b, 16, o, ov, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_run_length_encode",
           gp_run_length_encode(ctx, GP_UINT32, NULL, 16, o, idx, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_segmented_reduce",
           gp_segmented_reduce(ctx, GP_UINT32, GP_OP_SUM, a, 16, NULL, 1, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_segmented_scan",
           gp_segmented_scan(ctx, GP_UINT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, o, 16, offsets, 1));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_scan_by_key",
           gp_scan_by_key(ctx, bad, a, GP_UINT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, b, o, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_segmented_sort_keys",
           gp_segmented_sort_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, NULL, o, 16, offsets, 1, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_segmented_sort_pairs",
           gp_segmented_sort_pairs(ctx, GP_UINT32, (gp_sort_order)9, a, o, 4, b, ov, 16, offsets, 1, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_argmin", gp_argmin(ctx, GP_UINT32, NULL, 16, &lo, idx));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_argmax", gp_argmax(ctx, GP_UINT32, a, 16, &lo, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_histogram_even",
           gp_histogram_even(ctx, GP_UINT32, a, 16, &hi, &lo, 4, GP_UINT32, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_histogram_range",
           gp_histogram_range(ctx, GP_UINT32, NULL, 16, b, 4, GP_UINT32, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_partition",
           gp_partition(ctx, GP_UINT32, NULL, b, GP_UINT8_FLAGS, o, 16, &cnt));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_partition3",
           gp_partition3(ctx, GP_UINT32, a, b, b, (gp_flag_type)9, o, 16, counts3));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_gather", gp_gather(ctx, 4, a, 16, NULL, o, 16, GP_INDEX_CHECK));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_scatter", gp_scatter(ctx, 3, a, idx, 16, o, 16, GP_INDEX_SKIP));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_lower_bound",
           gp_lower_bound(ctx, GP_UINT32, GP_SORT_ASCENDING, NULL, 16, b, 16, pos));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_upper_bound",
           gp_upper_bound(ctx, bad, GP_SORT_ASCENDING, a, 16, b, 16, pos));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_merge_keys",
           gp_merge_keys(ctx, GP_UINT32, GP_SORT_ASCENDING, a, 8, NULL, 8, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_merge_pairs",
           gp_merge_pairs(ctx, GP_UINT32, (gp_sort_order)9, a, b, 8, a + 8, b + 8, 8, 4, o, ov));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_top_k",
           gp_top_k(ctx, GP_UINT32, GP_SORT_ASCENDING, a, 16, 0, o, 0, NULL, NULL));
    gp_context_destroy(ctx);
}

/* The distributed calls on a one-rank CPU communicator: a rank that fails
 * its own check keeps its detail. */
static void dist_calls(void **state)
{
    gp_context *ctx = cpu_context();
    gp_comm *comm = NULL;
    uint32_t a[16] = {0}, b[16] = {0}, o[16], ov[16], dest[16] = {0};
    uint64_t idx[16];
    size_t sends[1] = {16}, recv, sources[1], got;
    gp_dist_count count;
    const gp_stencil5 w5 = {-4.0, 1.0, 1.0, 1.0, 1.0};
    float f[16] = {0}, lo = 0.0f, hi = 1.0f;
    (void)state;
    assert_int_equal(gp_comm_init_all(&comm, &ctx, 1, 0), GP_SUCCESS);
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_scan",
           gp_dist_scan(comm, GP_UINT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, NULL, o, 16));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_reduce", gp_dist_reduce(comm, GP_UINT32, GP_OP_SUM, a, 16, NULL));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_compact",
           gp_dist_compact(comm, GP_UINT32, a, NULL, GP_UINT8_FLAGS, o, 16, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_compact_indices",
           gp_dist_compact_indices(comm, b, GP_UINT8_FLAGS, NULL, 16, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_find_repeats",
           gp_dist_find_repeats(comm, (gp_dtype)99, a, 16, idx, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_stencil_2d",
           gp_dist_stencil_2d(comm, GP_FLOAT32, &w5, GP_BOUNDARY_CLAMP, NULL, f, 4, 4));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_laplacian_2d",
           gp_dist_laplacian_2d(comm, GP_FLOAT32, GP_BOUNDARY_CLAMP, f, NULL, 4, 4));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_shuffle_counts",
           gp_dist_shuffle_counts(comm, NULL, sends, 15, &recv, sources)); /* counts sum to 16 */
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_shuffle",
           gp_dist_shuffle(comm, 3, a, 0, NULL, 16, dest, NULL, o, NULL, 16, &recv, sources));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_sort_keys",
           gp_dist_sort_keys(comm, GP_UINT32, (gp_sort_order)9, a, o, 16, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_sort_pairs",
           gp_dist_sort_pairs(comm, GP_UINT32, GP_SORT_ASCENDING, a, o, 4, b, NULL, 16, 0, 32));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_gatherv", gp_dist_gatherv(comm, 1, a, 16, ov, 64, &got));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_histogram_even",
           gp_dist_histogram_even(comm, GP_FLOAT32, NULL, 16, &lo, &hi, 4, GP_UINT32, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_histogram_even", /* refused by the one-context call inside */
           gp_dist_histogram_even(comm, GP_FLOAT32, f, 16, &hi, &lo, 4, GP_UINT32, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_histogram_range",
           gp_dist_histogram_range(comm, GP_FLOAT32, f, 16, NULL, 4, GP_UINT32, o));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_reduce_by_key",
           gp_dist_reduce_by_key(comm, GP_UINT32, GP_UINT32, GP_OP_SUM, NULL, b, 16, o, ov, NULL, 16, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_unique", gp_dist_unique(comm, GP_UINT32, NULL, 16, o, 16, &count));
    EXPECT(ctx, GP_ERROR_INVALID_ARGUMENT, "gp_dist_top_k",
           gp_dist_top_k(comm, GP_UINT32, GP_SORT_ASCENDING, NULL, 16, 4, o, 0, NULL, NULL));
    gp_comm_destroy(comm);
    gp_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(context_and_memory_calls),
        cmocka_unit_test(primitive_calls),
        cmocka_unit_test(dist_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
