/* The kernels extension table, and the part OpenCL cannot provide. */
#include "comm.h"
#include "kernel_internal.h"

static C_Status comm_kernel_resources(const C_Device device, C_CCLComm comm,
                                      const char *name, void *local,
                                      size_t size, bp_kernel_resources_t *out) {
  (void)device;
  (void)comm;
  (void)name;
  (void)local;
  (void)size;
  (void)out;
  return ocl_fail(C_ERROR, "opencl: communication kernels are not supported "
                           "(no device-side channels)");
}

const BP_KernelExtension ocl_kernels = {
    .base = {.struct_size = sizeof(BP_KernelExtension),
             .type = BP_EXTENSION_KERNELS,
             .next = &ocl_comm_extension.base},
    .module_load_file = ocl_module_load_file,
    .module_load_data = ocl_module_load_data,
    .module_unload = ocl_module_unload,
    .module_get_function = ocl_module_get_function,
    .module_function_names = ocl_module_function_names,
    .launch = ocl_launch,
    .stream_error = ocl_kernel_stream_error,
    .stream_reset = ocl_kernel_stream_reset,
    .notify_create = ocl_notify_create,
    .notify_destroy = ocl_notify_destroy,
    .notify_id = ocl_notify_id,
    .notify_record = ocl_notify_record,
    .notify_wait = ocl_notify_wait,
    .comm_kernel_resources = comm_kernel_resources,
    .last_error = ocl_last_error,
    .last_status = ocl_last_status,
};
