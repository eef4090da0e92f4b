/* Device checks: enumeration (the plugin's own count and list agree with the
 * runtime's devices, handles and DLPack round-trip) and attributes (each one
 * answers a value or "unsupported", never a made-up zero). */
#include <string.h>

#include "check.h"
#include "check_report.h"

/* Checks the plugin's get_device_count / get_device_list directly. */
static int check_plugin_list(check_ctx_t *ctx) {
  const C_DeviceInterface *dispatch = ctx->dispatch;
  size_t count = 0;
  if (!dispatch || !dispatch->get_device_count || !dispatch->get_device_list)
    return 0;
  C_Status c_status = dispatch->get_device_count(&count);
  if (c_status != C_SUCCESS || count != ctx->device_count) {
    check_fail(ctx, "devices.enumeration",
               "get_device_count gives %zu (status %d); the runtime has %zu",
               count, (int)c_status, ctx->device_count);
    return -1;
  }
  size_t list[256];
  if (count > sizeof(list) / sizeof(list[0]))
    return 0;
  memset(list, 0xff, sizeof(list));
  c_status = dispatch->get_device_list(list);
  for (size_t i = 0; c_status == C_SUCCESS && i < count; i++) {
    if (list[i] != i) {
      check_fail(ctx, "devices.enumeration",
                 "get_device_list()[%zu] is %zu; devices must be numbered "
                 "0..count-1",
                 i, list[i]);
      return -1;
    }
  }
  if (c_status != C_SUCCESS) {
    check_fail(ctx, "devices.enumeration", "get_device_list returned %d",
               (int)c_status);
    return -1;
  }
  return 0;
}

/* Checks the runtime's view of device `i`. */
static int check_device_handle(check_ctx_t *ctx, size_t i) {
  bp_device_t *device = ctx->devices[i];
  const char *type = ctx->info.device_type;
  char expected_name[256];
  snprintf(expected_name, sizeof(expected_name), "%s:%zu", type, i);
  if (bp_device_index(device) != i || strcmp(bp_device_type(device), type) ||
      strcmp(bp_device_name(device), expected_name)) {
    check_fail(ctx, "devices.enumeration",
               "device %zu of %s calls itself %s (index %zu, type %s)", i, type,
               bp_device_name(device), bp_device_index(device),
               bp_device_type(device));
    return -1;
  }
  bp_device_t *by_ordinal = NULL, *from_dl = NULL;
  bp_status_t status =
      bp_device_at(ctx->runtime, bp_device_ordinal(device), &by_ordinal);
  if (status != BP_OK || by_ordinal != device) {
    check_fail(ctx, "devices.enumeration",
               "bp_device_at(%zu) does not give %s back (%s)",
               bp_device_ordinal(device), expected_name,
               bp_status_name(status));
    return -1;
  }
  DLDevice dl = bp_device_to_dl(device);
  status = bp_device_from_dl(ctx->runtime, dl, &from_dl);
  if (status != BP_OK || from_dl != device) {
    check_fail(ctx, "devices.enumeration",
               "DLDevice {%d, %d} of %s does not map back (%s)",
               (int)dl.device_type, (int)dl.device_id, expected_name,
               bp_status_name(status));
    return -1;
  }
  if (bp_device_c_handle(device) == NULL) {
    check_fail(ctx, "devices.enumeration", "%s has no C_Device handle",
               expected_name);
    return -1;
  }
  return 0;
}

void check_devices(check_ctx_t *ctx) {
  if (check_plugin_list(ctx))
    return;
  for (size_t i = 0; i < ctx->device_count; i++)
    if (check_device_handle(ctx, i))
      return;
  bp_device_t *beyond = NULL;
  bp_status_t status = bp_device_get(ctx->runtime, ctx->info.device_type,
                                     ctx->device_count, &beyond);
  if (status != BP_ERR_NOT_FOUND) {
    check_fail(ctx, "devices.enumeration",
               "bp_device_get(%s, %zu) gives %s; expected BP_ERR_NOT_FOUND",
               ctx->info.device_type, ctx->device_count,
               bp_status_name(status));
    return;
  }
  check_pass(ctx, "devices.enumeration",
             "%zu device%s numbered 0..%zu; names, ordinals and DLPack agree",
             ctx->device_count, ctx->device_count == 1 ? "" : "s",
             ctx->device_count - 1);
}

