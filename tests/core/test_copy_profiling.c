/* Every copy is in the profile (backplane/profiler.h), whatever path it
 * takes: a host<->device round trip records one "h2d" and one "d2h" copy
 * event of the right size with pinned memory (asynchronous, reported by the
 * plugin's stream), with pageable memory (copied on the caller or waited
 * for: core/staging.h, reported by the core) and without a stream. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "support/runtime_fixture.h"

enum { BYTES = 4096 };

typedef struct copies {
  size_t h2d, d2h, other; /* "copy" events of BYTES; any other copy */
} copies_t;

/* The copy events of `profile`, read back from its Chrome export. */
static copies_t exported_copies(const bp_profile_t *profile) {
  char path[] = "/tmp/bp-copy-profile-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(bp_profile_export_chrome(profile, path), BP_OK);
  json_error_t error;
  json_t *root = json_load_file(path, 0, &error);
  unlink(path);
  if (!root)
    fail_msg("profile export is not JSON: %s", error.text);
  copies_t copies = {0};
  size_t i;
  json_t *event;
  json_array_foreach(json_object_get(root, "traceEvents"), i, event) {
    const char *ph = json_string_value(json_object_get(event, "ph"));
    const char *name = json_string_value(json_object_get(event, "name"));
    json_t *args = json_object_get(event, "args");
    const char *direction =
        json_string_value(json_object_get(args, "direction"));
    if (!ph || strcmp(ph, "X") != 0 || !direction)
      continue;
    assert_non_null(name);
    assert_string_equal(name, direction);
    json_int_t bytes = json_integer_value(json_object_get(args, "bytes"));
    if (bytes == BYTES && strcmp(direction, "h2d") == 0)
      ++copies.h2d;
    else if (bytes == BYTES && strcmp(direction, "d2h") == 0)
      ++copies.d2h;
    else
      ++copies.other;
  }
  json_decref(root);
  return copies;
}

typedef enum host_memory { PINNED, PAGEABLE } host_memory_t;

/* Host -> device -> host through `stream` (NULL: synchronous copies),
 * profiled; returns what the profile recorded. */
static copies_t profiled_round_trip(host_memory_t memory, int on_stream) {
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device;
  bp_stream_t *stream = NULL;
  void *d;
  unsigned char *up, *down;
  assert_int_equal(bp_device_at(runtime, 0, &device), BP_OK);
  if (on_stream)
    assert_int_equal(bp_stream_create(device, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(device, BYTES, &d), BP_OK);
  if (memory == PINNED) {
    assert_int_equal(bp_host_malloc(device, BYTES, (void **)&up), BP_OK);
    assert_int_equal(bp_host_malloc(device, BYTES, (void **)&down), BP_OK);
  } else {
    up = malloc(BYTES);
    down = malloc(BYTES);
    assert_non_null(up);
    assert_non_null(down);
  }
  memset(up, 0x3c, BYTES);
  memset(down, 0, BYTES);

  bp_profile_t *profile;
  assert_int_equal(bp_profile_create(runtime, &profile), BP_OK);
  assert_int_equal(bp_profile_start(profile), BP_OK);
  assert_int_equal(bp_copy(device, d, NULL, up, BYTES, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, down, device, d, BYTES, stream), BP_OK);
  if (stream)
    assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_profile_stop(profile), BP_OK);
  assert_memory_equal(down, up, BYTES);
  copies_t copies = exported_copies(profile);
  bp_profile_destroy(profile);

  if (memory == PINNED) {
    assert_int_equal(bp_host_free(device, up), BP_OK);
    assert_int_equal(bp_host_free(device, down), BP_OK);
  } else {
    free(up);
    free(down);
  }
  assert_int_equal(bp_device_free(device, d), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
  return copies;
}

static void assert_one_each_way(copies_t copies) {
  assert_int_equal(copies.h2d, 1);
  assert_int_equal(copies.d2h, 1);
  assert_int_equal(copies.other, 0);
}

static void pinned_round_trip_on_a_stream_is_profiled(void **state) {
  (void)state;
  assert_one_each_way(profiled_round_trip(PINNED, 1));
}

static void pageable_round_trip_on_a_stream_is_profiled(void **state) {
  (void)state;
  assert_one_each_way(profiled_round_trip(PAGEABLE, 1));
}

static void synchronous_round_trip_is_profiled(void **state) {
  (void)state;
  assert_one_each_way(profiled_round_trip(PAGEABLE, 0));
  assert_one_each_way(profiled_round_trip(PINNED, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pinned_round_trip_on_a_stream_is_profiled),
      cmocka_unit_test(pageable_round_trip_on_a_stream_is_profiled),
      cmocka_unit_test(synchronous_round_trip_is_profiled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
