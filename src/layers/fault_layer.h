/* The fault layer (internal): makes chosen plugin calls fail before they
 * reach the plugin, per the rules of fault_spec.h. Only functions with a
 * rule are intercepted. Calls are counted per function and plugin with an
 * atomic counter, so "the Nth call" is exact under concurrency and the
 * probabilistic choice depends only on (seed, function, call number).
 * Each injected fault is written to stderr as one line:
 *   backplane fault: injected C_FAILED into call 3 of <function> on <device>
 * Thread-safe. */
#ifndef BACKPLANE_LAYERS_FAULT_LAYER_H_
#define BACKPLANE_LAYERS_FAULT_LAYER_H_

#include <stdint.h>

#include "layers/layers.h"

/* BP_ERR_INVALID_ARGUMENT for a bad spec, BP_ERR_OUT_OF_MEMORY. */
bp_status_t bp_fault_layer_create(const char *spec,
                                  bp_fault_layer_t **out_layer);
/* Saves *table as the layer's next table and writes the intercepts. */
void bp_fault_layer_install(bp_fault_layer_t *layer, C_DeviceInterface *table);
uint64_t bp_fault_layer_injected(const bp_fault_layer_t *layer);
void bp_fault_layer_destroy(bp_fault_layer_t *layer);

#endif /* BACKPLANE_LAYERS_FAULT_LAYER_H_ */
