/* Layers seen from the core (contract in layer.h): reading the layer
 * options once per runtime, attaching the enabled layers to each plugin,
 * their statistics, and the observer's calls (observer.h). */
#include "core/layer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/device_table.h"
#include "core/runtime_internal.h"

_Static_assert(BP_LAYER_CAPACITY >= 3, "room for the library's layers");

static const char *pick(const char *option, const char *variable,
                        const char *fallback) {
  if (option)
    return option;
  const char *value = getenv(variable);
  return value ? value : fallback;
}

/* "validation, trace, fault": the known names, outermost first. */
static void known_names(char *out, size_t size) {
  out[0] = '\0';
  for (size_t k = bp_layer_registry_count; k-- > 0;) {
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s", used ? ", " : "",
             bp_layer_registry[k]->name);
  }
}

static bp_status_t parse_layer_list(const char *list, bool *enabled) {
  for (const char *p = list; *p;) {
    size_t length = strcspn(p, ", ");
    if (length > 0) {
      size_t k = 0;
      while (k < bp_layer_registry_count &&
             (strlen(bp_layer_registry[k]->name) != length ||
              memcmp(bp_layer_registry[k]->name, p, length) != 0))
        ++k;
      if (k == bp_layer_registry_count) {
        char known[128];
        known_names(known, sizeof known);
        return bp_error(BP_ERR_INVALID_ARGUMENT,
                        "BACKPLANE_LAYERS: unknown layer \"%.*s\" (known: %s)",
                        (int)length, p, known);
      }
      enabled[k] = true;
    }
    p += length;
    p += strspn(p, ", ");
  }
  return BP_OK;
}

/* Every field of `options` (NULL: none) resolved against the environment;
 * the strings stay valid for the duration of bp_runtime_create. */
static bp_layer_options_t resolve(const bp_layer_options_t *options) {
  const bp_layer_options_t none = {.struct_size = sizeof none,
                                   .validation_abort = -1};
  const bp_layer_options_t *o = options ? options : &none;
  bp_layer_options_t r = {.struct_size = sizeof r};
  r.layers = pick(o->layers, "BACKPLANE_LAYERS", "");
  r.fault = pick(o->fault, "BACKPLANE_FAULT", "");
  r.validation_log = pick(o->validation_log, "BACKPLANE_VALIDATION_LOG", NULL);
  if (r.validation_log && !*r.validation_log)
    r.validation_log = NULL;
  if (o->validation_abort >= 0) {
    r.validation_abort = o->validation_abort > 0;
  } else {
    const char *abort_env = getenv("BACKPLANE_VALIDATION_ABORT");
    r.validation_abort = abort_env && strcmp(abort_env, "1") == 0;
  }
  r.trace_file = pick(o->trace_file, "BACKPLANE_TRACE_FILE", "");
  if (!*r.trace_file)
    r.trace_file = "backplane-trace.json";
  return r;
}

bp_status_t bp_runtime_layers_open(const bp_layer_options_t *options,
                                   bp_runtime_layers_t *out_layers) {
  bp_runtime_layers_t layers = {{false}, {NULL}};
  bp_layer_options_t resolved = resolve(options);
  bp_status_t status = parse_layer_list(resolved.layers, layers.enabled);
  for (size_t k = 0; status == BP_OK && k < bp_layer_registry_count; ++k)
    if (layers.enabled[k])
      status = bp_layer_registry[k]->open(&resolved, &layers.shared[k]);
  if (status != BP_OK) {
    bp_runtime_layers_close(&layers);
    return status;
  }
  *out_layers = layers;
  return BP_OK;
}

void bp_runtime_layers_close(bp_runtime_layers_t *layers) {
  for (size_t k = 0; k < bp_layer_registry_count; ++k) {
    if (layers->shared[k] && bp_layer_registry[k]->close)
      bp_layer_registry[k]->close(layers->shared[k]);
    layers->shared[k] = NULL;
    layers->enabled[k] = false;
  }
}

/* Turns the observer on the plugin's devices on (`observer`) or off. */
static void set_observer(bp_plugin_t *plugin, const bp_observer_t *observer) {
  for (size_t i = 0; i < plugin->device_count; ++i)
    plugin->devices[i].observer = observer;
}

static void destroy_contexts(bp_plugin_t *plugin) {
  for (size_t k = 0; k < bp_layer_registry_count; ++k) {
    if (plugin->layer_contexts[k])
      bp_layer_registry[k]->destroy_context(plugin->layer_contexts[k]);
    plugin->layer_contexts[k] = NULL;
  }
}

/* Lets the enabled layers wrap a copy of the plugin's kernels extension
 * (only the part its struct_size covers is the plugin's; the rest stays
 * NULL) and points the plugin at the copy. */
