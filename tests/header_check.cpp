// The public headers must be usable from C++ (extern "C", no C-only constructs).
#include <gpuprim/gpuprim.h>
#include <gpuprim/render.h>
#include <gpuprim/runs.h>
int header_check_cxx() { return gp_dtype_size(GP_INT32) == 4 ? 0 : 1; }
