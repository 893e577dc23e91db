/* SPDX-License-Identifier: BSD-3-Clause */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

gp_backend gpt_cpu = GP_BACKEND_CPU, gpt_cuda = GP_BACKEND_CUDA;

int gpt_have_gpu(void)
{
    static int cached = -1;
    if (cached < 0) {
        int n = 0;
        gp_cuda_device_count(&n);
        cached = n > 0;
    }
    return cached;
}

int gpt_quick(void)
{
    const char *q = getenv("GP_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

int gpt_tiny(void)
{
    const char *q = getenv("GP_TEST_QUICK");
    return q && strcmp(q, "2") == 0;
}

size_t gpt_dtype_step(size_t count) { return gpt_tiny() && count > 2 ? (count + 1) / 2 : 1; }

static int gpu_required(void)
{
    const char *r = getenv("GP_TEST_REQUIRE_GPU");
    return r && *r && strcmp(r, "0") != 0;
}

void gpt_require_gpu(void)
{
    if (gpt_have_gpu()) return;
    if (gpu_required()) fail_msg("GP_TEST_REQUIRE_GPU is set but no CUDA device was found");
    print_message("SKIPPED (no CUDA device): GPU test case\n");
    skip();
}

int gpt_setup_context(void **state)
{
    gp_backend b = *(gp_backend *)*state;
    gp_context *ctx = NULL;
    gp_status s;
    gpt_seed_once();
    *state = NULL;
    if (b == GP_BACKEND_CUDA && !gpt_have_gpu()) return 0; /* gpt_ctx skips in the body */
    s = gp_context_create(&ctx, b, 0);
    if (s != GP_SUCCESS) fail_msg("gp_context_create: %s", gp_status_string(s));
    *state = ctx;
    return 0;
}

int gpt_setup_context_env(void **state, const char *var, const char *value)
{
    int r, set = getenv(var) == NULL;
    if (set) setenv(var, value, 1);
    r = gpt_setup_context(state);
    if (set) unsetenv(var);
    return r;
}

gp_context *gpt_ctx(void **state)
{
    if (*state == NULL) gpt_require_gpu();
    assert_non_null(*state);
    return (gp_context *)*state;
}

int gpt_teardown_context(void **state)
{
    gp_context_destroy((gp_context *)*state);
    return 0;
}

static uint64_t rng_state;
static int seeded;

void gpt_seed_once(void)
{
    const char *env;
    if (seeded) return;
    env = getenv("GP_TEST_SEED");
    rng_state = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    fprintf(stdout, "test seed: GP_TEST_SEED=%llu\n", (unsigned long long)rng_state);
    seeded = 1;
}

uint64_t gpt_rand64(void)
{
    uint64_t z;
    gpt_seed_once();
    z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double gpt_uniform(void) { return (double)(gpt_rand64() >> 11) * (1.0 / 9007199254740992.0); }

void gpt_fill_random(gp_dtype dtype, void *buf, size_t n, uint64_t range)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint64_t r = range ? gpt_rand64() % range : gpt_rand64();
        double f = range ? (double)(gpt_rand64() % range) : gpt_uniform() * 2000.0 - 1000.0;
        switch (dtype) {
        case GP_INT32: ((int32_t *)buf)[i] = (int32_t)(uint32_t)r; break;
        case GP_UINT32: ((uint32_t *)buf)[i] = (uint32_t)r; break;
        case GP_INT64: ((int64_t *)buf)[i] = (int64_t)r; break;
        case GP_UINT64: ((uint64_t *)buf)[i] = r; break;
        case GP_FLOAT32: ((float *)buf)[i] = (float)f; break;
        case GP_FLOAT64: ((double *)buf)[i] = f; break;
        default: fail_msg("bad dtype %d", (int)dtype);
        }
    }
}

void gpt_poison(void *buf, size_t bytes)
{
    if (bytes) memset(buf, GPT_POISON, bytes);
}

void gpt_expect_poison(const void *p, size_t from, size_t to, const char *what)
{
    size_t i;
    for (i = from; i < to; i++)
        if (((const unsigned char *)p)[i] != GPT_POISON) fail_msg("%s: byte %zu was written", what, i);
}

void gpt_expect_untouched(gp_context *ctx, const void *buf, size_t bytes)
{
    unsigned char *host = gpt_malloc(bytes);
    gpt_buffer_to(ctx, host, buf, bytes);
    gpt_expect_poison(host, 0, bytes, "a failing call");
    free(host);
}

int gpt_on_cuda(gp_context *ctx)
{
    gp_backend b = GP_BACKEND_CPU;
    gp_context_get_backend(ctx, &b);
    return b == GP_BACKEND_CUDA;
}

void *gpt_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) fail_msg("host malloc of %zu bytes failed", bytes);
    return p;
}

