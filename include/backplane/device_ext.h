/*
 * Backplane vendor face: the plugin ABI.
 *
 * This is PaddlePaddle's custom-runtime ABI 0.1.1 in the layout Paddle shipped
 * as "B" (912-byte C_DeviceInterface, 88-byte CustomRuntimeParams), written as
 * a self-contained header that compiles as C11 and as C++17. A runtime plugin
 * written for Paddle builds against it unchanged and loads into Backplane.
 *
 * Backplane-specific additions (device attributes, event timing, ...) come
 * through versioned extension structs: a plugin may export
 * `const BP_ExtensionBase* BackplanePluginExtensions(void)` returning a chain.
 * Every extension begins with BP_ExtensionBase; fields are only appended and
 * the host reads a field only if `struct_size` covers it.
 */
#ifndef BACKPLANE_DEVICE_EXT_H_
#define BACKPLANE_DEVICE_EXT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION 0
#define PADDLE_CUSTOM_RUNTIME_MINOR_VERSION 1
#define PADDLE_CUSTOM_RUNTIME_PATCH_VERSION 1

typedef enum {
  C_SUCCESS = 0,        /* success */
  C_WARNING = 1,        /* result not as expected (e.g. async ran sync) */
  C_FAILED = 2,         /* resource exhausted or query failed */
  C_ERROR = 3,          /* bad argument or not initialised */
  C_INTERNAL_ERROR = 4, /* plugin error */
} C_Status;

typedef struct C_Device_st {
  int id;
} * C_Device;

typedef struct C_Stream_st *C_Stream;
typedef struct C_Event_st *C_Event;
typedef void (*C_Callback)(C_Device device, C_Stream stream, void *user_data,
                           C_Status *status);

typedef enum {
  UNDEFINED = 0,
  BOOL,
  UINT8,
  UINT16,
  UINT32,
  UINT64,
  INT8,
  INT16,
  INT32,
  INT64,
  FLOAT16,
  FLOAT32,
  FLOAT64,
  BFLOAT16,
  COMPLEX64,
  COMPLEX128,
} C_DataType;

typedef enum {
  ANY = 0,
  NHWC,
  NCHW,
  NCDHW,
  NDHWC,
  STRIDED,
  NUM_DATA_LAYOUTS,
  ALL_LAYOUT = ANY,
} C_DataLayout;

typedef struct {
  size_t sz;
  void *data;
} C_CCLRootId;

typedef struct C_CCLComm_st *C_CCLComm;

typedef enum { SUM = 0, AVG, MAX, MIN, PRODUCT } C_CCLReduceOp;

typedef struct C_Profiler_st *C_Profiler;

/* Exported by the host (libbackplane) for plugins. `event` must point to a
 * BP_TraceEvent (see below); anything else is counted and dropped. */
void profiler_add_runtime_trace_event(C_Profiler prof, void *event);
void profiler_add_device_trace_event(C_Profiler prof, void *event);

typedef struct C_DeviceInterface C_DeviceInterface;
struct C_DeviceInterface {
  /* The host writes its own sizeof here; a plugin may zero it. */
  size_t size;

  /* Device */
  C_Status (*initialize)(void);
  C_Status (*finalize)(void);
  C_Status (*init_device)(const C_Device device);
  C_Status (*set_device)(const C_Device device);
  C_Status (*get_device)(const C_Device device);
  C_Status (*deinit_device)(const C_Device device);
  C_Status (*create_stream)(const C_Device device, C_Stream *stream);
  C_Status (*destroy_stream)(const C_Device device, C_Stream stream);
  C_Status (*query_stream)(const C_Device device, C_Stream stream);
  C_Status (*stream_add_callback)(const C_Device device, C_Stream stream,
                                  C_Callback callback, void *user_data);
  C_Status (*create_event)(const C_Device device, C_Event *event);
  C_Status (*record_event)(const C_Device device, C_Stream stream,
                           C_Event event);
  C_Status (*destroy_event)(const C_Device device, C_Event event);
  C_Status (*query_event)(const C_Device device, C_Event event);
  C_Status (*synchronize_device)(const C_Device device);
  C_Status (*synchronize_stream)(const C_Device device, C_Stream stream);
  C_Status (*synchronize_event)(const C_Device device, C_Event event);
  C_Status (*stream_wait_event)(const C_Device device, C_Stream stream,
                                C_Event event);
  void *reserved_dev_api[8];

