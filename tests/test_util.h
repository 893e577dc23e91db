/* SPDX-License-Identifier: BSD-3-Clause */
/* test_util.h - what every cmocka suite shares: backends as test state,
 * GPU skip/require logic, seeded random data and poisoning.
 *
 * GPU cases: when no CUDA device is present they are skipped with a visible
 * "SKIPPED (no CUDA device)" message, unless GP_TEST_REQUIRE_GPU=1, in which
 * case a missing GPU fails the test.
 * Random data: the seed comes from GP_TEST_SEED, else from the clock; it is
 * printed once per suite so any failure can be replayed.
 * GP_TEST_QUICK=1 shrinks the large sizes (used under compute-sanitizer). */
#ifndef GPUPRIM_TEST_UTIL_H
#define GPUPRIM_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gpuprim/gpuprim.h>

/* Pass &gpt_cpu or &gpt_cuda as a test's prestate; the setup/teardown below
 * turn it into a context. */
extern gp_backend gpt_cpu, gpt_cuda;

int gpt_have_gpu(void);
int gpt_quick(void);
/* GP_TEST_QUICK=2: smaller still, what a run under compute-sanitizer's
 * racecheck can afford (it slows shared-memory work by orders of
 * magnitude); every tile edge is still crossed. Implies gpt_quick(). */
int gpt_tiny(void);
/* The step through a list of `count` dtypes: 1, or under gpt_tiny() one
 * that visits two of them, far apart (a 4-byte and an 8-byte one in the
 * tests' usual order). */
size_t gpt_dtype_step(size_t count);

/* Test fixture: *state enters as a gp_backend*, leaves as a gp_context*
 * (NULL for CUDA without a device). A test body starts with
 *     gp_context *ctx = gpt_ctx(state);
 * which skips the case there (or fails it when the GPU is required):
 * cmocka counts a skip only from the test body, not from setup. */
int gpt_setup_context(void **state);
/* The same with the environment variable var set to value while the
 * context is made (the library reads its testing knobs then), unless the
 * environment already names one: a sanitizer run can pin another. */
int gpt_setup_context_env(void **state, const char *var, const char *value);
int gpt_teardown_context(void **state);
gp_context *gpt_ctx(void **state);

/* Register test function f once per backend, named "f [cpu]" / "f [cuda]". */
#define GPT_TEST_CPU(f) { #f " [cpu]", f, gpt_setup_context, gpt_teardown_context, &gpt_cpu }
#define GPT_TEST_CUDA(f) { #f " [cuda]", f, gpt_setup_context, gpt_teardown_context, &gpt_cuda }
#define GPT_TEST_BOTH(f) GPT_TEST_CPU(f), GPT_TEST_CUDA(f)

/* Call at the start of a test that needs the GPU but uses no fixture. */
void gpt_require_gpu(void);

/* Deterministic per-suite random stream (splitmix64). */
void gpt_seed_once(void);
uint64_t gpt_rand64(void);
double gpt_uniform(void); /* [0, 1) */

/* Fill n elements of dtype with random values. `range` > 0 limits integers
 * to [0, range) (to make repeats likely); 0 means the full type range for
 * integers and [-1000, 1000) for floats. */
void gpt_fill_random(gp_dtype dtype, void *buf, size_t n, uint64_t range);

/* Fill bytes with GPT_POISON so that unwritten outputs are visible. */
#define GPT_POISON 0xA5
void gpt_poison(void *buf, size_t bytes);

/* Fail unless bytes [from, to) of host memory p still hold GPT_POISON
 * (`what` names the call in the failure). */
void gpt_expect_poison(const void *p, size_t from, size_t to, const char *what);

/* Fail unless the whole backend buffer still holds GPT_POISON: a failing
 * call must write nothing. */
void gpt_expect_untouched(gp_context *ctx, const void *buf, size_t bytes);

/* Is the context's backend CUDA? */
int gpt_on_cuda(gp_context *ctx);

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Host buffer helpers that fail the test on allocation failure. */
void *gpt_malloc(size_t bytes);

/* Backend buffer helpers: allocate / upload / download through the public
 * API, failing the test on error. */
void *gpt_buffer(gp_context *ctx, size_t bytes);
void *gpt_buffer_from(gp_context *ctx, const void *host, size_t bytes);
void gpt_buffer_to(gp_context *ctx, void *host, const void *buf, size_t bytes);
void gpt_buffer_free(gp_context *ctx, void *buf);

/* Fresh poisoned backend buffer of `bytes`. */
void *gpt_poisoned_buffer(gp_context *ctx, size_t bytes);

/* Assert a gp_status with the context's detail message in the failure text. */
#define GPT_OK(ctx, expr)                                                                        \
    do {                                                                                         \
        gp_status gpt_s_ = (expr);                                                               \
        if (gpt_s_ != GP_SUCCESS)                                                                \
            fail_msg("%s -> %s [%s]", #expr, gp_status_string(gpt_s_), gp_context_last_error(ctx)); \
    } while (0)

/* Assert that `call` returns exactly `want` (any status, GP_SUCCESS included).
 * Wanted status first, then the call. No detail message is required (a NULL
 * context has none); the failure text names the line, the call and both
 * statuses. */
#define EXPECT_STATUS(want, call)                                                                  \
    do {                                                                                           \
        gp_status gpt_got_ = (call);                                                               \
        if (gpt_got_ != (want))                                                                    \
            fail_msg("line %d: %s\n  -> %s, want %s", __LINE__, #call, gp_status_string(gpt_got_), \
                     gp_status_string(want));                                                      \
    } while (0)

/* Scratch directories for the file suites: a fresh /tmp/<prefix>_XXXXXX
 * into dir (0, or -1 when it cannot be made); removing one removes the files
 * in it first (rmdir's result). */
int gpt_temp_dir_make(char *dir, size_t len, const char *prefix);
int gpt_temp_dir_remove(const char *dir);

/* A whole file, gpt_malloc'd with a spare byte past its *len bytes; NULL
 * when it cannot be opened. */
unsigned char *gpt_read_file(const char *path, size_t *len);
/* Write n bytes to a new file at path (the test fails when it cannot). */
void gpt_write_file(const char *path, const void *data, size_t n);

const char *gpt_dtype_name(gp_dtype dtype);
const char *gpt_backend_name(const gp_context *ctx);

/* The awkward sizes every primitive is tested at (0, 1, 31, 32, 33, block
 * edges, large odd sizes); terminated by SIZE_MAX. Shrunk when quick. */
const size_t *gpt_sizes(void);

#endif
