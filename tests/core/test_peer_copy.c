/* Copies between two devices ordered on a stream of either device (as
 * cudaMemcpyPeerAsync allows), with and without the validation layer: the
 * data arrives and no layer refuses or reports. A stream of a third party
 * (neither device) is refused. */
#include <string.h>

#include "support/runtime_fixture.h"

static void peer_copy_on_either_stream(const char *layers) {
  bp_runtime_t *runtime;
  if (layers) {
    bp_layer_options_t options = fixture_layer_options(layers, "");
    options.validation_abort = 1; /* any report fails the test */
    runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  } else {
    runtime = fixture_runtime(BP_VCPU_PLUGIN);
  }
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  assert_int_equal(bp_device_at(runtime, 1, &dev1), BP_OK);
  enum { N = 8192 };
  void *src = NULL, *dst = NULL;
  assert_int_equal(bp_device_malloc(dev0, N, &src), BP_OK);
  assert_int_equal(bp_device_malloc(dev1, N, &dst), BP_OK);
  bp_stream_t *s0 = NULL, *s1 = NULL;
  assert_int_equal(bp_stream_create(dev0, &s0), BP_OK);
  assert_int_equal(bp_stream_create(dev1, &s1), BP_OK);
  static unsigned char in[N], out[N];
  bp_stream_t *streams[2] = {s0, s1};
  for (int i = 0; i < 2; ++i) {
    memset(in, 0x11 * (i + 1), N);
    memset(out, 0, N);
    assert_int_equal(bp_copy(dev0, src, NULL, in, N, NULL), BP_OK);
    assert_int_equal(bp_copy(dev1, dst, dev0, src, N, streams[i]), BP_OK);
    assert_int_equal(bp_stream_synchronize(streams[i]), BP_OK);
    assert_int_equal(bp_copy(NULL, out, dev1, dst, N, NULL), BP_OK);
    assert_memory_equal(in, out, N);
  }
  assert_int_equal(bp_stream_destroy(s0), BP_OK);
  assert_int_equal(bp_stream_destroy(s1), BP_OK);
  assert_int_equal(bp_device_free(dev0, src), BP_OK);
  assert_int_equal(bp_device_free(dev1, dst), BP_OK);
  bp_layer_stats_t stats = fixture_layer_stats(runtime);
  assert_int_equal(stats.validation_reports, 0);
  bp_runtime_destroy(runtime);
}

static void test_without_layers(void **state) {
  (void)state;
  peer_copy_on_either_stream(NULL);
}

static void test_with_validation(void **state) {
  (void)state;
  peer_copy_on_either_stream("validation");
}

static void test_with_every_layer(void **state) {
  (void)state;
  peer_copy_on_either_stream("validation,trace,fault");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_without_layers),
      cmocka_unit_test(test_with_validation),
      cmocka_unit_test(test_with_every_layer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
