/* The validation layer and the framework face's refusals.
 * - A refused call leaves every object as it was: a host callback that
 *   destroys its own stream is refused, and the stream still drains, runs
 *   the work enqueued after the callback and can be destroyed afterwards.
 * - Every misuse the runtime refuses on the framework face also appears as
 *   exactly one validation line naming the call. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support/file_lines.h"
#include "support/runtime_fixture.h"

typedef struct log_runtime {
  char log[32];
  bp_runtime_t *runtime;
  bp_device_t *dev0, *dev1;
} log_runtime_t;

static void open_logged(log_runtime_t *r) {
  strcpy(r->log, "/tmp/bp-refusals-XXXXXX");
  int fd = mkstemp(r->log);
  assert_true(fd >= 0);
  close(fd);
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = r->log;
  r->runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  assert_int_equal(bp_device_at(r->runtime, 0, &r->dev0), BP_OK);
  assert_int_equal(bp_device_at(r->runtime, 1, &r->dev1), BP_OK);
}

static void close_logged(log_runtime_t *r) {
  bp_runtime_destroy(r->runtime);
  unlink(r->log);
}

/* Lines of the log holding `fragment`. */
static size_t log_lines(const log_runtime_t *r, const char *fragment) {
  return file_lines_with(r->log, fragment);
}

static size_t all_lines(const log_runtime_t *r) {
  return log_lines(r, "backplane validation:");
}

typedef struct destroy_inside {
  bp_stream_t *stream;
  bp_status_t status;
} destroy_inside_t;

static void destroy_own_stream(void *user_data) {
  destroy_inside_t *in = user_data;
  in->status = bp_stream_destroy(in->stream);
}

static void test_refused_destroy_leaves_the_stream(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_stream_create(r.dev0, &stream), BP_OK);
  void *block = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &block), BP_OK);
  unsigned char in[4096], out[4096];
  memset(in, 0x5a, sizeof in);
  memset(out, 0, sizeof out);
  destroy_inside_t inside = {stream, BP_OK};
  assert_int_equal(bp_stream_add_callback(stream, destroy_own_stream, &inside),
                   BP_OK);
  /* Work after the callback must still run. */
  assert_int_equal(bp_copy(r.dev0, block, NULL, in, sizeof in, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, out, r.dev0, block, sizeof out, stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_not_equal(inside.status, BP_OK);
  assert_memory_equal(in, out, sizeof in);
  assert_int_equal(bp_stream_query(stream), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  assert_int_equal(bp_device_free(r.dev0, block), BP_OK);
  /* The one line: the destroy, refused by the core inside the callback. */
  assert_int_equal(all_lines(&r), 1);
  assert_int_equal(
      log_lines(&r, "bp_stream_destroy on vcpu:0: called from a host callback "
                    "of stream vcpu:0/s"),
      1);
  close_logged(&r);
}

/* Runs one misuse and checks its one line. */
#define assert_one_line(r, call_on_device, before)                             \
  do {                                                                         \
    assert_int_equal(log_lines(r, "backplane validation: " call_on_device),    \
                     1);                                                       \
    assert_int_equal(all_lines(r), (before) + 1);                              \
  } while (0)

static void test_double_free_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_device_free on vcpu:0", 0);
  close_logged(&r);
}

static void test_never_allocated_free_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  int on_host = 0;
  assert_int_equal(bp_device_free(r.dev0, &on_host), BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_device_free on vcpu:0", 0);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  close_logged(&r);
}

static void test_free_on_wrong_device_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL, *other = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  assert_int_equal(bp_device_malloc(r.dev1, 4096, &other), BP_OK);
  assert_int_equal(bp_device_free(r.dev1, ptr), BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_device_free on vcpu:1", 0);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  assert_int_equal(bp_device_free(r.dev1, other), BP_OK);
  close_logged(&r);
}

static void test_event_on_other_device_stream_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  bp_event_t *event = NULL;
  bp_stream_t *stream = NULL;
  assert_int_equal(bp_event_create(r.dev0, &event), BP_OK);
  assert_int_equal(bp_stream_create(r.dev1, &stream), BP_OK);
  assert_int_equal(bp_event_record(event, stream), BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_event_record on vcpu:0", 0);
  assert_int_equal(bp_event_destroy(event), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  close_logged(&r);
}

static void test_freed_cached_block_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  assert_int_equal(bp_memset(r.dev0, ptr, 0, 16, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_memset on vcpu:0", 0);
  close_logged(&r);
}

static void test_range_past_end_is_one_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  unsigned char host[8192] = {0};
  assert_int_equal(bp_copy(r.dev0, ptr, NULL, host, sizeof host, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_one_line(&r, "bp_copy on vcpu:0", 0);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  close_logged(&r);
}

/* A correct program leaves the log empty. */
static void test_correct_calls_leave_no_line(void **state) {
  (void)state;
  log_runtime_t r;
  open_logged(&r);
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(r.dev0, 4096, &ptr), BP_OK);
  assert_int_equal(bp_memset(r.dev0, ptr, 1, 4096, NULL), BP_OK);
  assert_int_equal(bp_memset(r.dev0, (char *)ptr + 100, 1, 3996, NULL), BP_OK);
  assert_int_equal(bp_device_free(r.dev0, ptr), BP_OK);
  assert_int_equal(all_lines(&r), 0);
  close_logged(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refused_destroy_leaves_the_stream),
      cmocka_unit_test(test_double_free_is_one_line),
      cmocka_unit_test(test_never_allocated_free_is_one_line),
      cmocka_unit_test(test_free_on_wrong_device_is_one_line),
      cmocka_unit_test(test_event_on_other_device_stream_is_one_line),
      cmocka_unit_test(test_freed_cached_block_is_one_line),
      cmocka_unit_test(test_range_past_end_is_one_line),
      cmocka_unit_test(test_correct_calls_leave_no_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
