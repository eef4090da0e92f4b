/* InitPlugin and the runtime half of Paddle's C_DeviceInterface, on
 * Backplane's framework face: C_Stream is a bp_stream_t*, C_Event a
 * bp_event_t*, device memory comes from the caching allocator. The layout
 * is the installed Paddle's (its own device_ext.h), filled by field name. */
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "bridge_xccl.h"
#include "paddle/phi/backends/device_ext.h"

#define STREAM(s) reinterpret_cast<bp_stream_t *>(s)
#define EVENT(e) reinterpret_cast<bp_event_t *>(e)

/* Paddle's enforce treats anything but C_SUCCESS as an error; C_FAILED for
 * exhausted resources, C_ERROR for bad arguments. */
static C_Status to_c_status(const char *call, bp_status_t status) {
  switch (bridge_note(call, status)) {
  case BP_OK:
    return C_SUCCESS;
  case BP_ERR_OUT_OF_MEMORY:
  case BP_ERR_NOT_READY:
    return C_FAILED;
  case BP_ERR_INVALID_ARGUMENT:
  case BP_ERR_NOT_FOUND:
    return C_ERROR;
  default:
    return C_INTERNAL_ERROR;
  }
}

static bp_device_t *device_of(const C_Device device) {
  return device ? bridge_device((size_t)device->id) : NULL;
}

#define DEVICE_OR_ERROR(var, device)                                           \
  bp_device_t *var = device_of(device);                                        \
  if (var == NULL)                                                             \
    return C_ERROR;

static C_Status initialize() {
  if (bridge_open() != 0)
    return C_ERROR;
  bridge_fallbacks_watch();
  return C_SUCCESS;
}

static C_Status finalize() {
  bridge_fallbacks_report();
  for (size_t i = 0; i < bridge_device_count(); i++)
    bp_device_synchronize(bridge_device(i));
  return C_SUCCESS;
}

static C_Status init_device(const C_Device device) {
  return device_of(device) ? C_SUCCESS : C_ERROR;
}

static C_Status set_device(const C_Device device) {
  if (device_of(device) == NULL)
    return C_ERROR;
  return to_c_status("bp_device_set_active", bridge_set_current(device->id));
}

static C_Status get_device(const C_Device device) {
  device->id = bridge_current_id();
  return C_SUCCESS;
}

static C_Status deinit_device(const C_Device device) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_device_synchronize", bp_device_synchronize(d));
}

static C_Status create_stream(const C_Device device, C_Stream *stream) {
  DEVICE_OR_ERROR(d, device);
  bp_stream_t *s = NULL;
  bp_status_t st = bp_stream_create(d, &s);
  *stream = reinterpret_cast<C_Stream>(s);
  return to_c_status("bp_stream_create", st);
}

static C_Status destroy_stream(const C_Device, C_Stream stream) {
  return to_c_status("bp_stream_destroy", bp_stream_destroy(STREAM(stream)));
}

static C_Status query_stream(const C_Device, C_Stream stream) {
  return to_c_status("bp_stream_query", bp_stream_query(STREAM(stream)));
}

typedef struct callback_closure {
  C_Callback fn;
  C_Device device;
  C_Stream stream;
  void *user_data;
} callback_closure_t;

static void run_callback(void *arg) {
  callback_closure_t *c = static_cast<callback_closure_t *>(arg);
  C_Status status = C_SUCCESS;
  c->fn(c->device, c->stream, c->user_data, &status);
  free(c);
}

static C_Status stream_add_callback(const C_Device device, C_Stream stream,
                                    C_Callback callback, void *user_data) {
  callback_closure_t *c = static_cast<callback_closure_t *>(malloc(sizeof *c));
  if (c == NULL)
    return C_FAILED;
  *c = {callback, device, stream, user_data};
  bp_status_t st = bp_stream_add_callback(STREAM(stream), run_callback, c);
  if (st != BP_OK)
    free(c);
  return to_c_status("bp_stream_add_callback", st);
}

static C_Status create_event(const C_Device device, C_Event *event) {
  DEVICE_OR_ERROR(d, device);
  bp_event_t *e = NULL;
  bp_status_t st = bp_event_create(d, &e);
  *event = reinterpret_cast<C_Event>(e);
  return to_c_status("bp_event_create", st);
}

static C_Status record_event(const C_Device, C_Stream stream, C_Event event) {
  return to_c_status("bp_event_record",
                     bp_event_record(EVENT(event), STREAM(stream)));
}

static C_Status destroy_event(const C_Device, C_Event event) {
  return to_c_status("bp_event_destroy", bp_event_destroy(EVENT(event)));
}

static C_Status query_event(const C_Device, C_Event event) {
  return to_c_status("bp_event_query", bp_event_query(EVENT(event)));
}

static C_Status synchronize_device(const C_Device device) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_device_synchronize", bp_device_synchronize(d));
}

static C_Status synchronize_stream(const C_Device, C_Stream stream) {
  return to_c_status("bp_stream_synchronize",
                     bp_stream_synchronize(STREAM(stream)));
}

