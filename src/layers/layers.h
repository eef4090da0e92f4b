/* Plumbing shared by the layers (internal): their registry indices and
 * descriptors. Each layer lives in its own folder (fault/, trace/,
 * validation/) and is known to the core only through its bp_layer_t
 * descriptor (core/layer.h); registry.c lists them in splice order. */
#ifndef BACKPLANE_LAYERS_LAYERS_H_
#define BACKPLANE_LAYERS_LAYERS_H_

#include "core/layer.h"

/* Index of each layer in bp_layer_registry: fault innermost, then trace
 * (which sees injected failures as results), validation outermost (refused
 * calls never reach the trace). */
enum {
  BP_LAYER_FAULT,
  BP_LAYER_TRACE,
  BP_LAYER_VALIDATION,
  BP_LAYER_COUNT,
};

extern const bp_layer_t bp_fault_layer;
extern const bp_layer_t bp_trace_layer;
extern const bp_layer_t bp_validation_layer;

#endif /* BACKPLANE_LAYERS_LAYERS_H_ */
