/* Runtimes that load only the vcpu plugin, with chosen layer options. */
#ifndef BACKPLANE_TESTS_LAYERS_FIXTURE_H_
#define BACKPLANE_TESTS_LAYERS_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backplane/backplane.h"

/* A vcpu-only runtime with `layers` (NULL: environment); fails the test when
 * creation fails. */
static inline bp_runtime_t *layered_runtime(const bp_layer_options_t *layers) {
  bp_runtime_options_t options = {
      .struct_size = sizeof options,
      .plugin_path = BP_VCPU_PLUGIN,
      .ignore_environment = 1,
      .skip_builtin_plugins = 1,
  };
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create_layered(&options, layers, &runtime),
                   BP_OK);
  assert_non_null(runtime);
  return runtime;
}

/* Options enabling `layers` with fault rules `fault`, nothing from the
 * environment. */
static inline bp_layer_options_t layer_options(const char *layers,
                                               const char *fault) {
  return (bp_layer_options_t){.struct_size = sizeof(bp_layer_options_t),
                              .layers = layers,
                              .fault = fault,
                              .validation_log = "",
                              .validation_abort = 0,
                              .trace_file = ""};
}

static inline bp_layer_stats_t layer_stats(const bp_runtime_t *runtime) {
  bp_layer_stats_t stats = {.struct_size = sizeof stats};
  assert_int_equal(bp_runtime_layer_stats(runtime, &stats), BP_OK);
  return stats;
}

#endif /* BACKPLANE_TESTS_LAYERS_FIXTURE_H_ */
