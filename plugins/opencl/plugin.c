/* The plugin's exported symbols: InitPlugin fills the Paddle table in the
 * layout the host asks for; BackplanePluginExtensions returns the extension
 * chain (attributes, event timing, kernels, collectives, the opencl target
 * kind); BackplanePluginLastError explains the calling thread's last failure
 * (why initialize found no device). Nothing else is exported. InitPlugin makes
 * no OpenCL call: the ICD loader and the platforms are first touched by
 * initialize.
 *
 * The xccl_* collectives are host-staged over the vcpu transports (comm.h).
 * Not provided (the host's fallbacks or "missing"): peer copies (the host
 * bounces them through host memory), xccl_all_to_all and the profiler
 * hooks. */
#include "attributes.h"
#include "backplane/device_ext.h"
#include "backplane/device_layouts.h"
#include "comm.h"
#include "copy.h"
#include "device.h"
#include "event.h"
#include "kernel.h"
#include "memory.h"
#include "ocl.h"
#include "stream.h"
#include "target.h"

#include <string.h>

#define OCL_EXPORT __attribute__((visibility("default")))

static const BP_EventTimingExtension g_event_timing = {
    .base = {.struct_size = sizeof(BP_EventTimingExtension),
             .type = BP_EXTENSION_EVENT_TIMING,
             .next = &ocl_kernels.base},
    .event_elapsed_time = ocl_event_elapsed_time,
};

static const BP_DeviceAttributesExtension g_device_attributes = {
    .base = {.struct_size = sizeof(BP_DeviceAttributesExtension),
             .type = BP_EXTENSION_DEVICE_ATTRIBUTES,
             .next = &g_event_timing.base},
    .get_attribute = ocl_get_attribute,
};

OCL_EXPORT const BP_ExtensionBase *BackplanePluginExtensions(void) {
  return &g_device_attributes.base;
}

OCL_EXPORT const char *BackplanePluginLastError(void) {
  return ocl_last_error();
}

static void fill_table(C_DeviceInterface *table) {
  memset(table, 0, sizeof *table);
  table->size = sizeof *table;

  table->initialize = ocl_initialize;
  table->finalize = ocl_finalize;
  table->set_device = ocl_set_device;
  table->get_device = ocl_get_device;
  table->create_stream = ocl_create_stream;
  table->destroy_stream = ocl_destroy_stream;
  table->query_stream = ocl_query_stream;
  table->stream_add_callback = ocl_stream_add_callback;
  table->create_event = ocl_create_event;
  table->record_event = ocl_record_event;
  table->destroy_event = ocl_destroy_event;
  table->query_event = ocl_query_event;
  table->synchronize_device = ocl_synchronize_device;
  table->synchronize_stream = ocl_synchronize_stream;
  table->synchronize_event = ocl_synchronize_event;
  table->stream_wait_event = ocl_stream_wait_event;

  table->device_memory_allocate = ocl_device_memory_allocate;
  table->device_memory_deallocate = ocl_device_memory_deallocate;
  table->device_memory_set = ocl_device_memory_set;
  table->host_memory_allocate = ocl_host_memory_allocate;
  table->host_memory_deallocate = ocl_host_memory_deallocate;
  table->unified_memory_allocate = ocl_unified_memory_allocate;
  table->unified_memory_deallocate = ocl_unified_memory_deallocate;
  table->memory_copy_h2d = ocl_memory_copy_h2d;
  table->memory_copy_d2h = ocl_memory_copy_d2h;
  table->memory_copy_d2d = ocl_memory_copy_d2d;
  table->async_memory_copy_h2d = ocl_async_memory_copy_h2d;
  table->async_memory_copy_d2h = ocl_async_memory_copy_d2h;
  table->async_memory_copy_d2d = ocl_async_memory_copy_d2d;

  table->get_device_count = ocl_get_device_count;
  table->get_device_list = ocl_get_device_list;
  table->device_memory_stats = ocl_device_memory_stats;
  table->device_min_chunk_size = ocl_device_min_chunk_size;
  table->device_max_chunk_size = ocl_device_max_chunk_size;
  table->device_max_alloc_size = ocl_device_max_alloc_size;

  ocl_comm_fill_interface(table);
}

/* Fills the layout the host asks for (backplane/device_layouts.h): Paddle
 * 3's longer tables as well as Backplane's own layout B. */
OCL_EXPORT void InitPlugin(CustomRuntimeParams *params) {
  C_DeviceInterface table;
  fill_table(&table);
  BP_CustomRuntimeExport(params, &table, "opencl", "icd");
}
