/* scan_onepass.cuh - kept for source compatibility: includes the headers it was split into. */
#ifndef GPUPRIM_SCAN_ONEPASS_CUH
#define GPUPRIM_SCAN_ONEPASS_CUH

#include "block_scan.cuh"
#include "lookback.cuh"
#include "scan_kernels.cuh"
#include "tile_io.cuh"
#include "warp_scan.cuh"

#endif
