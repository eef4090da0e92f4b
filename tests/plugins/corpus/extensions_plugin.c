/* A plugin that exports the comm and target-kind extensions (and nothing
 * else), so tests can see that the core reads both at load, lists them in
 * the plugin's info and registers the kind "extchip" while it is loaded.
 * The device is the smallest that loads: Paddle's required functions on one
 * malloc-backed device, synchronous. Built with WITH_OPS_LIBRARY
 * (libbp_extensions_ops.so), it also has streams and puts the op-library
 * extension in front of the chain: it names "ops/libexample_ops.so" and
 * hands out each C_Stream itself as the native stream. */
#include <stdlib.h>
#include <string.h>

#include "backplane/comm_ext.h"
#include "backplane/device_ext.h"
#include "backplane/target_ext.h"

static C_Status device_call(const C_Device device) {
  return device && device->id == 0 ? C_SUCCESS : C_ERROR;
}

static C_Status event_call(const C_Device device, C_Event event) {
  (void)event;
  return device_call(device);
}

static C_Status create_event(const C_Device device, C_Event *event) {
  static char token;
  *event = (C_Event)&token;
  return device_call(device);
}

static C_Status record_event(const C_Device device, C_Stream stream,
                             C_Event event) {
  (void)stream;
  return event_call(device, event);
}

static C_Status allocate(const C_Device device, void **ptr, size_t size) {
  *ptr = malloc(size ? size : 1);
  return *ptr ? device_call(device) : C_FAILED;
}

static C_Status deallocate(const C_Device device, void *ptr, size_t size) {
  (void)size;
  free(ptr);
  return device_call(device);
}

static C_Status device_count(size_t *count) {
  *count = 1;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  devices[0] = 0;
  return C_SUCCESS;
}

static C_Status comm_abort(C_CCLComm comm) {
  (void)comm;
  return C_SUCCESS;
}

static C_Status comm_get_async_error(C_CCLComm comm, int32_t *out_status,
                                     char *message, size_t capacity) {
  (void)comm;
  *out_status = BP_COMM_EXT_OK;
  if (message && capacity)
    message[0] = '\0';
  return C_SUCCESS;
}

static const char *comm_last_error(void) {
  return "no collectives here";
}

static const BP_TargetAttrSchema extchip_attrs[] = {
    {"lanes", BP_TARGET_ATTR_INT, 1, 16, 1, NULL},
};

static const BP_TargetKindExtension target_kind = {
    .base = {.struct_size = sizeof(BP_TargetKindExtension),
             .type = BP_EXTENSION_TARGET_KIND},
    .name = "extchip",
    .device_type = "extensions",
    .attrs = extchip_attrs,
    .attr_count = sizeof(extchip_attrs) / sizeof(extchip_attrs[0]),
    .default_keys = "extchip",
};

static const BP_CommExtension comm = {
    .base = {.struct_size = sizeof(BP_CommExtension),
             .type = BP_EXTENSION_COMM,
             .next = &target_kind.base},
    .comm_abort = comm_abort,
    .comm_get_async_error = comm_get_async_error,
    .last_error = comm_last_error,
};

#ifdef WITH_OPS_LIBRARY
static C_Status create_stream(const C_Device device, C_Stream *stream) {
  *stream = malloc(1);
  return *stream ? device_call(device) : C_FAILED;
}

static C_Status stream_call(const C_Device device, C_Stream stream) {
  (void)stream;
  return device_call(device);
}

static C_Status destroy_stream(const C_Device device, C_Stream stream) {
  free(stream);
  return device_call(device);
}

static C_Status native_stream(const C_Device device, C_Stream stream,
                              void **out_native) {
  *out_native = stream;
  return device_call(device);
}

static const BP_OpsLibraryExtension ops_library = {
    .base = {.struct_size = sizeof(BP_OpsLibraryExtension),
             .type = BP_EXTENSION_OPS_LIBRARY,
             .next = &comm.base},
    .path = "ops/libexample_ops.so",
    .native_stream = native_stream,
};
#define EXTENSIONS_HEAD ops_library
#else
#define EXTENSIONS_HEAD comm
#endif

__attribute__((visibility("default"))) const BP_ExtensionBase *
BackplanePluginExtensions(void) {
  return &EXTENSIONS_HEAD.base;
}

__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params) {
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  params->device_type = "extensions";
  params->sub_device_type = "test";
  C_DeviceInterface *i = params->interface;
  i->set_device = device_call;
  i->get_device = device_call;
  i->synchronize_device = device_call;
  i->create_event = create_event;
  i->record_event = record_event;
  i->destroy_event = event_call;
  i->synchronize_event = event_call;
  i->device_memory_allocate = allocate;
  i->device_memory_deallocate = deallocate;
  i->get_device_count = device_count;
  i->get_device_list = device_list;
#ifdef WITH_OPS_LIBRARY
  i->create_stream = create_stream;
  i->destroy_stream = destroy_stream;
  i->synchronize_stream = stream_call;
  i->query_stream = stream_call;
#endif
}