  /* Memory */
  C_Status (*device_memory_allocate)(const C_Device device, void **ptr,
                                     size_t size);
  C_Status (*device_memory_deallocate)(const C_Device device, void *ptr,
                                       size_t size);
  C_Status (*device_memory_set)(const C_Device device, void *ptr,
                                unsigned char value, size_t size);
  C_Status (*host_memory_allocate)(const C_Device device, void **ptr,
                                   size_t size);
  C_Status (*host_memory_deallocate)(const C_Device device, void *ptr,
                                     size_t size);
  C_Status (*unified_memory_allocate)(const C_Device device, void **ptr,
                                      size_t size);
  C_Status (*unified_memory_deallocate)(const C_Device device, void *ptr,
                                        size_t size);
  C_Status (*memory_copy_h2d)(const C_Device device, void *dst, const void *src,
                              size_t size);
  C_Status (*memory_copy_d2h)(const C_Device device, void *dst, const void *src,
                              size_t size);
  C_Status (*memory_copy_d2d)(const C_Device device, void *dst, const void *src,
                              size_t size);
  C_Status (*memory_copy_p2p)(const C_Device dst_device,
                              const C_Device src_device, void *dst,
                              const void *src, size_t size);
  C_Status (*async_memory_copy_h2d)(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
  C_Status (*async_memory_copy_d2h)(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
  C_Status (*async_memory_copy_d2d)(const C_Device device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
  C_Status (*async_memory_copy_p2p)(const C_Device dst_device,
                                    const C_Device src_device, C_Stream stream,
                                    void *dst, const void *src, size_t size);
  void *reserved_mem_api[8];

  /* Device info */
  C_Status (*get_device_count)(size_t *count);
  C_Status (*get_device_list)(size_t *devices);
  C_Status (*device_memory_stats)(const C_Device device, size_t *total_memory,
                                  size_t *free_memory);
  C_Status (*device_min_chunk_size)(const C_Device device, size_t *size);
  C_Status (*device_max_chunk_size)(const C_Device device, size_t *size);
  C_Status (*device_max_alloc_size)(const C_Device device, size_t *size);
  C_Status (*device_extra_padding_size)(const C_Device device, size_t *size);
  C_Status (*device_init_alloc_size)(const C_Device device, size_t *size);
  C_Status (*device_realloc_size)(const C_Device device, size_t *size);
  C_Status (*get_compute_capability)(size_t *compute_capability);
  C_Status (*get_runtime_version)(size_t *version);
  C_Status (*get_driver_version)(size_t *version);
  void *reserved_info_api[8];

  /* Collective communication */
  C_Status (*xccl_get_unique_id_size)(size_t *size);
  C_Status (*xccl_get_unique_id)(C_CCLRootId *unique_id);
  C_Status (*xccl_comm_init_rank)(size_t nranks, C_CCLRootId *unique_id,
                                  size_t rank, C_CCLComm *comm);
  C_Status (*xccl_destroy_comm)(C_CCLComm comm);
  C_Status (*xccl_all_reduce)(void *send_buf, void *recv_buf, size_t count,
                              C_DataType data_type, C_CCLReduceOp op,
                              C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_broadcast)(void *buf, size_t count, C_DataType data_type,
                             size_t root, C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_reduce)(void *send_buf, void *recv_buf, size_t count,
                          C_DataType data_type, C_CCLReduceOp op, size_t root,
                          C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_all_gather)(void *send_buf, void *recv_buf, size_t count,
                              C_DataType data_type, C_CCLComm comm,
                              C_Stream stream);
  C_Status (*xccl_reduce_scatter)(void *send_buf, void *recv_buf, size_t count,
                                  C_DataType data_type, C_CCLReduceOp op,
                                  C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_group_start)(void);
  C_Status (*xccl_group_end)(void);
  C_Status (*xccl_send)(void *send_buf, size_t count, C_DataType data_type,
                        size_t dest_rank, C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_recv)(void *recv_buf, size_t count, C_DataType data_type,
                        size_t src_rank, C_CCLComm comm, C_Stream stream);
  C_Status (*xccl_all_to_all)(const void **send_buf, const size_t *send_count,
                              const C_DataType *send_dtype, void **recv_buf,
                              const size_t *recv_count,
                              const C_DataType *recv_dtype, size_t rank,
                              size_t nranks, C_CCLComm comm, C_Stream stream);
  void *reserved_ccl_api[8];

  /* Profiler */
  C_Status (*profiler_initialize)(C_Profiler prof, void **user_data);
  C_Status (*profiler_finalize)(C_Profiler prof, void *user_data);
  C_Status (*profiler_prepare_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_start_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_stop_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_collect_trace_data)(C_Profiler prof, uint64_t start_ns,
                                          void *user_data);
  void *reserved_profiler_api[8];

  /* Other */
  C_Status (*blas_axpby)(const C_Device device, C_Stream stream,
                         C_DataType dtype, size_t numel, float alpha, void *x,
                         float beta, void *y);
  void *reserved_other_api[7];
};

typedef struct CustomRuntimeVersion {
  size_t major, minor, patch;
} CustomRuntimeVersion;

typedef struct CustomRuntimeParams {
  size_t size;                  /* written by the host */
  C_DeviceInterface *interface; /* allocated and zeroed by the host */
  CustomRuntimeVersion version; /* written by the plugin */
  char *device_type;            /* written by the plugin; unique */
  char *sub_device_type;        /* written by the plugin */
  char reserved[32];
} CustomRuntimeParams;

/* Returns from InitPlugin unless at least one of the two sizes matches this
 * header; otherwise stamps the ABI version. Same (weak) check as Paddle's. */
#define PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params)                            \
  if ((params)->size != sizeof(CustomRuntimeParams) &&                         \
      (params)->interface->size != sizeof(C_DeviceInterface)) {                \
    return;                                                                    \
  }                                                                            \
  (params)->version.major = PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION;               \
  (params)->version.minor = PADDLE_CUSTOM_RUNTIME_MINOR_VERSION;               \
  (params)->version.patch = PADDLE_CUSTOM_RUNTIME_PATCH_VERSION;

/* The plugin entry point, found with dlsym("InitPlugin"). */
void InitPlugin(CustomRuntimeParams *params);

/* Bytes per element of a C_DataType; 0 for UNDEFINED or an unknown value.
 * A Backplane helper for hosts and plugins (not part of Paddle's header). */
static inline size_t BP_DataTypeSize(C_DataType dtype) {
  switch (dtype) {
  case BOOL:
  case UINT8:
  case INT8:
    return 1;
  case UINT16:
  case INT16:
  case FLOAT16:
  case BFLOAT16:
    return 2;
  case UINT32:
  case INT32:
  case FLOAT32:
    return 4;
  case UINT64:
  case INT64:
  case FLOAT64:
  case COMPLEX64:
    return 8;
  case COMPLEX128:
    return 16;
  default:
    return 0;
  }
}

/* ------------------------------------------------------------------------ */
/* Backplane extensions                                                      */
/* ------------------------------------------------------------------------ */

/* Optional second entry point: returns the head of a chain of extensions that
 * lives as long as the plugin is loaded, or NULL. */
#define BP_PLUGIN_EXTENSIONS_SYMBOL "BackplanePluginExtensions"

typedef enum BP_ExtensionType {
  BP_EXTENSION_DEVICE_ATTRIBUTES = 1,
  BP_EXTENSION_EVENT_TIMING = 2,
  BP_EXTENSION_COMM = 3,          /* BP_CommExtension, in comm_ext.h */
  BP_EXTENSION_KERNELS = 4,       /* BP_KernelExtension, in kernel_ext.h */
  BP_EXTENSION_TARGET_KIND = 5,   /* BP_TargetKindExtension, target_ext.h */
  BP_EXTENSION_OPS_LIBRARY = 6,   /* BP_OpsLibraryExtension, below */
  BP_EXTENSION_STREAM_INLINE = 7, /* BP_StreamInlineExtension, below */
} BP_ExtensionType;

typedef struct BP_ExtensionBase {
  size_t struct_size; /* sizeof the whole extension struct as built */
  int32_t type;       /* a BP_ExtensionType */
  int32_t reserved;   /* zero */
  const struct BP_ExtensionBase *next;
} BP_ExtensionBase;

typedef const BP_ExtensionBase *(*BP_PluginExtensionsFn)(void);
const BP_ExtensionBase *BackplanePluginExtensions(void);

/* Optional entry point: why the plugin's last failed call on the calling
 * thread failed (never NULL; "" when it cannot say). The host adds it to
 * the rejection reason when initialize fails ("no OpenCL platform ..."). */
#define BP_PLUGIN_LAST_ERROR_SYMBOL "BackplanePluginLastError"
typedef const char *(*BP_PluginLastErrorFn)(void);
const char *BackplanePluginLastError(void);

/* Device attributes, numbered as TVM's DeviceAttrKind. */
typedef enum BP_DeviceAttr {
  BP_ATTR_EXIST = 0,
  BP_ATTR_MAX_THREADS_PER_BLOCK = 1,
  BP_ATTR_WARP_SIZE = 2,
  BP_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 3,
  BP_ATTR_COMPUTE_VERSION = 4,
  BP_ATTR_DEVICE_NAME = 5,
  BP_ATTR_MAX_CLOCK_RATE = 6,
  BP_ATTR_MULTI_PROCESSOR_COUNT = 7,
  BP_ATTR_MAX_THREAD_DIMENSIONS = 8,
  BP_ATTR_MAX_REGISTERS_PER_BLOCK = 9,
  BP_ATTR_GCN_ARCH = 10,
  BP_ATTR_API_VERSION = 11,
  BP_ATTR_DRIVER_VERSION = 12,
  BP_ATTR_L2_CACHE_SIZE_BYTES = 13,
  BP_ATTR_TOTAL_GLOBAL_MEMORY = 14,
  BP_ATTR_AVAILABLE_GLOBAL_MEMORY = 15,
  BP_ATTR_IMAGE_PITCH_ALIGNMENT = 16,
  BP_ATTR_COUNT = 17,
} BP_DeviceAttr;

typedef enum BP_AttrValueKind {
  BP_ATTR_VALUE_UNSUPPORTED =
      0, /* the zeroed default: "this device can't say" */
  BP_ATTR_VALUE_INT = 1,
  BP_ATTR_VALUE_STRING = 2,
} BP_AttrValueKind;

typedef struct BP_AttrValue {
  int32_t kind; /* a BP_AttrValueKind */
  int32_t reserved;
  int64_t i64;
  char str[256]; /* NUL-terminated when kind is STRING */
} BP_AttrValue;

/* get_attribute receives a zeroed value; leaving it zeroed (with C_SUCCESS)
 * means "unsupported". Any other status is an error. */
typedef struct BP_DeviceAttributesExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_DEVICE_ATTRIBUTES */
  C_Status (*get_attribute)(const C_Device device, int32_t attr,
                            BP_AttrValue *value);
} BP_DeviceAttributesExtension;

/* Elapsed time between two recorded events of one device, in milliseconds.
 * C_FAILED while either event is still pending, C_ERROR if one was never
 * recorded. */
typedef struct BP_EventTimingExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_EVENT_TIMING */
  C_Status (*event_elapsed_time)(const C_Device device, C_Event start,
                                 C_Event end, float *milliseconds);
} BP_EventTimingExtension;

/* The DIOPI op library that serves the plugin's devices (backplane/ops.h),
 * for devices whose memory the host cannot address (the reference library
 * serves the others). `path` is absolute or relative to the directory of
 * the plugin's own file, e.g. "../ops/libbackplane_cuda_ops.so".
 * native_stream hands that library the vendor's own stream behind one of
 * the plugin's streams (a cudaStream_t on cuda), so its work is ordered
 * with the stream's other work; C_ERROR for a stream that is not the
 * device's. Thread-safe. */
typedef struct BP_OpsLibraryExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_OPS_LIBRARY */
  const char *path;
  C_Status (*native_stream)(const C_Device device, C_Stream stream,
                            void **out_native);
} BP_OpsLibraryExtension;

