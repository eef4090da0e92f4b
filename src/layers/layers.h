/* Splicing layers into a plugin's dispatch table (internal).
 *
 * The loader calls bp_layers_splice once the plugin's dispatch table is
 * complete; each enabled layer saves the table it wraps (its `next`) and
 * writes its intercepts, fault innermost, then trace, then validation
 * outermost; the trace layer is also set on the plugin's devices, for the
 * slices of framework-face calls (core/api_trace.h). bp_layers_unsplice
 * runs at unload, after the core has released the devices' objects: it
 * reports (validation leaks, trace file), restores the table as it was
 * before splicing and frees the layers. Between the two, the state is
 * immutable apart from each layer's own synchronized counters. */
#ifndef BACKPLANE_LAYERS_LAYERS_H_
#define BACKPLANE_LAYERS_LAYERS_H_

#include "backplane/layers.h"
#include "core/dispatch.h"

typedef struct bp_fault_layer bp_fault_layer_t;
typedef struct bp_validation_layer bp_validation_layer_t;
typedef struct bp_trace_layer bp_trace_layer_t;

typedef struct bp_layers {
  bp_plugin_t *plugin;
  C_DeviceInterface original; /* dispatch as it was before splicing */
  bp_fault_layer_t *fault;
  bp_trace_layer_t *trace;
  bp_validation_layer_t *validation;
} bp_layers_t;

/* Enables the configured layers on `plugin` (plugin->layers stays NULL and
 * the table untouched when none is enabled). On error (bad configuration,
 * out of memory) nothing is changed and bp_last_error() says why. */
bp_status_t bp_layers_splice(bp_plugin_t *plugin);

/* Reports, restores plugin->dispatch and frees; no-op without layers. */
void bp_layers_unsplice(bp_plugin_t *plugin);

/* The layers of the plugin owning `device` (a core C_Device). */
static inline bp_layers_t *bp_layers_of(const C_Device device) {
  return bp_plugin_of(device)->layers;
}

#endif /* BACKPLANE_LAYERS_LAYERS_H_ */
