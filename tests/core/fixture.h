/* Shared helpers for the core tests: runtimes that load exactly the plugins a
 * test names, and where the test plugins live. */
#ifndef BACKPLANE_TESTS_CORE_FIXTURE_H_
#define BACKPLANE_TESTS_CORE_FIXTURE_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"

#define STUB_PLUGIN BP_CORPUS_DIR "/libbp_stub.so"
#define BROKEN_PLUGIN(kind) BP_CORPUS_DIR "/libbp_broken_" kind ".so"

/* A runtime loading only `plugin_path` (colon list); fails the test if
 * creation fails. */
static inline bp_runtime_t *fixture_runtime(const char *plugin_path) {
  bp_runtime_options_t options = {
      .struct_size = sizeof options,
      .plugin_path = plugin_path,
      .ignore_environment = 1,
      .skip_builtin_plugins = 1,
  };
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  assert_non_null(runtime);
  return runtime;
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

#endif /* BACKPLANE_TESTS_CORE_FIXTURE_H_ */
