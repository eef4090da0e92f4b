/* State shared by the validation layer's bookkeeping (validation_layer.c)
 * and its intercepts (validation_intercepts.c). Internal. */
#ifndef BACKPLANE_LAYERS_VALIDATION_INTERNAL_H_
#define BACKPLANE_LAYERS_VALIDATION_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "layers/validation_layer.h"
#include "layers/validation_objects.h"

/* Freed objects remembered for "already destroyed" messages; beyond this a
 * stale handle is reported as never created. */
#define BP_VALIDATION_MAX_DEAD 65536

struct bp_validation_layer {
  C_DeviceInterface next;
  pthread_mutex_t lock;
  bp_object_set_t live;
  bp_object_set_t dead;
  uint64_t created[BP_OBJECT_KIND_COUNT];
  uint64_t destroyed[BP_OBJECT_KIND_COUNT];
  FILE *log;
  bool close_log;
  bool abort_on_report;
  atomic_uint_fast64_t reports;
};

/* Writes one finding; aborts when configured to. Call with the lock held. */
void bp_validation_report(bp_validation_layer_t *layer, const char *function,
                          C_Device device, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* "vcpu:1" for a core C_Device. */
const char *bp_validation_device_name(C_Device device);

#endif /* BACKPLANE_LAYERS_VALIDATION_INTERNAL_H_ */
