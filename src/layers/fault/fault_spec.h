/* Parsing BACKPLANE_FAULT (internal):
 *   rule  := FN ":" N ["=" STATUS] | FN ":p=" P ["=" STATUS] | "seed=" S
 * separated by commas. FN is an intercepted function (layer_functions.h:
 * a slot, or module_load or launch of the kernels extension), N
 * a call number >= 1, P a probability in [0, 1], STATUS C_FAILED (default),
 * C_ERROR or C_INTERNAL_ERROR. A later rule for the same FN replaces the
 * earlier one. */
#ifndef BACKPLANE_LAYERS_FAULT_FAULT_SPEC_H_
#define BACKPLANE_LAYERS_FAULT_FAULT_SPEC_H_

#include <stdbool.h>
#include <stdint.h>

#include "backplane/device_ext.h"
#include "backplane/status.h"
#include "layers/layer_functions.h"

typedef struct bp_fault_rule {
  bool active;
  uint64_t nth;       /* fail call number `nth`; 0 when probabilistic */
  double probability; /* used when nth is 0 */
  C_Status status;    /* what the failed call returns */
} bp_fault_rule_t;

typedef struct bp_fault_spec {
  bp_fault_rule_t rules[BP_LAYER_FN_COUNT];
  uint64_t seed;
} bp_fault_spec_t;

/* BP_ERR_INVALID_ARGUMENT with a message quoting the bad rule. */
bp_status_t bp_fault_spec_parse(const char *text, bp_fault_spec_t *out);

#endif /* BACKPLANE_LAYERS_FAULT_FAULT_SPEC_H_ */
