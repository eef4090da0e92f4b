/*
 * Backplane vendor face: the known layouts of Paddle's custom-runtime table.
 *
 * Paddle's C_DeviceInterface grew new slots in the middle several times while
 * its version stayed 0.1.1, so a plugin and a host agree on the layout only
 * through the sizes the host writes into CustomRuntimeParams before calling
 * InitPlugin (params->size, params->interface->size). Backplane's own header
 * (device_ext.h) is layout B; this file is the one place that knows the
 * others:
 *
 *   layout  C_DeviceInterface  params  seen in
 *   A        904 B             88 B    Paddle's first custom-runtime ABI
 *   B        912 B             88 B    + xccl_all_to_all; Backplane's own
 *   C       1040 B             96 B    + device info queries taking a device,
 *                                        xccl_get_comm_name, BLAS handles,
 *                                        params.pir_default_passes
 *   D       1032 B             96 B    C without is_dnn_supported, with
 *                                        transform_unary/binary (a fork)
 *   E       1128 B             96 B    C + CUDA-graph slots (Paddle 3.3.1)
 *
 * Every layout shares slots 0-58 (size, device, memory, the first nine info
 * queries). Three queries changed signature from A/B to C/D/E
 * (get_compute_capability, get_runtime_version, get_driver_version gained a
 * `device` argument): they are different rows below, never copied across.
 *
 * This file is only the table (X-macros and the layout ids; it includes
 * nothing, so it can sit beside any layout's header, Paddle's own too);
 * backplane/device_layouts.h uses it. LP64: a slot is one 8-byte word.
 */
#ifndef BACKPLANE_DEVICE_LAYOUT_TABLE_H_
#define BACKPLANE_DEVICE_LAYOUT_TABLE_H_

/* BP_DEVICE_LAYOUTS(X): X(name, interface_bytes, params_bytes), in the order
 * of BP_DeviceLayoutId. */
#define BP_DEVICE_LAYOUTS(X)                                                   \
  X(A, 904, 88)                                                                \
  X(B, 912, 88)                                                                \
  X(C, 1040, 96)                                                               \
  X(D, 1032, 96)                                                               \
  X(E, 1128, 96)

typedef enum BP_DeviceLayoutId {
  BP_DEVICE_LAYOUT_A = 0,
  BP_DEVICE_LAYOUT_B,
  BP_DEVICE_LAYOUT_C,
  BP_DEVICE_LAYOUT_D,
  BP_DEVICE_LAYOUT_E,
  BP_DEVICE_LAYOUT_COUNT,
  BP_DEVICE_LAYOUT_NATIVE = BP_DEVICE_LAYOUT_B, /* device_ext.h's */
} BP_DeviceLayoutId;

/* BP_DEVICE_LAYOUT_SLOTS(X): X(row, field, A, B, C, D, E), one row per
 * function: `field` is its name in the layouts that have it, and the columns
 * its slot (8-byte word index) in each layout, -1 where absent. `row` is
 * unique; it differs from `field` only where a signature changed. The
 * reserved words are no rows: they stay zero. */
