/* The fault layer (internal): makes chosen plugin calls fail before they
 * reach the plugin, per the rules of fault_spec.h: slots of the table and
 * the kernels extension's module loads and launches. Only functions with a
 * rule are intercepted. Calls are counted per function and plugin with an
 * atomic counter, so "the Nth call" is exact under concurrency and the
 * probabilistic choice depends only on (seed, function, call number).
 * Each injected fault is written to stderr as one line:
 *   backplane fault: injected C_FAILED into call 3 of <function> on <device>
 * Thread-safe. */
#include "layers/layers.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backplane/device.h"

#include "base/status.h"
#include "layers/fault/fault_spec.h"

/* Per plugin. */
typedef struct bp_fault_layer {
  const bp_fault_spec_t *spec; /* the runtime's, parsed once */
  C_DeviceInterface next;
  BP_KernelExtension next_kernels; /* when the plugin has the extension */
  atomic_uint_fast64_t calls[BP_LAYER_FN_COUNT];
  atomic_uint_fast64_t injected;
} bp_fault_layer_t;

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Counts the call and decides whether it fails; says so on stderr when it
 * does, so injections are visible even when they happen while the runtime
 * is destroyed. */
static bool should_fail(bp_fault_layer_t *layer, bp_layer_function_t fn,
                        C_Device device) {
  const bp_fault_rule_t *rule = &layer->spec->rules[fn];
  uint64_t call = atomic_fetch_add(&layer->calls[fn], 1) + 1;
  bool fail;
  if (rule->nth) {
    fail = call == rule->nth;
  } else {
    uint64_t bits =
        splitmix64(layer->spec->seed ^ splitmix64(((uint64_t)fn << 48) ^ call));
    fail = (double)(bits >> 11) * 0x1.0p-53 < rule->probability;
  }
  if (fail) {
    atomic_fetch_add(&layer->injected, 1);
    fprintf(stderr, "backplane fault: injected %s into call %llu of %s on %s\n",
            bp_c_status_name(rule->status), (unsigned long long)call,
            bp_layer_function_names[fn],
            bp_device_name((const bp_device_t *)device));
  }
  return fail;
}

#define BP_FAULT_WRAPPER(name, need, layers, params, args)                     \
  BP_SLOT_IF_WRAPPED(layers)                                                   \
  (static C_Status fault_##name params {                                       \
    bp_fault_layer_t *layer = bp_layer_context(device, BP_LAYER_FAULT);        \
    if (should_fail(layer, BP_LAYER_FN_##name, device))                        \
      return layer->spec->rules[BP_LAYER_FN_##name].status;                    \
    return layer->next.name args;                                              \
  })
BP_PLUGIN_SLOTS(BP_FAULT_WRAPPER)
#undef BP_FAULT_WRAPPER

/* ---- the kernels extension: module_load (file or data) and launch ---- */

#define FAULT_OR_NEXT(fn, call)                                                \
  bp_fault_layer_t *layer = bp_layer_context(device, BP_LAYER_FAULT);          \
  if (should_fail(layer, BP_LAYER_FN_##fn, device))                            \
    return layer->spec->rules[BP_LAYER_FN_##fn].status;                        \
  return layer->next_kernels.call

static C_Status fault_module_load_file(const C_Device device, const char *path,
                                       int32_t kind,
                                       BP_KernelModule *out_module) {
  FAULT_OR_NEXT(module_load, module_load_file(device, path, kind, out_module));
}

static C_Status fault_module_load_data(const C_Device device, const void *data,
                                       size_t size, int32_t kind,
                                       BP_KernelModule *out_module) {
  FAULT_OR_NEXT(module_load,
                module_load_data(device, data, size, kind, out_module));
}

static C_Status fault_launch(const C_Device device, C_Stream stream,
                             BP_KernelFunction function, uint32_t blocks,
                             const void *args, size_t args_size,
                             const BP_LaunchConfig *config, const char *label) {
  FAULT_OR_NEXT(launch, launch(device, stream, function, blocks, args,
                               args_size, config, label));
}

/* Wraps the calls that have a rule. */
static void fault_attach_kernels(void *context, BP_KernelExtension *kernels) {
  bp_fault_layer_t *layer = context;
  layer->next_kernels = *kernels;
  const bp_fault_rule_t *rules = layer->spec->rules;
  if (rules[BP_LAYER_FN_module_load].active) {
    if (kernels->module_load_file)
      kernels->module_load_file = fault_module_load_file;
    if (kernels->module_load_data)
      kernels->module_load_data = fault_module_load_data;
  }
  if (rules[BP_LAYER_FN_launch].active && kernels->launch)
    kernels->launch = fault_launch;
}

static bp_status_t fault_open(const bp_layer_options_t *options,
                              void **out_shared) {
  bp_fault_spec_t *spec = malloc(sizeof *spec);
  if (!spec)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "fault layer: out of memory");
  bp_status_t status = bp_fault_spec_parse(options->fault, spec);
  if (status != BP_OK) {
    free(spec);
    return status;
  }
  *out_shared = spec;
  return BP_OK;
}

/* Saves *table as the layer's next table and writes the intercepts of the
 * functions that have a rule. */
static bp_status_t fault_attach(void *shared, bp_plugin_t *plugin,
                                C_DeviceInterface *table,
                                bp_observer_t *observer, void **out_context) {
  (void)plugin;
  (void)observer;
  bp_fault_layer_t *layer = calloc(1, sizeof *layer);
  if (!layer)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "fault layer: out of memory");
  layer->spec = shared;
  layer->next = *table;
#define BP_FAULT_INSTALL(name, need, layers, params, args)                     \
  BP_SLOT_IF_WRAPPED(layers)                                                   \
  (if (table->name && layer->spec->rules[BP_LAYER_FN_##name].active)           \
       table->name = fault_##name;)
  BP_PLUGIN_SLOTS(BP_FAULT_INSTALL)
#undef BP_FAULT_INSTALL
  *out_context = layer;
  return BP_OK;
}

static void fault_add_stats(const void *context, bp_layer_stats_t *stats) {
  const bp_fault_layer_t *layer = context;
  stats->faults_injected += atomic_load(&layer->injected);
}

const bp_layer_t bp_fault_layer = {
    .name = "fault",
    .open = fault_open,
    .attach = fault_attach,
    .attach_kernels = fault_attach_kernels,
    .destroy_context = free,
    .close = free,
    .add_stats = fault_add_stats,
};
