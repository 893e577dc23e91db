/* host_alloc.h - large host buffers for the CPU renderer (never installed). */
#ifndef GPUPRIM_RENDER_HOST_ALLOC_H
#define GPUPRIM_RENDER_HOST_ALLOC_H

#include <stddef.h>

/* A host buffer of `bytes` (several MiB) that is written soon after, on
 * huge pages where the system offers them (fewer page faults); released
 * with free(). NULL when out of memory; bytes == 0 gives a pointer to free. */
void *gpr_host_alloc_large(size_t bytes);

#endif
