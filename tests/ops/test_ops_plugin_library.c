/* The op library a plugin names (BP_OpsLibraryExtension): the runtime
 * resolves its path against the plugin's directory, hands out the native
 * stream behind a Backplane stream, and says so clearly for a plugin that
 * names none (vcpu). The corpus plugin libbp_extensions_ops.so names
 * "ops/libexample_ops.so" and hands out each C_Stream itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/backplane.h"
#include "backplane/ops.h"
#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

#define OPS_PLUGIN BP_CORPUS_DIR "/libbp_extensions_ops.so"

static int setup(void **state) {
  *state = fixture_runtime(OPS_PLUGIN ":" BP_VCPU_PLUGIN);
  return 0;
}

static int teardown(void **state) {
  bp_runtime_destroy(*state);
  return 0;
}

static void path_is_resolved_against_the_plugin_directory(void **state) {
  bp_device_t *device;
  assert_int_equal(bp_device_get(*state, "extensions", 0, &device), BP_OK);
  const char *path = bp_ops_library_for_device(device);
  assert_non_null(path);
  assert_string_equal(path, BP_CORPUS_DIR "/ops/libexample_ops.so");
}

static void native_stream_is_the_plugins_answer(void **state) {
  bp_device_t *device;
  bp_stream_t *stream;
  assert_int_equal(bp_device_get(*state, "extensions", 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  void *native = NULL;
  assert_int_equal(bp_ops_native_stream(stream, &native), BP_OK);
  assert_ptr_equal(native, bp_stream_c_handle(stream));
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

static void a_plugin_naming_none_says_so(void **state) {
  bp_device_t *device;
  bp_stream_t *stream;
  assert_int_equal(bp_device_get(*state, "vcpu", 0, &device), BP_OK);
  assert_null(bp_ops_library_for_device(device));
  assert_null(bp_ops_library_for_device(NULL));
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  void *native = (void *)0x1;
  assert_int_equal(bp_ops_native_stream(stream, &native), BP_ERR_UNSUPPORTED);
  assert_error_mentions("the vcpu plugin names no op library");
  assert_ptr_equal(native, (void *)0x1);
  assert_int_equal(bp_ops_native_stream(NULL, &native),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("bp_ops_native_stream: stream is NULL");
  assert_int_equal(bp_ops_native_stream(stream, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(path_is_resolved_against_the_plugin_directory),
      cmocka_unit_test(native_stream_is_the_plugins_answer),
      cmocka_unit_test(a_plugin_naming_none_says_so),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
