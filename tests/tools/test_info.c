/* `backplane help`, usage errors and `backplane info`, run as a program. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tool_runner.h"

static void test_help_lists_commands(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"help", NULL}, NULL, &run), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "  info "));
  assert_non_null(strstr(run.out, "  check "));
  assert_non_null(strstr(run.out, "  bench "));
  tool_run_release(&run);
}

static void test_usage_errors_exit_2(void **state) {
  (void)state;
  const char *const *const cases[] = {
      (const char *[]){NULL},
      (const char *[]){"no-such-command", NULL},
      (const char *[]){"info", "--no-such-option", NULL},
      (const char *[]){"info", "--plugin-path", NULL},
      (const char *[]){"info", "stray", NULL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    tool_run_t run;
    assert_int_equal(tool_run(cases[i], NULL, &run), 0);
    assert_int_equal(run.exit_code, 2);
    assert_int_equal(run.out_size, 0);
    tool_run_release(&run);
  }
}

static json_t *find_by(json_t *array, const char *key, const char *value) {
  size_t i;
  json_t *item;
  json_array_foreach(array, i, item) {
    json_t *field = json_object_get(item, key);
    if (json_is_string(field) && !strcmp(json_string_value(field), value))
      return item;
  }
  return NULL;
}

/* Rejected entries other than the built-in plugins (BP_BUILTIN_PLUGIN_DIR)
 * whose hardware this machine lacks: the cuda plugin without a GPU is
 * rejected by design, and each such entry must say why. */
static size_t rejected_besides_missing_hardware(json_t *rejected) {
  const char *builtin = BP_BUILTIN_PLUGIN_DIR "/";
  size_t i, count = 0;
  json_t *entry;
  json_array_foreach(rejected, i, entry) {
    const char *path = json_string_value(json_object_get(entry, "path"));
    const char *reason = json_string_value(json_object_get(entry, "reason"));
    assert_non_null(path);
    if (strncmp(path, builtin, strlen(builtin)) == 0 && reason &&
        strstr(reason, "no CUDA device: "))
      continue;
    count++;
  }
  return count;
}

static void test_info_json_lists_vcpu_and_rejected(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"info", "--json", NULL},
                            BP_BROKEN_PLUGIN, &run),
                   0);
  assert_int_equal(run.exit_code, 0);
  json_error_t error;
  json_t *root = json_loads(run.out, 0, &error);
  assert_non_null(root);

  json_t *vcpu =
      find_by(json_object_get(root, "plugins"), "device_type", "vcpu");
  assert_non_null(vcpu);
  assert_int_equal(json_integer_value(json_object_get(vcpu, "device_count")),
                   2);
  assert_int_equal(json_integer_value(json_object_get(vcpu, "interface_size")),
                   912);
  assert_string_equal(json_string_value(json_object_get(vcpu, "abi_version")),
                      "0.1.1");
  assert_true(json_array_size(json_object_get(vcpu, "native_functions")) > 0);
  assert_true(json_is_array(json_object_get(vcpu, "fallback_functions")));
  assert_true(json_is_array(json_object_get(vcpu, "missing_functions")));
  assert_true(json_is_array(json_object_get(vcpu, "extensions")));

  json_t *devices = json_object_get(root, "devices");
  size_t i, vcpu_devices = 0;
  json_t *device;
  json_array_foreach(devices, i, device) {
    const char *type =
        json_string_value(json_object_get(device, "device_type"));
    if (!type || strcmp(type, "vcpu"))
      continue;
    vcpu_devices++;
    json_t *attributes = json_object_get(device, "attributes");
    assert_int_equal(json_object_size(attributes), 17);
    assert_int_equal(json_integer_value(json_object_get(attributes, "exist")),
                     1);
    json_t *memory = json_object_get(device, "memory");
    assert_true(json_integer_value(json_object_get(memory, "total")) > 0);
  }
  assert_int_equal(vcpu_devices, 2);

  json_t *rejected = json_object_get(root, "rejected");
  assert_int_equal(rejected_besides_missing_hardware(rejected), 1);
  json_t *entry = find_by(rejected, "path", BP_BROKEN_PLUGIN);
  assert_non_null(entry);
  assert_true(strlen(json_string_value(json_object_get(entry, "reason"))) > 0);
  json_decref(root);
  tool_run_release(&run);
}

/* The built-in plugins rejected for missing hardware, from `info --json`. */
static size_t rejected_for_missing_hardware(void) {
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"info", "--json", NULL}, NULL, &run), 0);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  json_t *rejected = json_object_get(root, "rejected");
  size_t count =
      json_array_size(rejected) - rejected_besides_missing_hardware(rejected);
  json_decref(root);
  tool_run_release(&run);
  return count;
}

static void test_info_table_shows_rejected(void **state) {
  (void)state;
  char heading[64];
  snprintf(heading, sizeof heading, "Rejected plugins: %zu\n",
           1 + rejected_for_missing_hardware());
  tool_run_t run;
  assert_int_equal(
      tool_run((const char *[]){"info", NULL}, BP_BROKEN_PLUGIN, &run), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, heading));
  assert_non_null(strstr(run.out, BP_BROKEN_PLUGIN));
  assert_non_null(strstr(run.out, "vcpu:1"));
  assert_non_null(strstr(run.out, "unsupported"));
  tool_run_release(&run);
}

