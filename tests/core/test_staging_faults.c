/* A staged copy (pageable host memory to a device, core/staging.h) whose
 * staging-buffer event cannot be recorded fails with that error instead of
 * returning BP_OK after silently waiting for the whole stream; the fault
 * layer injects the failed record_event. The stream stays usable and the
 * pool's buffer is not lost. */
#include <stdlib.h>

#include "support/runtime_fixture.h"

/* Three staging chunks: always staged, never copied on the caller. */
#define SIZE (3 * BP_COPY_STAGING_CHUNK)

static void staged_copy_reports_a_failed_event_record(void **state) {
  (void)state;
  /* The first record_event of the runtime is the staging pool's. */
  bp_layer_options_t layers = fixture_layer_options("fault", "record_event:1");
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &layers);
  bp_device_t *device;
  bp_stream_t *stream;
  void *d;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(device, SIZE, &d), BP_OK);
  unsigned char *src = malloc(SIZE), *back = malloc(SIZE);
  assert_non_null(src);
  assert_non_null(back);
  memset(src, 0x5a, SIZE);

  assert_int_equal(bp_copy(device, d, NULL, src, SIZE, stream), BP_ERR_PLUGIN);
  assert_error_mentions("bp_copy to vcpu:0");
  assert_error_mentions("staging buffer");
  assert_error_mentions("record_event");

  /* Later copies on the stream work, through the pool again. */
  memset(src, 0xa5, SIZE);
  assert_int_equal(bp_copy(device, d, NULL, src, SIZE, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, device, d, SIZE, stream), BP_OK);
  assert_memory_equal(back, src, SIZE);
  free(src);
  free(back);
  assert_int_equal(bp_device_free(device, d), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(staged_copy_reports_a_failed_event_record),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
