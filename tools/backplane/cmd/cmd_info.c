/* `backplane info`: every plugin (ABI, native / fallback / missing functions,
 * extensions), every device (all attributes, memory) and every rejected
 * plugin with its reason. Rejected plugins are reported, not an error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/backplane.h"
#include "backplane/device_layouts.h"
#include "backplane/ops.h"
#include "cli/cli_format.h"
#include "cli/cli_json.h"
#include "cli/cli_options.h"
#include "cli/cli_output.h"
#include "cli/cli_runtime.h"
#include "commands.h"
#include "train/train_device.h"

enum { CELL_SIZE = 44, TABLE_WIDTH = 110, LABEL_WIDTH = 28 };

/* One attribute as text: its value, "unsupported", or "error: ...". */
typedef struct attribute_reading {
  bp_status_t status;
  bp_device_attr_value_t value;
} attribute_reading_t;

static attribute_reading_t read_attribute(bp_device_t *device,
                                          bp_device_attr_t attr) {
  attribute_reading_t reading = {0};
  reading.status = bp_device_attribute(device, attr, &reading.value);
  return reading;
}

static void format_attribute(const attribute_reading_t *reading, char *cell) {
  if (reading->status == BP_ERR_UNSUPPORTED)
    snprintf(cell, CELL_SIZE, "unsupported");
  else if (reading->status != BP_OK)
    snprintf(cell, CELL_SIZE, "error: %s", bp_status_name(reading->status));
  else if (reading->value.kind == BP_DEVICE_ATTR_VALUE_INT)
    snprintf(cell, CELL_SIZE, "%" PRId64, reading->value.i64);
  else
    snprintf(cell, CELL_SIZE, "%.*s", CELL_SIZE - 1, reading->value.str);
}

static json_t *attribute_json(const attribute_reading_t *reading) {
  if (reading->status == BP_ERR_UNSUPPORTED)
    return json_null();
  if (reading->status != BP_OK)
    return json_pack("{s:s}", "error", bp_status_name(reading->status));
  if (reading->value.kind == BP_DEVICE_ATTR_VALUE_INT)
    return json_integer(reading->value.i64);
  return json_string(reading->value.str);
}

/* ---- human output ------------------------------------------------------ */

/* Prints a list of names wrapped under a label, e.g. "native (12) a b c". */
static void print_names(const char *label, const char *const *names) {
  size_t count = 0;
  while (names && names[count])
    count++;
  char head[32];
  snprintf(head, sizeof(head), "%s (%zu)", label, count);
  fprintf(cli_out(), "  %-16s", head);
  size_t column = 18;
  for (size_t i = 0; i < count; i++) {
    size_t len = strlen(names[i]) + 1;
    if (column + len > 80 && column > 18) {
      fprintf(cli_out(), "\n  %-16s", "");
      column = 18;
    }
    fprintf(cli_out(), " %s", names[i]);
    column += len;
  }
  fprintf(cli_out(), "%s\n", count ? "" : " -");
}

static void print_plugins(const bp_runtime_t *runtime) {
  size_t count = bp_runtime_plugin_count(runtime);
  fprintf(cli_out(), "Plugins: %zu loaded, %zu rejected\n", count,
          bp_runtime_rejected_count(runtime));
  for (size_t i = 0; i < count; i++) {
    bp_plugin_info_t info;
    bp_status_t status = bp_runtime_plugin_info(runtime, i, &info);
    if (status != BP_OK) {
      fprintf(cli_out(), "\n  plugin %zu: %s: %s\n", i, bp_status_name(status),
              bp_last_error());
      continue;
    }
    fprintf(cli_out(),
            "\n%s  (sub-type \"%s\", ABI %zu.%zu.%zu, layout %s: interface "
            "%zu B, %zu device%s)\n",
            info.device_type, info.sub_device_type, info.abi_major,
            info.abi_minor, info.abi_patch,
            BP_DeviceLayoutName(BP_DeviceLayoutOfSize(info.interface_size)),
            info.interface_size, info.device_count,
            info.device_count == 1 ? "" : "s");
    fprintf(cli_out(), "  %-16s %s\n", "path", info.path);
    print_names("native", info.native_functions);
    print_names("fallback", info.fallback_functions);
    print_names("missing", info.missing_functions);
    print_names("extensions", info.extensions);
    if (info.collectives)
      fprintf(cli_out(), "  %-16s %s\n", "collectives", info.collectives);
  }
}

