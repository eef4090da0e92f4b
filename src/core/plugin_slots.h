/* The one table of C_DeviceInterface's function slots (internal).
 *
 * BP_PLUGIN_SLOTS(X) expands X(name, need, layers, params, args) once per
 * function slot, in layout order (the reserved arrays are not slots):
 * - name:   the field of C_DeviceInterface (device_ext.h);
 * - need:   REQUIRED (the loader rejects a plugin without it: Paddle's ten
 *           required pointers plus synchronize_device, which Paddle calls
 *           without checking), FALLBACK (optional; core/fallbacks.c holds a
 *           substitute) or OPTIONAL (optional, no substitute);
 * - layers: which layers (src/layers) wrap it. NONE: no layer can (the slot
 *           takes no C_Device); WRAP: the trace and fault layers; CHECK: the
 *           validation layer as well;
 * - params, args: the slot's parameter list and the argument list that
 *           forwards it. For a slot layers wrap, the first parameter is
 *           always named `device` (for p2p copies: the destination), so a
 *           wrapper finds its layer state with bp_plugin_of(device).
 *
 * What reads it: the dispatch names and needs (core/dispatch.c), the
 * loader's required list (core/loader.c), the fallbacks installed
 * (core/fallbacks.c), the layers' intercepts (layers/layer_functions.h and
 * each layer's install), and what `backplane check` reports as required
 * (tools/backplane/check/check_abi.c). core/dispatch.c checks each row's
 * params against the header's field type at compile time; device_ext.h's
 * static assertions on the offsets stay an independent check of the layout.
 *
 * Self-contained (it includes only the vendor face), so the conformance
 * library under tools/ compiles against this same file instead of a copy;
 * it is never installed. */
#ifndef BACKPLANE_CORE_PLUGIN_SLOTS_H_
#define BACKPLANE_CORE_PLUGIN_SLOTS_H_

#include "backplane/device_ext.h"

#define BP_SLOT_COPY_PARAMS                                                    \
  (const C_Device device, void *dst, const void *src, size_t size)
#define BP_SLOT_ASYNC_COPY_PARAMS                                              \
  (const C_Device device, C_Stream stream, void *dst, const void *src,         \
   size_t size)
#define BP_SLOT_SIZE_HINT_PARAMS (const C_Device device, size_t *size)
#define BP_SLOT_SIZE_PARAMS (size_t * size)
#define BP_SLOT_PROFILER_PARAMS (C_Profiler prof, void *user_data)

