/* The calling thread's active device per plugin and active stream per
 * device (internal; bp_device_set_active, bp_stream_set_active).
 *
 * Each thread keeps a small table of its own settings, keyed by device
 * serials (never reused), so it needs no lock and no other thread can see
 * it. A destroyed active stream is noticed through the device's
 * active_epoch: a thread whose entry is older re-checks under the device
 * lock that its stream is still registered. */
#ifndef BACKPLANE_CORE_ACTIVE_H_
#define BACKPLANE_CORE_ACTIVE_H_

#include "core/stream_internal.h"

/* Replaces BP_STREAM_ACTIVE in *stream by the thread's active stream of
 * `device`; anything else is left alone. Inline: every call that accepts
 * BP_STREAM_ACTIVE asks. */
bp_status_t bp_stream_resolve_active(bp_device_t *device, bp_stream_t **stream);
static inline bp_status_t bp_stream_resolve(bp_device_t *device,
                                            bp_stream_t **stream) {
  if (__builtin_expect(*stream != BP_STREAM_ACTIVE, 1))
    return BP_OK;
  return bp_stream_resolve_active(device, stream);
}

/* After `stream` left its device's registry: if it was ever active, makes
 * every thread re-check its active stream of the device. Under device
 * lock. */
void bp_stream_forget_active(bp_stream_t *stream);

/* The error of a call taking only a stream that got BP_STREAM_ACTIVE. */
bp_status_t bp_stream_active_refused(const char *function);

#endif /* BACKPLANE_CORE_ACTIVE_H_ */
