/* test_dist_mp.c - one process per GPU, joined by a unique id: the way
 * gpuprim spans machines. The test (the parent) makes the id and starts
 * this same program once per rank (`test_dist_mp --rank R --ranks N --id HEX
 * --seed S`); each child builds the same global arrays from the seed, runs
 * the distributed calls on its shard and checks its part against the CPU
 * reference, and exits 0 when all agree; mismatched calls and an injected
 * check failure on one rank fail every rank. Also: a rank whose peer never
 * comes gives up with GP_ERROR_TIMEOUT instead of hanging. Needs two GPUs
 * (skipped otherwise; GP_TEST_REQUIRE_MULTI_GPU=1 makes that a failure). */
#include "test_util.h"

#include "internal.h"
#include "comm/comm_internal.h" /* gpi_comm_inject_fault (testing only) */

#include <gpuprim/dist.h>
#include <gpuprim/render.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the child: one rank ---------------------------------------------------- */
#define CHECK(cond, ...)                                                              \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "rank %d: ", rank);                                       \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, " [%s]\n", gp_context_last_error(ctx));                   \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Rank r's shard [*first, *first + *n) of total: uneven, the last rank largest. */
static void shard(size_t total, int rank, int ranks, size_t *first, size_t *n)
{
    size_t weight = 0, before = 0;
    int q;
    for (q = 0; q < ranks; q++) weight += (size_t)q + 1;
    for (q = 0; q < rank; q++) before += total * ((size_t)q + 1) / weight;
    *first = before;
    *n = rank == ranks - 1 ? total - before : total * ((size_t)rank + 1) / weight;
}

