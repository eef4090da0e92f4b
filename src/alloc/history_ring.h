/* The allocator history's ring (internal): a bounded ring of a runtime's device
 * allocations, frees and chunk growths, recorded while on, dumped as JSON
 * (format in docs/allocator.md, "History"). The core records into it from
 * its framework-face entry points (core/memory_history_api.c); the ring
 * knows nothing of devices beyond their names.
 *
 * Thread-safety: record, reset and to_json may run concurrently from any
 * thread (one mutex; recording is a debugging mode, off the hot path).
 * create and destroy may not. */
#ifndef BACKPLANE_ALLOC_HISTORY_RING_H_
#define BACKPLANE_ALLOC_HISTORY_RING_H_

#include <stddef.h>
#include <stdint.h>

#include "backplane/status.h"

typedef enum bp_history_action {
  BP_HISTORY_ALLOC,         /* a block handed out */
  BP_HISTORY_FREE,          /* a block given back */
  BP_HISTORY_SEGMENT_ALLOC, /* a chunk taken from the plugin */
  BP_HISTORY_SEGMENT_FREE,  /* a chunk given back to the plugin */
  BP_HISTORY_OOM,           /* an allocation that failed for memory */
} bp_history_action_t;

enum { BP_HISTORY_LABEL_BYTES = 64 };

typedef struct bp_history_event {
  bp_history_action_t action;
  const char *device; /* the device's name: outlives the ring's events */
  uintptr_t address;
  size_t size;        /* requested bytes (a chunk's: its size) */
  const void *stream; /* NULL: no stream */
  uint64_t time_ns;   /* bp_clock_now_ns */
  uint64_t thread;    /* the recording thread's id */
  const void *caller; /* the entry point's return address, or NULL */
  char label[BP_HISTORY_LABEL_BYTES]; /* the thread's label, or "" */
} bp_history_event_t;

typedef struct bp_history_ring bp_history_ring_t;

bp_status_t bp_history_ring_create(bp_history_ring_t **out);
void bp_history_ring_destroy(bp_history_ring_t *history);

/* Empties the ring and makes it hold the last `max_events` events from now
 * on (0: none). BP_ERR_OUT_OF_MEMORY leaves it as it was. */
bp_status_t bp_history_ring_reset(bp_history_ring_t *history,
                                  size_t max_events);
/* Appends `event` (copied), dropping the oldest when full. */
void bp_history_ring_record(bp_history_ring_t *history,
                            const bp_history_event_t *event);
/* The ring as JSON, oldest event first (caller frees). */
bp_status_t bp_history_ring_to_json(bp_history_ring_t *history,
                                    char **out_json);

#endif /* BACKPLANE_ALLOC_HISTORY_RING_H_ */
