/* The validation layer under concurrency: many threads, each allocating,
 * copying into, reading back and freeing its own blocks on two devices, and
 * creating, using and destroying its own streams, form a correct program;
 * the layer must neither refuse a call nor write a line. Under TSan (label
 * concurrency) its bookkeeping must also be race-free. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"

enum { THREADS = 8, ROUNDS = 150, BLOCK = 4096 };

typedef struct worker {
  bp_device_t *devices[2];
  const C_DeviceInterface *d; /* set: work at the plugin ABI level */
  int index;
  int failures;
  char first_error[512];
} worker_t;

static void note(worker_t *w, bp_status_t status, const char *what) {
  if (status == BP_OK)
    return;
  if (w->failures++ == 0)
    snprintf(w->first_error, sizeof w->first_error, "%s: %s", what,
             bp_last_error());
}

static void check(worker_t *w, C_Status result, const char *what) {
  if (result != C_SUCCESS && w->failures++ == 0)
    snprintf(w->first_error, sizeof w->first_error, "%s returned %d", what,
             (int)result);
}

/* The same work through the plugin's dispatch table, where every
 * allocation and free reaches the plugin (and the layer) at once, so
 * addresses are handed out again immediately. */
static void *work_on_abi(void *arg) {
  worker_t *w = arg;
  const C_DeviceInterface *d = w->d;
  unsigned char in[BLOCK], out[BLOCK];
  for (int round = 0; round < ROUNDS * 4; ++round) {
    C_Device device = bp_device_c_handle(w->devices[(w->index + round) % 2]);
    C_Stream stream = NULL;
    check(w, d->create_stream(device, &stream), "create_stream");
    void *block = NULL;
    size_t size = BLOCK - (size_t)(round % 7) * 64;
    check(w, d->device_memory_allocate(device, &block, size),
          "device_memory_allocate");
    if (!block || !stream)
      break;
    memset(in, (unsigned char)(w->index * 31 + round), size);
    check(w, d->async_memory_copy_h2d(device, stream, block, in, size),
          "async_memory_copy_h2d");
    check(w, d->async_memory_copy_d2h(device, stream, out, block, size),
          "async_memory_copy_d2h");
    check(w, d->synchronize_stream(device, stream), "synchronize_stream");
    if (memcmp(in, out, size) != 0)
      check(w, C_ERROR, "data read back");
    check(w, d->device_memory_deallocate(device, block, size),
          "device_memory_deallocate");
    check(w, d->destroy_stream(device, stream), "destroy_stream");
  }
  return NULL;
}

static void *work(void *arg) {
  worker_t *w = arg;
  unsigned char in[BLOCK], out[BLOCK];
  for (int round = 0; round < ROUNDS; ++round) {
    bp_device_t *device = w->devices[(w->index + round) % 2];
    bp_stream_t *stream = NULL;
    note(w, bp_stream_create(device, &stream), "bp_stream_create");
    void *block = NULL;
    size_t size = BLOCK - (size_t)(round % 7) * 64;
    note(w, bp_device_malloc(device, size, &block), "bp_device_malloc");
    if (!block || !stream)
      break;
    memset(in, (unsigned char)(w->index * 31 + round), size);
    note(w, bp_copy(device, block, NULL, in, size, stream), "bp_copy h2d");
    note(w, bp_memset(device, block, in[0], size / 2, stream), "bp_memset");
    note(w, bp_copy(NULL, out, device, block, size, stream), "bp_copy d2h");
    note(w, bp_stream_synchronize(stream), "bp_stream_synchronize");
    if (memcmp(in, out, size) != 0)
      note(w, BP_ERR_INTERNAL, "data read back differs");
    note(w, bp_device_free(device, block), "bp_device_free");
    note(w, bp_stream_destroy(stream), "bp_stream_destroy");
  }
  return NULL;
}

static void threads_leave_no_report(bool abi_level) {
  char log[32];
  strcpy(log, "/tmp/bp-vthreads-XXXXXX");
  int fd = mkstemp(log);
  assert_true(fd >= 0);
  close(fd);
  bp_layer_options_t options = fixture_layer_options("validation", "");
  options.validation_log = log;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &options);
  worker_t workers[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker_t){.index = t};
    if (abi_level)
      workers[t].d = bp_runtime_plugin_dispatch(runtime, 0);
    assert_int_equal(bp_device_at(runtime, 0, &workers[t].devices[0]), BP_OK);
    assert_int_equal(bp_device_at(runtime, 1, &workers[t].devices[1]), BP_OK);
    assert_int_equal(pthread_create(&threads[t], NULL,
                                    abi_level ? work_on_abi : work,
                                    &workers[t]),
                     0);
  }
  for (int t = 0; t < THREADS; ++t)
    assert_int_equal(pthread_join(threads[t], NULL), 0);
  for (int t = 0; t < THREADS; ++t)
    if (workers[t].failures)
      fail_msg("thread %d: %d failed calls, first %s", t, workers[t].failures,
               workers[t].first_error);
  bp_layer_stats_t stats = fixture_layer_stats(runtime);
  bp_runtime_destroy(runtime);
  FILE *file = fopen(log, "r");
  assert_non_null(file);
  char line[1024];
  while (fgets(line, sizeof line, file))
    fail_msg("unexpected report: %s", line);
  fclose(file);
  unlink(log);
  assert_int_equal(stats.validation_reports, 0);
}

static void test_framework_face(void **state) {
  (void)state;
  threads_leave_no_report(false);
}

static void test_plugin_abi(void **state) {
  (void)state;
  threads_leave_no_report(true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_framework_face),
      cmocka_unit_test(test_plugin_abi),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
