/* Launches, stream errors and notifies on vcpu, through the public API. */
#include <time.h>

#include "acquire_kernel.h"
#include "conformance_kernels.h"
#include "kernel_fixture.h"

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void launches_run_in_stream_order(void **state) {
  kernel_fixture_t *f = *state;
  bp_function_t *append = kernel_fixture_function(f, "append_kernel");
  enum { N = 200 };
  int *log = kernel_fixture_zeroed(f, (N + 1) * sizeof(int));
  for (int i = 0; i < N; ++i) {
    append_param p = {log + 1, log, i};
    assert_int_equal(bp_launch(append, 1, &p, sizeof p, NULL, f->stream),
                     BP_OK);
  }
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(log[0], N);
  for (int i = 0; i < N; ++i)
    assert_int_equal(log[1 + i], i);
  bp_device_free(f->dev0, log);
}

static void every_block_sees_its_index(void **state) {
  kernel_fixture_t *f = *state;
  for (uint32_t blocks = 1; blocks <= 9; blocks += 4) {
    int *seen = kernel_fixture_zeroed(f, blocks * sizeof(int));
    block_param p = {seen};
    assert_int_equal(bp_launch(kernel_fixture_function(f, "block_kernel"),
                               blocks, &p, sizeof p, NULL, f->stream),
                     BP_OK);
    assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
    for (uint32_t b = 0; b < blocks; ++b)
      assert_int_equal(seen[b], (int)(blocks * 1000 + b));
    bp_device_free(f->dev0, seen);
  }
}

static void arguments_are_copied_at_launch(void **state) {
  kernel_fixture_t *f = *state;
  int *log = kernel_fixture_zeroed(f, 4 * sizeof(int));
  sleep_param nap = {50};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "sleep_kernel"), 1,
                             &nap, sizeof nap, NULL, f->stream),
                   BP_OK);
  append_param p = {log + 1, log, 7};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "append_kernel"), 1, &p,
                             sizeof p, NULL, f->stream),
                   BP_OK);
  p.value = 8; /* the launch still waits behind the sleep */
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(log[0], 1);
  assert_int_equal(log[1], 7);
  bp_device_free(f->dev0, log);
}

static void failing_kernel_leaves_a_sticky_stream_error(void **state) {
  kernel_fixture_t *f = *state;
  int *log = kernel_fixture_zeroed(f, 4 * sizeof(int));
  fail_param bad = {42};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "fail_kernel"), 3, &bad,
                             sizeof bad, NULL, f->stream),
                   BP_OK);
  append_param p = {log + 1, log, 5};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "append_kernel"), 1, &p,
                             sizeof p, NULL, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "fail_kernel"));
  assert_non_null(strstr(bp_last_error(), "returned 42"));
  assert_int_equal(bp_stream_query(f->stream), BP_ERR_PLUGIN); /* sticky */
  assert_int_equal(log[1], 5); /* later work still ran */
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  bp_device_free(f->dev0, log);
}

static void kernel_past_its_timeout_fails_promptly(void **state) {
  kernel_fixture_t *f = *state;
  int *log = kernel_fixture_zeroed(f, 4 * sizeof(int));
  sleep_param nap = {1500};
  bp_launch_config_t config = {.timeout_ms = 100};
  uint64_t start = now_ms();
  assert_int_equal(bp_launch(kernel_fixture_function(f, "sleep_kernel"), 1,
                             &nap, sizeof nap, &config, f->stream),
                   BP_OK);
  append_param p = {log + 1, log, 9};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "append_kernel"), 1, &p,
                             sizeof p, NULL, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_TIMEOUT);
  assert_true(now_ms() - start < 1000);
  assert_non_null(strstr(bp_last_error(), "sleep_kernel"));
  assert_int_equal(log[1], 9); /* the stream ran on */
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
  bp_device_free(f->dev0, log);
}

