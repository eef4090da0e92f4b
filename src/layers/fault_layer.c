#include "layers/fault_layer.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backplane/device.h"

#include "base/status.h"
#include "layers/fault_spec.h"

struct bp_fault_layer {
  bp_fault_spec_t spec;
  C_DeviceInterface next;
  atomic_uint_fast64_t calls[BP_LAYER_FN_COUNT];
  atomic_uint_fast64_t injected;
};

bp_status_t bp_fault_layer_create(const char *spec,
                                  bp_fault_layer_t **out_layer) {
  bp_fault_layer_t *layer = calloc(1, sizeof *layer);
  if (!layer)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "fault layer: out of memory");
  bp_status_t status = bp_fault_spec_parse(spec, &layer->spec);
  if (status != BP_OK) {
    free(layer);
    return status;
  }
  *out_layer = layer;
  return BP_OK;
}

void bp_fault_layer_destroy(bp_fault_layer_t *layer) {
  free(layer);
}

uint64_t bp_fault_layer_injected(const bp_fault_layer_t *layer) {
  return atomic_load(&layer->injected);
}

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
  const bp_fault_rule_t *rule = &layer->spec.rules[fn];
  uint64_t call = atomic_fetch_add(&layer->calls[fn], 1) + 1;
  bool fail;
  if (rule->nth) {
    fail = call == rule->nth;
  } else {
    uint64_t bits =
        splitmix64(layer->spec.seed ^ splitmix64(((uint64_t)fn << 48) ^ call));
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

#define BP_FAULT_WRAPPER(name, params, args)                                   \
  static C_Status fault_##name params {                                        \
    bp_fault_layer_t *layer = bp_layers_of(device)->fault;                     \
    if (should_fail(layer, BP_LAYER_FN_##name, device))                        \
      return layer->spec.rules[BP_LAYER_FN_##name].status;                     \
    return layer->next.name args;                                              \
  }
BP_LAYER_FUNCTIONS(BP_FAULT_WRAPPER)
#undef BP_FAULT_WRAPPER

void bp_fault_layer_install(bp_fault_layer_t *layer, C_DeviceInterface *table) {
  layer->next = *table;
#define BP_FAULT_INSTALL(name, params, args)                                   \
  if (table->name && layer->spec.rules[BP_LAYER_FN_##name].active)             \
    table->name = fault_##name;
  BP_LAYER_FUNCTIONS(BP_FAULT_INSTALL)
#undef BP_FAULT_INSTALL
}
