/* The allocator history under threads: allocating threads record while
 * another turns recording on and off and reads snapshots; every snapshot
 * parses, holds at most its ring's events, and each of its events is one
 * the threads made (a size they used). Run under ThreadSanitizer (label
 * concurrency). */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

#include "support/runtime_fixture.h"

enum { THREADS = 2, RING = 32 };

typedef struct worker {
  bp_device_t *device;
  size_t size;
  atomic_bool *stop;
  int failures;
} worker_t;

static void *allocate_and_free(void *arg) {
  worker_t *w = arg;
  bp_memory_history_set_label(w->size == 100 ? "worker a" : "worker b");
  while (!atomic_load(w->stop)) {
    void *p = NULL;
    if (bp_device_malloc(w->device, w->size, &p) != BP_OK ||
        bp_device_free(w->device, p) != BP_OK)
      w->failures++;
  }
  return NULL;
}

static void events_are_the_workers(const char *text) {
  json_t *root = json_loads(text, 0, NULL);
  assert_non_null(root);
  json_t *events = json_object_get(root, "events");
  assert_true(json_array_size(events) <=
              (size_t)json_integer_value(json_object_get(root, "max_events")));
  size_t i;
  json_t *e;
  json_array_foreach(events, i, e) {
    const char *action = json_string_value(json_object_get(e, "action"));
    if (strcmp(action, "alloc") && strcmp(action, "free"))
      continue;
    json_int_t size = json_integer_value(json_object_get(e, "size"));
    const char *caller = json_string_value(json_object_get(e, "caller"));
    assert_true(size == 100 || size == 200);
    assert_string_equal(caller, size == 100 ? "worker a" : "worker b");
  }
  json_decref(root);
}

static void recording_toggles_while_threads_allocate(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN);
  bp_device_t *device = NULL;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &device), BP_OK);
  atomic_bool stop = false;
  worker_t workers[THREADS] = {{device, 100, &stop, 0},
                               {device, 200, &stop, 0}};
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    assert_int_equal(
        pthread_create(&threads[t], NULL, allocate_and_free, &workers[t]), 0);
  for (int i = 0; i < 50; i++) {
    assert_int_equal(bp_memory_history_record(runtime, i % 3 ? RING : 0),
                     BP_OK);
    char *text = NULL;
    assert_int_equal(bp_memory_history_snapshot(runtime, &text), BP_OK);
    events_are_the_workers(text);
    free(text);
  }
  atomic_store(&stop, true);
  for (int t = 0; t < THREADS; t++) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(workers[t].failures, 0);
  }
  bp_runtime_destroy(runtime);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(recording_toggles_while_threads_allocate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
