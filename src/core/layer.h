/* The core's splice interface for layers (internal).
 *
 * A layer is a dispatch-table wrapper (src/layers/<name>/). The core knows
 * each one only through this descriptor; the list of layers is defined
 * beside them (src/layers/registry.c), in splice order: the first is
 * innermost. The core never includes a layer's header.
 *
 * Life cycle, all of it single-threaded inside bp_runtime_create and
 * bp_runtime_destroy:
 * 1. bp_runtime_create reads which layers to enable once, from its
 *    bp_layer_options_t and BACKPLANE_LAYERS (an unknown name fails it with
 *    the name), and calls `open` of each enabled layer with the options:
 *    the layer parses its own settings once and returns its runtime-wide
 *    state (the trace session, the parsed fault rules), owned by the
 *    runtime. A failing `open` fails bp_runtime_create.
 * 2. For each plugin, once its dispatch table is complete, `attach` creates
 *    the layer's per-plugin context: it saves the table it wraps (its next)
 *    and writes its intercepts into `table`; a layer that observes the
 *    core (core/observer.h) fills `observer`. A failing `attach` rejects
 *    the plugin and leaves the table as it was. When the plugin has a
 *    kernels extension, `attach_kernels` (if any) then wraps a copy of it
 *    the same way, innermost first; src/kernel calls through that copy.
 * 3. At unload, after the core has released the devices' objects, `detach`
 *    reports (leaks, trace records), then the core restores the table and
 *    calls `destroy_context`.
 * 4. After every plugin is unloaded, `close` finishes the runtime-wide
 *    state (the trace file is written here) and frees it.
 * Between attach and detach a context is immutable apart from the layer's
 * own synchronized counters. */
#ifndef BACKPLANE_CORE_LAYER_H_
#define BACKPLANE_CORE_LAYER_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/layers.h"
#include "core/dispatch.h"
#include "core/observer.h"

typedef struct bp_layer {
  const char *name; /* as listed in BACKPLANE_LAYERS */
  /* `options`: every field resolved (no NULL strings except
   * validation_log, which NULL means stderr; validation_abort 0 or 1). */
  bp_status_t (*open)(const bp_layer_options_t *options, void **out_shared);
  bp_status_t (*attach)(void *shared, bp_plugin_t *plugin,
                        C_DeviceInterface *table, bp_observer_t *observer,
                        void **out_context);
  /* Saves *kernels as the layer's next kernels table and writes its
   * intercepts (each takes the core's C_Device first, like the slots).
   * NULL: the layer does not wrap the kernels extension. */
  void (*attach_kernels)(void *context, BP_KernelExtension *kernels);
  void (*detach)(void *context); /* NULL: nothing to report */
  void (*destroy_context)(void *context);
  void (*close)(void *shared); /* NULL: nothing to free */
  /* Adds the context's counters to `stats`. */
  void (*add_stats)(const void *context, bp_layer_stats_t *stats);
} bp_layer_t;

/* Every layer of the library, in splice order (innermost first). */
extern const bp_layer_t *const bp_layer_registry[];
extern const size_t bp_layer_registry_count;

/* The layers a runtime enabled (in bp_runtime_create), by registry index. */
typedef struct bp_runtime_layers {
  bool enabled[BP_LAYER_CAPACITY];
  void *shared[BP_LAYER_CAPACITY]; /* from each enabled layer's open */
} bp_runtime_layers_t;

/* Reads the options (`options` NULL: the environment only) and opens each
 * enabled layer. On error nothing is left open and bp_last_error() names
 * the bad setting. */
bp_status_t bp_runtime_layers_open(const bp_layer_options_t *options,
                                   bp_runtime_layers_t *out_layers);
void bp_runtime_layers_close(bp_runtime_layers_t *layers);

/* Steps 2 and 3 above for one plugin of `layers`' runtime. */
bp_status_t bp_plugin_layers_attach(bp_plugin_t *plugin,
                                    const bp_runtime_layers_t *layers);
void bp_plugin_layers_detach(bp_plugin_t *plugin);

/* The context of the layer at registry index `index` on the plugin owning
 * `device` (a core C_Device); NULL when that layer is not enabled. */
static inline void *bp_layer_context(const C_Device device, size_t index) {
  return bp_plugin_of(device)->layer_contexts[index];
}

#endif /* BACKPLANE_CORE_LAYER_H_ */
