/* SPDX-License-Identifier: BSD-3-Clause */
/* host_memory.c - large host buffers that a CPU pass fills once per call.
 *
 * Touching a fresh buffer costs one page fault per 4 KiB page, and on
 * virtual machines a fault costs microseconds: a 16 MiB image written once
 * took about as long in faults as in shading on the development VM. Where
 * Linux offers transparent huge pages on request (madvise mode), a buffer
 * aligned to 2 MiB and marked MADV_HUGEPAGE faults once per 2 MiB instead.
 * Elsewhere, and for small buffers, this is malloc. Either way the buffer
 * is released with free(). */
#include "internal.h"

#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

void *gpi_host_alloc_large(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= 2 * huge && bytes <= SIZE_MAX - huge) {
        void *p = NULL;
        const size_t rounded = (bytes + huge - 1) / huge * huge;
        if (posix_memalign(&p, huge, rounded) != 0) return NULL;
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}
