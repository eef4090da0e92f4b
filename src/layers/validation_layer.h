/* The validation layer (internal): checks each intercepted plugin call
 * against what it has seen created and destroyed, and reports misuse before
 * it reaches the plugin, one line per finding:
 *   backplane validation: <function> on <device>: <what is wrong>
 * Misuse that would corrupt, crash or hang (a destroyed, unknown or foreign
 * stream or event, a bad free, a copy outside its allocation, a device
 * pointer passed as host memory, a host callback synchronizing or destroying
 * its own stream or synchronizing its device) is refused with C_ERROR; the rest
 * (a deallocate size mismatch, a stream destroyed with work pending) is
 * reported and the call proceeds. At unload it prints, per object kind, created
 * versus destroyed, and every object still alive, with its size and sequence
 * number. Thread-safe: one lock per plugin around the bookkeeping. */
#ifndef BACKPLANE_LAYERS_VALIDATION_LAYER_H_
#define BACKPLANE_LAYERS_VALIDATION_LAYER_H_

#include <stdbool.h>
#include <stdint.h>

#include "layers/layers.h"

/* `log_path` NULL: stderr; else appended to. BP_ERR_INVALID_ARGUMENT if it
 * cannot be opened, BP_ERR_OUT_OF_MEMORY. */
bp_status_t bp_validation_layer_create(const char *log_path,
                                       bool abort_on_report,
                                       bp_validation_layer_t **out_layer);
void bp_validation_layer_install(bp_validation_layer_t *layer,
                                 C_DeviceInterface *table);
/* Reports the objects still alive on `plugin`'s devices (at unload). */
void bp_validation_layer_report_leaks(bp_validation_layer_t *layer,
                                      const bp_plugin_t *plugin);
uint64_t bp_validation_layer_reports(const bp_validation_layer_t *layer);
void bp_validation_layer_destroy(bp_validation_layer_t *layer);

#endif /* BACKPLANE_LAYERS_VALIDATION_LAYER_H_ */
