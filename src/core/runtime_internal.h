/* The runtime object (internal). Everything is created in bp_runtime_create
 * and is immutable afterwards except per-device state (device_table.h), so
 * lookups need no lock. */
#ifndef BACKPLANE_CORE_RUNTIME_INTERNAL_H_
#define BACKPLANE_CORE_RUNTIME_INTERNAL_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "alloc/history_ring.h"
#include "backplane/runtime.h"
#include "core/dispatch.h"
#include "core/handle_pool.h"
#include "core/layer.h"
#include "core/retired.h"
#include "core/visible_devices.h"

typedef struct bp_rejection {
  char *path;
  char *reason;
} bp_rejection_t;

struct bp_runtime {
  bp_plugin_t **plugins;
  size_t plugin_count;
  bp_device_t **devices; /* by ordinal */
  size_t device_count;
  bp_rejection_t *rejected;
  size_t rejected_count;
  bp_runtime_layers_t layers; /* opened before loading, closed after */
  /* bp_stream_t and bp_event_t storage (core/handle_pool.h). */
  bp_handle_pool_t stream_handles, event_handles;
  /* Unloaded kernel modules, kept readable for a while (core/retired.h). */
  bp_retired_list_t retired;
  /* bp_copy and bp_memset check device ranges (!skip_range_checks). */
  bool check_ranges;
  /* The allocator history (backplane/memory_history.h): its ring, created
   * with the runtime, and the file BACKPLANE_MEMORY_HISTORY names (dumped
   * at destroy) or NULL. */
  bp_history_ring_t *history;
  char *history_path;
  atomic_bool history_recording;
  /* The devices shown and their order, while loading. */
  bp_visible_devices_t visible;
};

/* Records a plugin that was found but not loaded. The reason is formatted
 * printf-style; BP_ERR_OUT_OF_MEMORY if it cannot be stored. */
bp_status_t bp_runtime_reject(bp_runtime_t *runtime, const char *path,
                              const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* The plugin whose device_type is `device_type`, or NULL. */
bp_plugin_t *bp_runtime_find_plugin(const bp_runtime_t *runtime,
                                    const char *device_type);

#endif /* BACKPLANE_CORE_RUNTIME_INTERNAL_H_ */
