/* The plugin's exported symbols: InitPlugin fills the Paddle table in the
 * layout the host asks for; BackplanePluginExtensions returns the extension
 * chain (attributes, event timing, kernels, the cuda target kind,
 * collectives, the op library); BackplanePluginLastError explains the calling
 * thread's last failure (why initialize found no device). Nothing else is
 * exported. InitPlugin makes no CUDA call: the runtime is first touched by
 * initialize, so a machine without a GPU loads the plugin and rejects it
 * with the reason ("no CUDA device: ...").
 *
 * Not provided (the host's fallbacks or "missing"): the profiler hooks and
 * blas_axpby. */
#include "attributes.h"
#include "backplane/device_ext.h"
#include "backplane/device_layouts.h"
#include "comm.h"
#include "copy.h"
#include "device.h"
#include "event.h"
#include "kernel.h"
#include "memory.h"
#include "ops_library.h"
#include "stream.h"

#include <dlfcn.h>
#include <string.h>

#define CU_EXPORT __attribute__((visibility("default")))

static const BP_EventTimingExtension g_event_timing = {
    .base = {.struct_size = sizeof(BP_EventTimingExtension),
             .type = BP_EXTENSION_EVENT_TIMING,
             .next = &cu_kernels.base},
    .event_elapsed_time = cu_event_elapsed_time,
};

static const BP_DeviceAttributesExtension g_device_attributes = {
    .base = {.struct_size = sizeof(BP_DeviceAttributesExtension),
             .type = BP_EXTENSION_DEVICE_ATTRIBUTES,
             .next = &g_event_timing.base},
    .get_attribute = cu_get_attribute,
};

static const BP_OpsLibraryExtension g_ops_library = {
    .base = {.struct_size = sizeof(BP_OpsLibraryExtension),
             .type = BP_EXTENSION_OPS_LIBRARY,
             .next = &g_device_attributes.base},
    .path = CU_OPS_LIBRARY_PATH,
    .native_stream = cu_native_stream,
};

CU_EXPORT const BP_ExtensionBase *BackplanePluginExtensions(void) {
  return &g_ops_library.base;
}

CU_EXPORT const char *BackplanePluginLastError(void) {
  return cu_last_error();
}

static void fill_table(C_DeviceInterface *table) {
  memset(table, 0, sizeof *table);
  table->size = sizeof *table;

  table->initialize = cu_initialize;
  table->finalize = cu_finalize;
  table->set_device = cu_set_device;
  table->get_device = cu_get_device;
  table->create_stream = cu_create_stream;
  table->destroy_stream = cu_destroy_stream;
  table->query_stream = cu_query_stream;
  table->stream_add_callback = cu_stream_add_callback;
  table->create_event = cu_create_event;
  table->record_event = cu_record_event;
  table->destroy_event = cu_destroy_event;
  table->query_event = cu_query_event;
  table->synchronize_device = cu_synchronize_device;
  table->synchronize_stream = cu_synchronize_stream;
  table->synchronize_event = cu_synchronize_event;
  table->stream_wait_event = cu_stream_wait_event;

  table->device_memory_allocate = cu_device_memory_allocate;
  table->device_memory_deallocate = cu_device_memory_deallocate;
  table->device_memory_set = cu_device_memory_set;
  table->host_memory_allocate = cu_host_memory_allocate;
  table->host_memory_deallocate = cu_host_memory_deallocate;
  table->unified_memory_allocate = cu_unified_memory_allocate;
  table->unified_memory_deallocate = cu_unified_memory_deallocate;
  table->memory_copy_h2d = cu_memory_copy_h2d;
  table->memory_copy_d2h = cu_memory_copy_d2h;
  table->memory_copy_d2d = cu_memory_copy_d2d;
  table->memory_copy_p2p = cu_memory_copy_p2p;
  table->async_memory_copy_h2d = cu_async_memory_copy_h2d;
  table->async_memory_copy_d2h = cu_async_memory_copy_d2h;
  table->async_memory_copy_d2d = cu_async_memory_copy_d2d;
  table->async_memory_copy_p2p = cu_async_memory_copy_p2p;

  table->get_device_count = cu_get_device_count;
  table->get_device_list = cu_get_device_list;
  table->device_memory_stats = cu_device_memory_stats;
  table->device_min_chunk_size = cu_device_min_chunk_size;
  table->device_max_alloc_size = cu_device_max_alloc_size;
  table->get_compute_capability = cu_get_compute_capability;
  table->get_runtime_version = cu_get_runtime_version;
  table->get_driver_version = cu_get_driver_version;

  cu_comm_fill_interface(table);
}

/* CUDA's runtime (linked in) and NVRTC keep static state that does not
 * survive being unloaded, and NVRTC's C++ runtime leaves its exception pool
 * behind: once loaded, the plugin stays mapped (RTLD_NODELETE on itself,
 * when it is loaded). */
__attribute__((constructor)) static void pin_plugin(void) {
  Dl_info info;
  if (dladdr((void *)pin_plugin, &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* Fills the layout the host asks for (backplane/device_layouts.h). */
CU_EXPORT void InitPlugin(CustomRuntimeParams *params) {
  C_DeviceInterface table;
  fill_table(&table);
  BP_CustomRuntimeExport(params, &table, "cuda", "cuda, " CU_HARDWARE_STATUS);
}
