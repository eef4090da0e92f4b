#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device_layouts.h"
#include "backplane/vendor_access.h"
#include "base/log.h"
#include "base/status.h"
#include "core/device_table.h"
#include "core/loader.h"
#include "core/memory_history_note.h"
#include "core/plugin_search.h"
#include "core/runtime_internal.h"
#include "core/stream_internal.h"

bp_status_t bp_runtime_reject(bp_runtime_t *runtime, const char *path,
                              const char *format, ...) {
  bp_rejection_t *rejected =
      realloc(runtime->rejected,
              (runtime->rejected_count + 1) * sizeof *runtime->rejected);
  if (!rejected)
    return BP_ERR_OUT_OF_MEMORY;
  runtime->rejected = rejected;
  char reason[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(reason, sizeof reason, format, args);
  va_end(args);
  bp_rejection_t entry = {strdup(path), strdup(reason)};
  if (!entry.path || !entry.reason) {
    free(entry.path);
    free(entry.reason);
    return BP_ERR_OUT_OF_MEMORY;
  }
  runtime->rejected[runtime->rejected_count++] = entry;
  /* Info, not a warning: a built-in plugin without its hardware (CUDA on a
   * machine with no GPU) is rejected on every run. */
  bp_log(BP_LOG_INFO, "plugins", "rejected %s: %s", path, reason);
  return BP_OK;
}

bp_plugin_t *bp_runtime_find_plugin(const bp_runtime_t *runtime,
                                    const char *device_type) {
  for (size_t i = 0; i < runtime->plugin_count; ++i) {
    if (strcmp(runtime->plugins[i]->device_type, device_type) == 0)
      return runtime->plugins[i];
  }
  return NULL;
}

/* Reads only the option fields `struct_size` covers. */
static bp_status_t read_options(const bp_runtime_options_t *options,
                                bp_runtime_options_t *out) {
  *out = (bp_runtime_options_t){.struct_size = sizeof *out};
  if (!options)
    return BP_OK;
  if (options->struct_size < sizeof options->struct_size)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create: options->struct_size is %zu; set it "
                    "to sizeof(bp_runtime_options_t)",
                    options->struct_size);
  size_t n =
      options->struct_size < sizeof *out ? options->struct_size : sizeof *out;
  memcpy(out, options, n);
  if (out->in_process_plugin_count && !out->in_process_plugins)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create: in_process_plugin_count is %zu but "
                    "in_process_plugins is NULL",
                    out->in_process_plugin_count);
  return BP_OK;
}

/* The device selection: the option, else BACKPLANE_VISIBLE_DEVICES unless
 * the environment is ignored (core/visible_devices.h). */
static bp_status_t read_visible_devices(const bp_runtime_options_t *opts,
                                        bp_visible_devices_t *out) {
  if (opts->visible_devices)
    return bp_visible_devices_parse(
        opts->visible_devices, "bp_runtime_options_t.visible_devices", out);
  return bp_visible_devices_parse(
      opts->ignore_environment ? NULL
                               : secure_getenv("BACKPLANE_VISIBLE_DEVICES"),
      "BACKPLANE_VISIBLE_DEVICES", out);
}

BP_API bp_status_t bp_runtime_create_layered(
    const bp_runtime_options_t *options, const bp_layer_options_t *layers,
    bp_runtime_t **out_runtime) {
  if (!out_runtime)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create: out_runtime is NULL");
  if (layers && layers->struct_size < sizeof(bp_layer_options_t))
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_create_layered: layers->struct_size is %zu; "
                    "set it to sizeof(bp_layer_options_t)",
                    layers->struct_size);
  bp_runtime_options_t opts;
  bp_status_t status = read_options(options, &opts);
  if (status != BP_OK)
    return status;
  bp_runtime_t *runtime = calloc(1, sizeof *runtime);
  if (!runtime)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_runtime_create: out of memory");
  runtime->check_ranges = !opts.skip_range_checks;
  bp_handle_pool_init(&runtime->stream_handles, sizeof(bp_stream_t));
  bp_handle_pool_init(&runtime->event_handles, sizeof(bp_event_t));
  bp_retired_init(&runtime->retired);
  status = bp_runtime_layers_open(layers, &runtime->layers);
  if (status != BP_OK) {
    bp_handle_pool_release(&runtime->stream_handles);
    bp_handle_pool_release(&runtime->event_handles);
    bp_retired_release(&runtime->retired);
    free(runtime);
    char why[1024];
    snprintf(why, sizeof why, "%s", bp_last_error());
    return bp_error(status, "bp_runtime_create: %s", why);
  }
  if ((status = read_visible_devices(&opts, &runtime->visible)) != BP_OK) {
    bp_runtime_destroy(runtime);
    return status;
  }
  bp_plugin_candidates_t candidates = {0};
  status = bp_plugin_search(runtime, &opts, &candidates);
  for (size_t i = 0; status == BP_OK && i < candidates.count; ++i)
    status = bp_plugin_load(runtime, candidates.paths[i]);
  bp_plugin_candidates_release(&candidates);
  for (size_t i = 0; status == BP_OK && i < opts.in_process_plugin_count; ++i)
    status = bp_plugin_load_in_process(runtime, &opts.in_process_plugins[i]);
  if (status != BP_OK) {
    bp_runtime_destroy(runtime);
    return bp_error(status, "bp_runtime_create: out of memory while loading "
                            "plugins");
  }
  if ((status = bp_visible_devices_check(&runtime->visible)) != BP_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", bp_last_error());
    bp_runtime_destroy(runtime);
    return bp_error(status, "%s", why);
  }
  bp_runtime_order_devices(runtime, &runtime->visible);
  bp_visible_devices_release(&runtime->visible);
  if ((status = bp_memory_history_open(runtime, !opts.ignore_environment)) !=
      BP_OK) {
    char why[1024];
    snprintf(why, sizeof why, "%s", bp_last_error());
    bp_runtime_destroy(runtime);
    return bp_error(status, "%s", why);
  }
  *out_runtime = runtime;
  return BP_OK;
}