/* Host callbacks run on the calling thread while a stream is idle, for
 * callers that allow it (bp_stream_add_inline_callback): no hand-off to the
 * stream's thread and none back to a waiting caller. run_callback_if_idle,
 * when every command enqueued on `stream` has completed, runs
 * callback(device, stream, user_data, &status) on the calling thread in the
 * stream's next place and returns C_SUCCESS once it returned: commands
 * enqueued meanwhile run after it, and query_stream / synchronize_stream see
 * it pending until then. C_FAILED, with nothing run, while a command is
 * pending or running, or whenever the plugin prefers its own thread (the
 * host then calls stream_add_callback); C_ERROR for a stream that is not the
 * device's. Thread-safe. */
typedef struct BP_StreamInlineExtension {
  BP_ExtensionBase base; /* type = BP_EXTENSION_STREAM_INLINE */
  C_Status (*run_callback_if_idle)(const C_Device device, C_Stream stream,
                                   C_Callback callback, void *user_data);
} BP_StreamInlineExtension;

/* A C-stable trace record (no C++ types). Plugins pass a pointer to one as
 * the `event` of profiler_add_runtime_trace_event / _device_trace_event; the
 * host copies it (strings included) before returning. */
typedef struct BP_TraceEvent {
  size_t struct_size;   /* sizeof(BP_TraceEvent) as built */
  const char *name;     /* e.g. "memcpy_h2d"; required */
  const char *category; /* "copy", "kernel", "collective", ...; may be NULL */
  uint64_t start_ns;    /* CLOCK_MONOTONIC */
  uint64_t end_ns;      /* >= start_ns */
  int32_t device_id;    /* -1 for the host */
  int32_t reserved;     /* zero */
  uint64_t stream_id;   /* the C_Stream the work ran on; 0 for none */
  uint64_t correlation_id; /* links a runtime call to its device work; 0 none */
  uint64_t thread_id;      /* host thread for runtime events; 0 otherwise */
  const char *args_json;   /* optional JSON object, e.g. {"bytes":4096} */
} BP_TraceEvent;

