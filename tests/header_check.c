/* Compiled as strict C99 with -Wpedantic -Werror: the public headers must pass. */
#include <gpuprim/gpuprim.h>
#include <gpuprim/render.h>
#include <gpuprim/runs.h>
int header_check_c99(void) { return GP_VERSION_NUMBER > 0 && GP_SUCCESS == 0; }