#define BP_PLUGIN_SLOTS(X)                                                     \
  X(initialize, OPTIONAL, NONE, (void), ())                                    \
  X(finalize, OPTIONAL, NONE, (void), ())                                      \
  X(init_device, OPTIONAL, WRAP, (const C_Device device), (device))            \
  X(set_device, REQUIRED, WRAP, (const C_Device device), (device))             \
  X(get_device, REQUIRED, WRAP, (const C_Device device), (device))             \
  X(deinit_device, OPTIONAL, WRAP, (const C_Device device), (device))          \
  X(create_stream, FALLBACK, CHECK, (const C_Device device, C_Stream *stream), \
    (device, stream))                                                          \
  X(destroy_stream, FALLBACK, CHECK, (const C_Device device, C_Stream stream), \
    (device, stream))                                                          \
  X(query_stream, FALLBACK, CHECK, (const C_Device device, C_Stream stream),   \
    (device, stream))                                                          \
  X(stream_add_callback, FALLBACK, CHECK,                                      \
    (const C_Device device, C_Stream stream, C_Callback callback,              \
     void *user_data),                                                         \
    (device, stream, callback, user_data))                                     \
  X(create_event, REQUIRED, CHECK, (const C_Device device, C_Event *event),    \
    (device, event))                                                           \
  X(record_event, REQUIRED, CHECK,                                             \
    (const C_Device device, C_Stream stream, C_Event event),                   \
    (device, stream, event))                                                   \
  X(destroy_event, REQUIRED, CHECK, (const C_Device device, C_Event event),    \
    (device, event))                                                           \
  X(query_event, FALLBACK, CHECK, (const C_Device device, C_Event event),      \
    (device, event))                                                           \
  X(synchronize_device, REQUIRED, CHECK, (const C_Device device), (device))    \
  X(synchronize_stream, FALLBACK, CHECK,                                       \
    (const C_Device device, C_Stream stream), (device, stream))                \
  X(synchronize_event, REQUIRED, CHECK,                                        \
    (const C_Device device, C_Event event), (device, event))                   \
  X(stream_wait_event, FALLBACK, CHECK,                                        \
    (const C_Device device, C_Stream stream, C_Event event),                   \
    (device, stream, event))                                                   \
  X(device_memory_allocate, REQUIRED, CHECK,                                   \
    (const C_Device device, void **ptr, size_t size), (device, ptr, size))     \
  X(device_memory_deallocate, REQUIRED, CHECK,                                 \
    (const C_Device device, void *ptr, size_t size), (device, ptr, size))      \
  X(device_memory_set, FALLBACK, CHECK,                                        \
    (const C_Device device, void *ptr, unsigned char value, size_t size),      \
    (device, ptr, value, size))                                                \
  X(host_memory_allocate, OPTIONAL, CHECK,                                     \
    (const C_Device device, void **ptr, size_t size), (device, ptr, size))     \
  X(host_memory_deallocate, OPTIONAL, CHECK,                                   \
    (const C_Device device, void *ptr, size_t size), (device, ptr, size))      \
  X(unified_memory_allocate, OPTIONAL, CHECK,                                  \
    (const C_Device device, void **ptr, size_t size), (device, ptr, size))     \
  X(unified_memory_deallocate, OPTIONAL, CHECK,                                \
    (const C_Device device, void *ptr, size_t size), (device, ptr, size))      \
  X(memory_copy_h2d, OPTIONAL, CHECK, BP_SLOT_COPY_PARAMS,                     \
    (device, dst, src, size))                                                  \
  X(memory_copy_d2h, OPTIONAL, CHECK, BP_SLOT_COPY_PARAMS,                     \
    (device, dst, src, size))                                                  \
  X(memory_copy_d2d, OPTIONAL, CHECK, BP_SLOT_COPY_PARAMS,                     \
    (device, dst, src, size))                                                  \
  X(memory_copy_p2p, FALLBACK, CHECK,                                          \
    (const C_Device device, const C_Device src_device, void *dst,              \
     const void *src, size_t size),                                            \
    (device, src_device, dst, src, size))                                      \
  X(async_memory_copy_h2d, FALLBACK, CHECK, BP_SLOT_ASYNC_COPY_PARAMS,         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_d2h, FALLBACK, CHECK, BP_SLOT_ASYNC_COPY_PARAMS,         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_d2d, FALLBACK, CHECK, BP_SLOT_ASYNC_COPY_PARAMS,         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_p2p, FALLBACK, CHECK,                                    \
    (const C_Device device, const C_Device src_device, C_Stream stream,        \
     void *dst, const void *src, size_t size),                                 \
    (device, src_device, stream, dst, src, size))                              \
  X(get_device_count, REQUIRED, NONE, (size_t * count), (count))               \
  X(get_device_list, REQUIRED, NONE, (size_t * devices), (devices))            \
  X(device_memory_stats, OPTIONAL, WRAP,                                       \
    (const C_Device device, size_t *total_memory, size_t *free_memory),        \
    (device, total_memory, free_memory))                                       \
  X(device_min_chunk_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,           \
    (device, size))                                                            \
  X(device_max_chunk_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,           \
    (device, size))                                                            \
  X(device_max_alloc_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,           \
    (device, size))                                                            \
  X(device_extra_padding_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,       \
    (device, size))                                                            \
  X(device_init_alloc_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,          \
    (device, size))                                                            \
  X(device_realloc_size, OPTIONAL, WRAP, BP_SLOT_SIZE_HINT_PARAMS,             \
    (device, size))                                                            \
  X(get_compute_capability, OPTIONAL, NONE, (size_t * compute_capability),     \
    (compute_capability))                                                      \
  X(get_runtime_version, OPTIONAL, NONE, (size_t * version), (version))        \
  X(get_driver_version, OPTIONAL, NONE, (size_t * version), (version))         \
  X(xccl_get_unique_id_size, OPTIONAL, NONE, BP_SLOT_SIZE_PARAMS, (size))      \
  X(xccl_get_unique_id, OPTIONAL, NONE, (C_CCLRootId * unique_id),             \
    (unique_id))                                                               \
  X(xccl_comm_init_rank, OPTIONAL, NONE,                                       \
    (size_t nranks, C_CCLRootId * unique_id, size_t rank, C_CCLComm * comm),   \
    (nranks, unique_id, rank, comm))                                           \
  X(xccl_destroy_comm, OPTIONAL, NONE, (C_CCLComm comm), (comm))               \
  X(xccl_all_reduce, OPTIONAL, NONE,                                           \
    (void *send_buf, void *recv_buf, size_t count, C_DataType data_type,       \
     C_CCLReduceOp op, C_CCLComm comm, C_Stream stream),                       \
    (send_buf, recv_buf, count, data_type, op, comm, stream))                  \
  X(xccl_broadcast, OPTIONAL, NONE,                                            \
    (void *buf, size_t count, C_DataType data_type, size_t root,               \
     C_CCLComm comm, C_Stream stream),                                         \
    (buf, count, data_type, root, comm, stream))                               \
  X(xccl_reduce, OPTIONAL, NONE,                                               \
    (void *send_buf, void *recv_buf, size_t count, C_DataType data_type,       \
     C_CCLReduceOp op, size_t root, C_CCLComm comm, C_Stream stream),          \
    (send_buf, recv_buf, count, data_type, op, root, comm, stream))            \
  X(xccl_all_gather, OPTIONAL, NONE,                                           \
    (void *send_buf, void *recv_buf, size_t count, C_DataType data_type,       \
     C_CCLComm comm, C_Stream stream),                                         \
    (send_buf, recv_buf, count, data_type, comm, stream))                      \
  X(xccl_reduce_scatter, OPTIONAL, NONE,                                       \
    (void *send_buf, void *recv_buf, size_t count, C_DataType data_type,       \
     C_CCLReduceOp op, C_CCLComm comm, C_Stream stream),                       \
    (send_buf, recv_buf, count, data_type, op, comm, stream))                  \
  X(xccl_group_start, OPTIONAL, NONE, (void), ())                              \
  X(xccl_group_end, OPTIONAL, NONE, (void), ())                                \
  X(xccl_send, OPTIONAL, NONE,                                                 \
    (void *send_buf, size_t count, C_DataType data_type, size_t dest_rank,     \
     C_CCLComm comm, C_Stream stream),                                         \
    (send_buf, count, data_type, dest_rank, comm, stream))                     \
  X(xccl_recv, OPTIONAL, NONE,                                                 \
    (void *recv_buf, size_t count, C_DataType data_type, size_t src_rank,      \
     C_CCLComm comm, C_Stream stream),                                         \
    (recv_buf, count, data_type, src_rank, comm, stream))                      \
  X(xccl_all_to_all, OPTIONAL, NONE,                                           \
    (const void **send_buf, const size_t *send_count,                          \
     const C_DataType *send_dtype, void **recv_buf, const size_t *recv_count,  \
     const C_DataType *recv_dtype, size_t rank, size_t nranks, C_CCLComm comm, \
     C_Stream stream),                                                         \
    (send_buf, send_count, send_dtype, recv_buf, recv_count, recv_dtype, rank, \
     nranks, comm, stream))                                                    \
  X(profiler_initialize, OPTIONAL, NONE, (C_Profiler prof, void **user_data),  \
    (prof, user_data))                                                         \
  X(profiler_finalize, OPTIONAL, NONE, BP_SLOT_PROFILER_PARAMS,                \
    (prof, user_data))                                                         \
  X(profiler_prepare_tracing, OPTIONAL, NONE, BP_SLOT_PROFILER_PARAMS,         \
    (prof, user_data))                                                         \
  X(profiler_start_tracing, OPTIONAL, NONE, BP_SLOT_PROFILER_PARAMS,           \
    (prof, user_data))                                                         \
  X(profiler_stop_tracing, OPTIONAL, NONE, BP_SLOT_PROFILER_PARAMS,            \
    (prof, user_data))                                                         \
  X(profiler_collect_trace_data, OPTIONAL, NONE,                               \
    (C_Profiler prof, uint64_t start_ns, void *user_data),                     \
    (prof, start_ns, user_data))                                               \
  X(blas_axpby, OPTIONAL, CHECK,                                               \
    (const C_Device device, C_Stream stream, C_DataType dtype, size_t numel,   \
     float alpha, void *x, float beta, void *y),                               \
    (device, stream, dtype, numel, alpha, x, beta, y))

