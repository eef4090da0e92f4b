/* The broken-plugin corpus: one source, one defect per build (BROKEN_KIND,
 * see CMakeLists.txt). Apart from its defect each is a valid plugin, so the
 * loader's rejection reason must name exactly that defect. */
#include <string.h>

#include "backplane/device_ext.h"

#define NO_INIT_PLUGIN 1
#define NULL_DEVICE_TYPE 2
#define MISSING_REQUIRED 3
#define INITIALIZE_FAILS 4
#define INTERFACE_SIZE 5
#define UNRESOLVED_SYMBOL 6
#define DUPLICATE_TYPE 7
#define ZERO_DEVICES 8

#ifndef BROKEN_KIND
#error "BROKEN_KIND must be set"
#endif

#if BROKEN_KIND == UNRESOLVED_SYMBOL
/* Defined nowhere: dlopen(RTLD_NOW) must fail. */
extern int backplane_corpus_symbol_nobody_defines(void);
__attribute__((visibility("default"))) int corpus_use_missing(void) {
  return backplane_corpus_symbol_nobody_defines();
}
#endif

static C_Status ok_device(const C_Device device) {
  (void)device;
  return C_SUCCESS;
}

static C_Status initialize(void) {
  return BROKEN_KIND == INITIALIZE_FAILS ? C_INTERNAL_ERROR : C_SUCCESS;
}

static C_Status ok_event_out(const C_Device device, C_Event *event) {
  (void)device;
  (void)event;
  return C_SUCCESS;
}

static C_Status ok_record(const C_Device device, C_Stream stream,
                          C_Event event) {
  (void)device;
  (void)stream;
  (void)event;
  return C_SUCCESS;
}

static C_Status ok_event(const C_Device device, C_Event event) {
  (void)device;
  (void)event;
  return C_SUCCESS;
}

static C_Status no_allocate(const C_Device device, void **ptr, size_t size) {
  (void)device;
  (void)size;
  *ptr = NULL;
  return C_FAILED;
}

static C_Status no_deallocate(const C_Device device, void *ptr, size_t size) {
  (void)device;
  (void)ptr;
  (void)size;
  return C_SUCCESS;
}

static C_Status device_count(size_t *count) {
  *count = BROKEN_KIND == ZERO_DEVICES ? 0 : 1;
  return C_SUCCESS;
}

static C_Status device_list(size_t *devices) {
  devices[0] = 0;
  return C_SUCCESS;
}

#if BROKEN_KIND == NO_INIT_PLUGIN
__attribute__((visibility("default"))) void
NotInitPlugin(CustomRuntimeParams *params)
#else
__attribute__((visibility("default"))) void
InitPlugin(CustomRuntimeParams *params)
#endif
{
  PADDLE_CUSTOM_RUNTIME_CHECK_VERSION(params);
  if (BROKEN_KIND == NULL_DEVICE_TYPE)
    return;
  params->device_type = BROKEN_KIND == DUPLICATE_TYPE ? "stub" : "broken";
  params->sub_device_type = "corpus";
  C_DeviceInterface *i = params->interface;
  memset(i, 0, sizeof *i);
  if (BROKEN_KIND == INTERFACE_SIZE)
    i->size = 1040; /* claims Paddle's layout C */
  i->initialize = initialize;
  i->set_device = ok_device;
  i->get_device = ok_device;
  i->create_event = ok_event_out;
  i->record_event = ok_record;
  i->destroy_event = ok_event;
  i->synchronize_event = ok_event;
  i->device_memory_allocate = no_allocate;
  i->device_memory_deallocate = no_deallocate;
  i->get_device_count = device_count;
  i->get_device_list = device_list;
  if (BROKEN_KIND != MISSING_REQUIRED)
    i->synchronize_device = ok_device;
}
