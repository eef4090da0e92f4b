/* Modules: shared objects and seed-004 manifests, good and malformed,
 * through the public API. Manifests are written into a private temporary
 * folder next to a copy of the test kernel library. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance_kernels.h"
#include "kernel_fixture.h"

typedef struct folder {
  kernel_fixture_t *f;
  char dir[64];
  char path[256];
} folder_t;

static folder_t g_folder;

static const char *in_dir(const char *name) {
  snprintf(g_folder.path, sizeof g_folder.path, "%s/%s", g_folder.dir, name);
  return g_folder.path;
}

static void write_file(const char *name, const char *text, mode_t mode) {
  FILE *file = fopen(in_dir(name), "wb");
  assert_non_null(file);
  fputs(text, file);
  fclose(file);
  assert_int_equal(chmod(in_dir(name), mode), 0);
}

static void copy_library(const char *name) {
  FILE *in = fopen(BP_TEST_KERNELS, "rb");
  FILE *out = fopen(in_dir(name), "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, in)) > 0)
    assert_int_equal(fwrite(buffer, 1, n, out), n);
  fclose(in);
  fclose(out);
  assert_int_equal(chmod(in_dir(name), 0755), 0);
}

static int open_folder(void **state) {
  kernel_fixture_open(state);
  strcpy(g_folder.dir, "/tmp/bp_kernel_test_XXXXXX");
  assert_non_null(mkdtemp(g_folder.dir));
  assert_int_equal(mkdir(in_dir("sub"), 0700), 0);
  copy_library("sub/libk.so");
  copy_library("outside.so");
  return 0;
}

static int close_folder(void **state) {
  char command[128];
  snprintf(command, sizeof command, "rm -rf %s", g_folder.dir);
  assert_int_equal(system(command), 0);
  return kernel_fixture_close(state);
}

static void shared_object_lists_and_finds_its_functions(void **state) {
  kernel_fixture_t *f = *state;
  size_t count = bp_module_function_count(f->module);
  assert_true(count >= 8);
  int found_empty = 0;
  for (size_t i = 0; i < count; ++i)
    found_empty += strcmp(bp_function_name(bp_module_function_at(f->module, i)),
                          "empty_kernel") == 0;
  assert_int_equal(found_empty, 1);
  assert_null(bp_module_function_at(f->module, count));
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(f->module, "no_such_kernel", &function),
                   BP_ERR_NOT_FOUND);
  assert_non_null(strstr(bp_last_error(), "no_such_kernel"));
  assert_null(function);
}

static const char *two_ops =
    "{\"CustomSend\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
    "\"kernelSo\": \"libk.so\", \"functionName\": \"append_kernel\"}},"
    " \"CustomNop\": {\"opInfo\": {\"opKernelLib\": \"CUSTAICPUKernel\", "
    "\"kernelSo\": \"libk.so\", \"functionName\": \"empty_kernel\", "
    "\"computeCost\": 100}}}";

static void manifest_ops_are_found_by_op_and_function_name(void **state) {
  kernel_fixture_t *f = *state;
  write_file("sub/ops.json", two_ops, 0644);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/ops.json"), &module),
                   BP_OK);
  assert_int_equal(bp_module_function_count(module), 2);
  assert_string_equal(bp_function_op(bp_module_function_at(module, 0)),
                      "CustomSend");
  assert_string_equal(bp_function_name(bp_module_function_at(module, 1)),
                      "empty_kernel");
  bp_function_t *by_op = NULL, *by_name = NULL;
  assert_int_equal(bp_module_function(module, "CustomNop", &by_op), BP_OK);
  assert_int_equal(bp_module_function(module, "empty_kernel", &by_name), BP_OK);
  assert_ptr_equal(by_op, by_name);
  assert_int_equal(bp_launch(by_op, 2, NULL, 0, NULL, f->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

/* Loads `text` as sub/bad.json and checks the status and that the message
 * names the file and contains each of the `words`. */
static void expect_rejected(kernel_fixture_t *f, const char *text,
                            bp_status_t status, const char *word1,
                            const char *word2) {
  write_file("sub/bad.json", text, 0644);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/bad.json"), &module),
                   status);
  assert_null(module);
  const char *message = bp_last_error();
  assert_non_null(strstr(message, "bad.json"));
  if (!strstr(message, word1) || (word2 && !strstr(message, word2)))
    fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", message, word1,
             word2 ? word2 : "");
}

