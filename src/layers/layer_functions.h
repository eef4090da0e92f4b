/* The plugin functions layers intercept: every C_Device-taking slot of
 * C_DeviceInterface, as an X-macro X(name, (parameters), (arguments)). The
 * first parameter is always named `device` (for p2p copies: the destination
 * device), so a wrapper finds its layer state with bp_plugin_of(device). */
#ifndef BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_
#define BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_

#include "backplane/device_ext.h"

#define BP_LAYER_COPY_PARAMS                                                   \
  (const C_Device device, void *dst, const void *src, size_t size)
#define BP_LAYER_ASYNC_COPY_PARAMS                                             \
  (const C_Device device, C_Stream stream, void *dst, const void *src,         \
   size_t size)
#define BP_LAYER_SIZE_HINT_PARAMS (const C_Device device, size_t *size)

#define BP_LAYER_FUNCTIONS(X)                                                  \
  X(init_device, (const C_Device device), (device))                            \
  X(set_device, (const C_Device device), (device))                             \
  X(get_device, (const C_Device device), (device))                             \
  X(deinit_device, (const C_Device device), (device))                          \
  X(create_stream, (const C_Device device, C_Stream *stream),                  \
    (device, stream))                                                          \
  X(destroy_stream, (const C_Device device, C_Stream stream),                  \
    (device, stream))                                                          \
  X(query_stream, (const C_Device device, C_Stream stream), (device, stream))  \
  X(stream_add_callback,                                                       \
    (const C_Device device, C_Stream stream, C_Callback callback,              \
     void *user_data),                                                         \
    (device, stream, callback, user_data))                                     \
  X(create_event, (const C_Device device, C_Event *event), (device, event))    \
  X(record_event, (const C_Device device, C_Stream stream, C_Event event),     \
    (device, stream, event))                                                   \
  X(destroy_event, (const C_Device device, C_Event event), (device, event))    \
  X(query_event, (const C_Device device, C_Event event), (device, event))      \
  X(synchronize_device, (const C_Device device), (device))                     \
  X(synchronize_stream, (const C_Device device, C_Stream stream),              \
    (device, stream))                                                          \
  X(synchronize_event, (const C_Device device, C_Event event),                 \
    (device, event))                                                           \
  X(stream_wait_event,                                                         \
    (const C_Device device, C_Stream stream, C_Event event),                   \
    (device, stream, event))                                                   \
  X(device_memory_allocate, (const C_Device device, void **ptr, size_t size),  \
    (device, ptr, size))                                                       \
  X(device_memory_deallocate, (const C_Device device, void *ptr, size_t size), \
    (device, ptr, size))                                                       \
  X(device_memory_set,                                                         \
    (const C_Device device, void *ptr, unsigned char value, size_t size),      \
    (device, ptr, value, size))                                                \
  X(host_memory_allocate, (const C_Device device, void **ptr, size_t size),    \
    (device, ptr, size))                                                       \
  X(host_memory_deallocate, (const C_Device device, void *ptr, size_t size),   \
    (device, ptr, size))                                                       \
  X(unified_memory_allocate, (const C_Device device, void **ptr, size_t size), \
    (device, ptr, size))                                                       \
  X(unified_memory_deallocate,                                                 \
    (const C_Device device, void *ptr, size_t size), (device, ptr, size))      \
  X(memory_copy_h2d, BP_LAYER_COPY_PARAMS, (device, dst, src, size))           \
  X(memory_copy_d2h, BP_LAYER_COPY_PARAMS, (device, dst, src, size))           \
  X(memory_copy_d2d, BP_LAYER_COPY_PARAMS, (device, dst, src, size))           \
  X(memory_copy_p2p,                                                           \
    (const C_Device device, const C_Device src_device, void *dst,              \
     const void *src, size_t size),                                            \
    (device, src_device, dst, src, size))                                      \
  X(async_memory_copy_h2d, BP_LAYER_ASYNC_COPY_PARAMS,                         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_d2h, BP_LAYER_ASYNC_COPY_PARAMS,                         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_d2d, BP_LAYER_ASYNC_COPY_PARAMS,                         \
    (device, stream, dst, src, size))                                          \
  X(async_memory_copy_p2p,                                                     \
    (const C_Device device, const C_Device src_device, C_Stream stream,        \
     void *dst, const void *src, size_t size),                                 \
    (device, src_device, stream, dst, src, size))                              \
  X(device_memory_stats,                                                       \
    (const C_Device device, size_t *total_memory, size_t *free_memory),        \
    (device, total_memory, free_memory))                                       \
  X(device_min_chunk_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))          \
  X(device_max_chunk_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))          \
  X(device_max_alloc_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))          \
  X(device_extra_padding_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))      \
  X(device_init_alloc_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))         \
  X(device_realloc_size, BP_LAYER_SIZE_HINT_PARAMS, (device, size))            \
  X(blas_axpby,                                                                \
    (const C_Device device, C_Stream stream, C_DataType dtype, size_t numel,   \
     float alpha, void *x, float beta, void *y),                               \
    (device, stream, dtype, numel, alpha, x, beta, y))

/* BP_LAYER_FN_<name>: the index of each intercepted function. */
typedef enum bp_layer_function {
#define BP_LAYER_ENUM(name, params, args) BP_LAYER_FN_##name,
  BP_LAYER_FUNCTIONS(BP_LAYER_ENUM)
#undef BP_LAYER_ENUM
      BP_LAYER_FN_COUNT
} bp_layer_function_t;

/* "device_memory_allocate" for BP_LAYER_FN_device_memory_allocate. */
extern const char *const bp_layer_function_names[BP_LAYER_FN_COUNT];

/* The index of the intercepted function called `name`, or -1. */
int bp_layer_function_find(const char *name, size_t length);

#endif /* BACKPLANE_LAYERS_LAYER_FUNCTIONS_H_ */
