#include "workload.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

enum { BYTES = 4096 };

static void count_callback(void *user_data) {
  atomic_fetch_add((atomic_int *)user_data, 1);
}

#define STEP(call)                                                             \
  do {                                                                         \
    if ((call) != BP_OK)                                                       \
      goto cleanup;                                                            \
  } while (0)

outcome_t workload(bp_runtime_t *runtime, atomic_int *ran) {
  outcome_t outcome = {0, 0};
  unsigned char src[BYTES], out[BYTES], sync_out[BYTES], peer_out[BYTES];
  for (int i = 0; i < BYTES; ++i)
    src[i] = (unsigned char)(i * 7 + 3);
  memset(out, 0, sizeof out);
  memset(sync_out, 0, sizeof sync_out);
  memset(peer_out, 0, sizeof peer_out);
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  bp_stream_t *s0 = NULL, *s1 = NULL;
  bp_event_t *e0 = NULL, *e1 = NULL;
  void *d0 = NULL, *d1 = NULL, *d2 = NULL, *pinned = NULL, *unified = NULL;
  STEP(bp_device_at(runtime, 0, &dev0));
  STEP(bp_device_at(runtime, 1, &dev1));
  STEP(bp_stream_create(dev0, &s0));
  STEP(bp_stream_create(dev1, &s1));
  STEP(bp_device_malloc(dev0, BYTES, &d0));
  STEP(bp_device_malloc(dev1, BYTES, &d1));
  STEP(bp_device_malloc(dev0, BYTES, &d2));
  STEP(bp_memset(dev1, d1, 0xee, BYTES, s1));
  STEP(bp_copy_async_unsafe(dev0, d0, NULL, src, BYTES, s0));
  STEP(bp_event_create(dev0, &e0));
  STEP(bp_event_record(e0, s0));
  STEP(bp_stream_wait_event(s1, e0));
  STEP(bp_copy(dev1, d1, dev0, d0, BYTES, s1));
  STEP(bp_stream_add_callback(s1, count_callback, ran));
  outcome.callbacks_accepted = 1;
  STEP(bp_copy_async_unsafe(NULL, out, dev1, d1, BYTES, s1));
  STEP(bp_stream_synchronize(s1));
  STEP(bp_copy(dev0, d2, dev0, d0, BYTES, NULL));
  STEP(bp_copy(NULL, sync_out, dev0, d2, BYTES, NULL));
  STEP(bp_event_query(e0));
  STEP(bp_host_malloc(dev0, BYTES, &pinned));
  memcpy(pinned, src, BYTES);
  STEP(bp_copy(dev0, d2, NULL, pinned, BYTES, s0));
  STEP(bp_stream_synchronize(s0));
  STEP(bp_device_synchronize(dev1));
  /* Synchronous host->device and peer copies, a same-device copy on a
   * stream, a stream query, event timing, unified memory (host-accessible). */
  STEP(bp_copy(dev0, d2, NULL, src, BYTES, NULL));
  STEP(bp_copy(dev1, d1, dev0, d2, BYTES, NULL));
  STEP(bp_copy(NULL, peer_out, dev1, d1, BYTES, NULL));
  STEP(bp_event_create(dev0, &e1));
  STEP(bp_event_record(e0, s0));
  STEP(bp_copy(dev0, d0, dev0, d2, BYTES, s0));
  STEP(bp_event_record(e1, s0));
  STEP(bp_stream_synchronize(s0));
  STEP(bp_stream_query(s0));
  float milliseconds = -1.0f;
  STEP(bp_event_elapsed_time(e0, e1, &milliseconds));
  assert_true(milliseconds >= 0.0f);
  STEP(bp_unified_malloc(dev1, BYTES, &unified));
  STEP(bp_copy(NULL, unified, dev0, d0, BYTES, NULL));
  assert_memory_equal(out, src, BYTES);
  assert_memory_equal(sync_out, src, BYTES);
  assert_memory_equal(peer_out, src, BYTES);
  assert_memory_equal(unified, src, BYTES);
  outcome.completed = 1;
cleanup:
  /* Streams first (they finish their queued work), then the devices, so no
   * copy still reads memory freed below, even when a drain was faulted. */
  bp_stream_destroy(s1);
  bp_stream_destroy(s0);
  if (dev0)
    bp_device_synchronize(dev0);
  if (dev1)
    bp_device_synchronize(dev1);
  if (unified)
    bp_unified_free(dev1, unified);
  if (pinned)
    bp_host_free(dev0, pinned);
  if (d2)
    bp_device_free(dev0, d2);
  if (d1)
    bp_device_free(dev1, d1);
  if (d0)
    bp_device_free(dev0, d0);
  bp_event_destroy(e1);
  bp_event_destroy(e0);
  /* Hands the cached blocks back to the plugin (device_memory_deallocate)
   * before the runtime is destroyed. */
  if (dev0)
    bp_device_empty_cache(dev0);
  if (dev1)
    bp_device_empty_cache(dev1);
  return outcome;
}