static int child(int rank, int ranks, const gp_comm_id *id, uint64_t seed, int timeout_ms)
{
    gp_context *ctx = NULL;
    gp_comm *comm = NULL;
    const size_t total = 3000017, rows = 1001, cols = 257;
    size_t first, n, i, want_n;
    int32_t *all = malloc(total * 4), *ref = malloc(total * 4), *mine = malloc(total * 4);
    uint64_t *wi = malloc(total * 8), *gi = malloc(total * 8);
    float *grid = malloc(rows * cols * 4), *lap = malloc(rows * cols * 4), *got = malloc(rows * cols * 4);
    void *d_in, *d_out;
    int64_t sum64 = 0, red64 = 0;
    gp_dist_count cnt;
    gp_status s;
    uint64_t st = seed;
    CHECK(all && ref && mine && wi && gi && grid && lap && got, "host allocation");
    s = gp_context_create(&ctx, GP_BACKEND_CUDA, rank);
    if (s) {
        fprintf(stderr, "rank %d: gp_context_create: %s\n", rank, gp_status_string(s));
        return 1;
    }
    s = gp_comm_init_rank(&comm, ctx, ranks, rank, id, timeout_ms);
    if (s == GP_ERROR_TIMEOUT) return 3; /* what the timeout case expects */
    CHECK(s == GP_SUCCESS, "gp_comm_init_rank: %s", gp_status_string(s));

    for (i = 0; i < total; i++) all[i] = (int32_t)(mix(&st) % 5) - 2; /* runs: repeats straddle shards */
    shard(total, rank, ranks, &first, &n);
    CHECK(gp_malloc(ctx, &d_in, total * 4) == GP_SUCCESS && gp_malloc(ctx, &d_out, total * 8) == GP_SUCCESS, "gp_malloc");
    CHECK(gp_upload(ctx, d_in, all + first, n * 4) == GP_SUCCESS, "upload");

    /* scan */
    gpi_cpu_scan(GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, all, ref, total, 1);
    CHECK(gp_dist_scan(comm, GP_INT32, GP_OP_SUM, GP_SCAN_INCLUSIVE, d_in, d_out, n) == GP_SUCCESS, "gp_dist_scan");
    CHECK(gp_download(ctx, mine, d_out, n * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(mine, ref + first, n * 4) == 0, "gp_dist_scan differs from the reference");

    /* reduce (int32 sum, wrapping) */
    gpi_cpu_reduce(GP_INT32, GP_OP_SUM, all, total, &sum64, 1);
    CHECK(gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &red64) == GP_SUCCESS, "gp_dist_reduce");
    CHECK((int32_t)red64 == (int32_t)sum64, "gp_dist_reduce: %d, want %d", (int)(int32_t)red64, (int)(int32_t)sum64);

    /* find-repeats: this rank's global indices */
    gpi_cpu_find_repeats(GP_INT32, all, total, wi, &want_n, 1);
    CHECK(gp_dist_find_repeats(comm, GP_INT32, d_in, n, (uint64_t *)d_out, &cnt) == GP_SUCCESS, "gp_dist_find_repeats");
    CHECK(cnt.total == want_n, "find-repeats total %llu, want %zu", (unsigned long long)cnt.total, want_n);
    CHECK(gp_download(ctx, gi, d_out, cnt.local * 8) == GP_SUCCESS, "download");
    CHECK(memcmp(gi, wi + cnt.offset, cnt.local * 8) == 0, "gp_dist_find_repeats differs");

    /* compact-indices over flags = (value > 0) as bytes */
    {
        unsigned char *fl = malloc(total);
        CHECK(fl != NULL, "host allocation");
        for (i = 0; i < total; i++) fl[i] = all[i] > 0;
        gpi_cpu_compact_indices(fl, GP_UINT8_FLAGS, wi, total, &want_n, 1);
        CHECK(gp_upload(ctx, d_in, fl + first, n) == GP_SUCCESS, "upload");
        CHECK(gp_dist_compact_indices(comm, d_in, GP_UINT8_FLAGS, (uint64_t *)d_out, n, &cnt) == GP_SUCCESS,
              "gp_dist_compact_indices");
        CHECK(cnt.total == want_n, "compact total");
        CHECK(gp_download(ctx, gi, d_out, cnt.local * 8) == GP_SUCCESS, "download");
        CHECK(memcmp(gi, wi + cnt.offset, cnt.local * 8) == 0, "gp_dist_compact_indices differs");
        free(fl);
    }

    /* Laplacian, rows split */
    for (i = 0; i < rows * cols; i++) grid[i] = (float)(mix(&st) % 1000) * .001f - .5f;
    gpi_cpu_stencil_2d(GP_FLOAT32, &(gp_stencil5){-4, 1, 1, 1, 1}, GP_BOUNDARY_PERIODIC, grid, lap, rows, cols, 1);
    shard(rows, rank, ranks, &first, &n);
    CHECK(gp_upload(ctx, d_in, grid + first * cols, n * cols * 4) == GP_SUCCESS, "upload");
    CHECK(gp_dist_laplacian_2d(comm, GP_FLOAT32, GP_BOUNDARY_PERIODIC, d_in, d_out, n, cols) == GP_SUCCESS,
          "gp_dist_laplacian_2d");
    CHECK(gp_download(ctx, got, d_out, n * cols * 4) == GP_SUCCESS, "download");
    CHECK(memcmp(got, lap + first * cols, n * cols * 4) == 0, "gp_dist_laplacian_2d differs");

    /* Faults across processes (the records travel through NCCL): rank 0
     * reduces while the others compact indices: every rank rejects the
     * mismatch. Then the last rank's check fails (injected): it returns the
     * injected status, the others GP_ERROR_COMM, and nobody waits for the
     * timeout. After both, a reduce on every rank succeeds. */
    {
        int64_t untouched = 0x5a5a5a5a5a5a5a5aLL, r64 = untouched;
        gp_dist_count c0;
        memset(&c0, 0x5a, sizeof c0);
        cnt = c0;
        s = rank == 0 ? gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64)
                      : gp_dist_compact_indices(comm, d_in, GP_UINT8_FLAGS, (uint64_t *)d_out, n, &cnt);
        CHECK(s == GP_ERROR_INVALID_ARGUMENT, "mismatched calls: %s", gp_status_string(s));
        CHECK(strstr(gp_context_last_error(ctx), "mismatched") != NULL, "mismatch detail");
        CHECK(r64 == untouched && memcmp(&cnt, &c0, sizeof cnt) == 0, "a mismatched call wrote its result");
        if (rank == ranks - 1) gpi_comm_inject_fault(comm, GP_ERROR_OUT_OF_MEMORY);
        s = gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64);
        CHECK(s == (rank == ranks - 1 ? GP_ERROR_OUT_OF_MEMORY : GP_ERROR_COMM), "injected fault: %s",
              gp_status_string(s));
        CHECK(r64 == untouched, "a failed reduce wrote its result");
        CHECK(gp_dist_reduce(comm, GP_INT32, GP_OP_SUM, d_in, n, &r64) == GP_SUCCESS, "reduce after the faults");
    }

    /* renderer: bands gathered on rank 0 */
    {
        gp_scene *scene = NULL;
        gp_dist_renderer *dr = NULL;
        const int W = 512, H = 300;
        unsigned char *rgb = malloc((size_t)W * H * 3), *want = malloc((size_t)W * H * 3);
        float *rgba = malloc((size_t)W * H * 16);
        CHECK(rgb && want && rgba, "host allocation");
        CHECK(gp_scene_create(&scene, "rand10k", 0) == GP_SUCCESS, "scene");
        CHECK(gp_dist_renderer_create(&dr, comm, W, H) == GP_SUCCESS, "gp_dist_renderer_create");
        CHECK(gp_dist_renderer_set_scene(dr, scene) == GP_SUCCESS, "set_scene");
        CHECK(gp_dist_renderer_render(dr) == GP_SUCCESS, "render");
        CHECK(gp_dist_renderer_gather(dr, 0, rank == 0 ? d_out : NULL) == GP_SUCCESS, "gather");
        if (rank == 0) {
            CHECK(gp_download(ctx, rgb, d_out, (size_t)W * H * 3) == GP_SUCCESS, "download");
            CHECK(gp_render_reference(scene, W, H, rgba) == GP_SUCCESS, "reference");
            gp_image_to_rgb8(rgba, W, H, want);
            CHECK(memcmp(rgb, want, (size_t)W * H * 3) == 0, "gathered frame differs from the reference");
        }
        gp_dist_renderer_destroy(dr);
        gp_scene_destroy(scene);
        free(rgb);
        free(want);
        free(rgba);
    }
    gp_free(ctx, d_in);
    gp_free(ctx, d_out);
    gp_comm_destroy(comm);
    gp_context_destroy(ctx);
    free(all), free(ref), free(mine), free(wi), free(gi), free(grid), free(lap), free(got);
    return 0;
}

