/* SPDX-License-Identifier: BSD-3-Clause */
/* test_copy.c - gp_copy between buffers: every byte of the range copied and
 * none outside it, at awkward sizes (around the 16-byte words and the 16 MB
 * switch from gpuprim's kernel to cudaMemcpyAsync) and offsets, shared and
 * differing alignments. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_every_size_and_offset(void **state)
{
    gp_context *ctx = gpt_ctx(state);
    static const size_t sizes[] = {1, 2, 15, 16, 17, 31, 1000, 65537, ((size_t)16 << 20) - 1, (size_t)16 << 20,
                                   ((size_t)16 << 20) + 1, ((size_t)16 << 20) + 4096};
    static const size_t offs[][2] = {{0, 0}, {4, 4}, {1, 3}, {15, 15}, {8, 0}};
    const size_t room = ((size_t)16 << 20) + 4096 + 64;
    unsigned char *src_h = gpt_malloc(room), *got = gpt_malloc(room);
    unsigned char *src, *dst;
    size_t i, si, oi;
    gpt_seed_once();
    for (i = 0; i < room; i++) src_h[i] = (unsigned char)gpt_rand64();
    src = gpt_buffer_from(ctx, src_h, room);
    dst = gpt_buffer(ctx, room);
    for (si = 0; si < COUNT(sizes); si++)
        for (oi = 0; oi < COUNT(offs); oi++) {
            const size_t n = sizes[si], so = offs[oi][0], d_o = offs[oi][1];
            gpt_poison(got, room);
            GPT_OK(ctx, gp_upload(ctx, dst, got, room));
            GPT_OK(ctx, gp_copy(ctx, dst + d_o, src + so, n));
            gpt_buffer_to(ctx, got, dst, room);
            if (memcmp(got + d_o, src_h + so, n))
                fail_msg("gp_copy of %zu bytes, src+%zu -> dst+%zu [%s]: wrong bytes", n, so, d_o,
                         gpt_backend_name(ctx));
            gpt_expect_poison(got, 0, d_o, "before the copy");
            gpt_expect_poison(got, d_o + n, room, "after the copy");
        }
    gpt_buffer_free(ctx, src);
    gpt_buffer_free(ctx, dst);
    free(src_h), free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {GPT_TEST_BOTH(copy_every_size_and_offset)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
