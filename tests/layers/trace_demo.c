/* The trace demo as a program (for `backplane trace` in the tests and the
 * picture in docs/): the workload of trace_demo_work.h on vcpu, with the
 * layers of the environment (BACKPLANE_LAYERS). Exit 0 on success. */
#include <stdio.h>

#include "trace_demo_work.h"

int main(void) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = BP_VCPU_PLUGIN,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime = NULL;
  bp_status_t status = bp_runtime_create(&options, &runtime);
  if (status == BP_OK)
    status = trace_demo_run(runtime);
  if (status != BP_OK)
    fprintf(stderr, "trace_demo: %s\n", bp_last_error());
  bp_runtime_destroy(runtime);
  return status == BP_OK ? 0 : 1;
}
