/* The validation layer (internal): checks each intercepted plugin call
 * against what it has seen created and destroyed, and reports misuse before
 * it reaches the plugin, one line per finding:
 *   backplane validation: <function> on <device>: <what is wrong>
 * Misuse that would corrupt, crash or hang (a destroyed, unknown or foreign
 * stream or event, a bad free, a copy outside its allocation, a device
 * pointer passed as host memory, a host callback synchronizing or destroying
 * its own stream or synchronizing its device) is refused with C_ERROR; the rest
 * (a deallocate size mismatch, a stream destroyed with work pending, a
 * kernel module unloaded with launches pending) is reported and the call
 * proceeds. Misuse the core refuses itself (core/observer.h, refused) is
 * reported as one line too. At unload it prints, per object kind, created
 * versus destroyed, and every object still alive, with its size and sequence
 * number. Thread-safe: one lock per plugin around the bookkeeping.
 *
 * This header: state shared by the layer's life cycle and bookkeeping
 * (validation_layer.c) and its intercepts (validation_intercepts.c, and
 * validation_kernels.c for the kernels extension). */
#ifndef BACKPLANE_LAYERS_VALIDATION_VALIDATION_INTERNAL_H_
#define BACKPLANE_LAYERS_VALIDATION_VALIDATION_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "base/pointer_map.h"
#include "layers/layers.h"
#include "layers/validation/validation_objects.h"

/* Freed objects remembered for "already destroyed" messages; beyond this a
 * stale handle is reported as never created. */
#define BP_VALIDATION_MAX_DEAD 65536

typedef struct bp_validation_layer {
  const bp_plugin_t *plugin;
  C_DeviceInterface next;
  BP_KernelExtension next_kernels; /* when the plugin has the extension */
  pthread_mutex_t lock;
  bp_object_set_t live;
  bp_object_set_t dead;
  uint64_t created[BP_OBJECT_KIND_COUNT];
  uint64_t destroyed[BP_OBJECT_KIND_COUNT];
  FILE *log;
  bool close_log;
  bool abort_on_report;
  atomic_uint_fast64_t reports;
  /* Kernels (validation_kernels.c): BP_KernelFunction -> its
   * BP_KernelModule, and BP_KernelModule -> launches not yet completed. */
  bp_pointer_map_t function_modules;
  bp_pointer_map_t pending_launches;
} bp_validation_layer_t;

/* Saves *table as the layer's next table and writes the intercepts. */
void bp_validation_layer_install(bp_validation_layer_t *layer,
                                 C_DeviceInterface *table);

/* Wraps the kernels extension (validation_kernels.c). */
void bp_validation_attach_kernels(void *context, BP_KernelExtension *kernels);
/* The observer's module_unloading (core/observer.h). */
void bp_validation_module_unloading(void *context, bp_device_t *device,
                                    const char *path,
                                    const BP_KernelModule *parts,
                                    size_t part_count);

/* Writes one finding; aborts when configured to. Call with the lock held. */
void bp_validation_report(bp_validation_layer_t *layer, const char *function,
                          C_Device device, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* "vcpu:1" for a core C_Device. */
const char *bp_validation_device_name(C_Device device);

#endif /* BACKPLANE_LAYERS_VALIDATION_VALIDATION_INTERNAL_H_ */