static void notify_round_trip_between_stream_and_kernel(void **state) {
  kernel_fixture_t *f = *state;
  bp_notify_t *to_device = NULL, *to_host = NULL;
  assert_int_equal(bp_notify_create(f->dev0, &to_device), BP_OK);
  assert_int_equal(bp_notify_create(f->dev0, &to_host), BP_OK);
  notify_param p = {0, 0, 5000};
  assert_int_equal(bp_notify_id(to_device, &p.wait_id), BP_OK);
  assert_int_equal(bp_notify_id(to_host, &p.record_id), BP_OK);
  assert_int_not_equal(p.wait_id, p.record_id);
  bp_stream_t *device_side = NULL;
  assert_int_equal(bp_stream_create(f->dev0, &device_side), BP_OK);
  /* The kernel waits on its own stream until the host stream records. */
  assert_int_equal(bp_launch(kernel_fixture_function(f, "notify_kernel"), 1, &p,
                             sizeof p, NULL, device_side),
                   BP_OK);
  int *log = kernel_fixture_zeroed(f, 4 * sizeof(int));
  append_param after = {log + 1, log, 3};
  assert_int_equal(bp_notify_record(to_device, f->stream), BP_OK);
  assert_int_equal(bp_notify_wait(to_host, f->stream, 5000), BP_OK);
  assert_int_equal(bp_launch(kernel_fixture_function(f, "append_kernel"), 1,
                             &after, sizeof after, NULL, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(device_side), BP_OK);
  assert_int_equal(log[1], 3);
  assert_int_equal(bp_stream_destroy(device_side), BP_OK);
  assert_int_equal(bp_notify_destroy(to_device), BP_OK);
  assert_int_equal(bp_notify_destroy(to_host), BP_OK);
  bp_device_free(f->dev0, log);
}

static void notify_wait_past_its_timeout_fails(void **state) {
  kernel_fixture_t *f = *state;
  bp_notify_t *never = NULL;
  assert_int_equal(bp_notify_create(f->dev0, &never), BP_OK);
  assert_int_equal(bp_notify_wait(never, f->stream, 50), BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_TIMEOUT);
  assert_non_null(strstr(bp_last_error(), "notify"));
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
  assert_int_equal(bp_stream_query(f->stream), BP_OK);
  assert_int_equal(bp_notify_destroy(never), BP_OK);
}

static void bad_launches_are_refused(void **state) {
  kernel_fixture_t *f = *state;
  bp_function_t *empty = kernel_fixture_function(f, "empty_kernel");
  char big[BP_LAUNCH_MAX_ARGS + 1] = {0};
  assert_int_equal(bp_launch(empty, 0, NULL, 0, NULL, f->stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_launch(empty, 1, big, sizeof big, NULL, f->stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "4096"));
  assert_int_equal(bp_launch(empty, 1, NULL, 8, NULL, f->stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_launch(NULL, 1, NULL, 0, NULL, f->stream),
                   BP_ERR_INVALID_ARGUMENT);
  bp_stream_t *other = NULL;
  assert_int_equal(bp_stream_create(f->dev1, &other), BP_OK);
  assert_int_equal(bp_launch(empty, 1, NULL, 0, NULL, other),
                   BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "vcpu:1"));
  bp_notify_t *notify = NULL;
  assert_int_equal(bp_notify_create(f->dev0, &notify), BP_OK);
  assert_int_equal(bp_notify_wait(notify, other, 10), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_notify_record(notify, other), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_notify_destroy(notify), BP_OK);
  assert_int_equal(bp_stream_destroy(other), BP_OK);
}

static void unknown_communicator_name_is_a_kernel_error(void **state) {
  kernel_fixture_t *f = *state;
  acquire_param p = {"nobody-named-this"};
  assert_int_equal(bp_launch(kernel_fixture_function(f, "acquire_kernel"), 1,
                             &p, sizeof p, NULL, f->stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->stream), BP_ERR_PLUGIN);
  assert_non_null(strstr(bp_last_error(), "returned 2")); /* NOT_FOUND */
  assert_int_equal(bp_stream_reset(f->stream), BP_OK);
}

static void plugin_without_the_extension_says_so(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_STUB_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  bp_module_t *module = NULL;
  assert_int_equal(bp_module_load(device, BP_TEST_KERNELS, &module),
                   BP_ERR_UNSUPPORTED);
  assert_non_null(strstr(bp_last_error(), "no kernels extension"));
  assert_null(module);
  bp_notify_t *notify = NULL;
  assert_int_equal(bp_notify_create(device, &notify), BP_ERR_UNSUPPORTED);
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_stream_reset(stream), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(launches_run_in_stream_order,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(every_block_sees_its_index,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(arguments_are_copied_at_launch,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(
          failing_kernel_leaves_a_sticky_stream_error, kernel_fixture_open,
          kernel_fixture_close),
      cmocka_unit_test_setup_teardown(kernel_past_its_timeout_fails_promptly,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(
          notify_round_trip_between_stream_and_kernel, kernel_fixture_open,
          kernel_fixture_close),
      cmocka_unit_test_setup_teardown(notify_wait_past_its_timeout_fails,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(
          bad_launches_are_refused, kernel_fixture_open, kernel_fixture_close),
      cmocka_unit_test_setup_teardown(
          unknown_communicator_name_is_a_kernel_error, kernel_fixture_open,
          kernel_fixture_close),
      cmocka_unit_test(plugin_without_the_extension_says_so),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