/* Rows of the device table: identity, every attribute, then memory. */
enum { ROW_PLUGIN, ROW_INDEX, ROW_FIRST_ATTR };
#define ROW_MEMORY_TOTAL (ROW_FIRST_ATTR + BP_DEVICE_ATTR_COUNT)
#define ROW_MEMORY_FREE (ROW_MEMORY_TOTAL + 1)
#define ROW_OPS (ROW_MEMORY_FREE + 1)
#define ROW_COUNT (ROW_OPS + 1)

static const char *row_label(size_t row) {
  switch (row) {
  case ROW_PLUGIN:
    return "plugin";
  case ROW_INDEX:
    return "index in plugin";
  case ROW_MEMORY_TOTAL:
    return "memory total";
  case ROW_MEMORY_FREE:
    return "memory free";
  case ROW_OPS:
    return "op library";
  default: {
    const char *name =
        bp_device_attribute_name((bp_device_attr_t)(row - ROW_FIRST_ATTR));
    return name ? name : "?";
  }
  }
}

static void fill_memory_cells(bp_device_t *device, char *total, char *free) {
  size_t total_bytes = 0, free_bytes = 0;
  bp_status_t status = bp_device_memory_info(device, &total_bytes, &free_bytes);
  if (status == BP_OK) {
    cli_format_bytes(total_bytes, total, CELL_SIZE);
    cli_format_bytes(free_bytes, free, CELL_SIZE);
  } else {
    const char *text =
        status == BP_ERR_UNSUPPORTED ? "unsupported" : bp_status_name(status);
    snprintf(total, CELL_SIZE, "%s", text);
    snprintf(free, CELL_SIZE, "%s", text);
  }
}

/* Which op library serves the device when train and optest get no --ops:
 * the one its plugin names (its file name), else the reference one where
 * the host addresses its memory, else none. */
static const char *op_library(bp_device_t *device) {
  const char *named = bp_ops_library_for_device(device);
  if (named) {
    const char *slash = strrchr(named, '/');
    return slash ? slash + 1 : named;
  }
  return train_device_host_addressable(device) ? "reference"
                                               : "none (give one with --ops)";
}

static void fill_device_cells(bp_device_t *device, char (*cells)[CELL_SIZE]) {
  snprintf(cells[ROW_PLUGIN], CELL_SIZE, "%s", bp_device_type(device));
  snprintf(cells[ROW_INDEX], CELL_SIZE, "%zu", bp_device_index(device));
  for (int attr = 0; attr < BP_DEVICE_ATTR_COUNT; attr++) {
    attribute_reading_t reading =
        read_attribute(device, (bp_device_attr_t)attr);
    format_attribute(&reading, cells[ROW_FIRST_ATTR + attr]);
  }
  fill_memory_cells(device, cells[ROW_MEMORY_TOTAL], cells[ROW_MEMORY_FREE]);
  snprintf(cells[ROW_OPS], CELL_SIZE, "%s", op_library(device));
}

/* Prints devices [first, last) as columns of the table. */
static void print_device_columns(char (*cells)[ROW_COUNT][CELL_SIZE],
                                 char (*names)[CELL_SIZE], size_t first,
                                 size_t last, int width) {
  fprintf(cli_out(), "  %-*s", LABEL_WIDTH, "attribute");
  for (size_t d = first; d < last; d++)
    fprintf(cli_out(), "  %-*s", d + 1 < last ? width : 0, names[d]);
  fprintf(cli_out(), "\n");
  for (size_t row = 0; row < ROW_COUNT; row++) {
    fprintf(cli_out(), "  %-*s", LABEL_WIDTH, row_label(row));
    for (size_t d = first; d < last; d++)
      fprintf(cli_out(), "  %-*s", d + 1 < last ? width : 0, cells[d][row]);
    fprintf(cli_out(), "\n");
  }
}

