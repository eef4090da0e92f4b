/* The validation layer's life cycle, its report channel and the leak report
 * at unload. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/device.h"
#include "base/status.h"
#include "layers/validation/validation_internal.h"

/* The runtime's settings, read once. */
typedef struct validation_settings {
  char *log_path; /* NULL: stderr */
  bool abort_on_report;
} validation_settings_t;

static void validation_close(void *shared) {
  validation_settings_t *settings = shared;
  free(settings->log_path);
  free(settings);
}

static bp_status_t validation_open(const bp_layer_options_t *options,
                                   void **out_shared) {
  validation_settings_t *settings = calloc(1, sizeof *settings);
  if (settings && options->validation_log)
    settings->log_path = strdup(options->validation_log);
  if (!settings || (options->validation_log && !settings->log_path)) {
    free(settings);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "validation layer: out of memory");
  }
  settings->abort_on_report = options->validation_abort > 0;
  *out_shared = settings;
  return BP_OK;
}

/* A framework-face call the core refused as misuse: one line naming it. */
static void validation_refused(void *context, bp_device_t *device,
                               const char *name, const char *message) {
  bp_validation_layer_t *layer = context;
  pthread_mutex_lock(&layer->lock);
  bp_validation_report(layer, name, (C_Device)(void *)device, "%s (refused)",
                       message);
  pthread_mutex_unlock(&layer->lock);
}

/* Opens the log (appended to; BP_ERR_INVALID_ARGUMENT if it cannot be),
 * then installs the intercepts. */
static bp_status_t validation_attach(void *shared, bp_plugin_t *plugin,
                                     C_DeviceInterface *table,
                                     bp_observer_t *observer,
                                     void **out_context) {
  const validation_settings_t *settings = shared;
  const char *log_path = settings->log_path;
  bp_validation_layer_t *layer = calloc(1, sizeof *layer);
  if (!layer)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "validation layer: out of memory");
  layer->log = stderr;
  if (log_path) {
    layer->log = fopen(log_path, "a");
    if (!layer->log) {
      int error = errno;
      free(layer);
      return bp_error(BP_ERR_INVALID_ARGUMENT,
                      "BACKPLANE_VALIDATION_LOG: cannot open \"%s\": %s",
                      log_path, strerror(error));
    }
    layer->close_log = true;
  }
  layer->abort_on_report = settings->abort_on_report;
  layer->plugin = plugin;
  pthread_mutex_init(&layer->lock, NULL);
  bp_validation_layer_install(layer, table);
  observer->refused = validation_refused;
  observer->module_unloading = bp_validation_module_unloading;
  observer->refused_context = layer;
  *out_context = layer;
  return BP_OK;
}

static void validation_destroy_context(void *context) {
  bp_validation_layer_t *layer = context;
  if (layer->close_log)
    fclose(layer->log);
  bp_object_set_release(&layer->live);
  bp_object_set_release(&layer->dead);
  bp_pointer_map_release(&layer->function_modules);
  bp_pointer_map_release(&layer->pending_launches);
  pthread_mutex_destroy(&layer->lock);
  free(layer);
}

static void validation_add_stats(const void *context, bp_layer_stats_t *stats) {
  const bp_validation_layer_t *layer = context;
  stats->validation_reports += atomic_load(&layer->reports);
}

const char *bp_validation_device_name(C_Device device) {
  return bp_device_name((const bp_device_t *)device);
}

void bp_validation_report(bp_validation_layer_t *layer, const char *function,
                          C_Device device, const char *format, ...) {
  char message[768];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  fprintf(layer->log, "backplane validation: %s on %s: %s\n", function,
          bp_validation_device_name(device), message);
  fflush(layer->log);
  atomic_fetch_add(&layer->reports, 1);
  if (layer->abort_on_report)
    abort();
}

/* Reports the objects still alive on the plugin's devices (at unload). */
static void validation_report_leaks(void *context) {
  bp_validation_layer_t *layer = context;
  const bp_plugin_t *plugin = layer->plugin;
  pthread_mutex_lock(&layer->lock);
  if (layer->live.count > 0) {
    fprintf(layer->log,
            "backplane validation: %s plugin ABI objects at unload (after "
            "the runtime released its own):\n"
            "  %-16s %9s %9s\n",
            plugin->device_type, "kind", "created", "destroyed");
    for (int k = 0; k < BP_OBJECT_KIND_COUNT; ++k) {
      uint64_t leaked = layer->created[k] - layer->destroyed[k];
      fprintf(layer->log, "  %-16s %9llu %9llu", bp_object_kind_names[k],
              (unsigned long long)layer->created[k],
              (unsigned long long)layer->destroyed[k]);
      if (leaked)
        fprintf(layer->log, "   LEAK = %llu", (unsigned long long)leaked);
      fputc('\n', layer->log);
    }
  }
  for (size_t i = 0; i < layer->live.count; ++i) {
    const bp_object_t *o = &layer->live.objects[i];
    if (o->kind == BP_OBJECT_STREAM || o->kind == BP_OBJECT_EVENT)
      bp_validation_report(layer, "finalize", o->device, "leaked %s #%llu (%p)",
                           bp_object_kind_names[o->kind],
                           (unsigned long long)o->seq, (void *)o->address);
    else
      bp_validation_report(
          layer, "finalize", o->device, "leaked %s #%llu: %zu bytes at %p",
          bp_object_kind_names[o->kind], (unsigned long long)o->seq, o->size,
          (void *)o->address);
  }
  pthread_mutex_unlock(&layer->lock);
}

const bp_layer_t bp_validation_layer = {
    .name = "validation",
    .open = validation_open,
    .attach = validation_attach,
    .attach_kernels = bp_validation_attach_kernels,
    .detach = validation_report_leaks,
    .destroy_context = validation_destroy_context,
    .close = validation_close,
    .add_stats = validation_add_stats,
};