#define OP(lib, so, fn)                                                        \
  "{\"Op\": {\"opInfo\": {\"opKernelLib\": \"" lib "\", \"kernelSo\": \"" so   \
  "\", \"functionName\": \"" fn "\"}}}"

/* "<name>": {"opInfo": ...} running `fn` from libk.so. */
#define OP_ENTRY(name, fn)                                                     \
  "\"" name "\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "             \
  "\"kernelSo\": \"libk.so\", \"functionName\": \"" fn "\"}}"

static void malformed_manifests_are_rejected_with_reasons(void **state) {
  kernel_fixture_t *f = *state;
  expect_rejected(f, "{\"Op\": ", BP_ERR_INVALID_ARGUMENT, "not JSON", NULL);
  expect_rejected(f, "[1, 2]", BP_ERR_INVALID_ARGUMENT, "object", NULL);
  expect_rejected(f, "{}", BP_ERR_INVALID_ARGUMENT, "no op", NULL);
  expect_rejected(f, "{\"Op\": {}}", BP_ERR_INVALID_ARGUMENT, "\"Op\"",
                  "opInfo");
  expect_rejected(f,
                  "{\"Op\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
                  "\"functionName\": \"f\"}}}",
                  BP_ERR_INVALID_ARGUMENT, "\"Op\"", "kernelSo");
  expect_rejected(f, OP("AICPUKernel", "libk.so", ""), BP_ERR_INVALID_ARGUMENT,
                  "\"Op\"", "functionName");
  expect_rejected(f, OP("TFKernel", "libk.so", "empty_kernel"),
                  BP_ERR_INVALID_ARGUMENT, "\"Op\"", "unknown opKernelLib");
  expect_rejected(f, OP("AICPUKernel", "missing.so", "empty_kernel"),
                  BP_ERR_NOT_FOUND, "\"Op\"", "missing.so");
  expect_rejected(f, OP("AICPUKernel", "libk.so", "no_such_symbol"),
                  BP_ERR_NOT_FOUND, "\"Op\"", "no_such_symbol");
  expect_rejected(f, OP("AICPUKernel", "../outside.so", "empty_kernel"),
                  BP_ERR_INVALID_ARGUMENT, "\"Op\"", "leaves");
  expect_rejected(f, OP("AICPUKernel", "/lib/x.so", "empty_kernel"),
                  BP_ERR_INVALID_ARGUMENT, "\"Op\"", "leaves");
  expect_rejected(f, "", BP_ERR_INVALID_ARGUMENT, "empty", NULL);
  /* Strict JSON throughout, as a full parser would judge it. */
  expect_rejected(f, OP("AICPUKernel", "libk.so", "empty_kernel") " x",
                  BP_ERR_INVALID_ARGUMENT, "not JSON", "end of file expected");
  expect_rejected(f, "{" OP_ENTRY("Op", "empty_kernel") ",}",
                  BP_ERR_INVALID_ARGUMENT, "not JSON", "value expected");
  expect_rejected(f, OP("AICPUKernel", "libk.so", "empty\\u0000kernel"),
                  BP_ERR_INVALID_ARGUMENT, "not JSON", "\\u0000");
  expect_rejected(f, "{\"O\xff\": {}}", BP_ERR_INVALID_ARGUMENT, "not JSON",
                  "UTF-8");
  expect_rejected(f, "{\"Op\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
                  BP_ERR_INVALID_ARGUMENT, "not JSON", "line 1");
  expect_rejected(f,
                  "{\"Op\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
                  "\"kernelSo\": \"libk.so\", \"kernelSo\": \"libk.so\", "
                  "\"functionName\": \"empty_kernel\"}}}",
                  BP_ERR_INVALID_ARGUMENT, "not JSON", "duplicate object key");
  expect_rejected(
      f,
      "{" OP_ENTRY("Op", "empty_kernel") ", " OP_ENTRY(
          "Other", "empty_kernel") ", " OP_ENTRY("Op", "fail_kernel") "}",
      BP_ERR_INVALID_ARGUMENT, "\"Op\" is listed twice", NULL);
}

