/* The one way a test sets up a runtime: it loads exactly the plugins the test
 * names (nothing from the environment, no built-in plugins), optionally with
 * layers, and fails the test when creation fails. Also the corpus plugin
 * paths (when the test defines BP_CORPUS_DIR) and assertions on messages.
 * Used by tests/core, tests/comm and tests/layers (tests/README.md). */
#ifndef BACKPLANE_TESTS_SUPPORT_RUNTIME_FIXTURE_H_
#define BACKPLANE_TESTS_SUPPORT_RUNTIME_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"

#ifdef BP_CORPUS_DIR
#define STUB_PLUGIN BP_CORPUS_DIR "/libbp_stub.so"
#define BROKEN_PLUGIN(kind) BP_CORPUS_DIR "/libbp_broken_" kind ".so"
#endif

/* Options loading only `plugin_path` (colon list). */
static inline bp_runtime_options_t fixture_options(const char *plugin_path) {
  return (bp_runtime_options_t){
      .struct_size = sizeof(bp_runtime_options_t),
      .plugin_path = plugin_path,
      .ignore_environment = 1,
      .skip_builtin_plugins = 1,
  };
}

/* A runtime loading only `plugin_path`; fails the test if creation fails. */
static inline bp_runtime_t *fixture_runtime(const char *plugin_path) {
  bp_runtime_options_t options = fixture_options(plugin_path);
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  assert_non_null(runtime);
  return runtime;
}

/* The same with `layers` (NULL: from the environment). */
static inline bp_runtime_t *
fixture_layered_runtime(const char *plugin_path,
                        const bp_layer_options_t *layers) {
  bp_runtime_options_t options = fixture_options(plugin_path);
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create_layered(&options, layers, &runtime),
                   BP_OK);
  assert_non_null(runtime);
  return runtime;
}

/* Layer options enabling `layers` with fault rules `fault`, nothing from the
 * environment. */
static inline bp_layer_options_t fixture_layer_options(const char *layers,
                                                       const char *fault) {
  return (bp_layer_options_t){.struct_size = sizeof(bp_layer_options_t),
                              .layers = layers,
                              .fault = fault,
                              .validation_log = "",
                              .validation_abort = 0,
                              .trace_file = ""};
}

static inline bp_layer_stats_t
fixture_layer_stats(const bp_runtime_t *runtime) {
  bp_layer_stats_t stats = {.struct_size = sizeof stats};
  assert_int_equal(bp_runtime_layer_stats(runtime, &stats), BP_OK);
  return stats;
}

/* A runtime over one plugin and its first two devices, as cmocka state. */
typedef struct fixture {
  bp_runtime_t *runtime;
  bp_device_t *dev0;
  bp_device_t *dev1;
} fixture_t;

static inline int fixture_open_two_devices(void **state,
                                           const char *plugin_path) {
  fixture_t *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->runtime = fixture_runtime(plugin_path);
  assert_int_equal(bp_device_at(f->runtime, 0, &f->dev0), BP_OK);
  assert_int_equal(bp_device_at(f->runtime, 1, &f->dev1), BP_OK);
  *state = f;
  return 0;
}

static inline int fixture_close(void **state) {
  fixture_t *f = *state;
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

/* The rejection reason recorded for `path`, or NULL. */
static inline const char *fixture_rejection(const bp_runtime_t *runtime,
                                            const char *path) {
  for (size_t i = 0; i < bp_runtime_rejected_count(runtime); ++i) {
    const char *p, *reason;
    assert_int_equal(bp_runtime_rejected_info(runtime, i, &p, &reason), BP_OK);
    if (strcmp(p, path) == 0)
      return reason;
  }
  return NULL;
}

/* Whether a NULL-terminated name list holds `name`. */
static inline int fixture_lists(const char *const *names, const char *name) {
  for (; *names; ++names)
    if (strcmp(*names, name) == 0)
      return 1;
  return 0;
}

/* Asserts that bp_last_error() contains `needle`. */
#define assert_error_mentions(needle)                                          \
  do {                                                                         \
    if (!strstr(bp_last_error(), (needle)))                                    \
      fail_msg("bp_last_error() \"%s\" does not mention \"%s\"",               \
               bp_last_error(), (needle));                                     \
  } while (0)

#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    const char *h_ = (haystack);                                               \
    if (!h_ || !strstr(h_, (needle)))                                          \
      fail_msg("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)",           \
               (needle));                                                      \
  } while (0)

#endif /* BACKPLANE_TESTS_SUPPORT_RUNTIME_FIXTURE_H_ */
