/* The trace layer over the kernels extension: each launch is a host event
 * "kernel <function>" on the launching thread's track, the enqueue's
 * duration, with its blocks, op, stream and argument bytes (the plugin's
 * device timeline shows the kernel's run on the stream's track, vcpu's as
 * "kernel <function>" too); notify records and the waits on them are host
 * events joined by a flow arrow, like event records and their waits. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layers/trace/trace_internal.h"

#define LAYER(device)                                                          \
  ((bp_trace_layer_t *)bp_layer_context(device, BP_LAYER_TRACE))

/* "kernel <name>", kept until the layer is destroyed: host events refer to
 * their names until the export at detach. */
struct bp_trace_kernel_name {
  struct bp_trace_kernel_name *next;
  char text[];
};

static const char *keep_name(bp_trace_layer_t *t, const char *function) {
  size_t length = strlen(function);
  bp_trace_kernel_name_t *name = malloc(sizeof *name + 7 + length + 1);
  if (!name)
    return NULL;
  memcpy(name->text, "kernel ", 7);
  memcpy(name->text + 7, function, length + 1);
  pthread_mutex_lock(&t->lock);
  name->next = t->kernel_names;
  t->kernel_names = name;
  pthread_mutex_unlock(&t->lock);
  return name->text;
}

static C_Status t_module_get_function(const C_Device device,
                                      BP_KernelModule module, const char *name,
                                      BP_KernelFunction *out_function) {
  bp_trace_layer_t *t = LAYER(device);
  C_Status result =
      t->next_kernels.module_get_function(device, module, name, out_function);
  const char *kept =
      result == C_SUCCESS && *out_function && name ? keep_name(t, name) : NULL;
  if (kept) {
    pthread_mutex_lock(&t->lock);
    bp_pointer_map_set(&t->kernel_functions, *out_function,
                       (uint64_t)(uintptr_t)kept); /* no memory: "kernel" */
    pthread_mutex_unlock(&t->lock);
  }
  return result;
}

static C_Status t_launch(const C_Device device, C_Stream stream,
                         BP_KernelFunction function, uint32_t blocks,
                         const void *args, size_t args_size,
                         const BP_LaunchConfig *config, const char *label) {
  bp_trace_layer_t *t = LAYER(device);
  pthread_mutex_lock(&t->lock);
  const char *name = (const char *)(uintptr_t)bp_pointer_map_get(
      &t->kernel_functions, function);
  pthread_mutex_unlock(&t->lock);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next_kernels.launch(device, stream, function, blocks,
                                           args, args_size, config, label);
  bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, name ? name : "kernel", device,
                  start, result,
                  ",\"blocks\":%u,\"op\":\"%s\",\"stream\":\"%p\","
                  "\"args_bytes\":%zu",
                  blocks, label ? label : "", (void *)stream, args_size);
  return result;
}

static uint32_t notify_id(bp_trace_layer_t *t, C_Device device,
                          BP_Notify notify) {
  uint32_t id = 0;
  if (t->next_kernels.notify_id)
    t->next_kernels.notify_id(device, notify, &id);
  return id;
}

/* The serial is published after the record's end time is taken, so a wait
 * that finds it cannot end before the record started. */
static C_Status t_notify_record(const C_Device device, C_Stream stream,
                                BP_Notify notify) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t start = bp_clock_now_ns();
  C_Status result = t->next_kernels.notify_record(device, stream, notify);
  if (result != C_SUCCESS) {
    bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, "notify_record", device, start,
                    result, NULL);
    return result;
  }
  uint64_t serial = atomic_fetch_add(&t->record_serial, 1) + 1;
  bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, "notify_record", device, start,
                  result,
                  ",\"notify\":%u,\"stream\":\"%p\",\"flow_out\":%" PRIu64,
                  notify_id(t, device, notify), (void *)stream, serial);
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_set(&t->flows, notify, serial); /* no memory: no arrow */
  pthread_mutex_unlock(&t->lock);
  return result;
}

/* The wait resets the notify: it ends the flow of the latest record. */
static C_Status t_notify_wait(const C_Device device, C_Stream stream,
                              BP_Notify notify, uint64_t timeout_ns) {
  bp_trace_layer_t *t = LAYER(device);
  uint64_t serial = 0;
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_take(&t->flows, notify, &serial);
  pthread_mutex_unlock(&t->lock);
  uint64_t start = bp_clock_now_ns();
  C_Status result =
      t->next_kernels.notify_wait(device, stream, notify, timeout_ns);
  uint32_t id = notify_id(t, device, notify);
  if (serial)
    bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, "notify_wait", device, start,
                    result,
                    ",\"notify\":%u,\"stream\":\"%p\",\"flow_in\":%" PRIu64, id,
                    (void *)stream, serial);
  else
    bp_trace_record(t, BP_TRACE_CATEGORY_PLUGIN, "notify_wait", device, start,
                    result, ",\"notify\":%u,\"stream\":\"%p\"", id,
                    (void *)stream);
  return result;
}

/* Forgotten before the plugin frees it, as destroyed events are. */
static C_Status t_notify_destroy(const C_Device device, BP_Notify notify) {
  bp_trace_layer_t *t = LAYER(device);
  pthread_mutex_lock(&t->lock);
  bp_pointer_map_remove(&t->flows, notify);
  pthread_mutex_unlock(&t->lock);
  return t->next_kernels.notify_destroy(device, notify);
}

void bp_trace_attach_kernels(void *context, BP_KernelExtension *kernels) {
  bp_trace_layer_t *t = context;
  t->next_kernels = *kernels;
  if (kernels->module_get_function)
    kernels->module_get_function = t_module_get_function;
  if (kernels->launch)
    kernels->launch = t_launch;
  if (kernels->notify_record)
    kernels->notify_record = t_notify_record;
  if (kernels->notify_wait)
    kernels->notify_wait = t_notify_wait;
  if (kernels->notify_destroy)
    kernels->notify_destroy = t_notify_destroy;
}

void bp_trace_kernel_names_free(bp_trace_layer_t *t) {
  while (t->kernel_names) {
    bp_trace_kernel_name_t *next = t->kernel_names->next;
    free(t->kernel_names);
    t->kernel_names = next;
  }
}
