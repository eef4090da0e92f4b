/* A runtime plugin built against one layout of Paddle's table, described by
 * numbers only (compile definitions, from Paddle's headers of that layout):
 * LAYOUT_INTERFACE_SIZE and LAYOUT_PARAMS_SIZE (its sizeof's),
 * SLOT_UNIQUE_ID_SIZE and SLOT_PROFILER_INITIALIZE (where those two sit),
 * and PARAMS_ONLY_CHECK (accept when params->size matches, whatever the
 * interface size, instead of Paddle's macro). It writes its table as raw
 * 8-byte words, the way code compiled against that header would, with the
 * required functions in the slots every layout shares. Its collectives'
 * unique id is LAYOUT_INTERFACE_SIZE bytes, so a host reading the wrong slot
 * shows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int status_t; /* C_Status: 0 is C_SUCCESS */
typedef struct {
  int id;
} device_t;

typedef struct {
  size_t size;
  uint64_t *interface; /* C_DeviceInterface *, as words */
  size_t version[3];
  const char *device_type;
  const char *sub_device_type;
} params_t; /* the common front of every layout's CustomRuntimeParams */

static status_t ok_device(const device_t *device) {
  (void)device;
  return 0;
}
static status_t get_device(device_t *device) {
  device->id = 0;
  return 0;
}
static status_t create_event(const device_t *device, void **event) {
  (void)device;
  *event = (void *)(uintptr_t)1;
  return 0;
}
static status_t record_event(const device_t *device, void *stream,
                             void *event) {
  (void)device, (void)stream, (void)event;
  return 0;
}
static status_t ok_event(const device_t *device, void *event) {
  (void)device, (void)event;
  return 0;
}
static status_t allocate(const device_t *device, void **ptr, size_t size) {
  (void)device;
  *ptr = malloc(size ? size : 1);
  return *ptr ? 0 : 2;
}
static status_t deallocate(const device_t *device, void *ptr, size_t size) {
  (void)device, (void)size;
  free(ptr);
  return 0;
}
static status_t device_count(size_t *count) {
  *count = 1;
  return 0;
}
static status_t device_list(size_t *devices) {
  devices[0] = 0;
  return 0;
}
static status_t unique_id_size(size_t *size) {
  *size = LAYOUT_INTERFACE_SIZE;
  return 0;
}
static status_t profiler_initialize(void *prof, void **user_data) {
  (void)prof;
  *user_data = (void *)(uintptr_t)LAYOUT_PARAMS_SIZE;
  return 0;
}

#define SET(slot, fn)                                                          \
  do {                                                                         \
    void (*fn_)(void) = (void (*)(void))(fn);                                  \
    memcpy(&words[slot], &fn_, sizeof fn_);                                    \
  } while (0)

EXPORT void InitPlugin(params_t *params) {
#if PARAMS_ONLY_CHECK
  if (params->size != LAYOUT_PARAMS_SIZE)
    return;
#else
  if (params->size != LAYOUT_PARAMS_SIZE &&
      params->interface[0] != LAYOUT_INTERFACE_SIZE)
    return;
#endif
  params->version[0] = 0;
  params->version[1] = 1;
  params->version[2] = 1;
  params->device_type = "slots";
  params->sub_device_type = "raw";
  uint64_t *words = params->interface;
  memset(words, 0, LAYOUT_INTERFACE_SIZE);
  SET(4, ok_device);  /* set_device */
  SET(5, get_device); /* get_device */
  SET(11, create_event);
  SET(12, record_event);
  SET(13, ok_event);   /* destroy_event */
  SET(15, ok_device);  /* synchronize_device */
  SET(17, ok_event);   /* synchronize_event */
  SET(27, allocate);   /* device_memory_allocate */
  SET(28, deallocate); /* device_memory_deallocate */
  SET(50, device_count);
  SET(51, device_list);
  SET(SLOT_UNIQUE_ID_SIZE, unique_id_size);
  SET(SLOT_PROFILER_INITIALIZE, profiler_initialize);
}
