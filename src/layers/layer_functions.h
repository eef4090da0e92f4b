/* The plugin functions layers intercept: the rows of core/plugin_slots.h
 * whose `layers` column is not NONE (every C_Device-taking slot), then the
 * kernels extension's below, numbered for the layers' per-function state
 * (fault rules, call counters). A layer
 * walks them with BP_PLUGIN_SLOTS and BP_SLOT_IF_WRAPPED (or
 * BP_SLOT_IF_CHECKED for the validation layer's subset). */
#ifndef BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_
#define BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_

#include "core/plugin_slots.h"

/* The calls of the kernels extension (kernel_ext.h) layers intercept
 * (core/layer.h, attach_kernels), numbered after the slots, X(name):
 * module_load stands for both module_load_file and module_load_data. */
#define BP_LAYER_KERNEL_FUNCTIONS(X) X(module_load) X(launch)

/* BP_LAYER_FN_<name>: the index of each intercepted function. */
typedef enum bp_layer_function {
#define BP_LAYER_ENUM(name, need, layers, params, args)                        \
  BP_SLOT_IF_WRAPPED(layers)(BP_LAYER_FN_##name, )
  BP_PLUGIN_SLOTS(BP_LAYER_ENUM)
#undef BP_LAYER_ENUM
#define BP_LAYER_KERNEL_ENUM(name) BP_LAYER_FN_##name,
      BP_LAYER_KERNEL_FUNCTIONS(BP_LAYER_KERNEL_ENUM)
#undef BP_LAYER_KERNEL_ENUM
          BP_LAYER_FN_COUNT
} bp_layer_function_t;

/* "device_memory_allocate" for BP_LAYER_FN_device_memory_allocate. */
extern const char *const bp_layer_function_names[BP_LAYER_FN_COUNT];

/* The index of the intercepted function called `name`, or -1. */
int bp_layer_function_find(const char *name, size_t length);

#endif /* BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_ */
