/* Splicing and unsplicing the layers, and their statistics. */
#include "layers/layers.h"

#include <stdlib.h>
#include <string.h>

#include "core/device_table.h"
#include "core/runtime_internal.h"
#include "base/status.h"
#include "layers/fault_layer.h"
#include "layers/layer_config.h"
#include "layers/trace_layer.h"
#include "layers/validation_layer.h"

static void free_layers(bp_layers_t *layers) {
  if (layers->fault)
    bp_fault_layer_destroy(layers->fault);
  if (layers->trace)
    bp_trace_layer_destroy(layers->trace);
  if (layers->validation)
    bp_validation_layer_destroy(layers->validation);
  free(layers);
}

/* Turns the slices of framework-face calls on the plugin's devices on
 * (`trace`) or off (NULL). */
static void set_api_trace(bp_plugin_t *plugin, bp_trace_layer_t *trace) {
  for (size_t i = 0; i < plugin->device_count; ++i)
    plugin->devices[i].trace = trace;
}

bp_status_t bp_layers_splice(bp_plugin_t *plugin) {
  bp_layer_config_t config;
  bp_status_t status = bp_layer_config_resolve(&config);
  if (status != BP_OK || !config.enabled)
    return status;
  bp_layers_t *layers = calloc(1, sizeof *layers);
  if (!layers)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "layers: out of memory");
  layers->plugin = plugin;
  layers->original = plugin->dispatch;
  if (config.enabled & BP_LAYER_FAULT)
    status = bp_fault_layer_create(config.fault, &layers->fault);
  if (status == BP_OK && (config.enabled & BP_LAYER_TRACE))
    status = bp_trace_layer_create(plugin, config.trace_file, &layers->trace);
  if (status == BP_OK && (config.enabled & BP_LAYER_VALIDATION))
    status = bp_validation_layer_create(
        config.validation_log, config.validation_abort, &layers->validation);
  if (status != BP_OK) {
    free_layers(layers);
    return status;
  }
  /* Fault innermost, then trace (which sees injected failures as results),
   * validation outermost (refused calls never reach the trace). */
  if (layers->fault)
    bp_fault_layer_install(layers->fault, &plugin->dispatch);
  if (layers->trace)
    bp_trace_layer_install(layers->trace, &plugin->dispatch);
  if (layers->validation)
    bp_validation_layer_install(layers->validation, &plugin->dispatch);
  set_api_trace(plugin, layers->trace);
  plugin->layers = layers;
  return BP_OK;
}

void bp_layers_unsplice(bp_plugin_t *plugin) {
  bp_layers_t *layers = plugin->layers;
  if (!layers)
    return;
  if (layers->validation)
    bp_validation_layer_report_leaks(layers->validation, plugin);
  set_api_trace(plugin, NULL);
  if (layers->trace)
    bp_trace_layer_finish(layers->trace);
  plugin->dispatch = layers->original;
  plugin->layers = NULL;
  free_layers(layers);
}

BP_API bp_status_t bp_runtime_layer_stats(const bp_runtime_t *runtime,
                                          bp_layer_stats_t *out_stats) {
  if (!runtime || !out_stats)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_layer_stats: runtime or out_stats is NULL");
  if (out_stats->struct_size < sizeof out_stats->struct_size)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_runtime_layer_stats: out_stats->struct_size is %zu",
                    out_stats->struct_size);
  bp_layer_stats_t stats = {.struct_size = sizeof stats};
  for (size_t i = 0; i < runtime->plugin_count; ++i) {
    const bp_layers_t *layers = runtime->plugins[i]->layers;
    if (layers && layers->fault)
      stats.faults_injected += bp_fault_layer_injected(layers->fault);
    if (layers && layers->validation)
      stats.validation_reports +=
          bp_validation_layer_reports(layers->validation);
    if (layers && layers->trace)
      stats.trace_events += bp_trace_layer_events(layers->trace);
  }
  size_t n = out_stats->struct_size < sizeof stats ? out_stats->struct_size
                                                   : sizeof stats;
  memcpy((char *)out_stats + sizeof stats.struct_size,
         (const char *)&stats + sizeof stats.struct_size,
         n - sizeof stats.struct_size);
  return BP_OK;
}