/* Selecting rows by a column: BP_SLOT_IF_<column>(value)(tokens) keeps the
 * tokens only for rows whose column matches, e.g. in an X:
 *   BP_SLOT_IF_WRAPPED(layers)(static C_Status wrap_##name params {...}) */
#define BP_SLOT_IF_REQUIRED(need) BP_SLOT_REQUIRED_##need
#define BP_SLOT_REQUIRED_REQUIRED(...) __VA_ARGS__
#define BP_SLOT_REQUIRED_FALLBACK(...)
#define BP_SLOT_REQUIRED_OPTIONAL(...)
#define BP_SLOT_IF_FALLBACK(need) BP_SLOT_FALLBACK_##need
#define BP_SLOT_FALLBACK_REQUIRED(...)
#define BP_SLOT_FALLBACK_FALLBACK(...) __VA_ARGS__
#define BP_SLOT_FALLBACK_OPTIONAL(...)
/* Slots every wrapping layer (trace, fault) intercepts. */
#define BP_SLOT_IF_WRAPPED(layers) BP_SLOT_WRAPPED_##layers
#define BP_SLOT_WRAPPED_NONE(...)
#define BP_SLOT_WRAPPED_WRAP(...) __VA_ARGS__
#define BP_SLOT_WRAPPED_CHECK(...) __VA_ARGS__
/* Slots the validation layer also checks. */
#define BP_SLOT_IF_CHECKED(layers) BP_SLOT_CHECKED_##layers
#define BP_SLOT_CHECKED_NONE(...)
#define BP_SLOT_CHECKED_WRAP(...)
#define BP_SLOT_CHECKED_CHECK(...) __VA_ARGS__

/* A slot's need as a value (bp_interface_function_t.need). */
typedef enum bp_slot_need {
  BP_SLOT_NEED_REQUIRED,
  BP_SLOT_NEED_FALLBACK,
  BP_SLOT_NEED_OPTIONAL,
} bp_slot_need_t;

#endif /* BACKPLANE_CORE_PLUGIN_SLOTS_H_ */