static C_Status synchronize_event(const C_Device, C_Event event) {
  return to_c_status("bp_event_synchronize",
                     bp_event_synchronize(EVENT(event)));
}

static C_Status stream_wait_event(const C_Device, C_Stream stream,
                                  C_Event event) {
  return to_c_status("bp_stream_wait_event",
                     bp_stream_wait_event(STREAM(stream), EVENT(event)));
}

/* Out of memory is C_SUCCESS with a NULL pointer: that is how Paddle's
 * allocator learns to free its idle chunks and retry, and then raises its
 * ResourceExhausted error (the allocator's message stays in bp_last_error,
 * which the failing kernel reports). */
static C_Status device_memory_allocate(const C_Device device, void **ptr,
                                       size_t size) {
  DEVICE_OR_ERROR(d, device);
  *ptr = NULL;
  bp_status_t st = bp_device_malloc(d, size, ptr);
  if (st == BP_ERR_OUT_OF_MEMORY) {
    bridge_note("bp_device_malloc", st);
    *ptr = NULL;
    return C_SUCCESS;
  }
  return to_c_status("bp_device_malloc", st);
}

static C_Status device_memory_deallocate(const C_Device device, void *ptr,
                                         size_t) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_device_free", bp_device_free(d, ptr));
}

static C_Status device_memory_set(const C_Device device, void *ptr,
                                  unsigned char value, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_memset", bp_memset(d, ptr, value, size, NULL));
}

/* Paddle orders a synchronous copy after nothing; Backplane's NULL-stream
 * copy is not ordered after queued work either, so drain the device first
 * (CUDA's cudaMemcpy waits for the legacy stream the same way). */
static C_Status copy_sync(bp_device_t *dst_device, void *dst,
                          bp_device_t *src_device, const void *src,
                          size_t size) {
  bp_status_t st = BP_OK;
  if (dst_device)
    st = bp_device_synchronize(dst_device);
  if (st == BP_OK && src_device && src_device != dst_device)
    st = bp_device_synchronize(src_device);
  if (st == BP_OK)
    st = bp_copy(dst_device, dst, src_device, src, size, NULL);
  return to_c_status("bp_copy", st);
}

static C_Status memory_copy_h2d(const C_Device device, void *dst,
                                const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return copy_sync(d, dst, NULL, src, size);
}

static C_Status memory_copy_d2h(const C_Device device, void *dst,
                                const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return copy_sync(NULL, dst, d, src, size);
}

static C_Status memory_copy_d2d(const C_Device device, void *dst,
                                const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return copy_sync(d, dst, d, src, size);
}

static C_Status memory_copy_p2p(const C_Device dst_device,
                                const C_Device src_device, void *dst,
                                const void *src, size_t size) {
  DEVICE_OR_ERROR(dd, dst_device);
  DEVICE_OR_ERROR(sd, src_device);
  return copy_sync(dd, dst, sd, src, size);
}

static C_Status async_memory_copy_h2d(const C_Device device, C_Stream stream,
                                      void *dst, const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_copy",
                     bp_copy(d, dst, NULL, src, size, STREAM(stream)));
}

static C_Status async_memory_copy_d2h(const C_Device device, C_Stream stream,
                                      void *dst, const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_copy",
                     bp_copy(NULL, dst, d, src, size, STREAM(stream)));
}

static C_Status async_memory_copy_d2d(const C_Device device, C_Stream stream,
                                      void *dst, const void *src, size_t size) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_copy", bp_copy(d, dst, d, src, size, STREAM(stream)));
}

static C_Status async_memory_copy_p2p(const C_Device dst_device,
                                      const C_Device src_device,
                                      C_Stream stream, void *dst,
                                      const void *src, size_t size) {
  DEVICE_OR_ERROR(dd, dst_device);
  DEVICE_OR_ERROR(sd, src_device);
  return to_c_status("bp_copy",
                     bp_copy(dd, dst, sd, src, size, STREAM(stream)));
}

static C_Status get_device_count(size_t *count) {
  *count = bridge_device_count();
  return C_SUCCESS;
}

static C_Status get_device_list(size_t *list) {
  for (size_t i = 0; i < bridge_device_count(); i++)
    list[i] = i;
  return C_SUCCESS;
}

static C_Status device_memory_stats(const C_Device device, size_t *total,
                                    size_t *free_bytes) {
  DEVICE_OR_ERROR(d, device);
  return to_c_status("bp_device_memory_info",
                     bp_device_memory_info(d, total, free_bytes));
}

/* Paddle aligns every block to this; Backplane's allocator rounds again. */
static C_Status device_min_chunk_size(const C_Device, size_t *size) {
  *size = 256;
  return C_SUCCESS;
}

static C_Status device_extra_padding_size(const C_Device, size_t *size) {
  *size = 0;
  return C_SUCCESS;
}

static C_Status version_zero(const C_Device, size_t *version) {
  *version = 0;
  return C_SUCCESS;
}

/* Paddle's eager gradient accumulation on custom devices:
 * y = alpha * x + beta * y, as two DIOPI ops on the stream. */
