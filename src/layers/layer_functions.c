#include "layers/layer_functions.h"

#include <string.h>

const char *const bp_layer_function_names[BP_LAYER_FN_COUNT] = {
#define BP_LAYER_NAME(name, need, layers, params, args)                        \
  BP_SLOT_IF_WRAPPED(layers)(#name, )
    BP_PLUGIN_SLOTS(BP_LAYER_NAME)
#undef BP_LAYER_NAME
#define BP_LAYER_KERNEL_NAME(name) #name,
        BP_LAYER_KERNEL_FUNCTIONS(BP_LAYER_KERNEL_NAME)
#undef BP_LAYER_KERNEL_NAME
};

int bp_layer_function_find(const char *name, size_t length) {
  for (int i = 0; i < BP_LAYER_FN_COUNT; ++i) {
    const char *candidate = bp_layer_function_names[i];
    if (strlen(candidate) == length && memcmp(candidate, name, length) == 0)
      return i;
  }
  return -1;
}