static void symlink_out_of_the_folder_is_refused(void **state) {
  kernel_fixture_t *f = *state;
  char target[256];
  snprintf(target, sizeof target, "%s/outside.so", g_folder.dir);
  assert_int_equal(symlink(target, in_dir("sub/link.so")), 0);
  expect_rejected(f, OP("AICPUKernel", "link.so", "empty_kernel"),
                  BP_ERR_INVALID_ARGUMENT, "\"Op\"", "outside");
}

static void outside_paths_load_when_allowed(void **state) {
  kernel_fixture_t *f = *state;
  write_file("sub/up.json", OP("AICPUKernel", "../outside.so", "empty_kernel"),
             0644);
  bp_module_options_t options = {.allow_outside_manifest_folder = 1};
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load_with_options(f->dev0, in_dir("sub/up.json"),
                                               &options, &module),
                   BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void oversized_and_writable_files_are_refused(void **state) {
  kernel_fixture_t *f = *state;
  int fd = open(in_dir("sub/huge.json"), O_CREAT | O_WRONLY, 0644);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, 100 << 20), 0); /* 100 MB, sparse */
  close(fd);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/huge.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "cap"));
  write_file("sub/open.json", two_ops, 0666);
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/open.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "refused"));
  assert_int_equal(chmod(in_dir("sub/libk.so"), 0775), 0);
  write_file("sub/ops.json", two_ops, 0644);
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/ops.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "CustomSend"));
  assert_null(module);
}

/* The number of times `word` occurs in `text`. */
static int occurrences(const char *text, const char *word) {
  int n = 0;
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
    ++n;
  return n;
}

static void refusals_say_once_what_the_file_is(void **state) {
  kernel_fixture_t *f = *state;
  bp_module_t *module = NULL;
  write_file("sub/open.json", two_ops, 0666);
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/open.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  const char *message = bp_last_error();
  if (occurrences(message, "refused") != 1 ||
      !strstr(message, "refused: manifest file is writable") ||
      strstr(message, "plugin"))
    fail_msg("manifest refusal: \"%s\"", message);

  assert_int_equal(chmod(in_dir("sub/libk.so"), 0775), 0);
  write_file("sub/ops.json", two_ops, 0644);
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/ops.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  message = bp_last_error();
  if (occurrences(message, "refused") != 1 ||
      !strstr(message, "refused: kernel library file is writable") ||
      strstr(message, "plugin"))
    fail_msg("kernel library refusal (manifest): \"%s\"", message);

  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/libk.so"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  message = bp_last_error();
  if (occurrences(message, "refused") != 1 ||
      !strstr(message, "refused: kernel library file is writable") ||
      strstr(message, "plugin"))
    fail_msg("kernel library refusal: \"%s\"", message);
  assert_null(module);
}

/* Loads `name` (relative) from inside the folder `dir`, then returns to the
 * previous working folder. */
static bp_status_t load_from_inside(kernel_fixture_t *f, const char *dir,
                                    const char *name, bp_module_t **module) {
  char here[4096];
  assert_non_null(getcwd(here, sizeof here));
  assert_int_equal(chdir(dir), 0);
  bp_status_t status = bp_module_load(f->dev0, name, module);
  assert_int_equal(chdir(here), 0);
  return status;
}

