/* The library's layers, in splice order (core/layer.h). */
#include "layers/layers.h"

_Static_assert(BP_LAYER_COUNT <= BP_LAYER_CAPACITY,
               "raise BP_LAYER_CAPACITY in core/dispatch.h");

const bp_layer_t *const bp_layer_registry[BP_LAYER_COUNT] = {
    [BP_LAYER_FAULT] = &bp_fault_layer,
    [BP_LAYER_TRACE] = &bp_trace_layer,
    [BP_LAYER_VALIDATION] = &bp_validation_layer,
};
const size_t bp_layer_registry_count = BP_LAYER_COUNT;
