/* DIOPI's own proto/include/diopi/functions.h and Backplane's in one
 * translation unit: a declaration that differs in any type (const-ness
 * included) is a conflicting redeclaration, so this compiles only while
 * every op Backplane declares matches upstream. Upstream's header reaches
 * Backplane's diopirt.h through <diopi/diopirt.h>, as an op library written
 * against DIOPI does. Compiled as C11 and as C++17 by
 * diopi_upstream_headers.sh. */
#include DIOPI_UPSTREAM_FUNCTIONS_H
#include "backplane/diopi/functions.h"

int main(void) {
  return 0;
}