static int print_devices(bp_runtime_t *runtime) {
  size_t count = bp_device_count(runtime);
  fprintf(cli_out(), "\nDevices: %zu\n", count);
  if (count == 0)
    return 0;
  char(*cells)[ROW_COUNT][CELL_SIZE] = calloc(count, sizeof(*cells));
  char(*names)[CELL_SIZE] = calloc(count, sizeof(*names));
  if (!cells || !names) {
    free(cells);
    free(names);
    fprintf(stderr, "backplane info: out of memory\n");
    return 1;
  }
  int width = 8;
  for (size_t d = 0; d < count; d++) {
    bp_device_t *device;
    bp_status_t status = bp_device_at(runtime, d, &device);
    if (status != BP_OK) {
      snprintf(names[d], CELL_SIZE, "#%zu", d);
      for (size_t row = 0; row < ROW_COUNT; row++)
        snprintf(cells[d][row], CELL_SIZE, "%s", bp_status_name(status));
    } else {
      snprintf(names[d], CELL_SIZE, "#%zu %s", d, bp_device_name(device));
      fill_device_cells(device, cells[d]);
    }
    for (size_t row = 0; row < ROW_COUNT; row++)
      if ((int)strlen(cells[d][row]) > width)
        width = (int)strlen(cells[d][row]);
    if ((int)strlen(names[d]) > width)
      width = (int)strlen(names[d]);
  }
  size_t per_table = (TABLE_WIDTH - LABEL_WIDTH) / (size_t)(width + 2);
  if (per_table == 0)
    per_table = 1;
  for (size_t first = 0; first < count; first += per_table) {
    size_t last = first + per_table < count ? first + per_table : count;
    if (first)
      fprintf(cli_out(), "\n");
    print_device_columns(cells, names, first, last, width);
  }
  free(cells);
  free(names);
  return 0;
}

/* Each device's canonical target (bp_target_from_device), or why none. */
static json_t *device_target_json(bp_device_t *device) {
  bp_target_t *target;
  char *text = NULL;
  if (bp_target_from_device(device, &target) != BP_OK)
    return json_pack("{s:s}", "error", bp_last_error());
  json_t *json = bp_target_to_json(target, &text) == BP_OK
                     ? json_loads(text, 0, NULL)
                     : NULL;
  free(text);
  bp_target_destroy(target);
  return json;
}

static void print_targets(bp_runtime_t *runtime) {
  fprintf(cli_out(), "\nTargets:\n");
  for (size_t d = 0; d < bp_device_count(runtime); d++) {
    bp_device_t *device;
    if (bp_device_at(runtime, d, &device) != BP_OK)
      continue;
    json_t *json = device_target_json(device);
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    fprintf(cli_out(), "  %-10s %s\n", bp_device_name(device),
            text ? text : "?");
    free(text);
    json_decref(json);
  }
}

static void print_rejected(const bp_runtime_t *runtime) {
  size_t count = bp_runtime_rejected_count(runtime);
  fprintf(cli_out(), "\nRejected plugins: %zu\n", count);
  int width = 4;
  for (size_t i = 0; i < count; i++) {
    const char *path, *reason;
    if (bp_runtime_rejected_info(runtime, i, &path, &reason) == BP_OK &&
        (int)strlen(path) > width)
      width = (int)strlen(path);
  }
  if (count)
    fprintf(cli_out(), "  %-*s  %s\n", width, "path", "reason");
  for (size_t i = 0; i < count; i++) {
    const char *path, *reason;
    if (bp_runtime_rejected_info(runtime, i, &path, &reason) == BP_OK)
      fprintf(cli_out(), "  %-*s  %s\n", width, path, reason);
  }
}

/* ---- JSON output ------------------------------------------------------- */

