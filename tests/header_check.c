/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiled as strict C99 with -Wpedantic -Werror: the public headers must pass, each on its own. */
#include <gpuprim/argminmax.h>
#include <gpuprim/dist.h>
#include <gpuprim/histogram.h>
#include <gpuprim/permute.h>
#include <gpuprim/runs.h>
#include <gpuprim/search.h>
#include <gpuprim/segmented.h>
#include <gpuprim/gpuprim.h>
#include <gpuprim/render.h>
int header_check_c99(void) { return GP_VERSION_NUMBER > 0 && GP_SUCCESS == 0; }
