/* The kernels extension table, and the parts this plugin does not do. */
#include "comm.h"
#include "kernel_internal.h"
#include "target.h"

static C_Status notify_create(const C_Device device, BP_Notify *out) {
  (void)device;
  (void)out;
  return cu_unsupported("cuda: notifies are not supported yet");
}

static C_Status notify_destroy(const C_Device device, BP_Notify notify) {
  (void)device;
  (void)notify;
  return cu_unsupported("cuda: notifies are not supported yet");
}

static C_Status notify_id(const C_Device device, BP_Notify notify,
                          uint32_t *out_id) {
  (void)device;
  (void)notify;
  (void)out_id;
  return cu_unsupported("cuda: notifies are not supported yet");
}

static C_Status notify_record(const C_Device device, C_Stream stream,
                              BP_Notify notify) {
  (void)device;
  (void)stream;
  (void)notify;
  return cu_unsupported("cuda: notifies are not supported yet");
}

static C_Status notify_wait(const C_Device device, C_Stream stream,
                            BP_Notify notify, uint64_t timeout_ns) {
  (void)device;
  (void)stream;
  (void)notify;
  (void)timeout_ns;
  return cu_unsupported("cuda: notifies are not supported yet");
}

static C_Status comm_kernel_resources(const C_Device device, C_CCLComm comm,
                                      const char *name, void *local,
                                      size_t size, bp_kernel_resources_t *out) {
  (void)device;
  (void)comm;
  (void)name;
  (void)local;
  (void)size;
  (void)out;
  return cu_unsupported("cuda: communication kernels are not supported yet");
}

const BP_KernelExtension cu_kernels = {
    .base = {.struct_size = sizeof(BP_KernelExtension),
             .type = BP_EXTENSION_KERNELS,
             .next = &cu_target_kind.base},
    .module_load_file = cu_module_load_file,
    .module_load_data = cu_module_load_data,
    .module_unload = cu_module_unload,
    .module_get_function = cu_module_get_function,
    .module_function_names = cu_module_function_names,
    .launch = cu_launch,
    .stream_error = cu_kernel_stream_error,
    .stream_reset = cu_kernel_stream_reset,
    .notify_create = notify_create,
    .notify_destroy = notify_destroy,
    .notify_id = notify_id,
    .notify_record = notify_record,
    .notify_wait = notify_wait,
    .comm_kernel_resources = comm_kernel_resources,
    .last_error = cu_last_error,
    .last_status = cu_last_status,
};
