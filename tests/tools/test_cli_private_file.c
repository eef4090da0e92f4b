/* A module a command writes for one run (bench launch's PTX on cuda) goes
 * into a private folder, where the module loader accepts it: the same bytes
 * straight in /tmp are refused (group/others may write there). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli_private_file.h"
#include "support/runtime_fixture.h"

/* The conformance kernel library beside BP_TOOL_PATH, read whole. */
static char *read_kernels(size_t *size) {
  char path[PATH_MAX];
  const char *slash = strrchr(BP_TOOL_PATH, '/');
  assert_non_null(slash);
  snprintf(path, sizeof path,
           "%.*s/../lib/backplane/kernels/libbackplane_check_kernels.so",
           (int)(slash - BP_TOOL_PATH), BP_TOOL_PATH);
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  assert_int_equal(fseek(file, 0, SEEK_END), 0);
  long length = ftell(file);
  assert_true(length > 0);
  rewind(file);
  char *bytes = malloc((size_t)length);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, (size_t)length, file), (size_t)length);
  fclose(file);
  *size = (size_t)length;
  return bytes;
}

static void private_file_is_written_and_removed(void **state) {
  (void)state;
  cli_private_file_t file;
  static const char text[] = "module bytes";
  assert_int_equal(cli_private_file_write(&file, "m.ptx", text, sizeof text),
                   0);
  struct stat st;
  assert_int_equal(stat(file.folder, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  assert_int_equal(st.st_uid, getuid());
  assert_int_equal(stat(file.path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(st.st_size, sizeof text);
  char folder[sizeof file.folder], path[sizeof file.path];
  snprintf(folder, sizeof folder, "%s", file.folder);
  snprintf(path, sizeof path, "%s", file.path);
  cli_private_file_remove(&file);
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_not_equal(access(folder, F_OK), 0);
  cli_private_file_remove(&file); /* twice: nothing */
}

static void loader_takes_the_private_file_not_tmp(void **state) {
  (void)state;
  size_t size = 0;
  char *library = read_kernels(&size);
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &device), BP_OK);

  cli_private_file_t file;
  assert_int_equal(cli_private_file_write(&file, "k.so", library, size), 0);
  bp_module_t *module = NULL;
  if (bp_module_load(device, file.path, &module) != BP_OK)
    fail_msg("%s", bp_last_error());
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(module, "empty_kernel", &function),
                   BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
  cli_private_file_remove(&file);

  /* What bench launch did before: a file of its own straight in /tmp. */
  char in_tmp[] = "/tmp/bp_private_file_XXXXXX.so";
  int fd = mkstemps(in_tmp, 3);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, library, size), (ssize_t)size);
  close(fd);
  module = NULL;
  assert_int_not_equal(bp_module_load(device, in_tmp, &module), BP_OK);
  assert_non_null(strstr(bp_last_error(), "writable by group/others"));
  unlink(in_tmp);

  bp_runtime_destroy(runtime);
  free(library);
}

int main(void) {
  /* The loader's check is what is under test: no override from outside. */
  setenv("BACKPLANE_ALLOW_INSECURE_PLUGINS", "0", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(private_file_is_written_and_removed),
      cmocka_unit_test(loader_takes_the_private_file_not_tmp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