#define BP_DEVICE_LAYOUT_SLOTS(X)                                              \
  X(initialize, initialize, 1, 1, 1, 1, 1)                                     \
  X(finalize, finalize, 2, 2, 2, 2, 2)                                         \
  X(init_device, init_device, 3, 3, 3, 3, 3)                                   \
  X(set_device, set_device, 4, 4, 4, 4, 4)                                     \
  X(get_device, get_device, 5, 5, 5, 5, 5)                                     \
  X(deinit_device, deinit_device, 6, 6, 6, 6, 6)                               \
  X(create_stream, create_stream, 7, 7, 7, 7, 7)                               \
  X(destroy_stream, destroy_stream, 8, 8, 8, 8, 8)                             \
  X(query_stream, query_stream, 9, 9, 9, 9, 9)                                 \
  X(stream_add_callback, stream_add_callback, 10, 10, 10, 10, 10)              \
  X(create_event, create_event, 11, 11, 11, 11, 11)                            \
  X(record_event, record_event, 12, 12, 12, 12, 12)                            \
  X(destroy_event, destroy_event, 13, 13, 13, 13, 13)                          \
  X(query_event, query_event, 14, 14, 14, 14, 14)                              \
  X(synchronize_device, synchronize_device, 15, 15, 15, 15, 15)                \
  X(synchronize_stream, synchronize_stream, 16, 16, 16, 16, 16)                \
  X(synchronize_event, synchronize_event, 17, 17, 17, 17, 17)                  \
  X(stream_wait_event, stream_wait_event, 18, 18, 18, 18, 18)                  \
  X(device_memory_allocate, device_memory_allocate, 27, 27, 27, 27, 27)        \
  X(device_memory_deallocate, device_memory_deallocate, 28, 28, 28, 28, 28)    \
  X(device_memory_set, device_memory_set, 29, 29, 29, 29, 29)                  \
  X(host_memory_allocate, host_memory_allocate, 30, 30, 30, 30, 30)            \
  X(host_memory_deallocate, host_memory_deallocate, 31, 31, 31, 31, 31)        \
  X(unified_memory_allocate, unified_memory_allocate, 32, 32, 32, 32, 32)      \
  X(unified_memory_deallocate, unified_memory_deallocate, 33, 33, 33, 33, 33)  \
  X(memory_copy_h2d, memory_copy_h2d, 34, 34, 34, 34, 34)                      \
  X(memory_copy_d2h, memory_copy_d2h, 35, 35, 35, 35, 35)                      \
  X(memory_copy_d2d, memory_copy_d2d, 36, 36, 36, 36, 36)                      \
  X(memory_copy_p2p, memory_copy_p2p, 37, 37, 37, 37, 37)                      \
  X(async_memory_copy_h2d, async_memory_copy_h2d, 38, 38, 38, 38, 38)          \
  X(async_memory_copy_d2h, async_memory_copy_d2h, 39, 39, 39, 39, 39)          \
  X(async_memory_copy_d2d, async_memory_copy_d2d, 40, 40, 40, 40, 40)          \
  X(async_memory_copy_p2p, async_memory_copy_p2p, 41, 41, 41, 41, 41)          \
  X(get_device_count, get_device_count, 50, 50, 50, 50, 50)                    \
  X(get_device_list, get_device_list, 51, 51, 51, 51, 51)                      \
  X(device_memory_stats, device_memory_stats, 52, 52, 52, 52, 52)              \
  X(device_min_chunk_size, device_min_chunk_size, 53, 53, 53, 53, 53)          \
  X(device_max_chunk_size, device_max_chunk_size, 54, 54, 54, 54, 54)          \
  X(device_max_alloc_size, device_max_alloc_size, 55, 55, 55, 55, 55)          \
  X(device_extra_padding_size, device_extra_padding_size, 56, 56, 56, 56, 56)  \
  X(device_init_alloc_size, device_init_alloc_size, 57, 57, 57, 57, 57)        \
  X(device_realloc_size, device_realloc_size, 58, 58, 58, 58, 58)              \
  X(get_compute_capability, get_compute_capability, 59, 59, -1, -1, -1)        \
  X(get_runtime_version, get_runtime_version, 60, 60, -1, -1, -1)              \
  X(get_driver_version, get_driver_version, 61, 61, -1, -1, -1)                \
  X(get_compute_capability_of_device, get_compute_capability, -1, -1, 59, 59,  \
    59)                                                                        \
  X(get_device_properties, get_device_properties, -1, -1, 60, 60, 60)          \
  X(get_runtime_version_of_device, get_runtime_version, -1, -1, 61, 61, 61)    \
  X(get_driver_version_of_device, get_driver_version, -1, -1, 62, 62, 62)      \
  X(get_multi_process, get_multi_process, -1, -1, 63, 63, 63)                  \
  X(get_max_threads_per_mp, get_max_threads_per_mp, -1, -1, 64, 64, 64)        \
  X(get_max_threads_per_block, get_max_threads_per_block, -1, -1, 65, 65, 65)  \
  X(get_max_grid_dim_size, get_max_grid_dim_size, -1, -1, 66, 66, 66)          \
  X(is_float16_supported, is_float16_supported, -1, -1, 67, 67, 67)            \
  X(is_bfloat16_supported, is_bfloat16_supported, -1, -1, 68, 68, 68)          \
  X(is_dnn_supported, is_dnn_supported, -1, -1, 69, -1, 69)                    \
  X(init_eigen_device, init_eigen_device, -1, -1, 70, 69, 70)                  \
  X(destroy_eigen_device, destroy_eigen_device, -1, -1, 71, 70, 71)            \
  X(xccl_get_comm_name, xccl_get_comm_name, -1, -1, 80, 79, 80)                \
  X(xccl_get_unique_id_size, xccl_get_unique_id_size, 70, 70, 81, 80, 81)      \
  X(xccl_get_unique_id, xccl_get_unique_id, 71, 71, 82, 81, 82)                \
  X(xccl_comm_init_rank, xccl_comm_init_rank, 72, 72, 83, 82, 83)              \
  X(xccl_destroy_comm, xccl_destroy_comm, 73, 73, 84, 83, 84)                  \
  X(xccl_all_reduce, xccl_all_reduce, 74, 74, 85, 84, 85)                      \
  X(xccl_broadcast, xccl_broadcast, 75, 75, 86, 85, 86)                        \
  X(xccl_reduce, xccl_reduce, 76, 76, 87, 86, 87)                              \
  X(xccl_all_gather, xccl_all_gather, 77, 77, 88, 87, 88)                      \
  X(xccl_reduce_scatter, xccl_reduce_scatter, 78, 78, 89, 88, 89)              \
  X(xccl_group_start, xccl_group_start, 79, 79, 90, 89, 90)                    \
  X(xccl_group_end, xccl_group_end, 80, 80, 91, 90, 91)                        \
  X(xccl_send, xccl_send, 81, 81, 92, 91, 92)                                  \
  X(xccl_recv, xccl_recv, 82, 82, 93, 92, 93)                                  \
  X(xccl_all_to_all, xccl_all_to_all, -1, 83, 94, 93, 94)                      \
  X(profiler_initialize, profiler_initialize, 91, 92, 103, 102, 103)           \
  X(profiler_finalize, profiler_finalize, 92, 93, 104, 103, 104)               \
  X(profiler_prepare_tracing, profiler_prepare_tracing, 93, 94, 105, 104, 105) \
  X(profiler_start_tracing, profiler_start_tracing, 94, 95, 106, 105, 106)     \
  X(profiler_stop_tracing, profiler_stop_tracing, 95, 96, 107, 106, 107)       \
  X(profiler_collect_trace_data, profiler_collect_trace_data, 96, 97, 108,     \
    107, 108)                                                                  \
  X(init_blas_handle, init_blas_handle, -1, -1, 117, 116, 117)                 \
  X(blas_set_math_mode, blas_set_math_mode, -1, -1, 118, 117, 118)             \
  X(init_blaslt_handle, init_blaslt_handle, -1, -1, 119, 118, 119)             \
  X(destroy_blas_handle, destroy_blas_handle, -1, -1, 120, 119, 120)           \
  X(destroy_blaslt_handle, destroy_blaslt_handle, -1, -1, 121, 120, 121)       \
  X(cuda_stream_begin_capture, cuda_stream_begin_capture, -1, -1, -1, -1, 122) \
  X(cuda_stream_end_captrue, cuda_stream_end_captrue, -1, -1, -1, -1, 123)     \
  X(cuda_graph_launch, cuda_graph_launch, -1, -1, -1, -1, 124)                 \
  X(cuda_graph_destroy, cuda_graph_destroy, -1, -1, -1, -1, 125)               \
  X(cuda_graph_exec_destroy, cuda_graph_exec_destroy, -1, -1, -1, -1, 126)     \
  X(cuda_graph_instantiate, cuda_graph_instantiate, -1, -1, -1, -1, 127)       \
  X(cuda_graph_get_nodes, cuda_graph_get_nodes, -1, -1, -1, -1, 128)           \
  X(cuda_stream_capture_info, cuda_stream_capture_info, -1, -1, -1, -1, 129)   \
  X(get_parameter_setter_for_exec_graph, get_parameter_setter_for_exec_graph,  \
    -1, -1, -1, -1, 130)                                                       \
  X(cuda_graph_debug_dot_print, cuda_graph_debug_dot_print, -1, -1, -1, -1,    \
    131)                                                                       \
  X(cuda_thread_exchange_stream_capthure_mode,                                 \
    cuda_thread_exchange_stream_capthure_mode, -1, -1, -1, -1, 132)            \
  X(blas_axpby, blas_axpby, 105, 106, 122, 121, 133)                           \
  X(transform_unary, transform_unary, -1, -1, -1, 122, -1)                     \
  X(transform_binary, transform_binary, -1, -1, -1, 123, -1)

#endif /* BACKPLANE_DEVICE_LAYOUT_TABLE_H_ */
