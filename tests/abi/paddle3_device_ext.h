/* Layout E of Paddle's custom-runtime table, the one Paddle 3.3.1 ships: a
 * C description written for Backplane's tests from the facts of that layout
 * (the slots listed in backplane/device_layout_table.h), so a test plugin can
 * be built the way a Paddle-3-era plugin is, against a layout that is not
 * Backplane's own. C++-only types of Paddle's header are spelled in C here
 * (std::array<unsigned, 3> as unsigned[3], the handle types as void *); the
 * sizes and offsets are the same. Never included together with
 * backplane/device_ext.h (the names are the same). */
#ifndef BACKPLANE_TESTS_ABI_PADDLE3_DEVICE_EXT_H_
#define BACKPLANE_TESTS_ABI_PADDLE3_DEVICE_EXT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION 0
#define PADDLE_CUSTOM_RUNTIME_MINOR_VERSION 1
#define PADDLE_CUSTOM_RUNTIME_PATCH_VERSION 1

typedef enum {
  C_SUCCESS = 0,
  C_WARNING,
  C_FAILED,
  C_ERROR,
  C_INTERNAL_ERROR
} C_Status;

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

typedef enum { SUM = 0, AVG, MAX, MIN, PRODUCT } C_CCLReduceOp;

typedef struct C_Device_st {
  int id;
} * C_Device;
typedef struct C_Stream_st *C_Stream;
typedef struct C_Event_st *C_Event;
typedef struct C_CCLComm_st *C_CCLComm;
typedef struct C_Profiler_st *C_Profiler;
typedef struct {
  size_t sz;
  void *data;
} C_CCLRootId;
typedef void (*C_Callback)(C_Device device, C_Stream stream, void *user_data,
                           C_Status *status);

typedef struct C_DeviceInterface {
  size_t size;
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
  C_Status (*get_compute_capability)(const C_Device device,
                                     size_t *compute_capability);
  C_Status (*get_device_properties)(const C_Device device, void *properties);
  C_Status (*get_runtime_version)(const C_Device device, size_t *version);
  C_Status (*get_driver_version)(const C_Device device, size_t *version);
  C_Status (*get_multi_process)(const C_Device device, size_t *value);
  C_Status (*get_max_threads_per_mp)(const C_Device device, size_t *value);
  C_Status (*get_max_threads_per_block)(const C_Device device, size_t *value);
  C_Status (*get_max_grid_dim_size)(const C_Device device,
                                    unsigned int (*grid_dim_size)[3]);
  C_Status (*is_float16_supported)(const C_Device device, bool *supported);
  C_Status (*is_bfloat16_supported)(const C_Device device, bool *supported);
  C_Status (*is_dnn_supported)(const C_Device device, bool *supported);
  C_Status (*init_eigen_device)(void *place, void **eigen_device,
                                C_Stream stream, void *allocator);
  C_Status (*destroy_eigen_device)(const C_Device device, void **eigen_device);
  void *reserved_info_api[8];
  C_Status (*xccl_get_comm_name)(C_CCLComm comm, char *comm_name);
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
  C_Status (*profiler_initialize)(C_Profiler prof, void **user_data);
  C_Status (*profiler_finalize)(C_Profiler prof, void *user_data);
  C_Status (*profiler_prepare_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_start_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_stop_tracing)(C_Profiler prof, void *user_data);
  C_Status (*profiler_collect_trace_data)(C_Profiler prof, uint64_t start_ns,
                                          void *user_data);
  void *reserved_profiler_api[8];
  C_Status (*init_blas_handle)(const C_Device device, void **blas_handle,
                               C_Stream stream);
  C_Status (*blas_set_math_mode)(const C_Device device, void *blas_handle,
                                 int math_mode);
  C_Status (*init_blaslt_handle)(const C_Device device, void **blaslt_handle);
  C_Status (*destroy_blas_handle)(const C_Device device, void *blas_handle);
  C_Status (*destroy_blaslt_handle)(const C_Device device, void *blaslt_handle);
  C_Status (*cuda_stream_begin_capture)(const C_Device device, C_Stream stream,
                                        int mode);
  C_Status (*cuda_stream_end_captrue)(const C_Device device, C_Stream stream,
                                      void **graph);
  C_Status (*cuda_graph_launch)(const C_Device device, void *exec,
                                C_Stream stream);
  C_Status (*cuda_graph_destroy)(void *graph);
  C_Status (*cuda_graph_exec_destroy)(void *exec);
  C_Status (*cuda_graph_instantiate)(void **exec, void **graph,
                                     void **error_node, char *log,
                                     size_t log_size);
  C_Status (*cuda_graph_get_nodes)(void *graph, void **nodes, size_t *count);
  C_Status (*cuda_stream_capture_info)(const C_Device device, C_Stream stream,
                                       int *status, unsigned long long *id,
                                       void **graph, void **dependencies,
                                       void **edge_data,
                                       size_t *dependency_count);
  C_Status (*get_parameter_setter_for_exec_graph)(void *graph, void *hooks);
  C_Status (*cuda_graph_debug_dot_print)(void *graph, const char *path,
                                         unsigned int flags);
  C_Status (*cuda_thread_exchange_stream_capthure_mode)(int *mode);
  C_Status (*blas_axpby)(const C_Device device, C_Stream stream,
                         C_DataType dtype, size_t numel, float alpha, void *x,
                         float beta, void *y);
  void *reserved_other_api[7];
} C_DeviceInterface;

typedef struct CustomRuntimeVersion {
  size_t major, minor, patch;
} CustomRuntimeVersion;

typedef struct CustomRuntimeParams {
  size_t size;
  C_DeviceInterface *interface;
  CustomRuntimeVersion version;
  char *device_type;
  char *sub_device_type;
  void *pir_default_passes;
  char reserved[32];
} CustomRuntimeParams;

/* Paddle's check: returns unless one of the two sizes matches this layout. */
#define PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params)                            \
  if ((params)->size != sizeof(CustomRuntimeParams) &&                         \
      (params)->interface->size != sizeof(C_DeviceInterface)) {                \
    return;                                                                    \
  }                                                                            \
  (params)->version.major = PADDLE_CUSTOM_RUNTIME_MAJOR_VERSION;               \
  (params)->version.minor = PADDLE_CUSTOM_RUNTIME_MINOR_VERSION;               \
  (params)->version.patch = PADDLE_CUSTOM_RUNTIME_PATCH_VERSION;

_Static_assert(sizeof(C_DeviceInterface) == 1128, "layout E is 1128 bytes");
_Static_assert(sizeof(CustomRuntimeParams) == 96, "its params are 96 bytes");
_Static_assert(offsetof(C_DeviceInterface, xccl_get_unique_id_size) == 81 * 8,
               "xccl_get_unique_id_size is slot 81");
_Static_assert(offsetof(C_DeviceInterface, profiler_initialize) == 103 * 8,
               "profiler_initialize is slot 103");
_Static_assert(offsetof(C_DeviceInterface, blas_axpby) == 133 * 8,
               "blas_axpby is slot 133");

#endif /* BACKPLANE_TESTS_ABI_PADDLE3_DEVICE_EXT_H_ */
