/* The kernels extension table, its thread-local error and the plugin-wide
 * shutdown. */
#include <stdarg.h>
#include <stdio.h>

#include "base/park.h"
#include "comm/interface.h"
#include "kernels.h"

static _Thread_local char g_error[512] = "no error";

C_Status vk_fail(C_Status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(g_error, sizeof g_error, format, args);
  va_end(args);
  return status;
}

const char *vk_last_error(void) {
  return g_error;
}

uint64_t vk_deadline_ms(uint32_t timeout_ms) {
  return vcpu_now_ns() + vk_timeout_ns((uint64_t)timeout_ms * 1000000u);
}

const BP_KernelExtension vcpu_kernel_extension = {
    .base = {.struct_size = sizeof(BP_KernelExtension),
             .type = BP_EXTENSION_KERNELS,
             .next = &vcpu_comm_extension.base},
    .module_load_file = vk_module_load_file,
    .module_load_data = vk_module_load_data,
    .module_unload = vk_module_unload,
    .module_get_function = vk_module_get_function,
    .module_function_names = vk_module_function_names,
    .launch = vk_launch_kernel,
    .stream_error = vk_stream_error,
    .stream_reset = vk_stream_reset,
    .notify_create = vk_notify_create,
    .notify_destroy = vk_notify_destroy,
    .notify_id = vk_notify_id,
    .notify_record = vk_notify_record,
    .notify_wait = vk_notify_wait,
    .comm_kernel_resources = vk_comm_kernel_resources,
    .last_error = vk_last_error,
};

void vk_shutdown(void) {
  vk_pools_shutdown();
  vk_comm_shutdown();
}
