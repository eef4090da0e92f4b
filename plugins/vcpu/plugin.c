/* The plugin's two exported symbols: InitPlugin fills the Paddle table in
 * the layout the host asks for; BackplanePluginExtensions returns the extension
 * chain. Nothing else is exported. InitPlugin has no side effects beyond the
 * params and the table, so a host may call it to probe the layout. */
#include "attributes.h"
#include "backplane/device_ext.h"
#include "backplane/device_layouts.h"
#include "comm/interface.h"
#include "comm/ops.h"
#include "copy.h"
#include "device.h"
#include "event.h"
#include "kernel/kernels.h"
#include "lifetime.h"
#include "memory.h"
#include "stream.h"
#include "trace.h"

#include <string.h>

#define VCPU_EXPORT __attribute__((visibility("default")))

static const BP_KernelExtension g_kernels = {
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

static const BP_StreamInlineExtension g_stream_inline = {
    .base = {.struct_size = sizeof(BP_StreamInlineExtension),
             .type = BP_EXTENSION_STREAM_INLINE,
             .next = &g_kernels.base},
    .run_callback_if_idle = vcpu_stream_run_callback_if_idle,
};

static const BP_EventTimingExtension g_event_timing = {
    .base = {.struct_size = sizeof(BP_EventTimingExtension),
             .type = BP_EXTENSION_EVENT_TIMING,
             .next = &g_stream_inline.base},
    .event_elapsed_time = vcpu_event_elapsed_time,
};

static const BP_DeviceAttributesExtension g_device_attributes = {
    .base = {.struct_size = sizeof(BP_DeviceAttributesExtension),
             .type = BP_EXTENSION_DEVICE_ATTRIBUTES,
             .next = &g_event_timing.base},
    .get_attribute = vcpu_get_attribute,
};

VCPU_EXPORT const BP_ExtensionBase *BackplanePluginExtensions(void) {
  return &g_device_attributes.base;
}

/* What the devices' streams run for the collectives and kernels. */
static const vcpu_runners_t g_runners = {.comm_task = vcpu_comm_run_task,
                                         .kernel = vk_run_kernel,
                                         .kernel_done = vk_kernel_command_done,
                                         .shutdown = vk_shutdown};

static C_Status initialize(void) {
  return vcpu_initialize(&g_runners);
}

static void fill_table(C_DeviceInterface *table) {
  memset(table, 0, sizeof *table);
  table->size = sizeof *table;

  table->initialize = initialize;
  table->finalize = vcpu_finalize; /* the last stops the kernels' pools */
  table->init_device = vcpu_init_device;
  table->set_device = vcpu_set_device;
  table->get_device = vcpu_get_device;
  table->deinit_device = vcpu_deinit_device;
  table->create_stream = vcpu_create_stream;
  table->destroy_stream = vcpu_destroy_stream;
  table->query_stream = vcpu_query_stream;
  table->stream_add_callback = vcpu_stream_add_callback;
  table->create_event = vcpu_create_event;
  table->record_event = vcpu_record_event;
  table->destroy_event = vcpu_destroy_event;
  table->query_event = vcpu_query_event;
  table->synchronize_device = vcpu_synchronize_device;
  table->synchronize_stream = vcpu_synchronize_stream;
  table->synchronize_event = vcpu_synchronize_event;
  table->stream_wait_event = vcpu_stream_wait_event;

  table->device_memory_allocate = vcpu_device_memory_allocate;
  table->device_memory_deallocate = vcpu_device_memory_deallocate;
  table->device_memory_set = vcpu_device_memory_set;
  table->host_memory_allocate = vcpu_host_memory_allocate;
  table->host_memory_deallocate = vcpu_host_memory_deallocate;
  table->unified_memory_allocate = vcpu_unified_memory_allocate;
  table->unified_memory_deallocate = vcpu_unified_memory_deallocate;
  table->memory_copy_h2d = vcpu_memory_copy_h2d;
  table->memory_copy_d2h = vcpu_memory_copy_d2h;
  table->memory_copy_d2d = vcpu_memory_copy_d2d;
  table->memory_copy_p2p = vcpu_memory_copy_p2p;
  table->async_memory_copy_h2d = vcpu_async_memory_copy_h2d;
  table->async_memory_copy_d2h = vcpu_async_memory_copy_d2h;
  table->async_memory_copy_d2d = vcpu_async_memory_copy_d2d;
  table->async_memory_copy_p2p = vcpu_async_memory_copy_p2p;

  table->get_device_count = vcpu_get_device_count;
  table->get_device_list = vcpu_get_device_list;
  table->device_memory_stats = vcpu_device_memory_stats;
  table->device_min_chunk_size = vcpu_device_min_chunk_size;
  table->device_max_chunk_size = vcpu_device_max_chunk_size;
  table->device_max_alloc_size = vcpu_device_max_alloc_size;
  table->device_extra_padding_size = vcpu_device_extra_padding_size;
  table->device_init_alloc_size = vcpu_device_init_alloc_size;
  table->device_realloc_size = vcpu_device_realloc_size;
  table->get_compute_capability = vcpu_get_compute_capability;
  table->get_runtime_version = vcpu_get_runtime_version;
  table->get_driver_version = vcpu_get_driver_version;

  vcpu_comm_fill_interface(table);

  table->profiler_initialize = vcpu_profiler_initialize; /* trace.h */
  table->profiler_finalize = vcpu_profiler_finalize;
  table->profiler_prepare_tracing = vcpu_profiler_prepare_tracing;
  table->profiler_start_tracing = vcpu_profiler_start_tracing;
  table->profiler_stop_tracing = vcpu_profiler_stop_tracing;
  table->profiler_collect_trace_data = vcpu_profiler_collect_trace_data;
}

/* Fills the layout the host asks for (backplane/device_layouts.h): Paddle
 * 3's longer tables as well as Backplane's own layout B. */
VCPU_EXPORT void InitPlugin(CustomRuntimeParams *params) {
  C_DeviceInterface table;
  fill_table(&table);
  BP_CustomRuntimeExport(params, &table, "vcpu", "v1");
}
