/* SPDX-License-Identifier: BSD-3-Clause */
/* copy: cudaMemcpyAsync D2D of n int32 at each size of the ladder, the
 * reference beside the scan rows (the 2^28 ceiling always runs). The scan
 * group asks for the same rows, so with both on they come beside the scans. */
#include "../harness.cuh"

static void run_copy()
{
    for (size_t n : size_ladder())
        copy_reference(n);
}

BENCH_GROUP("copy", 25, run_copy);