static void bare_names_load_from_the_working_folder(void **state) {
  kernel_fixture_t *f = *state;
  write_file("sub/kernels.json", two_ops, 0644);
  char sub[256];
  snprintf(sub, sizeof sub, "%s/sub", g_folder.dir);
  const char *names[] = {"kernels.json", "libk.so", "./kernels.json",
                         "sub/kernels.json"};
  const char *dirs[] = {sub, sub, sub, g_folder.dir};
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    bp_module_t *module = NULL;
    if (load_from_inside(f, dirs[i], names[i], &module) != BP_OK)
      fail_msg("%s from %s: %s", names[i], dirs[i], bp_last_error());
    /* Found and launched after the working folder changed back. */
    bp_function_t *nop = NULL;
    assert_int_equal(bp_module_function(module, "empty_kernel", &nop), BP_OK);
    assert_int_equal(bp_launch(nop, 1, NULL, 0, NULL, f->stream), BP_OK);
    assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
    assert_int_equal(bp_module_unload(module), BP_OK);
  }
  /* The manifest's folder, not the working one, anchors kernelSo. */
  bp_module_t *module = NULL;
  assert_int_equal(
      load_from_inside(f, g_folder.dir, "sub/kernels.json", &module), BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

enum { MANY_OPS = 10000 };

static const char *const many_functions[] = {"empty_kernel", "append_kernel",
                                             "block_kernel", "fail_kernel"};

/* sub/many.json: ops "Op0" .. "Op<MANY_OPS-1>", op i running
 * many_functions[i % 4]; returns its size in bytes. */
static size_t write_many_ops(void) {
  FILE *file = fopen(in_dir("sub/many.json"), "wb");
  assert_non_null(file);
  fputc('{', file);
  for (int i = 0; i < MANY_OPS; ++i)
    fprintf(file,
            "%s\"Op%d\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "
            "\"kernelSo\": \"libk.so\", \"functionName\": \"%s\"}}",
            i ? ",\n" : "", i, many_functions[i % 4]);
  fputc('}', file);
  long size = ftell(file);
  fclose(file);
  assert_int_equal(chmod(in_dir("sub/many.json"), 0644), 0);
  return (size_t)size;
}

static void every_op_of_a_large_manifest_is_found(void **state) {
  kernel_fixture_t *f = *state;
  size_t size = write_many_ops();
  assert_true(size > BP_MANIFEST_MAX_BYTES); /* past the default cap */
  bp_module_t *module = NULL;
  bp_module_options_t options = {.max_manifest_bytes = 4u << 20};
  assert_int_equal(bp_module_load_with_options(f->dev0, in_dir("sub/many.json"),
                                               &options, &module),
                   BP_OK);
  assert_int_equal(bp_module_function_count(module), MANY_OPS);
  for (int i = 0; i < MANY_OPS; ++i) {
    char op[32];
    snprintf(op, sizeof op, "Op%d", i);
    bp_function_t *function = NULL;
    assert_int_equal(bp_module_function(module, op, &function), BP_OK);
    assert_ptr_equal(function, bp_module_function_at(module, (size_t)i));
    assert_string_equal(bp_function_op(function), op);
    assert_string_equal(bp_function_name(function), many_functions[i % 4]);
  }
  /* A function name finds the first op that runs it. */
  for (int i = 0; i < 4; ++i) {
    bp_function_t *function = NULL;
    assert_int_equal(bp_module_function(module, many_functions[i], &function),
                     BP_OK);
    assert_ptr_equal(function, bp_module_function_at(module, (size_t)i));
  }
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(module, "Op10000", &function),
                   BP_ERR_NOT_FOUND);
  assert_null(function);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void manifest_cap_is_an_option(void **state) {
  kernel_fixture_t *f = *state;
  size_t size = write_many_ops();
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/many.json"), &module),
                   BP_ERR_INVALID_ARGUMENT);
  const char *message = bp_last_error();
  if (!strstr(message, "1048576-byte cap") ||
      !strstr(message, "max_manifest_bytes"))
    fail_msg("default cap: \"%s\"", message);
  bp_module_options_t options = {.max_manifest_bytes = size - 1};
  assert_int_equal(bp_module_load_with_options(f->dev0, in_dir("sub/many.json"),
                                               &options, &module),
                   BP_ERR_INVALID_ARGUMENT);
  char cap[64];
  snprintf(cap, sizeof cap, "%zu-byte cap", size - 1);
  if (!strstr(bp_last_error(), cap))
    fail_msg("cap of %zu: \"%s\"", size - 1, bp_last_error());
  options.max_manifest_bytes = size;
  assert_int_equal(bp_module_load_with_options(f->dev0, in_dir("sub/many.json"),
                                               &options, &module),
                   BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
  /* Small manifests load with the default cap, and with a NULL option set. */
  write_file("sub/ops.json", two_ops, 0644);
  assert_int_equal(bp_module_load_with_options(f->dev0, in_dir("sub/ops.json"),
                                               NULL, &module),
                   BP_OK);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void not_found_names_the_nearest_ops(void **state) {
  kernel_fixture_t *f = *state;
#define NOP(name)                                                              \
  "\"" name "\": {\"opInfo\": {\"opKernelLib\": \"AICPUKernel\", "             \
  "\"kernelSo\": \"libk.so\", \"functionName\": \"empty_kernel\"}}"
  write_file("sub/near.json",
             "{" NOP("Relu") "," NOP("MatMulV2") "," NOP("Conv2D") "," NOP(
                 "MatMul") "," NOP("Add") "," NOP("Softmax") "," NOP("Sub") "}",
             0644);
#undef NOP
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/near.json"), &module),
                   BP_OK);
  bp_function_t *function = NULL;
  assert_int_equal(bp_module_function(module, "MatMull", &function),
                   BP_ERR_NOT_FOUND);
  const char *message = bp_last_error();
  /* distance 1, then 2, then the rest: five names at most */
  if (!strstr(message, "\"MatMull\"") || !strstr(message, "lists 7") ||
      !strstr(message, "nearest: \"MatMul\", \"MatMulV2\", ") ||
      occurrences(message, "\"") != 2 + 5 * 2)
    fail_msg("not found: \"%s\"", message);
  assert_null(function);
  assert_int_equal(bp_module_unload(module), BP_OK);
}

static void unload_leaves_a_failed_launch_on_its_stream(void **state) {
  kernel_fixture_t *f = *state;
  write_file("sub/ops.json", OP("AICPUKernel", "libk.so", "fail_kernel"), 0644);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/ops.json"), &module),
                   BP_OK);
  bp_function_t *fail = NULL;
  assert_int_equal(bp_module_function(module, "Op", &fail), BP_OK);
  fail_param code = {7};
  assert_int_equal(bp_launch(fail, 1, &code, sizeof code, NULL, f->stream),
                   BP_OK);
  /* The drain succeeds: the failure is the stream's, not the unload's. */
  assert_int_equal(bp_module_unload(module), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "fail_kernel"));
  assert_int_equal(bp_stream_query(f->stream), BP_ERR_PLUGIN); /* sticky */
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
}

