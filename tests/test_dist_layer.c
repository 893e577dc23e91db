/* SPDX-License-Identifier: BSD-3-Clause */
/* The collective building blocks for layered libraries (gp_dist_agree,
 * gp_dist_gatherv) on CPU ranks, and the distributed renderer's gather on
 * top of them: when any rank fails, every rank returns an error and the
 * root's image is untouched. */
#include "test_util.h"

#include <gpuprim/dist.h>
#include <gpuprim/render.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANKS 3

typedef struct world {
    gp_context *ctx[RANKS];
    gp_comm *comm[RANKS];
} world;

static void make_world(world *w)
{
    int r;
    memset(w, 0, sizeof *w);
    for (r = 0; r < RANKS; r++) assert_int_equal(gp_context_create(&w->ctx[r], GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_comm_init_all(w->comm, w->ctx, RANKS, 20000), GP_SUCCESS);
}

static void free_world(world *w)
{
    int r;
    for (r = 0; r < RANKS; r++) gp_comm_destroy(w->comm[r]);
    for (r = 0; r < RANKS; r++) gp_context_destroy(w->ctx[r]);
}

static int rank_of(gp_comm *c)
{
    int r = -1;
    gp_comm_rank(c, &r);
    return r;
}

/* ---- gp_dist_agree ------------------------------------------------------------ */

typedef struct agree_job {
    gp_status mine[RANKS], got[RANKS];
    char detail[RANKS][256];
} agree_job;

static gp_status agree_rank(gp_comm *c, void *p)
{
    agree_job *j = (agree_job *)p;
    const int r = rank_of(c);
    gp_context *ctx = NULL;
    gp_comm_context(c, &ctx);
    if (j->mine[r]) gp_context_set_error(ctx, j->mine[r], "rank %d's own reason", r);
    j->got[r] = gp_dist_agree(c, j->mine[r]);
    snprintf(j->detail[r], sizeof j->detail[r], "%s", gp_context_last_error(ctx));
    return j->got[r];
}

static void agree(void **state)
{
    world w;
    agree_job j;
    int r;
    (void)state;
    make_world(&w);
    memset(&j, 0, sizeof j);
    assert_int_equal(gp_comm_run(w.comm, RANKS, agree_rank, &j), GP_SUCCESS);
    for (r = 0; r < RANKS; r++) assert_int_equal(j.got[r], GP_SUCCESS);
    /* rank 2 fails: it keeps its status and detail, the others name it */
    memset(&j, 0, sizeof j);
    j.mine[2] = GP_ERROR_PARSE;
    assert_int_not_equal(gp_comm_run(w.comm, RANKS, agree_rank, &j), GP_SUCCESS);
    assert_int_equal(j.got[0], GP_ERROR_COMM);
    assert_int_equal(j.got[1], GP_ERROR_COMM);
    assert_int_equal(j.got[2], GP_ERROR_PARSE);
    assert_non_null(strstr(j.detail[2], "rank 2's own reason"));
    assert_non_null(strstr(j.detail[0], "rank 2"));
    assert_int_equal(gp_dist_agree(NULL, GP_SUCCESS), GP_ERROR_INVALID_ARGUMENT);
    free_world(&w);
}

/* ---- gp_dist_gatherv ---------------------------------------------------------- */

typedef struct gather_job {
    int root;
    size_t send_bytes[RANKS];
    int null_send[RANKS]; /* pass NULL with send_bytes > 0 */
    int root_arg[RANKS];  /* root as each rank passes it */
    unsigned char *recv;
    size_t recv_bytes;
    size_t blocks[RANKS];
    gp_status got[RANKS];
} gather_job;

static gp_status gather_rank(gp_comm *c, void *p)
{
    gather_job *j = (gather_job *)p;
    const int r = rank_of(c);
    unsigned char send[64];
    size_t i;
    for (i = 0; i < sizeof send; i++) send[i] = (unsigned char)(16 * r + i);
    j->got[r] = gp_dist_gatherv(c, j->root_arg[r], j->null_send[r] ? NULL : send, j->send_bytes[r],
                                r == j->root ? j->recv : NULL, r == j->root ? j->recv_bytes : 0,
                                r == j->root ? j->blocks : NULL);
    return j->got[r];
}

static void gather_setup(gather_job *j, int root, size_t b0, size_t b1, size_t b2, size_t recv_bytes)
{
    int r;
    memset(j, 0, sizeof *j);
    j->root = root;
    j->send_bytes[0] = b0;
    j->send_bytes[1] = b1;
    j->send_bytes[2] = b2;
    for (r = 0; r < RANKS; r++) j->root_arg[r] = root;
    j->recv_bytes = recv_bytes;
    j->recv = (unsigned char *)gpt_malloc(32);
    gpt_poison(j->recv, 32);
    for (r = 0; r < RANKS; r++) j->blocks[r] = 777;
}

/* Run the gather on every rank: it fails on every rank, nothing written. */
static void expect_all_fail(const world *w, gather_job *j)
{
    int r;
    assert_int_not_equal(gp_comm_run(w->comm, RANKS, gather_rank, j), GP_SUCCESS);
    for (r = 0; r < RANKS; r++) assert_int_not_equal(j->got[r], GP_SUCCESS);
    gpt_expect_poison(j->recv, 0, 32, "recv after a failed gather");
    for (r = 0; r < RANKS; r++) assert_int_equal(j->blocks[r], 777);
}

static void gatherv(void **state)
{
    world w;
    gather_job j;
    size_t i;
    (void)state;
    make_world(&w);
    /* blocks of 5, 0 and 7 bytes to rank 1: concatenated in rank order */
    gather_setup(&j, 1, 5, 0, 7, 20);
    assert_int_equal(gp_comm_run(w.comm, RANKS, gather_rank, &j), GP_SUCCESS);
    for (i = 0; i < 5; i++) assert_int_equal(j.recv[i], (unsigned char)i);
    for (i = 0; i < 7; i++) assert_int_equal(j.recv[5 + i], (unsigned char)(32 + i));
    gpt_expect_poison(j.recv, 12, 32, "recv past the blocks");
    assert_int_equal(j.blocks[0], 5);
    assert_int_equal(j.blocks[1], 0);
    assert_int_equal(j.blocks[2], 7);
    free(j.recv);
    /* the root's recv one byte too small: every rank fails, nothing written */
    gather_setup(&j, 0, 4, 4, 4, 11);
    expect_all_fail(&w, &j);
    assert_int_equal(j.got[0], GP_ERROR_INVALID_ARGUMENT);
    free(j.recv);
    /* a rank's NULL send */
    gather_setup(&j, 2, 4, 4, 4, 32);
    j.null_send[1] = 1;
    expect_all_fail(&w, &j);
    assert_int_equal(j.got[1], GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(j.got[2], GP_ERROR_COMM);
    free(j.recv);
    /* ranks disagree on the root */
    gather_setup(&j, 0, 4, 4, 4, 32);
    j.root_arg[2] = 1;
    expect_all_fail(&w, &j);
    free(j.recv);
    assert_int_equal(gp_dist_gatherv(NULL, 0, NULL, 0, NULL, 0, NULL), GP_ERROR_INVALID_ARGUMENT);
    free_world(&w);
}

/* ---- the distributed renderer's gather ------------------------------------------ */

typedef struct render_job {
    const gp_scene *scene;
    int width, height;
    int skip_render; /* this rank never renders (-1: none) */
    int bad_root;    /* this rank passes root 7 (-1: none) */
    unsigned char *rgb; /* the root's image (rank 0), poisoned */
    gp_status got[RANKS];
} render_job;

static gp_status render_rank(gp_comm *c, void *p)
{
    render_job *j = (render_job *)p;
    const int r = rank_of(c);
    gp_dist_renderer *dr = NULL;
    gp_status s = gp_dist_renderer_create(&dr, c, j->width, j->height);
    if (!s) s = gp_dist_renderer_set_scene(dr, j->scene);
    if (!s && r != j->skip_render) s = gp_dist_renderer_render(dr);
    if (!s) s = gp_dist_renderer_gather(dr, r == j->bad_root ? 7 : 0, r == 0 ? j->rgb : NULL);
    gp_dist_renderer_destroy(dr);
    return j->got[r] = s;
}

static void renderer_gather_failures(void **state)
{
    world w;
    render_job j;
    gp_scene *scene = NULL;
    const int W = 40, H = 50; /* 4 tile rows over 3 ranks */
    const size_t bytes = (size_t)W * H * 3;
    float *ref = (float *)gpt_malloc(bytes / 3 * 16);
    unsigned char *want = (unsigned char *)gpt_malloc(bytes);
    int r, k;
    (void)state;
    make_world(&w);
    assert_int_equal(gp_scene_create(&scene, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_render_reference(scene, W, H, ref), GP_SUCCESS);
    assert_int_equal(gp_image_to_rgb8(ref, W, H, want), GP_SUCCESS);
    for (k = 0; k < 4; k++) {
        memset(&j, 0, sizeof j);
        j.scene = scene;
        j.width = W;
        j.height = H;
        j.skip_render = k == 1 ? 1 : k == 2 ? 0 : -1; /* a non-root, then the root itself */
        j.bad_root = k == 3 ? 2 : -1;
        j.rgb = (unsigned char *)gpt_malloc(bytes);
        gpt_poison(j.rgb, bytes);
        if (k == 0) {
            /* all well: the reference's image */
            assert_int_equal(gp_comm_run(w.comm, RANKS, render_rank, &j), GP_SUCCESS);
            assert_memory_equal(j.rgb, want, bytes);
        } else {
            assert_int_not_equal(gp_comm_run(w.comm, RANKS, render_rank, &j), GP_SUCCESS);
            for (r = 0; r < RANKS; r++) {
                const int culprit = k == 3 ? j.bad_root : j.skip_render;
                assert_int_equal(j.got[r], r == culprit ? GP_ERROR_INVALID_ARGUMENT : GP_ERROR_COMM);
            }
            gpt_expect_poison(j.rgb, 0, bytes, "the root's image after a failed gather");
        }
        free(j.rgb);
    }
    gp_scene_destroy(scene);
    free(ref);
    free(want);
    free_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agree),
        cmocka_unit_test(gatherv),
        cmocka_unit_test(renderer_gather_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
