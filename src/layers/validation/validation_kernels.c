/* The validation layer over the kernels extension: it counts each module's
 * launches still pending (a launch is counted until a host callback the
 * layer enqueues behind it on the plugin's own table has run), so that
 * bp_module_unload of a module with launches pending gets one line before
 * the core drains the device. The other kernel misuses (a function of an
 * unloaded module, arguments over BP_LAUNCH_MAX_ARGS, a notify waited on or
 * recorded on a stream of another device) are refused by src/kernel itself
 * and reach the layer as refusals (validation_layer.c). */
#include <stdlib.h>

#include "core/device_table.h"
#include "layers/validation/validation_internal.h"

#define LAYER(device)                                                          \
  (((bp_validation_layer_t *)bp_layer_context(device, BP_LAYER_VALIDATION)))

static C_Status v_module_get_function(const C_Device device,
                                      BP_KernelModule module, const char *name,
                                      BP_KernelFunction *out_function) {
  bp_validation_layer_t *v = LAYER(device);
  C_Status result =
      v->next_kernels.module_get_function(device, module, name, out_function);
  if (result == C_SUCCESS && *out_function) {
    pthread_mutex_lock(&v->lock);
    bp_pointer_map_set(&v->function_modules, *out_function,
                       (uint64_t)(uintptr_t)module); /* no memory: no count */
    pthread_mutex_unlock(&v->lock);
  }
  return result;
}

typedef struct launch_closure {
  bp_validation_layer_t *layer;
  BP_KernelModule module;
} launch_closure_t;

/* Adds `delta` to the pending launches of `module`. Lock held. */
static void count_pending(bp_validation_layer_t *v, BP_KernelModule module,
                          int delta) {
  uint64_t pending = bp_pointer_map_get(&v->pending_launches, module) + delta;
  if (pending)
    bp_pointer_map_set(&v->pending_launches, module, pending);
  else
    bp_pointer_map_remove(&v->pending_launches, module);
}

static void launch_done(C_Device plugin_device, C_Stream stream,
                        void *user_data, C_Status *status) {
  (void)plugin_device;
  (void)stream;
  (void)status;
  launch_closure_t *closure = user_data;
  bp_validation_layer_t *v = closure->layer;
  pthread_mutex_lock(&v->lock);
  count_pending(v, closure->module, -1);
  pthread_mutex_unlock(&v->lock);
  free(closure);
}

static C_Status v_launch(const C_Device device, C_Stream stream,
                         BP_KernelFunction function, uint32_t blocks,
                         const void *args, size_t args_size,
                         const BP_LaunchConfig *config, const char *label) {
  bp_validation_layer_t *v = LAYER(device);
  C_Status result = v->next_kernels.launch(device, stream, function, blocks,
                                           args, args_size, config, label);
  C_Status (*add_callback)(const C_Device, C_Stream, C_Callback, void *) =
      v->plugin->undecorated.stream_add_callback;
  if (result != C_SUCCESS || !stream || !add_callback)
    return result;
  launch_closure_t *closure = malloc(sizeof *closure);
  if (!closure)
    return result; /* not counted */
  pthread_mutex_lock(&v->lock);
  closure->layer = v;
  closure->module = (BP_KernelModule)(uintptr_t)bp_pointer_map_get(
      &v->function_modules, function);
  if (closure->module)
    count_pending(v, closure->module, +1);
  pthread_mutex_unlock(&v->lock);
  if (!closure->module) {
    free(closure);
    return result;
  }
  /* The plugin's own table: the layers below would see the layer's call. */
  if (!BP_C_OK(add_callback(device, stream, launch_done, closure))) {
    pthread_mutex_lock(&v->lock);
    count_pending(v, closure->module, -1);
    pthread_mutex_unlock(&v->lock);
    free(closure);
  }
  return result;
}

void bp_validation_module_unloading(void *context, bp_device_t *device,
                                    const char *path,
                                    const BP_KernelModule *parts,
                                    size_t part_count) {
  bp_validation_layer_t *v = context;
  pthread_mutex_lock(&v->lock);
  uint64_t pending = 0;
  for (size_t i = 0; i < part_count; ++i)
    pending += bp_pointer_map_get(&v->pending_launches, parts[i]);
  if (pending)
    bp_validation_report(v, "bp_module_unload", (C_Device)(void *)device,
                         "module %s unloaded with %llu launch%s pending (the "
                         "unload drains the device first)",
                         path, (unsigned long long)pending,
                         pending == 1 ? "" : "es");
  pthread_mutex_unlock(&v->lock);
}

void bp_validation_attach_kernels(void *context, BP_KernelExtension *kernels) {
  bp_validation_layer_t *v = context;
  v->next_kernels = *kernels;
  if (kernels->module_get_function)
    kernels->module_get_function = v_module_get_function;
  if (kernels->launch)
    kernels->launch = v_launch;
}