static void attach_kernels(bp_plugin_t *plugin,
                           const bp_runtime_layers_t *layers) {
  const BP_KernelExtension *own = plugin->extensions.kernels;
  if (!own)
    return;
  BP_KernelExtension copy = {.base = {.struct_size = 0}};
  size_t covered =
      own->base.struct_size < sizeof copy ? own->base.struct_size : sizeof copy;
  memcpy(&copy, own, covered);
  copy.base.struct_size = covered; /* a newer plugin's extra fields stay out */
  bool wrapped = false;
  for (size_t k = 0; k < bp_layer_registry_count; ++k)
    if (layers->enabled[k] && bp_layer_registry[k]->attach_kernels) {
      bp_layer_registry[k]->attach_kernels(plugin->layer_contexts[k], &copy);
      wrapped = true;
    }
  if (!wrapped)
    return;
  plugin->layered_kernels = copy;
  plugin->undecorated_kernels = own;
  plugin->extensions.kernels = &plugin->layered_kernels;
}

bp_status_t bp_plugin_layers_attach(bp_plugin_t *plugin,
                                    const bp_runtime_layers_t *layers) {
  plugin->undecorated = plugin->dispatch;
  C_DeviceInterface table = plugin->dispatch;
  bp_observer_t observer = {0};
  bp_status_t status = BP_OK;
  for (size_t k = 0; status == BP_OK && k < bp_layer_registry_count; ++k)
    if (layers->enabled[k])
      status =
          bp_layer_registry[k]->attach(layers->shared[k], plugin, &table,
                                       &observer, &plugin->layer_contexts[k]);
  if (status != BP_OK) {
    destroy_contexts(plugin);
    return status;
  }
  plugin->dispatch = table;
  plugin->observer = observer;
  attach_kernels(plugin, layers);
  if (observer.api_call)
    set_observer(plugin, &plugin->observer);
  return BP_OK;
}

void bp_plugin_layers_detach(bp_plugin_t *plugin) {
  set_observer(plugin, NULL);
  /* Outermost first, as the calls went in. */
  for (size_t k = bp_layer_registry_count; k-- > 0;)
    if (plugin->layer_contexts[k] && bp_layer_registry[k]->detach)
      bp_layer_registry[k]->detach(plugin->layer_contexts[k]);
  plugin->dispatch = plugin->undecorated;
  if (plugin->undecorated_kernels)
    plugin->extensions.kernels = plugin->undecorated_kernels;
  plugin->undecorated_kernels = NULL;
  destroy_contexts(plugin);
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
  for (size_t i = 0; i < runtime->plugin_count; ++i)
    for (size_t k = 0; k < bp_layer_registry_count; ++k)
      if (runtime->plugins[i]->layer_contexts[k])
        bp_layer_registry[k]->add_stats(runtime->plugins[i]->layer_contexts[k],
                                        &stats);
  size_t n = out_stats->struct_size < sizeof stats ? out_stats->struct_size
                                                   : sizeof stats;
  memcpy((char *)out_stats + sizeof stats.struct_size,
         (const char *)&stats + sizeof stats.struct_size,
         n - sizeof stats.struct_size);
  return BP_OK;
}

void bp_api_call_end(const bp_api_call_t *call, bp_status_t status,
                     const char *detail_format, ...) {
  const bp_observer_t *observer = call->device->observer;
  if (!observer)
    return;
  va_list args;
  va_start(args, detail_format);
  observer->api_call(observer->context, call->device, call->name,
                     call->start_ns, status, detail_format, args);
  va_end(args);
}

void bp_api_refused(bp_device_t *device, const char *name) {
  if (!device)
    return;
  const bp_observer_t *observer = &device->plugin->observer;
  if (!observer->refused)
    return;
  const char *message = bp_last_error();
  size_t length = strlen(name);
  /* "bp_x: what" is reported as "what": the line names the call already. */
  if (strncmp(message, name, length) == 0 && message[length] == ':' &&
      message[length + 1] == ' ')
    message += length + 2;
  observer->refused(observer->refused_context, device, name, message);
}

void bp_observer_module_unloading(bp_device_t *device, const char *path,
                                  const BP_KernelModule *parts,
                                  size_t part_count) {
  const bp_observer_t *observer = &device->plugin->observer;
  if (observer->module_unloading)
    observer->module_unloading(observer->refused_context, device, path, parts,
                               part_count);
}

void bp_observer_note_collective(const bp_collective_note_t *note,
                                 C_Status result) {
  if (!note->start_ns)
    return;
  const bp_observer_t *observer = note->device->observer;
  if (observer && observer->collective)
    observer->collective(observer->context, note, result);
}
