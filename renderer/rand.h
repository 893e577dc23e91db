/* rand.h - glibc's rand() (the TYPE_3 additive feedback generator that
 * srand/rand use by default), reimplemented so that scenes are the same
 * circles on every platform as on glibc. Never installed. */
#ifndef GPUPRIM_RAND_H
#define GPUPRIM_RAND_H

#include <stdint.h>

#define GPI_RAND_MAX 2147483647

typedef struct gpi_rand {
    uint32_t r[34]; /* the last 34 terms of the sequence, indexed mod 34 */
    uint64_t i;     /* index of the next term */
} gpi_rand;

/* Same state as glibc's srand(seed) (seed 0 acts as 1). */
void gpi_rand_seed(gpi_rand *g, unsigned seed);
/* Same value as glibc's next rand(): 0 .. GPI_RAND_MAX. */
int gpi_rand_next(gpi_rand *g);
/* The course's randomFloat(): (float)rand() / RAND_MAX, in float. */
float gpi_rand_float(gpi_rand *g);

#endif