static void missing_files_are_not_found(void **state) {
  kernel_fixture_t *f = *state;
  const char *missing[] = {"sub/nothing_here.so", "sub/nothing_here.json"};
  for (size_t i = 0; i < 2; ++i) {
    bp_module_t *module = NULL;
    assert_int_equal(bp_module_load(f->dev0, in_dir(missing[i]), &module),
                     BP_ERR_NOT_FOUND);
    assert_null(module);
    assert_non_null(strstr(bp_last_error(), "nothing_here"));
  }
}

static void unload_drains_pending_launches(void **state) {
  kernel_fixture_t *f = *state;
  write_file("sub/ops.json", two_ops, 0644);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(f->dev0, in_dir("sub/ops.json"), &module),
                   BP_OK);
  bp_function_t *append = NULL;
  assert_int_equal(bp_module_function(module, "CustomSend", &append), BP_OK);
  int *log = kernel_fixture_zeroed(f, 64 * sizeof(int));
  for (int i = 0; i < 32; ++i) {
    struct {
      int *log, *position;
      int value;
    } p = {log + 1, log, i};
    assert_int_equal(bp_launch(append, 1, &p, sizeof p, NULL, f->stream),
                     BP_OK);
  }
  assert_int_equal(bp_module_unload(module), BP_OK);
  assert_int_equal(log[0], 32); /* every launch ran before the unload */
  bp_device_free(f->dev0, log);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, open_folder, close_folder)
  const struct CMUnitTest tests[] = {
      T(shared_object_lists_and_finds_its_functions),
      T(manifest_ops_are_found_by_op_and_function_name),
      T(malformed_manifests_are_rejected_with_reasons),
      T(symlink_out_of_the_folder_is_refused),
      T(outside_paths_load_when_allowed),
      T(oversized_and_writable_files_are_refused),
      T(missing_files_are_not_found),
      T(refusals_say_once_what_the_file_is),
      T(bare_names_load_from_the_working_folder),
      T(every_op_of_a_large_manifest_is_found),
      T(manifest_cap_is_an_option),
      T(not_found_names_the_nearest_ops),
      T(unload_leaves_a_failed_launch_on_its_stream),
      T(unload_drains_pending_launches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
