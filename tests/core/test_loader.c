/* The plugin loader: what a good plugin looks like once loaded, and the exact
 * rejection reason for each plugin of the broken corpus while a good plugin
 * still loads beside it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backplane/vendor_access.h"
#include "plugins/corpus/stub_plugin.h"
#include "support/runtime_fixture.h"

static stub_counters_t *stub_counters_of(void *handle) {
  void *symbol = dlsym(handle, "stub_counters");
  assert_non_null(symbol);
  stub_counters_fn fn;
  memcpy(&fn, &symbol, sizeof fn);
  return fn();
}

static void good_plugin_info(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  assert_int_equal(bp_runtime_rejected_count(runtime), 0);
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.path, STUB_PLUGIN);
  assert_string_equal(info.device_type, "stub");
  assert_string_equal(info.sub_device_type, "v0");
  assert_int_equal(info.abi_major, 0);
  assert_int_equal(info.abi_minor, 1);
  assert_int_equal(info.abi_patch, 1);
  assert_int_equal(info.interface_size, 912);
  assert_int_equal(info.device_count, 2);
  assert_true(fixture_lists(info.native_functions, "memory_copy_h2d"));
  assert_true(fixture_lists(info.native_functions, "create_stream"));
  assert_false(fixture_lists(info.native_functions, "query_event"));
  const char *fallbacks[] = {
      "synchronize_stream",    "query_stream",          "query_event",
      "stream_wait_event",     "stream_add_callback",   "async_memory_copy_h2d",
      "async_memory_copy_d2h", "async_memory_copy_d2d", "memory_copy_p2p",
      "async_memory_copy_p2p", "device_memory_set"};
  for (size_t i = 0; i < sizeof fallbacks / sizeof *fallbacks; ++i) {
    if (!fixture_lists(info.fallback_functions, fallbacks[i]))
      fail_msg("%s is not listed as a fallback", fallbacks[i]);
  }
  assert_false(fixture_lists(info.fallback_functions, "create_stream"));
  assert_true(fixture_lists(info.missing_functions, "unified_memory_allocate"));
  assert_true(fixture_lists(info.missing_functions, "xccl_all_reduce"));
  assert_true(fixture_lists(info.missing_functions, "get_driver_version"));
  /* The unknown extension is skipped; the truncated timing one ignored. */
  assert_string_equal(info.extensions[0], "device_attributes");
  assert_null(info.extensions[1]);
  assert_int_equal(bp_runtime_plugin_info(runtime, 1, &info), BP_ERR_NOT_FOUND);
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  bp_runtime_destroy(runtime);
}

static void dispatch_table_has_fallbacks(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  const C_DeviceInterface *dispatch = bp_runtime_plugin_dispatch(runtime, 0);
  assert_non_null(dispatch);
  assert_int_equal(dispatch->size, sizeof(C_DeviceInterface));
  assert_non_null(dispatch->async_memory_copy_h2d);
  assert_non_null(dispatch->device_memory_set);
  assert_non_null(dispatch->query_event);
  assert_null(dispatch->unified_memory_allocate);
  assert_null(dispatch->xccl_all_reduce);
  assert_null(bp_runtime_plugin_dispatch(runtime, 1));
  assert_null(bp_runtime_plugin_dispatch(NULL, 0));
  bp_runtime_destroy(runtime);
}

