/* SPDX-License-Identifier: BSD-3-Clause */
// The public headers must be usable from C++ (extern "C", no C-only constructs), each on its own.
#include <gpuprim/argminmax.h>
#include <gpuprim/dist.h>
#include <gpuprim/histogram.h>
#include <gpuprim/permute.h>
#include <gpuprim/runs.h>
#include <gpuprim/search.h>
#include <gpuprim/segmented.h>
#include <gpuprim/gpuprim.h>
#include <gpuprim/render.h>
int header_check_cxx() { return gp_dtype_size(GP_INT32) == 4 ? 0 : 1; }
