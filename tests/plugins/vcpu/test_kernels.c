/* The vcpu plugin's kernels extension through the vendor face (kernel_ext.h),
 * as a host other than Backplane would drive it: modules from bytes, the
 * export list, launches with blocks, sticky stream errors and their reset. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backplane/kernel_ext.h"
#include "backplane/status.h"
#include "conformance_kernels.h"
#include "vcpu_fixture.h"

static const BP_KernelExtension *kernels;

static int setup(void **state) {
  vcpu_setup(state);
  BP_PluginExtensionsFn entry;
  void *symbol = dlsym(vcpu.handle, BP_PLUGIN_EXTENSIONS_SYMBOL);
  memcpy(&entry, &symbol, sizeof entry);
  assert_non_null(entry);
  for (const BP_ExtensionBase *ext = entry(); ext; ext = ext->next)
    if (ext->type == BP_EXTENSION_KERNELS)
      kernels = (const BP_KernelExtension *)ext;
  assert_non_null(kernels);
  assert_true(kernels->base.struct_size >= sizeof(BP_KernelExtension));
  return 0;
}

static void *read_file(const char *path, size_t *out_size) {
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  void *bytes = malloc((size_t)size);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, (size_t)size, file), (size_t)size);
  fclose(file);
  *out_size = (size_t)size;
  return bytes;
}

static BP_KernelModule load_from_bytes(void) {
  size_t size = 0;
  void *bytes = read_file(BP_CHECK_KERNELS, &size);
  BP_KernelModule module = NULL;
  assert_int_equal(kernels->module_load_data(vcpu_dev(0), bytes, size,
                                             BP_MODULE_KIND_SHARED_OBJECT,
                                             &module),
                   C_SUCCESS);
  free(bytes); /* the plugin copied them */
  return module;
}

static void module_from_bytes_lists_and_finds_functions(void **state) {
  (void)state;
  BP_KernelModule module = load_from_bytes();
  size_t count = 0;
  assert_int_equal(
      kernels->module_function_names(vcpu_dev(0), module, NULL, 0, &count),
      C_SUCCESS);
  const char *names[32];
  assert_true(count > 0 && count <= 32);
  assert_int_equal(
      kernels->module_function_names(vcpu_dev(0), module, names, 32, &count),
      C_SUCCESS);
  int found = 0;
  for (size_t i = 0; i < count; ++i)
    found += strcmp(names[i], "block_kernel") == 0;
  assert_int_equal(found, 1);
  BP_KernelFunction function = NULL;
  assert_int_equal(kernels->module_get_function(vcpu_dev(0), module,
                                                "missing_kernel", &function),
                   C_FAILED);
  assert_non_null(strstr(kernels->last_error(), "missing_kernel"));
  assert_int_equal(kernels->module_unload(vcpu_dev(0), module), C_SUCCESS);
}

static void bytes_that_are_not_elf_are_refused(void **state) {
  (void)state;
  const char junk[] = "not a shared object";
  BP_KernelModule module = NULL;
  assert_int_equal(kernels->module_load_data(vcpu_dev(0), junk, sizeof junk,
                                             BP_MODULE_KIND_SHARED_OBJECT,
                                             &module),
                   C_ERROR);
  assert_non_null(strstr(kernels->last_error(), "ELF"));
  assert_int_equal(kernels->module_load_data(vcpu_dev(0), junk, sizeof junk,
                                             BP_MODULE_KIND_VENDOR, &module),
                   C_ERROR);
  assert_null(module);
}

static void launch_runs_blocks_and_errors_stick(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  BP_KernelModule module = load_from_bytes();
  BP_KernelFunction blocks = NULL, fail = NULL;
  assert_int_equal(
      kernels->module_get_function(d0, module, "block_kernel", &blocks),
      C_SUCCESS);
  assert_int_equal(
      kernels->module_get_function(d0, module, "fail_kernel", &fail),
      C_SUCCESS);
  C_Stream stream = NULL;
  assert_int_equal(vcpu.table.create_stream(d0, &stream), C_SUCCESS);
  int *seen = NULL;
  assert_int_equal(
      vcpu.table.device_memory_allocate(d0, (void **)&seen, 3 * sizeof(int)),
      C_SUCCESS);
  block_param p = {seen};
  BP_LaunchConfig config = {.struct_size = sizeof config,
                            .timeout_ns = 10000000000ull};
  assert_int_equal(
      kernels->launch(d0, stream, blocks, 3, &p, sizeof p, &config, "Blocks"),
      C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  for (int b = 0; b < 3; ++b)
    assert_int_equal(seen[b], 3000 + b);
  int32_t status = -1;
  char message[256];
  assert_int_equal(
      kernels->stream_error(d0, stream, &status, message, sizeof message),
      C_SUCCESS);
  assert_int_equal(status, BP_OK);

  fail_param bad = {5};
  assert_int_equal(
      kernels->launch(d0, stream, fail, 1, &bad, sizeof bad, NULL, "Failing"),
      C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(
      kernels->stream_error(d0, stream, &status, message, sizeof message),
      C_SUCCESS);
  assert_int_equal(status, BP_ERR_PLUGIN);
  assert_non_null(strstr(message, "op Failing"));
  assert_non_null(strstr(message, "returned 5"));
  assert_int_equal(kernels->stream_reset(d0, stream), C_SUCCESS);
  assert_int_equal(kernels->stream_error(d0, stream, &status, NULL, 0),
                   C_SUCCESS);
  assert_int_equal(status, BP_OK);

  /* A stream of another device is refused at launch. */
  assert_int_equal(
      kernels->launch(vcpu_dev(1), stream, blocks, 1, &p, sizeof p, NULL, NULL),
      C_ERROR);
  assert_int_equal(
      vcpu.table.device_memory_deallocate(d0, seen, 3 * sizeof(int)),
      C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
  assert_int_equal(kernels->module_unload(d0, module), C_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(module_from_bytes_lists_and_finds_functions),
      cmocka_unit_test(bytes_that_are_not_elf_are_refused),
      cmocka_unit_test(launch_runs_blocks_and_errors_stick),
  };
  return cmocka_run_group_tests(tests, setup, vcpu_teardown);
}