static void lifecycle_calls(void **state) {
  (void)state;
  /* Our own reference keeps the stub's counters alive across dlclose. */
  void *handle = dlopen(STUB_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(handle);
  stub_counters_t *counters = stub_counters_of(handle);
  size_t initialize = counters->initialize, finalize = counters->finalize;
  size_t init_device = counters->init_device;
  size_t deinit_device = counters->deinit_device;
  bp_runtime_t *runtime = fixture_runtime(STUB_PLUGIN);
  assert_int_equal(counters->initialize, initialize + 1);
  /* init_device is lazy: nothing used yet. */
  assert_int_equal(counters->init_device, init_device);
  bp_device_t *device;
  assert_int_equal(bp_device_get(runtime, "stub", 1, &device), BP_OK);
  assert_int_equal(bp_device_synchronize(device), BP_OK);
  assert_int_equal(bp_device_synchronize(device), BP_OK);
  assert_int_equal(counters->init_device, init_device + 1);
  /* init_device rewrote the logical id 1 to the physical 101. */
  assert_int_equal(bp_device_c_handle(device)->id, 101);
  bp_runtime_destroy(runtime);
  assert_int_equal(counters->finalize, finalize + 1);
  assert_int_equal(counters->deinit_device, deinit_device + 1);
  dlclose(handle);
}

typedef struct corpus_case {
  const char *path;
  const char *reason; /* a substring the reason must contain */
} corpus_case_t;

static void broken_corpus(void **state) {
  (void)state;
  const corpus_case_t cases[] = {
      {BROKEN_PLUGIN("no_init_plugin"), "no InitPlugin symbol"},
      {BROKEN_PLUGIN("null_device_type"),
       "InitPlugin left device_type NULL for every known layout"},
      {BROKEN_PLUGIN("missing_required"),
       "required function synchronize_device is not set"},
      {BROKEN_PLUGIN("initialize_fails"), "initialize returned "
                                          "C_INTERNAL_ERROR"},
      {BROKEN_PLUGIN("interface_size"),
       "C_DeviceInterface is 1040 bytes, Backplane expects 912"},
      {BROKEN_PLUGIN("unresolved_symbol"), "dlopen failed: "},
      {BROKEN_PLUGIN("unresolved_symbol"),
       "backplane_corpus_symbol_nobody_defines"},
      {BROKEN_PLUGIN("duplicate_type"), "device type \"stub\" of " BP_CORPUS_DIR
                                        "/libbp_broken_duplicate_type.so is "
                                        "already provided by " STUB_PLUGIN},
      {BROKEN_PLUGIN("zero_devices"), "get_device_count reported 0 devices"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s:%s", STUB_PLUGIN, cases[i].path);
    bp_runtime_t *runtime = fixture_runtime(path);
    assert_int_equal(bp_runtime_plugin_count(runtime), 1);
    bp_plugin_info_t info;
    assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
    assert_string_equal(info.device_type, "stub");
    assert_int_equal(bp_runtime_rejected_count(runtime), 1);
    assert_contains(fixture_rejection(runtime, cases[i].path), cases[i].reason);
    assert_int_equal(bp_device_count(runtime), 2);
    bp_runtime_destroy(runtime);
  }
}

static void rejected_info_arguments(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BROKEN_PLUGIN("zero_devices"));
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  assert_int_equal(bp_runtime_rejected_count(runtime), 1);
  const char *path, *reason;
  assert_int_equal(bp_runtime_rejected_info(runtime, 1, &path, &reason),
                   BP_ERR_NOT_FOUND);
  assert_int_equal(bp_runtime_rejected_info(runtime, 0, NULL, &reason),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_runtime_rejected_count(NULL), 0);
  assert_int_equal(bp_runtime_plugin_count(NULL), 0);
  bp_runtime_destroy(runtime);
  bp_runtime_destroy(NULL);
}

static void missing_file_is_rejected(void **state) {
  (void)state;
  bp_runtime_t *runtime =
      fixture_runtime(BP_CORPUS_DIR "/libdoes_not_exist.so:" STUB_PLUGIN);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  assert_contains(
      fixture_rejection(runtime, BP_CORPUS_DIR "/libdoes_not_exist.so"),
      "cannot open: No such file or directory");
  bp_runtime_destroy(runtime);
}

static void same_file_loads_once(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(
      STUB_PLUGIN ":" BP_CORPUS_DIR "/./libbp_stub.so:" STUB_PLUGIN);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  assert_int_equal(bp_runtime_rejected_count(runtime), 0);
  bp_runtime_destroy(runtime);
}

/* A private directory holding a copy of the stub. */
static void make_plugin_dir(char *dir, size_t size, char *file,
                            size_t file_size) {
  snprintf(dir, size, "/tmp/bp-core-test-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(file, file_size, "%s/libcopied_stub.so", dir);
  FILE *in = fopen(STUB_PLUGIN, "rb");
  FILE *out = fopen(file, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
    assert_int_equal(fwrite(buffer, 1, n, out), n);
  fclose(in);
  fclose(out);
  assert_int_equal(chmod(file, 0644), 0);
}

static void remove_plugin_dir(const char *dir, const char *file) {
  unlink(file);
  rmdir(dir);
}

static void insecure_plugins_are_refused(void **state) {
  (void)state;
  char dir[64], file[128];
  make_plugin_dir(dir, sizeof dir, file, sizeof file);
  assert_int_equal(chmod(file, 0666), 0);
  bp_runtime_t *runtime = fixture_runtime(dir);
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  assert_contains(fixture_rejection(runtime, file),
                  "plugin file is writable by group/others (mode 0666)");
  bp_runtime_destroy(runtime);

  assert_int_equal(chmod(file, 0644), 0);
  assert_int_equal(chmod(dir, 0777), 0);
  runtime = fixture_runtime(dir);
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  assert_contains(fixture_rejection(runtime, file), "plugin directory");
  assert_contains(fixture_rejection(runtime, file),
                  "writable by group/others (mode 0777)");
  bp_runtime_destroy(runtime);

  setenv("BACKPLANE_ALLOW_INSECURE_PLUGINS", "1", 1);
  runtime = fixture_runtime(dir);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_runtime_destroy(runtime);
  setenv("BACKPLANE_ALLOW_INSECURE_PLUGINS", "0", 1);

  assert_int_equal(chmod(dir, 0700), 0);
  runtime = fixture_runtime(dir);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_runtime_destroy(runtime);
  remove_plugin_dir(dir, file);
}

static bp_runtime_t *environment_runtime(int ignore_environment) {
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .ignore_environment = ignore_environment,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  return runtime;
}

static void environment_search(void **state) {
  (void)state;
  setenv("BACKPLANE_PLUGIN_PATH", "/nonexistent-dir:" STUB_PLUGIN, 1);
  bp_runtime_t *runtime = environment_runtime(0);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_runtime_destroy(runtime);
  runtime = environment_runtime(1);
  assert_int_equal(bp_runtime_plugin_count(runtime), 0);
  bp_runtime_destroy(runtime);
  unsetenv("BACKPLANE_PLUGIN_PATH");

  char dir[64], file[128];
  make_plugin_dir(dir, sizeof dir, file, sizeof file);
  setenv("CUSTOM_DEVICE_ROOT", dir, 1);
  runtime = environment_runtime(0);
  assert_int_equal(bp_runtime_plugin_count(runtime), 1);
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.path, file);
  bp_runtime_destroy(runtime);
  unsetenv("CUSTOM_DEVICE_ROOT");
  remove_plugin_dir(dir, file);
}

static void search_order_first_wins(void **state) {
  (void)state;
  /* options->plugin_path comes before BACKPLANE_PLUGIN_PATH: the duplicate
   * device type found later is the one rejected. */
  setenv("BACKPLANE_PLUGIN_PATH", BROKEN_PLUGIN("duplicate_type"), 1);
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .plugin_path = STUB_PLUGIN,
                                  .skip_builtin_plugins = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.path, STUB_PLUGIN);
  assert_non_null(fixture_rejection(runtime, BROKEN_PLUGIN("duplicate_type")));
  bp_runtime_destroy(runtime);
  unsetenv("BACKPLANE_PLUGIN_PATH");
}

static void builtin_directory(void **state) {
  (void)state;
#ifdef BP_VCPU_PLUGIN
  bp_runtime_options_t options = {.struct_size = sizeof options,
                                  .ignore_environment = 1};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  int found = 0;
  for (size_t i = 0; i < bp_runtime_plugin_count(runtime); ++i) {
    bp_plugin_info_t info;
    assert_int_equal(bp_runtime_plugin_info(runtime, i, &info), BP_OK);
    if (strcmp(info.device_type, "vcpu") == 0) {
      found = 1;
      assert_contains(info.path, "/backplane/plugins/libbackplane_vcpu.so");
    }
  }
  assert_true(found);
  bp_runtime_destroy(runtime);
#else
  skip();
#endif
}

static void bad_options(void **state) {
  (void)state;
  bp_runtime_options_t options = {.struct_size = 0};
  bp_runtime_t *runtime = NULL;
  assert_int_equal(bp_runtime_create(&options, &runtime),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(runtime);
  assert_error_mentions("struct_size");
  assert_int_equal(bp_runtime_create(NULL, NULL), BP_ERR_INVALID_ARGUMENT);
  /* A caller built against an older, shorter options struct: the fields it
   * does not have read as zero. */
  options = (bp_runtime_options_t){
      .struct_size = offsetof(bp_runtime_options_t, ignore_environment),
      .plugin_path = STUB_PLUGIN,
      .ignore_environment = 1,
      .skip_builtin_plugins = 1};
  unsetenv("BACKPLANE_PLUGIN_PATH");
  unsetenv("CUSTOM_DEVICE_ROOT");
  assert_int_equal(bp_runtime_create(&options, &runtime), BP_OK);
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(runtime, 0, &info), BP_OK);
  assert_string_equal(info.device_type, "stub");
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(good_plugin_info),
      cmocka_unit_test(dispatch_table_has_fallbacks),
      cmocka_unit_test(lifecycle_calls),
      cmocka_unit_test(broken_corpus),
      cmocka_unit_test(rejected_info_arguments),
      cmocka_unit_test(missing_file_is_rejected),
      cmocka_unit_test(same_file_loads_once),
      cmocka_unit_test(insecure_plugins_are_refused),
      cmocka_unit_test(environment_search),
      cmocka_unit_test(search_order_first_wins),
      cmocka_unit_test(builtin_directory),
      cmocka_unit_test(bad_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
