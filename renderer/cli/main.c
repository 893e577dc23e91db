/* placeholder: the renderer CLI is being written */
#include <gpuprim/gpuprim.h>
#include <stdio.h>
int main(void) { printf("gpuprim %s\n", gp_version_string()); return 0; }