/* ---- the parent -------------------------------------------------------------- */
static const char *g_self;

static void hex(const gp_comm_id *id, char *out)
{
    int i;
    for (i = 0; i < GP_COMM_ID_BYTES; i++) sprintf(out + 2 * i, "%02x", id->bytes[i]);
}

static int unhex(const char *s, gp_comm_id *id)
{
    int i;
    unsigned v;
    if (strlen(s) != 2 * GP_COMM_ID_BYTES) return -1;
    for (i = 0; i < GP_COMM_ID_BYTES; i++) {
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        id->bytes[i] = (unsigned char)v;
    }
    return 0;
}

/* Start ranks [0, started) of `ranks`; returns how many exited with `want`. */
static int spawn_ranks(int ranks, int started, int timeout_ms, int want)
{
    gp_comm_id id;
    char idhex[2 * GP_COMM_ID_BYTES + 1], rs[16], ns[16], ss[32], ts[16];
    pid_t pids[8];
    int r, ok = 0, status;
    gp_status s = gp_comm_id_create(&id);
    if (s) fail_msg("gp_comm_id_create: %s", gp_status_string(s));
    hex(&id, idhex);
    snprintf(ss, sizeof ss, "%llu", (unsigned long long)gpt_rand64());
    snprintf(ns, sizeof ns, "%d", ranks);
    snprintf(ts, sizeof ts, "%d", timeout_ms);
    for (r = 0; r < started; r++) {
        snprintf(rs, sizeof rs, "%d", r);
        pids[r] = fork();
        if (pids[r] == 0) {
            execl(g_self, g_self, "--rank", rs, "--ranks", ns, "--id", idhex, "--seed", ss, "--timeout", ts, (char *)NULL);
            _exit(127);
        }
        assert_true(pids[r] > 0);
    }
    for (r = 0; r < started; r++) {
        assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
        if (WIFEXITED(status) && WEXITSTATUS(status) == want) ok++;
        else print_error("rank %d exited with %d\n", r, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    return ok;
}

static int gpus(void)
{
    int n = 0;
    const char *req = getenv("GP_TEST_REQUIRE_MULTI_GPU");
    gpt_require_gpu();
    gp_cuda_device_count(&n);
    if (n < 2) {
        if (req && *req && strcmp(req, "0") != 0) fail_msg("GP_TEST_REQUIRE_MULTI_GPU is set but %d GPU(s) were found", n);
        print_message("SKIPPED (one process per GPU needs 2 GPUs, found %d)\n", n);
        skip();
    }
    return n > 8 ? 8 : n;
}

static void one_process_per_gpu(void **state)
{
    int n = gpus();
    (void)state;
    gpt_seed_once();
    assert_int_equal(spawn_ranks(n, n, 60000, 0), n);
}

static void a_peer_that_never_joins_times_out(void **state)
{
    int n = gpus();
    (void)state;
    (void)n;
    gpt_seed_once();
    /* rank 0 of 2 alone: its set-up must give up (exit 3 = GP_ERROR_TIMEOUT) */
    assert_int_equal(spawn_ranks(2, 1, 3000, 3), 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        {"one_process_per_gpu [cuda]", one_process_per_gpu, NULL, NULL, NULL},
        {"a_peer_that_never_joins_times_out [cuda]", a_peer_that_never_joins_times_out, NULL, NULL, NULL},
    };
    if (argc == 11 && strcmp(argv[1], "--rank") == 0) {
        gp_comm_id id;
        if (unhex(argv[6], &id)) return 2;
        return child(atoi(argv[2]), atoi(argv[4]), &id, strtoull(argv[8], NULL, 10), atoi(argv[10]));
    }
    g_self = "/proc/self/exe";
    return cmocka_run_group_tests(tests, NULL, NULL);
}