static json_t *plugin_json(const bp_plugin_info_t *info) {
  char version[64];
  snprintf(version, sizeof(version), "%zu.%zu.%zu", info->abi_major,
           info->abi_minor, info->abi_patch);
  return json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o*, s:o*, s:o*, s:o*, s:s?}",
      "path", info->path, "device_type", info->device_type, "sub_device_type",
      info->sub_device_type, "abi_version", version, "layout",
      BP_DeviceLayoutName(BP_DeviceLayoutOfSize(info->interface_size)),
      "interface_size", (json_int_t)info->interface_size, "device_count",
      (json_int_t)info->device_count, "native_functions",
      cli_json_string_array(info->native_functions), "fallback_functions",
      cli_json_string_array(info->fallback_functions), "missing_functions",
      cli_json_string_array(info->missing_functions), "extensions",
      cli_json_string_array(info->extensions), "collectives",
      info->collectives);
}

static json_t *device_json(bp_device_t *device) {
  json_t *attributes = json_object();
  for (int attr = 0; attr < BP_DEVICE_ATTR_COUNT && attributes; attr++) {
    attribute_reading_t reading =
        read_attribute(device, (bp_device_attr_t)attr);
    json_object_set_new(attributes,
                        bp_device_attribute_name((bp_device_attr_t)attr),
                        attribute_json(&reading));
  }
  size_t total = 0, free_bytes = 0;
  json_t *memory;
  bp_status_t status = bp_device_memory_info(device, &total, &free_bytes);
  if (status == BP_OK)
    memory = json_pack("{s:I, s:I}", "total", (json_int_t)total, "free",
                       (json_int_t)free_bytes);
  else if (status == BP_ERR_UNSUPPORTED)
    memory = json_null();
  else
    memory = json_pack("{s:s}", "error", bp_status_name(status));
  return json_pack(
      "{s:I, s:s, s:s, s:I, s:o*, s:o*, s:o*, s:s}", "ordinal",
      (json_int_t)bp_device_ordinal(device), "name", bp_device_name(device),
      "device_type", bp_device_type(device), "index",
      (json_int_t)bp_device_index(device), "attributes", attributes, "memory",
      memory, "target", device_target_json(device), "op_library",
      op_library(device));
}

static json_t *info_json(bp_runtime_t *runtime) {
  json_t *plugins = json_array(), *devices = json_array(),
         *rejected = json_array();
  for (size_t i = 0; i < bp_runtime_plugin_count(runtime); i++) {
    bp_plugin_info_t info;
    if (bp_runtime_plugin_info(runtime, i, &info) == BP_OK)
      json_array_append_new(plugins, plugin_json(&info));
  }
  for (size_t d = 0; d < bp_device_count(runtime); d++) {
    bp_device_t *device;
    if (bp_device_at(runtime, d, &device) == BP_OK)
      json_array_append_new(devices, device_json(device));
  }
  for (size_t i = 0; i < bp_runtime_rejected_count(runtime); i++) {
    const char *path, *reason;
    if (bp_runtime_rejected_info(runtime, i, &path, &reason) == BP_OK)
      json_array_append_new(
          rejected, json_pack("{s:s, s:s}", "path", path, "reason", reason));
  }
  return json_pack("{s:o*, s:o*, s:o*}", "plugins", plugins, "devices", devices,
                   "rejected", rejected);
}

int cmd_info(int argc, char **argv) {
  cli_options_t options;
  int result = cli_options_parse("info", argc, argv, 0, &options);
  if (result)
    return result;
  bp_runtime_t *runtime;
  if (cli_runtime_open(&options, &runtime) != BP_OK) {
    cli_options_release(&options);
    return 1;
  }
  if (options.json) {
    result = cli_json_print(info_json(runtime)) ? 1 : 0;
  } else {
    print_plugins(runtime);
    result = print_devices(runtime);
    print_targets(runtime);
    print_rejected(runtime);
  }
  bp_runtime_destroy(runtime);
  cli_options_release(&options);
  return result;
}
