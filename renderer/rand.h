/* SPDX-License-Identifier: BSD-3-Clause */
/* rand.h - glibc's rand() (the TYPE_3 additive feedback generator that
 * srand/rand use by default), reimplemented so that scenes are the same
 * circles on every platform as on glibc. Never installed. */
#ifndef GPUPRIM_RAND_H
#define GPUPRIM_RAND_H

#include <stdint.h>

#define GPR_RAND_MAX 2147483647

typedef struct gpr_rand {
    uint32_t r[34]; /* the last 34 terms of the sequence, indexed mod 34 */
    uint64_t i;     /* index of the next term */
} gpr_rand;

/* Same state as glibc's srand(seed) (seed 0 acts as 1). */
void gpr_rand_seed(gpr_rand *g, unsigned seed);
/* Same value as glibc's next rand(): 0 .. GPR_RAND_MAX. */
int gpr_rand_next(gpr_rand *g);
/* The course's randomFloat(): (float)rand() / RAND_MAX, in float. */
float gpr_rand_float(gpr_rand *g);

#endif
