/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of buffers a context gave out (gp_malloc): a pointer check
 * accepts a range inside one of them without asking the driver, so the
 * list must hold exactly the live buffers. The list's logic is tested on
 * made-up address ranges (CPU), the calls that keep it on the device
 * (CUDA): a range inside a live buffer passes, a freed buffer is asked
 * about again and refused. */
#include "test_util.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

enum { kBuffers = 500 };

/* Buffers at made-up addresses, added and removed in a shuffled order;
 * after each step every range is checked against a plain list. */
static void list_holds_exactly_the_live_ranges(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static uintptr_t begin[kBuffers];
    static size_t len[kBuffers];
    static int live[kBuffers], order[kBuffers];
    size_t i, j, step;
    for (i = 0; i < kBuffers; i++) {
        begin[i] = ((uintptr_t)1 << 40) + (uintptr_t)i * 4096; /* gaps between the buffers */
        len[i] = 1 + gpt_rand64() % 4000;
        order[i] = (int)i;
    }
    for (i = kBuffers - 1; i > 0; i--) {
        const size_t k = gpt_rand64() % (i + 1);
        const int t = order[i];
        order[i] = order[k], order[k] = t;
    }
    for (step = 0; step < 2 * kBuffers; step++) {
        const int b = order[step % kBuffers];
        if (step < kBuffers) {
            gpi_buffers_add(ctx, (void *)begin[b], len[b]);
            live[b] = 1;
        } else {
            gpi_buffers_remove(ctx, (void *)begin[b]);
            live[b] = 0;
        }
        if (step % 50 != 49) continue;
        for (j = 0; j < kBuffers; j++) {
            const void *first = (const void *)begin[j], *last = (const void *)(begin[j] + len[j] - 1);
            assert_int_equal(gpi_buffers_hold(ctx, first, len[j]), live[j]);
            assert_int_equal(gpi_buffers_hold(ctx, last, 1), live[j]);
            /* a byte past the end, a range running past it, the gap before */
            assert_false(gpi_buffers_hold(ctx, (const void *)(begin[j] + len[j]), 1));
            assert_false(gpi_buffers_hold(ctx, first, len[j] + 1));
            assert_false(gpi_buffers_hold(ctx, (const void *)(begin[j] - 1), 1));
        }
    }
    /* removing what is not there, or the inside of a buffer, changes nothing */
    gpi_buffers_add(ctx, (void *)begin[0], len[0]);
    gpi_buffers_remove(ctx, (void *)(begin[0] + 1));
    gpi_buffers_remove(ctx, (void *)begin[1]);
    gpi_buffers_remove(ctx, NULL);
    assert_true(gpi_buffers_hold(ctx, (void *)begin[0], len[0]));
    gpi_buffers_remove(ctx, (void *)begin[0]);
    assert_false(gpi_buffers_hold(ctx, (void *)begin[0], 1));
}

/* On the device: ranges inside live gp_malloc buffers pass the check,
 * freed ones are refused (the driver is asked again), with many buffers
 * freed in a shuffled order. */
static void device_buffers_checked_until_freed(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    enum { kN = 64, kBytes = 1 << 12 };
    void *buf[kN];
    size_t i;
    for (i = 0; i < kN; i++) GPT_OK(ctx, gp_malloc(ctx, &buf[i], kBytes + 4 * i));
    for (i = 0; i < kN; i++) {
        char *b = (char *)buf[i];
        /* in place over the buffer's last 100 elements */
        GPT_OK(ctx, gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, b + kBytes + 4 * i - 400,
                            b + kBytes + 4 * i - 400, 100));
    }
    GPT_OK(ctx, gp_context_synchronize(ctx));
    for (i = 0; i < kN; i += 2) GPT_OK(ctx, gp_free(ctx, buf[i]));
    for (i = 0; i < kN; i++) {
        const gp_status want = i % 2 ? GP_SUCCESS : GP_ERROR_WRONG_MEMORY;
        assert_int_equal(gp_scan(ctx, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, buf[i], buf[i], 100), want);
    }
    GPT_OK(ctx, gp_context_synchronize(ctx));
    for (i = 1; i < kN; i += 2) GPT_OK(ctx, gp_free(ctx, buf[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        GPT_TEST_CPU(list_holds_exactly_the_live_ranges),
        GPT_TEST_CUDA(device_buffers_checked_until_freed),
    };
    gpt_seed_once();
    return cmocka_run_group_tests_name("buffer_registry", tests, NULL, NULL);
}
