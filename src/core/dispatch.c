#include "core/dispatch.h"

#include <stdlib.h>
#include <string.h>

#include "core/device_table.h"

const bp_interface_function_t bp_interface_functions[] = {
    {"initialize", offsetof(C_DeviceInterface, initialize)},
    {"finalize", offsetof(C_DeviceInterface, finalize)},
    {"init_device", offsetof(C_DeviceInterface, init_device)},
    {"set_device", offsetof(C_DeviceInterface, set_device)},
    {"get_device", offsetof(C_DeviceInterface, get_device)},
    {"deinit_device", offsetof(C_DeviceInterface, deinit_device)},
    {"create_stream", offsetof(C_DeviceInterface, create_stream)},
    {"destroy_stream", offsetof(C_DeviceInterface, destroy_stream)},
    {"query_stream", offsetof(C_DeviceInterface, query_stream)},
    {"stream_add_callback", offsetof(C_DeviceInterface, stream_add_callback)},
    {"create_event", offsetof(C_DeviceInterface, create_event)},
    {"record_event", offsetof(C_DeviceInterface, record_event)},
    {"destroy_event", offsetof(C_DeviceInterface, destroy_event)},
    {"query_event", offsetof(C_DeviceInterface, query_event)},
    {"synchronize_device", offsetof(C_DeviceInterface, synchronize_device)},
    {"synchronize_stream", offsetof(C_DeviceInterface, synchronize_stream)},
    {"synchronize_event", offsetof(C_DeviceInterface, synchronize_event)},
    {"stream_wait_event", offsetof(C_DeviceInterface, stream_wait_event)},
    {"device_memory_allocate",
     offsetof(C_DeviceInterface, device_memory_allocate)},
    {"device_memory_deallocate",
     offsetof(C_DeviceInterface, device_memory_deallocate)},
    {"device_memory_set", offsetof(C_DeviceInterface, device_memory_set)},
    {"host_memory_allocate", offsetof(C_DeviceInterface, host_memory_allocate)},
    {"host_memory_deallocate",
     offsetof(C_DeviceInterface, host_memory_deallocate)},
    {"unified_memory_allocate",
     offsetof(C_DeviceInterface, unified_memory_allocate)},
    {"unified_memory_deallocate",
     offsetof(C_DeviceInterface, unified_memory_deallocate)},
    {"memory_copy_h2d", offsetof(C_DeviceInterface, memory_copy_h2d)},
    {"memory_copy_d2h", offsetof(C_DeviceInterface, memory_copy_d2h)},
    {"memory_copy_d2d", offsetof(C_DeviceInterface, memory_copy_d2d)},
    {"memory_copy_p2p", offsetof(C_DeviceInterface, memory_copy_p2p)},
    {"async_memory_copy_h2d",
     offsetof(C_DeviceInterface, async_memory_copy_h2d)},
    {"async_memory_copy_d2h",
     offsetof(C_DeviceInterface, async_memory_copy_d2h)},
    {"async_memory_copy_d2d",
     offsetof(C_DeviceInterface, async_memory_copy_d2d)},
    {"async_memory_copy_p2p",
     offsetof(C_DeviceInterface, async_memory_copy_p2p)},
    {"get_device_count", offsetof(C_DeviceInterface, get_device_count)},
    {"get_device_list", offsetof(C_DeviceInterface, get_device_list)},
    {"device_memory_stats", offsetof(C_DeviceInterface, device_memory_stats)},
    {"device_min_chunk_size",
     offsetof(C_DeviceInterface, device_min_chunk_size)},
    {"device_max_chunk_size",
     offsetof(C_DeviceInterface, device_max_chunk_size)},
    {"device_max_alloc_size",
     offsetof(C_DeviceInterface, device_max_alloc_size)},
    {"device_extra_padding_size",
     offsetof(C_DeviceInterface, device_extra_padding_size)},
    {"device_init_alloc_size",
     offsetof(C_DeviceInterface, device_init_alloc_size)},
    {"device_realloc_size", offsetof(C_DeviceInterface, device_realloc_size)},
    {"get_compute_capability",
     offsetof(C_DeviceInterface, get_compute_capability)},
    {"get_runtime_version", offsetof(C_DeviceInterface, get_runtime_version)},
    {"get_driver_version", offsetof(C_DeviceInterface, get_driver_version)},
    {"xccl_get_unique_id_size",
     offsetof(C_DeviceInterface, xccl_get_unique_id_size)},
    {"xccl_get_unique_id", offsetof(C_DeviceInterface, xccl_get_unique_id)},
    {"xccl_comm_init_rank", offsetof(C_DeviceInterface, xccl_comm_init_rank)},
    {"xccl_destroy_comm", offsetof(C_DeviceInterface, xccl_destroy_comm)},
    {"xccl_all_reduce", offsetof(C_DeviceInterface, xccl_all_reduce)},
    {"xccl_broadcast", offsetof(C_DeviceInterface, xccl_broadcast)},
    {"xccl_reduce", offsetof(C_DeviceInterface, xccl_reduce)},
    {"xccl_all_gather", offsetof(C_DeviceInterface, xccl_all_gather)},
    {"xccl_reduce_scatter", offsetof(C_DeviceInterface, xccl_reduce_scatter)},
    {"xccl_group_start", offsetof(C_DeviceInterface, xccl_group_start)},
    {"xccl_group_end", offsetof(C_DeviceInterface, xccl_group_end)},
    {"xccl_send", offsetof(C_DeviceInterface, xccl_send)},
    {"xccl_recv", offsetof(C_DeviceInterface, xccl_recv)},
    {"xccl_all_to_all", offsetof(C_DeviceInterface, xccl_all_to_all)},
    {"profiler_initialize", offsetof(C_DeviceInterface, profiler_initialize)},
    {"profiler_finalize", offsetof(C_DeviceInterface, profiler_finalize)},
    {"profiler_prepare_tracing",
     offsetof(C_DeviceInterface, profiler_prepare_tracing)},
    {"profiler_start_tracing",
     offsetof(C_DeviceInterface, profiler_start_tracing)},
    {"profiler_stop_tracing",
     offsetof(C_DeviceInterface, profiler_stop_tracing)},
    {"profiler_collect_trace_data",
     offsetof(C_DeviceInterface, profiler_collect_trace_data)},
    {"blas_axpby", offsetof(C_DeviceInterface, blas_axpby)},
};
const size_t bp_interface_function_count =
    sizeof bp_interface_functions / sizeof bp_interface_functions[0];

int bp_interface_has(const C_DeviceInterface *table, size_t offset) {
  void (*fn)(void);
  memcpy(&fn, (const char *)table + offset, sizeof fn);
  return fn != NULL;
}

bp_status_t bp_plugin_classify_functions(bp_plugin_t *plugin) {
  const char ***lists[] = {&plugin->native_functions,
                           &plugin->fallback_functions,
                           &plugin->missing_functions};
  for (size_t l = 0; l < 3; ++l) {
    *lists[l] = calloc(bp_interface_function_count + 1, sizeof(const char *));
    if (!*lists[l])
      return BP_ERR_OUT_OF_MEMORY;
  }
  size_t counts[3] = {0, 0, 0};
  for (size_t i = 0; i < bp_interface_function_count; ++i) {
    const bp_interface_function_t *fn = &bp_interface_functions[i];
    size_t l = bp_interface_has(&plugin->native, fn->offset)     ? 0
               : bp_interface_has(&plugin->dispatch, fn->offset) ? 1
                                                                 : 2;
    (*lists[l])[counts[l]++] = fn->name;
  }
  return BP_OK;
}

bp_plugin_t *bp_plugin_of(const C_Device device) {
  return ((const bp_device_t *)device)->plugin;
}
