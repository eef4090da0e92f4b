/* Which conformance kernels check and bench launch load per device type:
 * the plugins that build source get their own language's file, and that
 * file is in the build beside the backplane executable; the others load
 * the host shared object. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli_kernels.h"

/* lib/backplane/kernels/`name` beside BP_TOOL_PATH (bin/backplane) exists. */
static void assert_beside_the_tool(const char *name) {
  char path[PATH_MAX];
  const char *slash = strrchr(BP_TOOL_PATH, '/');
  assert_non_null(slash);
  snprintf(path, sizeof path, "%.*s/../lib/backplane/kernels/%s",
           (int)(slash - BP_TOOL_PATH), BP_TOOL_PATH, name);
  if (access(path, R_OK) != 0)
    fail_msg("%s is not in the build", path);
}

static void source_building_plugins_get_their_language(void **state) {
  (void)state;
  assert_string_equal(cli_kernels_source("cuda"), "conformance_kernels.cu");
  assert_string_equal(cli_kernels_source("opencl"), "conformance_kernels.cl");
  assert_beside_the_tool("conformance_kernels.cu");
  assert_beside_the_tool("conformance_kernels.cl");
}

static void other_plugins_load_the_shared_object(void **state) {
  (void)state;
  assert_null(cli_kernels_source("vcpu"));
  assert_null(cli_kernels_source("cudax")); /* whole names only */
  assert_null(cli_kernels_source(NULL));
  assert_beside_the_tool("libbackplane_check_kernels.so");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(source_building_plugins_get_their_language),
      cmocka_unit_test(other_plugins_load_the_shared_object),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
