/* The timeline of a history snapshot (internal): live bytes over time per
 * device and per stream, and reserved (chunk) bytes per device, replayed
 * from the snapshot's events. A free is matched to the alloc of its address
 * on its device and counts against that alloc's stream; a free whose alloc
 * fell out of the ring is counted as unmatched and changes nothing (the
 * live bytes start from 0 at the first kept event). Used by
 * bp_memory_history_summary and bp_memory_snapshot_to_svg. */
#ifndef BACKPLANE_ALLOC_HISTORY_TIMELINE_H_
#define BACKPLANE_ALLOC_HISTORY_TIMELINE_H_

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc/history_ring.h"
#include "base/pointer_map.h"

typedef struct bp_timeline_point {
  uint64_t time_ns;
  uint64_t bytes;
} bp_timeline_point_t;

/* One line of the picture: a value after each event that changed it. */
typedef struct bp_timeline_series {
  char name[40]; /* the stream ("0x..." or "none"), "live", "reserved" */
  bp_timeline_point_t *points;
  size_t count, capacity;
  uint64_t value, peak, peak_time_ns;
  size_t peak_event; /* index in the snapshot's events */
  size_t allocs;
} bp_timeline_series_t;

typedef struct bp_timeline_device {
  char name[96];
  bp_timeline_series_t live, reserved;
  bp_timeline_series_t *streams;
  size_t stream_count;
  size_t actions[BP_HISTORY_OOM + 1]; /* events by action */
  size_t unmatched_frees;
  bp_pointer_map_t blocks; /* live address -> its alloc's event index + 1 */
} bp_timeline_device_t;

typedef struct bp_timeline {
  bp_timeline_device_t *devices;
  size_t device_count;
  size_t events;
  uint64_t max_events, dropped, duration_ns;
} bp_timeline_t;

/* Whether `root` is a history snapshot (its "format"). */
bool bp_timeline_is_history(json_t *root);
/* Replays `root`'s events; BP_ERR_INVALID_ARGUMENT naming `function` and
 * the first bad event, or BP_ERR_OUT_OF_MEMORY. */
bp_status_t bp_timeline_build(json_t *root, const char *function,
                              bp_timeline_t *out);
void bp_timeline_release(bp_timeline_t *timeline);

#endif /* BACKPLANE_ALLOC_HISTORY_TIMELINE_H_ */
