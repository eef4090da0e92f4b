/* The allocator history's ring and its JSON (history_ring.h). */
#include "alloc/history_ring.h"

#include <dlfcn.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/status.h"

struct bp_history_ring {
  pthread_mutex_t mu;
  bp_history_event_t *events; /* capacity slots, a ring */
  size_t capacity;
  uint64_t recorded; /* since the last reset; the next slot is % capacity */
  uint64_t start_ns; /* of the last reset */
};

bp_status_t bp_history_ring_create(bp_history_ring_t **out) {
  bp_history_ring_t *h = calloc(1, sizeof *h);
  if (!h)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "memory history: no host memory for the ring");
  pthread_mutex_init(&h->mu, NULL);
  h->start_ns = bp_clock_now_ns();
  *out = h;
  return BP_OK;
}

void bp_history_ring_destroy(bp_history_ring_t *h) {
  if (!h)
    return;
  pthread_mutex_destroy(&h->mu);
  free(h->events);
  free(h);
}

bp_status_t bp_history_ring_reset(bp_history_ring_t *h, size_t max_events) {
  bp_history_event_t *events = NULL;
  if (max_events) {
    events = max_events <= SIZE_MAX / sizeof *events
                 ? malloc(max_events * sizeof *events)
                 : NULL;
    if (!events)
      return bp_error(BP_ERR_OUT_OF_MEMORY,
                      "memory history: no host memory for %zu events",
                      max_events);
  }
  pthread_mutex_lock(&h->mu);
  bp_history_event_t *old = h->events;
  h->events = events;
  h->capacity = max_events;
  h->recorded = 0;
  h->start_ns = bp_clock_now_ns();
  pthread_mutex_unlock(&h->mu);
  free(old);
  return BP_OK;
}

void bp_history_ring_record(bp_history_ring_t *h,
                            const bp_history_event_t *event) {
  pthread_mutex_lock(&h->mu);
  if (h->capacity)
    h->events[h->recorded++ % h->capacity] = *event;
  pthread_mutex_unlock(&h->mu);
}

static const char *const action_names[] = {"alloc", "free", "segment_alloc",
                                           "segment_free", "oom"};

static json_t *pointer_json(const void *pointer) {
  if (!pointer)
    return json_null();
  char text[32];
  snprintf(text, sizeof text, "%p", pointer);
  return json_string(text);
}

/* "function+0x1c (libfoo.so.1)" for a code address, else its hex. */
static json_t *caller_json(const void *caller) {
  if (!caller)
    return json_null();
  Dl_info info;
  char text[512];
  if (!dladdr(caller, &info) || !info.dli_fname) {
    snprintf(text, sizeof text, "%p", caller);
    return json_string(text);
  }
  const char *file = strrchr(info.dli_fname, '/');
  file = file ? file + 1 : info.dli_fname;
  if (info.dli_sname)
    snprintf(text, sizeof text, "%s+0x%tx (%s)", info.dli_sname,
             (const char *)caller - (const char *)info.dli_saddr, file);
  else
    snprintf(text, sizeof text, "%s+0x%tx", file,
             (const char *)caller - (const char *)info.dli_fbase);
  return json_string(text);
}

static json_t *event_json(const bp_history_event_t *e, uint64_t start_ns) {
  char address[32];
  snprintf(address, sizeof address, "0x%llx", (unsigned long long)e->address);
  return json_pack(
      "{s:s, s:s, s:s, s:I, s:o, s:I, s:I, s:o}", "action",
      action_names[e->action], "device", e->device, "address", address, "size",
      (json_int_t)e->size, "stream", pointer_json(e->stream), "time_ns",
      (json_int_t)(e->time_ns > start_ns ? e->time_ns - start_ns : 0), "thread",
      (json_int_t)e->thread, "caller",
      e->label[0] ? json_string(e->label) : caller_json(e->caller));
}

bp_status_t bp_history_ring_to_json(bp_history_ring_t *h, char **out_json) {
  /* The events are copied out under the lock and formatted without it. */
  pthread_mutex_lock(&h->mu);
  uint64_t kept = h->recorded < h->capacity ? h->recorded : h->capacity;
  uint64_t dropped = h->recorded - kept;
  size_t capacity = h->capacity;
  uint64_t start_ns = h->start_ns;
  bp_history_event_t *copy = kept ? malloc(kept * sizeof *copy) : NULL;
  for (uint64_t i = 0; copy && i < kept; i++)
    copy[i] = h->events[(dropped + i) % capacity];
  pthread_mutex_unlock(&h->mu);
  if (kept && !copy)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "memory history: no host memory for the snapshot");
  json_t *events = json_array();
  for (uint64_t i = 0; i < kept; i++)
    json_array_append_new(events, event_json(&copy[i], start_ns));
  free(copy);
  json_t *root = json_pack("{s:s, s:i, s:I, s:I, s:o}", "format",
                           "backplane-memory-history", "version", 1,
                           "max_events", (json_int_t)capacity, "dropped",
                           (json_int_t)dropped, "events", events);
  char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
  json_decref(root);
  if (!text)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "memory history: no host memory for the snapshot");
  *out_json = text;
  return BP_OK;
}