static void test_plugin_path_option_adds_a_plugin(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"info", "--json", "--plugin-path",
                                             BP_STUB_PLUGIN, NULL},
                            NULL, &run),
                   0);
  assert_int_equal(run.exit_code, 0);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  json_t *plugins = json_object_get(root, "plugins");
  json_t *stub = find_by(plugins, "device_type", "stub");
  assert_non_null(stub);
  assert_string_equal(json_string_value(json_object_get(stub, "path")),
                      BP_STUB_PLUGIN);
  assert_true(json_array_size(json_object_get(stub, "fallback_functions")) > 0);
  assert_non_null(find_by(plugins, "device_type", "vcpu"));
  assert_int_equal(
      rejected_besides_missing_hardware(json_object_get(root, "rejected")), 0);
  json_decref(root);
  tool_run_release(&run);
}

/* The names in a JSON array of strings, joined by spaces. */
static void join_names(json_t *array, char *out, size_t capacity) {
  size_t i, used = 0;
  json_t *name;
  out[0] = '\0';
  json_array_foreach(array, i, name) {
    assert_true(json_is_string(name));
    used += (size_t)snprintf(out + used, capacity - used, "%s%s",
                             used ? " " : "", json_string_value(name));
    assert_true(used < capacity);
  }
}

/* Every extension a plugin exports shows, comm and target_kind included
 * (issue: only device_attributes and event_timing did). */
static void test_info_lists_every_extension(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"info", "--json", NULL},
                            BP_EXTENSIONS_PLUGIN, &run),
                   0);
  assert_int_equal(run.exit_code, 0);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  json_t *plugins = json_object_get(root, "plugins");
  char names[256];
  json_t *ext = find_by(plugins, "device_type", "extensions");
  assert_non_null(ext);
  join_names(json_object_get(ext, "extensions"), names, sizeof names);
  assert_string_equal(names, "comm target_kind");
  json_t *vcpu = find_by(plugins, "device_type", "vcpu");
  assert_non_null(vcpu);
  join_names(json_object_get(vcpu, "extensions"), names, sizeof names);
  assert_string_equal(
      names, "device_attributes event_timing comm kernels stream_inline");
  json_decref(root);
  tool_run_release(&run);

  assert_int_equal(
      tool_run((const char *[]){"info", NULL}, BP_EXTENSIONS_PLUGIN, &run), 0);
  assert_int_equal(run.exit_code, 0);
  assert_non_null(strstr(run.out, "extensions (2)   comm target_kind\n"));
  assert_non_null(strstr(
      run.out, "extensions (5)   device_attributes event_timing comm kernels "
               "stream_inline\n"));
  tool_run_release(&run);
}

/* The op library serving each device: the one a plugin names (its file
 * name), else the reference library for host-addressable memory. */
static void test_info_shows_the_op_library_a_plugin_names(void **state) {
  (void)state;
  tool_run_t run;
  assert_int_equal(tool_run((const char *[]){"info", "--json", NULL},
                            BP_EXTENSIONS_OPS_PLUGIN, &run),
                   0);
  assert_int_equal(run.exit_code, 0);
  json_t *root = json_loads(run.out, 0, NULL);
  assert_non_null(root);
  json_t *devices = json_object_get(root, "devices");
  json_t *ext = find_by(devices, "name", "extensions:0");
  json_t *vcpu = find_by(devices, "name", "vcpu:0");
  assert_non_null(ext);
  assert_non_null(vcpu);
  assert_string_equal(json_string_value(json_object_get(ext, "op_library")),
                      "libexample_ops.so");
  assert_string_equal(json_string_value(json_object_get(vcpu, "op_library")),
                      "reference");
  json_decref(root);
  tool_run_release(&run);
}

/* A FIFO named as a plugin (directly, or inside a searched directory) is
 * refused without being opened: opening a FIFO with no writer blocks for
 * ever. The directory is private (mkdtemp), so no permission refusal comes
 * first. */
static void test_fifo_plugin_is_refused_not_opened(void **state) {
  (void)state;
  char dir[] = "/tmp/bp-info-fifo-XXXXXX", fifo[64];
  assert_non_null(mkdtemp(dir));
  snprintf(fifo, sizeof fifo, "%s/libfifo.so", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  const char *given[] = {fifo, dir};
  for (size_t i = 0; i < 2; i++) {
    tool_run_t run;
    assert_int_equal(
        tool_run_within(
            (const char *[]){"info", "--json", "--plugin-path", given[i], NULL},
            NULL, 20, &run),
        0);
    assert_false(run.timed_out);
    assert_int_equal(run.exit_code, 0);
    json_t *root = json_loads(run.out, 0, NULL);
    assert_non_null(root);
    json_t *rejected = find_by(json_object_get(root, "rejected"), "path", fifo);
    if (i == 0) { /* named: refused, saying why */
      assert_non_null(rejected);
      assert_non_null(
          strstr(json_string_value(json_object_get(rejected, "reason")),
                 "not a regular file"));
    } else { /* in a directory: not a candidate at all */
      assert_null(rejected);
    }
    json_decref(root);
    tool_run_release(&run);
  }
  unlink(fifo);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help_lists_commands),
      cmocka_unit_test(test_usage_errors_exit_2),
      cmocka_unit_test(test_info_json_lists_vcpu_and_rejected),
      cmocka_unit_test(test_info_table_shows_rejected),
      cmocka_unit_test(test_plugin_path_option_adds_a_plugin),
      cmocka_unit_test(test_info_lists_every_extension),
      cmocka_unit_test(test_info_shows_the_op_library_a_plugin_names),
      cmocka_unit_test(test_fifo_plugin_is_refused_not_opened),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