BP_API bp_status_t bp_runtime_create(const bp_runtime_options_t *options,
                                     bp_runtime_t **out_runtime) {
  return bp_runtime_create_layered(options, NULL, out_runtime);
}

BP_API void bp_runtime_destroy(bp_runtime_t *runtime) {
  if (!runtime)
    return;
  /* Frees pending on a peer device's stream hold that device's events: take
   * them back before any device goes. They complete once every device has
   * drained (a peer's stream may be the one holding them, with or without
   * an allocator of its own), so drain them all first. */
  for (size_t i = 0; i < runtime->plugin_count; ++i)
    for (size_t d = 0; d < runtime->plugins[i]->device_count; ++d) {
      bp_device_t *device = &runtime->plugins[i]->devices[d];
      if (atomic_load(&device->ready) && bp_device_enter(device) == BP_OK)
        device->plugin->dispatch.synchronize_device(&device->c_device);
    }
  for (size_t i = 0; i < runtime->plugin_count; ++i)
    for (size_t d = 0; d < runtime->plugins[i]->device_count; ++d)
      bp_caching_allocator_process_events(
          bp_device_allocator_if_created(&runtime->plugins[i]->devices[d]));
  bp_memory_history_close(runtime);
  for (size_t i = runtime->plugin_count; i-- > 0;)
    bp_plugin_unload(runtime->plugins[i]);
  bp_runtime_layers_close(&runtime->layers);
  for (size_t i = 0; i < runtime->rejected_count; ++i) {
    free(runtime->rejected[i].path);
    free(runtime->rejected[i].reason);
  }
  free(runtime->rejected);
  bp_visible_devices_release(&runtime->visible);
  free(runtime->plugins);
  free(runtime->devices);
  bp_handle_pool_release(&runtime->stream_handles);
  bp_handle_pool_release(&runtime->event_handles);
  bp_retired_release(&runtime->retired);
  free(runtime);
}

BP_API size_t bp_runtime_plugin_count(const bp_runtime_t *runtime) {
  return runtime ? runtime->plugin_count : 0;
}

/* The comm extension's description, read only if the plugin's struct has
 * the field (it was appended). */
static const char *comm_description(const BP_CommExtension *comm) {
  size_t end = offsetof(BP_CommExtension, description) + sizeof(const char *);
  return comm && comm->base.struct_size >= end ? comm->description : NULL;
}

BP_API bp_status_t bp_runtime_plugin_info(const bp_runtime_t *runtime,
                                          size_t index,
                                          bp_plugin_info_t *out_info) {
  if (!runtime || !out_info)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_plugin_info: runtime or out_info is NULL");
  if (index >= runtime->plugin_count)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_runtime_plugin_info: plugin %zu of %zu", index,
                    runtime->plugin_count);
  const bp_plugin_t *plugin = runtime->plugins[index];
  *out_info = (bp_plugin_info_t){
      .path = plugin->path,
      .device_type = plugin->device_type,
      .sub_device_type = plugin->sub_device_type,
      .abi_major = plugin->version.major,
      .abi_minor = plugin->version.minor,
      .abi_patch = plugin->version.patch,
      .interface_size = BP_DeviceLayoutInterfaceSize(plugin->layout),
      .device_count = plugin->device_count,
      .native_functions = plugin->native_functions,
      .fallback_functions = plugin->fallback_functions,
      .missing_functions = plugin->missing_functions,
      .extensions = plugin->extensions.names,
      .collectives = comm_description(plugin->extensions.comm),
  };
  return BP_OK;
}

BP_API size_t bp_runtime_rejected_count(const bp_runtime_t *runtime) {
  return runtime ? runtime->rejected_count : 0;
}

BP_API bp_status_t bp_runtime_rejected_info(const bp_runtime_t *runtime,
                                            size_t index, const char **out_path,
                                            const char **out_reason) {
  if (!runtime || !out_path || !out_reason)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_rejected_info: runtime, out_path or "
                    "out_reason is NULL");
  if (index >= runtime->rejected_count)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_runtime_rejected_info: rejection %zu of %zu", index,
                    runtime->rejected_count);
  *out_path = runtime->rejected[index].path;
  *out_reason = runtime->rejected[index].reason;
  return BP_OK;
}

BP_API const C_DeviceInterface *
bp_runtime_plugin_dispatch(const bp_runtime_t *runtime, size_t index) {
  if (!runtime || index >= runtime->plugin_count)
    return NULL;
  return &runtime->plugins[index]->dispatch;
}