void *gpt_buffer(gp_context *ctx, size_t bytes)
{
    void *p = NULL;
    GPT_OK(ctx, gp_malloc(ctx, &p, bytes));
    return p;
}

void *gpt_buffer_from(gp_context *ctx, const void *host, size_t bytes)
{
    void *p = gpt_buffer(ctx, bytes);
    GPT_OK(ctx, gp_upload(ctx, p, host, bytes));
    return p;
}

void gpt_buffer_to(gp_context *ctx, void *host, const void *buf, size_t bytes)
{
    GPT_OK(ctx, gp_download(ctx, host, buf, bytes));
}

void gpt_buffer_free(gp_context *ctx, void *buf) { GPT_OK(ctx, gp_free(ctx, buf)); }

void *gpt_poisoned_buffer(gp_context *ctx, size_t bytes)
{
    void *host = gpt_malloc(bytes);
    void *p;
    gpt_poison(host, bytes);
    p = gpt_buffer_from(ctx, host, bytes);
    free(host);
    return p;
}

const char *gpt_dtype_name(gp_dtype dtype)
{
    switch (dtype) {
    case GP_INT32: return "int32";
    case GP_UINT32: return "uint32";
    case GP_INT64: return "int64";
    case GP_UINT64: return "uint64";
    case GP_FLOAT32: return "float32";
    case GP_FLOAT64: return "float64";
    }
    return "?";
}

const char *gpt_backend_name(const gp_context *ctx)
{
    gp_backend b = GP_BACKEND_AUTO;
    gp_context_get_backend(ctx, &b);
    return b == GP_BACKEND_CUDA ? "cuda" : "cpu";
}

const size_t *gpt_sizes(void)
{
    static const size_t full[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025,
                                  4095, 4096, 4097, 65535, 65537, 1000003, 4194305, SIZE_MAX};
    static const size_t quick[] = {0, 1, 31, 32, 33, 255, 256, 257, 1025, 4097, 65537, SIZE_MAX};
    static const size_t tiny[] = {0, 1, 31, 32, 33, 255, 256, 257, 1025, 4097, SIZE_MAX};
    return gpt_tiny() ? tiny : gpt_quick() ? quick : full;
}

/* GP_TEST_FILTER=PATTERN runs only matching cases in every suite (cmocka
 * wildcards, e.g. "*cuda*" under compute-sanitizer, where the CPU cases
 * only cost time). Runs before main, so no suite has to remember it. */
__attribute__((constructor)) static void gpt_apply_filter(void)
{
    const char *f = getenv("GP_TEST_FILTER");
    if (f && *f) cmocka_set_test_filter(f);
}

int gpt_temp_dir_make(char *dir, size_t len, const char *prefix)
{
    snprintf(dir, len, "/tmp/%s_XXXXXX", prefix);
    return mkdtemp(dir) ? 0 : -1;
}

int gpt_temp_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
    if (d) closedir(d);
    return rmdir(dir);
}

unsigned char *gpt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = gpt_malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

void gpt_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}
