/* Devices (internal): the core-owned C_Device of each plugin device, lazy
 * init_device, binding the calling thread with set_device, and the per-device
 * registries of live objects.
 *
 * Thread-safety: `lock` guards the registries and lazy creation; the fields
 * set at load time are immutable. */
#ifndef BACKPLANE_CORE_DEVICE_TABLE_H_
#define BACKPLANE_CORE_DEVICE_TABLE_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "alloc/caching_allocator.h"
#include "alloc/history_ring.h"
#include "backplane/device.h"
#include "core/dispatch.h"
#include "core/host_ranges.h"
#include "core/object_registry.h"
#include "core/staging.h"

struct bp_device {
  struct C_Device_st c_device; /* first: fallbacks cast C_Device back */
  bp_plugin_t *plugin;
  /* &plugin->observer while a layer observes the plugin (core/observer.h),
   * else NULL. Set and cleared while the runtime loads and unloads it. */
  const bp_observer_t *observer;
  /* The runtime's history ring while it records (core/memory_history_note.h),
   * else NULL. */
  _Atomic(bp_history_ring_t *) memory_history;
  size_t index;        /* within the plugin */
  size_t ordinal;      /* within the runtime (core/visible_devices.h) */
  size_t visible_rank; /* its place in BACKPLANE_VISIBLE_DEVICES' order */
  uint64_t serial;     /* process-unique, for the thread's binding cache */
  char name[96];       /* "vcpu:1" */

  pthread_mutex_t lock;
  atomic_int ready;                            /* init_device succeeded */
  int init_attempted;                          /* under lock */
  C_Status init_result;                        /* under lock */
  _Atomic(bp_caching_allocator_t *) allocator; /* created lazily */

  uint32_t last_stream_id; /* under lock: bp_stream_t.id */
  bp_registry_t streams;   /* bp_stream_t */
  bp_registry_t events;    /* bp_event_t created by the caller */
  bp_allocation_table_t host_allocations;
  bp_allocation_table_t unified_allocations;
  bp_host_ranges_t pinned; /* the ranges of host_allocations, for bp_copy */
  /* Device memory the allocator gave back (core/released_ranges.h). */
  pthread_mutex_t released_lock;
  bp_host_ranges_t released;
  _Atomic(struct bp_stream *) default_stream; /* created lazily */
  /* Bumped when a stream that was ever some thread's active stream is
   * destroyed: threads then check theirs is still alive (core/active.h). */
  atomic_uint_fast64_t active_epoch;
  bp_staging_pool_t staging;
};

/* Fills the immutable fields and the lock; `logical_id` comes from
 * get_device_list. */
void bp_device_setup(bp_device_t *device, bp_plugin_t *plugin, size_t index,
                     size_t ordinal, int logical_id);
/* Reports leaked objects on stderr and releases them, then deinit_device.
 * Runs at bp_runtime_destroy only. */
void bp_device_teardown(bp_device_t *device);

/* The serial of the device this thread last bound with set_device.
 * initial-exec: the hot path reads it without a __tls_get_addr call. */
extern __attribute__((
    tls_model("initial-exec"))) _Thread_local uint64_t bp_thread_bound_serial;

/* Makes `device` usable from this thread: runs init_device once (first use,
 * from any thread), then set_device if this thread is bound elsewhere. */
bp_status_t bp_device_enter_slow(bp_device_t *device);
static inline bp_status_t bp_device_enter(bp_device_t *device) {
  if (bp_thread_bound_serial == device->serial)
    return BP_OK;
  return bp_device_enter_slow(device);
}

/* The caching allocator of `device`, created on first use (which runs the
 * plugin's size hints); NULL with bp_last_error() set when it cannot be
 * created. Owned by the device; valid until bp_runtime_destroy. */
bp_caching_allocator_t *bp_device_allocator(bp_device_t *device);
/* The same, with the failure's status. */
bp_status_t bp_device_allocator_get(bp_device_t *device,
                                    bp_caching_allocator_t **out_allocator);
/* The allocator if it exists already, else NULL (never creates). Inline:
 * every device malloc and free asks. */
static inline bp_caching_allocator_t *
bp_device_allocator_if_created(bp_device_t *device) {
  return atomic_load_explicit(&device->allocator, memory_order_acquire);
}

/* bp_device_memory_info for the core's own use: never a slice of the trace
 * (core/observer.h). */
bp_status_t bp_device_memory_info_internal(bp_device_t *device,
                                           size_t *out_total, size_t *out_free);

/* Sets bp_error for a plugin call that failed: "<type>: <fn> on <device>
 * returned C_X" and returns the mapped status. */
bp_status_t bp_plugin_call_error(const bp_device_t *device,
                                 const char *function, C_Status result);

#define BP_C_OK(result) ((result) == C_SUCCESS || (result) == C_WARNING)

#endif /* BACKPLANE_CORE_DEVICE_TABLE_H_ */
