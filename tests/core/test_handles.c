/* Destroyed streams and events passed again: every entry point refuses them
 * with BP_ERR_INVALID_ARGUMENT and a message naming a destroyed stream or
 * event, with and without the validation layer, and nothing else changes
 * (live handles of the same device keep working). */
#include <string.h>

#include "support/runtime_fixture.h"

static bp_runtime_t *open_runtime(const char *layers) {
  if (!layers)
    return fixture_runtime(BP_VCPU_PLUGIN);
  bp_layer_options_t options = fixture_layer_options(layers, "");
  return fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
}

#define assert_destroyed(call, what)                                           \
  do {                                                                         \
    assert_int_equal((call), BP_ERR_INVALID_ARGUMENT);                         \
    assert_error_mentions(what);                                               \
    assert_error_mentions("destroyed");                                        \
  } while (0)

static void destroyed_stream_is_refused(const char *layers) {
  bp_runtime_t *runtime = open_runtime(layers);
  bp_device_t *dev0 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  bp_stream_t *stream = NULL, *live = NULL;
  bp_event_t *event = NULL;
  assert_int_equal(bp_stream_create(dev0, &stream), BP_OK);
  assert_int_equal(bp_stream_create(dev0, &live), BP_OK);
  assert_int_equal(bp_event_create(dev0, &event), BP_OK);
  void *block = NULL;
  assert_int_equal(bp_device_malloc(dev0, 4096, &block), BP_OK);
  char host[64] = {0};
  assert_int_equal(bp_stream_destroy(stream), BP_OK);

  assert_destroyed(bp_stream_query(stream), "stream");
  assert_destroyed(bp_stream_synchronize(stream), "stream");
  assert_destroyed(bp_copy(dev0, block, NULL, host, sizeof host, stream),
                   "bp_copy: stream");
  assert_destroyed(bp_memset(dev0, block, 0, 16, stream), "stream");
  assert_destroyed(bp_event_record(event, stream), "stream");
  assert_destroyed(bp_stream_wait_event(stream, event), "stream");
  assert_destroyed(bp_stream_sync_from_to(live, stream), "stream");
  assert_destroyed(bp_stream_destroy(stream), "bp_stream_destroy: stream");

  /* Everything else is as it was. */
  assert_int_equal(bp_copy(dev0, block, NULL, host, sizeof host, live), BP_OK);
  assert_int_equal(bp_event_record(event, live), BP_OK);
  assert_int_equal(bp_event_synchronize(event), BP_OK);
  assert_int_equal(bp_device_free(dev0, block), BP_OK);
  assert_int_equal(bp_event_destroy(event), BP_OK);
  assert_int_equal(bp_stream_destroy(live), BP_OK);
  bp_runtime_destroy(runtime);
}

static void destroyed_event_is_refused(const char *layers) {
  bp_runtime_t *runtime = open_runtime(layers);
  bp_device_t *dev0 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  bp_stream_t *stream = NULL;
  bp_event_t *event = NULL, *live = NULL;
  assert_int_equal(bp_stream_create(dev0, &stream), BP_OK);
  assert_int_equal(bp_event_create(dev0, &event), BP_OK);
  assert_int_equal(bp_event_create(dev0, &live), BP_OK);
  assert_int_equal(bp_event_record(event, stream), BP_OK);
  assert_int_equal(bp_event_record(live, stream), BP_OK);
  assert_int_equal(bp_event_destroy(event), BP_OK);

  assert_destroyed(bp_event_query(event), "bp_event_query: event");
  assert_destroyed(bp_event_synchronize(event), "event");
  assert_destroyed(bp_event_record(event, stream), "event");
  assert_destroyed(bp_stream_wait_event(stream, event), "event");
  float ms = 0;
  assert_destroyed(bp_event_elapsed_time(event, live, &ms), "event");
  assert_destroyed(bp_event_destroy(event), "bp_event_destroy: event");

  assert_int_equal(bp_event_synchronize(live), BP_OK);
  assert_int_equal(bp_event_query(live), BP_OK);
  assert_int_equal(bp_event_destroy(live), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
}

static void test_destroyed_stream(void **state) {
  (void)state;
  destroyed_stream_is_refused(NULL);
}
static void test_destroyed_stream_validation(void **state) {
  (void)state;
  destroyed_stream_is_refused("validation");
}
static void test_destroyed_event(void **state) {
  (void)state;
  destroyed_event_is_refused(NULL);
}
static void test_destroyed_event_validation(void **state) {
  (void)state;
  destroyed_event_is_refused("validation");
}

/* Handles are reused only after many others were destroyed: creating new
 * ones right after a destroy does not bring the old handle back to life. */
static void test_new_handles_do_not_revive_old_ones(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *dev0 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  bp_event_t *old = NULL;
  assert_int_equal(bp_event_create(dev0, &old), BP_OK);
  assert_int_equal(bp_event_destroy(old), BP_OK);
  bp_event_t *fresh[8];
  for (int i = 0; i < 8; ++i) {
    assert_int_equal(bp_event_create(dev0, &fresh[i]), BP_OK);
    assert_ptr_not_equal(fresh[i], old);
  }
  assert_destroyed(bp_event_query(old), "event");
  for (int i = 0; i < 8; ++i)
    assert_int_equal(bp_event_destroy(fresh[i]), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_destroyed_stream),
      cmocka_unit_test(test_destroyed_stream_validation),
      cmocka_unit_test(test_destroyed_event),
      cmocka_unit_test(test_destroyed_event_validation),
      cmocka_unit_test(test_new_handles_do_not_revive_old_ones),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
