/* SPDX-License-Identifier: BSD-3-Clause */
/* The portable glibc rand() against the system's srand/rand (this suite
 * only means something on glibc, which is what CI and the GPU hosts run). */
#include "test_util.h"
#include "rand.h"

#include <stdlib.h>

static const unsigned seeds[] = {0u, 1u, 2u, 3u, 42u, 12345u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};

static void matches_system_rand(void **state)
{
    size_t s;
    (void)state;
#ifndef __GLIBC__
    skip();
#endif
    assert_int_equal(RAND_MAX, GPR_RAND_MAX);
    for (s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        gpr_rand g;
        int k, draws = gpt_quick() ? 20000 : 200000;
        gpr_rand_seed(&g, seeds[s]);
        srand(seeds[s]);
        for (k = 0; k < draws; k++) {
            int want = rand(), got = gpr_rand_next(&g);
            if (want != got) fail_msg("seed %u draw %d: system rand %d, ours %d", seeds[s], k, want, got);
        }
    }
}

static void seed_zero_is_seed_one(void **state)
{
    gpr_rand a, b;
    int k;
    (void)state;
    gpr_rand_seed(&a, 0);
    gpr_rand_seed(&b, 1);
    for (k = 0; k < 1000; k++) assert_int_equal(gpr_rand_next(&a), gpr_rand_next(&b));
}

static void reseed_restarts(void **state)
{
    gpr_rand g;
    int first[10], k;
    (void)state;
    gpr_rand_seed(&g, 7);
    for (k = 0; k < 10; k++) first[k] = gpr_rand_next(&g);
    gpr_rand_seed(&g, 7);
    for (k = 0; k < 10; k++) assert_int_equal(gpr_rand_next(&g), first[k]);
}

static void random_float_is_the_courses(void **state)
{
    gpr_rand g;
    int k;
    (void)state;
#ifndef __GLIBC__
    skip();
#endif
    gpr_rand_seed(&g, 0);
    srand(0);
    for (k = 0; k < 100000; k++) {
        /* static_cast<float>(rand()) / RAND_MAX: float divided by RAND_MAX converted to float */
        float want = (float)rand() / RAND_MAX;
        float got = gpr_rand_float(&g);
        if (want != got) fail_msg("draw %d: %.9g vs %.9g", k, (double)want, (double)got);
        assert_true(got >= 0.f && got <= 1.f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_system_rand),
        cmocka_unit_test(seed_zero_is_seed_one),
        cmocka_unit_test(reseed_restarts),
        cmocka_unit_test(random_float_is_the_courses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