/* Pin the layout (LP64). */
#if defined(__LP64__) || defined(_LP64)
#ifdef __cplusplus
#define BP_ABI_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define BP_ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define BP_ABI_SLOT(field, slot)                                               \
  BP_ABI_ASSERT(offsetof(C_DeviceInterface, field) == (slot)*8,                \
                "C_DeviceInterface." #field " must be slot " #slot)
BP_ABI_ASSERT(sizeof(C_DeviceInterface) == 912, "layout B is 912 bytes");
BP_ABI_ASSERT(sizeof(CustomRuntimeParams) == 88, "params are 88 bytes");
BP_ABI_ASSERT(sizeof(CustomRuntimeVersion) == 24, "version is 24 bytes");
BP_ABI_ASSERT(sizeof(C_CCLRootId) == 16, "root id is 16 bytes");
BP_ABI_ASSERT(offsetof(CustomRuntimeParams, interface) == 8,
              "params.interface");
BP_ABI_ASSERT(offsetof(CustomRuntimeParams, version) == 16, "params.version");
BP_ABI_ASSERT(offsetof(CustomRuntimeParams, device_type) == 40,
              "params.device_type");
BP_ABI_ASSERT(offsetof(CustomRuntimeParams, sub_device_type) == 48,
              "params.sub_device_type");
BP_ABI_ASSERT(offsetof(CustomRuntimeParams, reserved) == 56, "params.reserved");
BP_ABI_SLOT(size, 0);
BP_ABI_SLOT(initialize, 1);
BP_ABI_SLOT(finalize, 2);
BP_ABI_SLOT(init_device, 3);
BP_ABI_SLOT(set_device, 4);
BP_ABI_SLOT(get_device, 5);
BP_ABI_SLOT(deinit_device, 6);
BP_ABI_SLOT(create_stream, 7);
BP_ABI_SLOT(destroy_stream, 8);
BP_ABI_SLOT(query_stream, 9);
BP_ABI_SLOT(stream_add_callback, 10);
BP_ABI_SLOT(create_event, 11);
BP_ABI_SLOT(record_event, 12);
BP_ABI_SLOT(destroy_event, 13);
BP_ABI_SLOT(query_event, 14);
BP_ABI_SLOT(synchronize_device, 15);
BP_ABI_SLOT(synchronize_stream, 16);
BP_ABI_SLOT(synchronize_event, 17);
BP_ABI_SLOT(stream_wait_event, 18);
BP_ABI_SLOT(reserved_dev_api, 19);
BP_ABI_SLOT(device_memory_allocate, 27);
BP_ABI_SLOT(device_memory_deallocate, 28);
BP_ABI_SLOT(device_memory_set, 29);
BP_ABI_SLOT(host_memory_allocate, 30);
BP_ABI_SLOT(host_memory_deallocate, 31);
BP_ABI_SLOT(unified_memory_allocate, 32);
BP_ABI_SLOT(unified_memory_deallocate, 33);
BP_ABI_SLOT(memory_copy_h2d, 34);
BP_ABI_SLOT(memory_copy_d2h, 35);
BP_ABI_SLOT(memory_copy_d2d, 36);
BP_ABI_SLOT(memory_copy_p2p, 37);
BP_ABI_SLOT(async_memory_copy_h2d, 38);
BP_ABI_SLOT(async_memory_copy_d2h, 39);
BP_ABI_SLOT(async_memory_copy_d2d, 40);
BP_ABI_SLOT(async_memory_copy_p2p, 41);
BP_ABI_SLOT(reserved_mem_api, 42);
BP_ABI_SLOT(get_device_count, 50);
BP_ABI_SLOT(get_device_list, 51);
BP_ABI_SLOT(device_memory_stats, 52);
BP_ABI_SLOT(device_min_chunk_size, 53);
BP_ABI_SLOT(device_max_chunk_size, 54);
BP_ABI_SLOT(device_max_alloc_size, 55);
BP_ABI_SLOT(device_extra_padding_size, 56);
BP_ABI_SLOT(device_init_alloc_size, 57);
BP_ABI_SLOT(device_realloc_size, 58);
BP_ABI_SLOT(get_compute_capability, 59);
BP_ABI_SLOT(get_runtime_version, 60);
BP_ABI_SLOT(get_driver_version, 61);
BP_ABI_SLOT(reserved_info_api, 62);
BP_ABI_SLOT(xccl_get_unique_id_size, 70);
BP_ABI_SLOT(xccl_get_unique_id, 71);
BP_ABI_SLOT(xccl_comm_init_rank, 72);
BP_ABI_SLOT(xccl_destroy_comm, 73);
BP_ABI_SLOT(xccl_all_reduce, 74);
BP_ABI_SLOT(xccl_broadcast, 75);
BP_ABI_SLOT(xccl_reduce, 76);
BP_ABI_SLOT(xccl_all_gather, 77);
BP_ABI_SLOT(xccl_reduce_scatter, 78);
BP_ABI_SLOT(xccl_group_start, 79);
BP_ABI_SLOT(xccl_group_end, 80);
BP_ABI_SLOT(xccl_send, 81);
BP_ABI_SLOT(xccl_recv, 82);
BP_ABI_SLOT(xccl_all_to_all, 83);
BP_ABI_SLOT(reserved_ccl_api, 84);
BP_ABI_SLOT(profiler_initialize, 92);
BP_ABI_SLOT(profiler_finalize, 93);
BP_ABI_SLOT(profiler_prepare_tracing, 94);
BP_ABI_SLOT(profiler_start_tracing, 95);
BP_ABI_SLOT(profiler_stop_tracing, 96);
BP_ABI_SLOT(profiler_collect_trace_data, 97);
BP_ABI_SLOT(reserved_profiler_api, 98);
BP_ABI_SLOT(blas_axpby, 106);
BP_ABI_SLOT(reserved_other_api, 107);
#undef BP_ABI_SLOT
#undef BP_ABI_ASSERT
#endif /* LP64 */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BACKPLANE_DEVICE_EXT_H_ */
