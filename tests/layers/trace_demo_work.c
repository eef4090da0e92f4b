#include "trace_demo_work.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    if (status == BP_OK)                                                       \
      status = (call);                                                         \
  } while (0)

static void count_callback(void *user_data) {
  atomic_fetch_add((atomic_int *)user_data, 1);
}

bp_status_t trace_demo_run(bp_runtime_t *runtime) {
  bp_status_t status = BP_OK;
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  bp_stream_t *a = NULL, *b = NULL, *c = NULL;
  bp_event_t *ready = NULL;
  void *src0 = NULL, *copy0 = NULL, *dst1 = NULL;
  unsigned char *host_in = malloc(TRACE_DEMO_BYTES);
  unsigned char *host_out = malloc(TRACE_DEMO_BYTES);
  atomic_int callbacks = 0;
  if (!host_in || !host_out)
    status = BP_ERR_OUT_OF_MEMORY;
  CHECK(bp_device_at(runtime, 0, &dev0));
  CHECK(bp_device_at(runtime, 1, &dev1));
  CHECK(bp_stream_create(dev0, &a));
  CHECK(bp_stream_create(dev0, &b));
  CHECK(bp_stream_create(dev1, &c));
  CHECK(bp_event_create(dev0, &ready));
  CHECK(bp_device_malloc_async(dev0, TRACE_DEMO_BYTES, a, &src0));
  CHECK(bp_device_malloc_async(dev0, TRACE_DEMO_BYTES, b, &copy0));
  CHECK(bp_device_malloc_async(dev1, TRACE_DEMO_BYTES, c, &dst1));
  for (int round = 0; round < TRACE_DEMO_ROUNDS && status == BP_OK; ++round) {
    memset(host_in, round + 1, TRACE_DEMO_BYTES);
    memset(host_out, 0, TRACE_DEMO_BYTES);
    CHECK(bp_copy_async_unsafe(dev0, src0, NULL, host_in, TRACE_DEMO_BYTES, a));
    CHECK(bp_event_record(ready, a));
    CHECK(bp_stream_wait_event(b, ready));
    CHECK(bp_stream_wait_event(c, ready));
    CHECK(bp_copy(dev0, copy0, dev0, src0, TRACE_DEMO_BYTES, b));
    CHECK(bp_copy(dev1, dst1, dev0, src0, TRACE_DEMO_BYTES, c));
    CHECK(bp_stream_add_callback(c, count_callback, &callbacks));
    CHECK(
        bp_copy_async_unsafe(NULL, host_out, dev1, dst1, TRACE_DEMO_BYTES, c));
    CHECK(bp_stream_synchronize(c));
    CHECK(bp_stream_synchronize(b));
    if (status == BP_OK && memcmp(host_in, host_out, TRACE_DEMO_BYTES) != 0)
      status = BP_ERR_INTERNAL;
  }
  if (status == BP_OK && atomic_load(&callbacks) != TRACE_DEMO_ROUNDS)
    status = BP_ERR_INTERNAL;
  if (dst1)
    bp_device_free_async(dev1, dst1, c);
  if (copy0)
    bp_device_free_async(dev0, copy0, b);
  if (src0)
    bp_device_free_async(dev0, src0, a);
  bp_event_destroy(ready);
  bp_stream_destroy(c);
  bp_stream_destroy(b);
  bp_stream_destroy(a);
  free(host_in);
  free(host_out);
  return status;
}