static C_Status blas_axpby(const C_Device device, C_Stream stream,
                           C_DataType dtype, size_t numel, float alpha, void *x,
                           float beta, void *y) {
  DEVICE_OR_ERROR(d, device);
  diopiDtype_t type = dtype == FLOAT32    ? diopi_dtype_float32
                      : dtype == FLOAT16  ? diopi_dtype_float16
                      : dtype == BFLOAT16 ? diopi_dtype_bfloat16
                                          : diopi_dtype_unsupported;
  if (type == diopi_dtype_unsupported)
    return C_ERROR;
  typedef diopiError_t (*mul_inp_scalar_fn)(
      diopiContextHandle_t, diopiTensorHandle_t, const diopiScalar_t *);
  typedef diopiError_t (*add_inp_fn)(diopiContextHandle_t, diopiTensorHandle_t,
                                     diopiConstTensorHandle_t,
                                     const diopiScalar_t *);
  mul_inp_scalar_fn mul = (mul_inp_scalar_fn)bridge_op("diopiMulInpScalar");
  add_inp_fn add = (add_inp_fn)bridge_op("diopiAddInp");
  if (mul == NULL || add == NULL)
    return C_ERROR;
  diopiContextHandle_t ctx = NULL;
  diopiTensorHandle_t tx = NULL, ty = NULL;
  int64_t shape = (int64_t)numel;
  bp_status_t st = bp_ops_context_create(d, STREAM(stream), &ctx);
  if (st == BP_OK)
    st = bp_ops_tensor_wrap(d, x, type, 1, &shape, NULL, &tx);
  if (st == BP_OK)
    st = bp_ops_tensor_wrap(d, y, type, 1, &shape, NULL, &ty);
  diopiScalar_t a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.stype = b.stype = diopi_dtype_float64;
  a.fval = alpha;
  b.fval = beta;
  if (st == BP_OK && beta != 1.0f)
    st = bp_ops_status(mul(ctx, ty, &b));
  if (st == BP_OK)
    st = bp_ops_status(add(ctx, ty, tx, &a));
  bp_ops_tensor_destroy(tx);
  bp_ops_tensor_destroy(ty);
  bp_ops_context_destroy(ctx);
  return to_c_status("blas_axpby", st);
}

/* Paddle calls the profiler slots whenever a profiler with a custom-device
 * target runs; device-side tracing is Backplane's own (docs/paddle.md). */
static C_Status profiler_noop(C_Profiler, void *) {
  return C_SUCCESS;
}
static C_Status profiler_init(C_Profiler, void **user_data) {
  *user_data = NULL;
  return C_SUCCESS;
}
static C_Status profiler_collect(C_Profiler, uint64_t, void *) {
  return C_SUCCESS;
}

extern "C" __attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = const_cast<char *>(BRIDGE_DEVICE_TYPE);
  params->sub_device_type = const_cast<char *>("v0.1");

  C_DeviceInterface *in = params->interface;
  size_t size = in->size;
  memset(in, 0, sizeof *in);
  in->size = size;

  in->initialize = initialize;
  in->finalize = finalize;
  in->init_device = init_device;
  in->set_device = set_device;
  in->get_device = get_device;
  in->deinit_device = deinit_device;
  in->create_stream = create_stream;
  in->destroy_stream = destroy_stream;
  in->query_stream = query_stream;
  in->stream_add_callback = stream_add_callback;
  in->create_event = create_event;
  in->record_event = record_event;
  in->destroy_event = destroy_event;
  in->query_event = query_event;
  in->synchronize_device = synchronize_device;
  in->synchronize_stream = synchronize_stream;
  in->synchronize_event = synchronize_event;
  in->stream_wait_event = stream_wait_event;

  in->device_memory_allocate = device_memory_allocate;
  in->device_memory_deallocate = device_memory_deallocate;
  in->device_memory_set = device_memory_set;
  in->memory_copy_h2d = memory_copy_h2d;
  in->memory_copy_d2h = memory_copy_d2h;
  in->memory_copy_d2d = memory_copy_d2d;
  in->memory_copy_p2p = memory_copy_p2p;
  in->async_memory_copy_h2d = async_memory_copy_h2d;
  in->async_memory_copy_d2h = async_memory_copy_d2h;
  in->async_memory_copy_d2d = async_memory_copy_d2d;
  in->async_memory_copy_p2p = async_memory_copy_p2p;

  in->get_device_count = get_device_count;
  in->get_device_list = get_device_list;
  in->device_memory_stats = device_memory_stats;
  in->device_min_chunk_size = device_min_chunk_size;
  in->device_extra_padding_size = device_extra_padding_size;
  in->get_compute_capability = version_zero;
  in->get_runtime_version = version_zero;
  in->get_driver_version = version_zero;

  bridge_xccl_fill(in);

  in->profiler_initialize = profiler_init;
  in->profiler_finalize = profiler_noop;
  in->profiler_prepare_tracing = profiler_noop;
  in->profiler_start_tracing = profiler_noop;
  in->profiler_stop_tracing = profiler_noop;
  in->profiler_collect_trace_data = profiler_collect;

  in->blas_axpby = blas_axpby;
}
