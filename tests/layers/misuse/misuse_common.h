/* The misuse corpus: each program in this directory commits one misuse of
 * the plugin ABI on the vcpu plugin, calling the runtime's dispatch table the
 * way a framework calls a Paddle plugin. Layers come from the environment
 * (the driver, test_validation_misuse, runs each with and without
 * validation). Exit status 0 means the program ran to its end. */
#ifndef BACKPLANE_TESTS_LAYERS_MISUSE_COMMON_H_
#define BACKPLANE_TESTS_LAYERS_MISUSE_COMMON_H_

#include <stdio.h>
#include <stdlib.h>

#include "backplane/backplane.h"
#include "backplane/vendor_access.h"

typedef struct misuse {
  bp_runtime_t *runtime;
  const C_DeviceInterface *d;
  C_Device dev0, dev1;
} misuse_t;

static inline misuse_t misuse_open(void) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = BP_VCPU_PLUGIN,
                                  .ignore_environment = 1,
                                  .skip_builtin_plugins = 1};
  misuse_t m = {0};
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  if (bp_runtime_create(&options, &m.runtime) != BP_OK ||
      bp_device_at(m.runtime, 0, &dev0) != BP_OK ||
      bp_device_at(m.runtime, 1, &dev1) != BP_OK) {
    fprintf(stderr, "misuse: no vcpu devices: %s\n", bp_last_error());
    exit(2);
  }
  m.d = bp_runtime_plugin_dispatch(m.runtime, 0);
  m.dev0 = bp_device_c_handle(dev0);
  m.dev1 = bp_device_c_handle(dev1);
  return m;
}

static inline int misuse_close(misuse_t *m) {
  bp_runtime_destroy(m->runtime);
  return 0;
}

#endif /* BACKPLANE_TESTS_LAYERS_MISUSE_COMMON_H_ */
