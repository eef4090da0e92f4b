/* Which layers to enable and how (internal): bp_layer_options_t from
 * bp_runtime_create_layered when one is in progress on this thread, the
 * environment for every field it leaves NULL. */
#ifndef BACKPLANE_LAYERS_LAYER_CONFIG_H_
#define BACKPLANE_LAYERS_LAYER_CONFIG_H_

#include "backplane/layers.h"

enum {
  BP_LAYER_FAULT = 1u << 0,
  BP_LAYER_TRACE = 1u << 1,
  BP_LAYER_VALIDATION = 1u << 2,
};

/* Strings point into the options or the environment: valid during
 * bp_layers_splice only. */
typedef struct bp_layer_config {
  unsigned enabled;           /* BP_LAYER_* bits */
  const char *fault;          /* never NULL; "" for no rules */
  const char *validation_log; /* NULL: stderr */
  int validation_abort;
  const char *trace_file; /* never NULL */
} bp_layer_config_t;

/* BP_ERR_INVALID_ARGUMENT (with a message naming the bad word) for an
 * unknown layer name. */
bp_status_t bp_layer_config_resolve(bp_layer_config_t *out);

#endif /* BACKPLANE_LAYERS_LAYER_CONFIG_H_ */