/* Attributes for which 0 (or an empty string) cannot be a true answer: a
 * plugin that does not know them must say unsupported. */
static int zero_is_a_lie(bp_device_attr_t attr) {
  switch (attr) {
  case BP_DEVICE_ATTR_EXIST:
  case BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK:
  case BP_DEVICE_ATTR_WARP_SIZE:
  case BP_DEVICE_ATTR_DEVICE_NAME:
  case BP_DEVICE_ATTR_MAX_CLOCK_RATE:
  case BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT:
  case BP_DEVICE_ATTR_MAX_THREAD_DIMENSIONS:
  case BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY:
    return 1;
  default:
    return 0;
  }
}

/* Checks one attribute of one device; counts supported ones. */
static int check_attribute(check_ctx_t *ctx, bp_device_t *device,
                           bp_device_attr_t attr, size_t *supported) {
  const char *attr_name = bp_device_attribute_name(attr);
  bp_device_attr_value_t value;
  memset(&value, 0x5a, sizeof(value));
  bp_status_t status = bp_device_attribute(device, attr, &value);
  if (status == BP_ERR_UNSUPPORTED)
    return 0;
  if (status != BP_OK) {
    check_fail(ctx, "devices.attributes",
               "%s %s: %s: %s; expected a value or BP_ERR_UNSUPPORTED",
               bp_device_name(device), attr_name, bp_status_name(status),
               bp_last_error());
    return -1;
  }
  if (value.kind != BP_DEVICE_ATTR_VALUE_INT &&
      value.kind != BP_DEVICE_ATTR_VALUE_STRING) {
    check_fail(ctx, "devices.attributes",
               "%s %s: BP_OK with value kind %d; unsupported must be "
               "BP_ERR_UNSUPPORTED",
               bp_device_name(device), attr_name, (int)value.kind);
    return -1;
  }
  if (value.kind == BP_DEVICE_ATTR_VALUE_STRING &&
      memchr(value.str, '\0', sizeof(value.str)) == NULL) {
    check_fail(ctx, "devices.attributes", "%s %s: string not terminated",
               bp_device_name(device), attr_name);
    return -1;
  }
  int empty = value.kind == BP_DEVICE_ATTR_VALUE_INT ? value.i64 == 0
                                                     : value.str[0] == '\0';
  if (empty && zero_is_a_lie(attr)) {
    check_fail(ctx, "devices.attributes",
               "%s %s is %s; a device that cannot tell must answer "
               "unsupported",
               bp_device_name(device), attr_name,
               value.kind == BP_DEVICE_ATTR_VALUE_INT ? "0" : "empty");
    return -1;
  }
  (*supported)++;
  return 0;
}

void check_attributes(check_ctx_t *ctx) {
  size_t supported = 0;
  for (size_t d = 0; d < ctx->device_count; d++)
    for (int attr = 0; attr < BP_DEVICE_ATTR_COUNT; attr++)
      if (check_attribute(ctx, ctx->devices[d], (bp_device_attr_t)attr,
                          &supported))
        return;
  check_pass(ctx, "devices.attributes",
             "%zu of %d attributes answered per device, the rest unsupported",
             supported / ctx->device_count, (int)BP_DEVICE_ATTR_COUNT);
  size_t total = 0, free_bytes = 0;
  for (size_t d = 0; d < ctx->device_count; d++) {
    bp_status_t status =
        bp_device_memory_info(ctx->devices[d], &total, &free_bytes);
    if (status == BP_ERR_UNSUPPORTED) {
      check_skip(ctx, "devices.memory_info", "%s: unsupported",
                 bp_device_name(ctx->devices[d]));
      return;
    }
    if (status != BP_OK) {
      check_fail_call(ctx, "devices.memory_info", "bp_device_memory_info",
                      status);
      return;
    }
    if (total == 0 || free_bytes > total) {
      check_fail(ctx, "devices.memory_info",
                 "%s: total %zu, free %zu; expected total > 0, free <= total",
                 bp_device_name(ctx->devices[d]), total, free_bytes);
      return;
    }
  }
  check_pass(ctx, "devices.memory_info", "total > 0 and free <= total");
}
