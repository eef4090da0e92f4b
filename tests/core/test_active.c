/* Active device and active stream per thread (include/backplane/device.h,
 * stream.h): set and read back through the plugin's set_device/get_device,
 * the default stream, BP_STREAM_ACTIVE in the calls that accept it, what
 * another thread and a host callback's thread see. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "backplane/vendor_access.h"
#include "support/runtime_fixture.h"
#include "support/stream_gate.h"

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

/* What the plugin itself says this thread's device is. */
static int plugin_current_id(bp_runtime_t *runtime) {
  const C_DeviceInterface *d = bp_runtime_plugin_dispatch(runtime, 0);
  assert_non_null(d);
  struct C_Device_st current = {.id = -1};
  assert_int_equal(d->get_device(&current), C_SUCCESS);
  return current.id;
}

static void active_device_goes_through_the_plugin(void **state) {
  fixture_t *f = *state;
  bp_device_t *active = NULL;
  /* Nothing set: the plugin's first device. */
  assert_int_equal(bp_device_get_active(f->runtime, "vcpu", &active), BP_OK);
  assert_ptr_equal(active, f->dev0);
  assert_int_equal(bp_device_set_active(f->dev1), BP_OK);
  assert_int_equal(plugin_current_id(f->runtime),
                   bp_device_c_handle(f->dev1)->id);
  /* A call on the other device moves the plugin's binding; the active
   * device stays, and asking binds the thread back. */
  void *p;
  assert_int_equal(bp_device_malloc(f->dev0, 64, &p), BP_OK);
  assert_int_equal(bp_device_get_active(f->runtime, NULL, &active), BP_OK);
  assert_ptr_equal(active, f->dev1);
  assert_int_equal(plugin_current_id(f->runtime), 1);
  assert_int_equal(bp_device_free(f->dev0, p), BP_OK);
  assert_int_equal(bp_device_set_active(f->dev0), BP_OK);
  assert_int_equal(bp_device_get_active(f->runtime, "vcpu", &active), BP_OK);
  assert_ptr_equal(active, f->dev0);
  assert_int_equal(plugin_current_id(f->runtime), 0);
}

static void active_device_bad_input(void **state) {
  fixture_t *f = *state;
  bp_device_t *active = NULL;
  assert_int_equal(bp_device_set_active(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_get_active(NULL, NULL, &active),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_get_active(f->runtime, NULL, NULL),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_device_get_active(f->runtime, "acme", &active),
                   BP_ERR_NOT_FOUND);
  assert_error_mentions("\"acme\"");
  assert_null(active);
}

static void default_stream_is_the_devices(void **state) {
  fixture_t *f = *state;
  bp_stream_t *a, *b, *other;
  assert_int_equal(bp_stream_get_default(f->dev0, &a), BP_OK);
  assert_int_equal(bp_stream_get_default(f->dev0, &b), BP_OK);
  assert_ptr_equal(a, b);
  assert_ptr_equal(bp_stream_device(a), f->dev0);
  assert_int_equal(bp_stream_get_default(f->dev1, &other), BP_OK);
  assert_ptr_not_equal(a, other);
  assert_int_equal(bp_stream_destroy(a), BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("default stream of vcpu:0");
  /* Still usable after the refused destroy. */
  assert_int_equal(bp_stream_synchronize(a), BP_OK);
  assert_int_equal(bp_stream_get_default(NULL, &a), BP_ERR_INVALID_ARGUMENT);
}

static void active_stream_per_device(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s0, *s1, *active, *def0;
  assert_int_equal(bp_stream_create(f->dev0, &s0), BP_OK);
  assert_int_equal(bp_stream_create(f->dev1, &s1), BP_OK);
  assert_int_equal(bp_stream_get_default(f->dev0, &def0), BP_OK);
  assert_int_equal(bp_stream_get_active(f->dev0, &active), BP_OK);
  assert_ptr_equal(active, def0);
  assert_int_equal(bp_stream_set_active(f->dev0, s0), BP_OK);
  assert_int_equal(bp_stream_set_active(f->dev1, s1), BP_OK);
  assert_int_equal(bp_stream_get_active(f->dev0, &active), BP_OK);
  assert_ptr_equal(active, s0);
  assert_int_equal(bp_stream_get_active(f->dev1, &active), BP_OK);
  assert_ptr_equal(active, s1);
  /* A stream of another device is refused; NULL means the default. */
  assert_int_equal(bp_stream_set_active(f->dev0, s1), BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("belongs to vcpu:1");
  assert_int_equal(bp_stream_set_active(f->dev0, NULL), BP_OK);
  assert_int_equal(bp_stream_get_active(f->dev0, &active), BP_OK);
  assert_ptr_equal(active, def0);
  assert_int_equal(bp_stream_destroy(s0), BP_OK);
  assert_int_equal(bp_stream_set_active(f->dev1, NULL), BP_OK);
  assert_int_equal(bp_stream_destroy(s1), BP_OK);
}

static void destroyed_active_stream_reverts_to_default(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s, *active, *def;
  assert_int_equal(bp_stream_get_default(f->dev1, &def), BP_OK);
  assert_int_equal(bp_stream_create(f->dev1, &s), BP_OK);
  assert_int_equal(bp_stream_set_active(f->dev1, s), BP_OK);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
  /* A new stream may reuse the address: it is not active. */
  bp_stream_t *again;
  assert_int_equal(bp_stream_create(f->dev1, &again), BP_OK);
  assert_int_equal(bp_stream_get_active(f->dev1, &active), BP_OK);
  assert_ptr_equal(active, def);
  assert_int_equal(bp_stream_destroy(again), BP_OK);
}

/* BP_STREAM_ACTIVE in bp_copy, bp_memset and bp_event_record lands on the
 * active stream: held by a gate, nothing has happened before it opens. */
static void calls_use_the_active_stream(void **state) {
  fixture_t *f = *state;
  enum { N = 4096 };
  bp_stream_t *s;
  bp_event_t *done;
  void *d, *e;
  assert_int_equal(bp_stream_create(f->dev1, &s), BP_OK);
  assert_int_equal(bp_event_create(f->dev1, &done), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &d), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &e), BP_OK);
  unsigned char *pinned;
  assert_int_equal(bp_host_malloc(f->dev1, 2 * N, (void **)&pinned), BP_OK);
  memset(pinned, 0x5a, N);
  memset(pinned + N, 0, N);
  assert_int_equal(bp_stream_set_active(f->dev1, s), BP_OK);
  stream_gate_t gate;
  stream_gate_init(&gate);
  assert_int_equal(stream_gate_hold(&gate, s), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d, NULL, pinned, N, BP_STREAM_ACTIVE),
                   BP_OK);
  assert_int_equal(bp_copy(f->dev1, e, f->dev1, d, N, BP_STREAM_ACTIVE), BP_OK);
  assert_int_equal(bp_copy(NULL, pinned + N, f->dev1, e, N, BP_STREAM_ACTIVE),
                   BP_OK);
  assert_int_equal(bp_event_record(done, BP_STREAM_ACTIVE), BP_OK);
  assert_int_equal(bp_event_query(done), BP_ERR_NOT_READY);
  assert_int_equal(pinned[N], 0);
  stream_gate_open(&gate);
  assert_int_equal(bp_event_synchronize(done), BP_OK);
  assert_int_equal(pinned[N], 0x5a);
  assert_int_equal(pinned[2 * N - 1], 0x5a);
  /* bp_memset drains the active stream first (the ABI has no
   * stream-ordered memset). */
  assert_int_equal(bp_memset(f->dev1, d, 7, N, BP_STREAM_ACTIVE), BP_OK);
  assert_int_equal(bp_copy(NULL, pinned, f->dev1, d, N, NULL), BP_OK);
  assert_int_equal(pinned[N - 1], 7);
  /* Calls that name only a stream refuse it. */
  assert_int_equal(bp_stream_synchronize(BP_STREAM_ACTIVE),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("bp_stream_get_active");
  assert_int_equal(bp_stream_query(BP_STREAM_ACTIVE), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(
      bp_stream_add_callback(BP_STREAM_ACTIVE, stream_gate_wait, &gate),
      BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_destroy(BP_STREAM_ACTIVE),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_sync_from_to(s, BP_STREAM_ACTIVE),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_stream_wait_event(BP_STREAM_ACTIVE, done),
                   BP_ERR_INVALID_ARGUMENT);
  assert_null(bp_stream_device(BP_STREAM_ACTIVE));
  /* Host to host names no device. */
  unsigned char a = 1, b = 0;
  assert_int_equal(bp_copy(NULL, &b, NULL, &a, 1, BP_STREAM_ACTIVE),
                   BP_ERR_INVALID_ARGUMENT);
  stream_gate_destroy(&gate);
  assert_int_equal(bp_stream_set_active(f->dev1, NULL), BP_OK);
  assert_int_equal(bp_host_free(f->dev1, pinned), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, e), BP_OK);
  assert_int_equal(bp_event_destroy(done), BP_OK);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
}

typedef struct seen {
  fixture_t *f;
  bp_stream_t *stream;
  bp_device_t *device;
  bp_status_t status;
  pthread_t thread;
} seen_t;

/* What a thread that set nothing sees. */
static void look(seen_t *seen) {
  seen->thread = pthread_self();
  seen->status = bp_stream_get_active(seen->f->dev1, &seen->stream);
  if (seen->status == BP_OK)
    seen->status =
        bp_device_get_active(seen->f->runtime, "vcpu", &seen->device);
}

static void *look_thread(void *arg) {
  look(arg);
  return NULL;
}

static void look_callback(void *arg) {
  look(arg);
}

/* Settings are the calling thread's own: another thread and a host
 * callback's runtime thread see the defaults, whatever the caller set. */
static void other_threads_see_their_own(void **state) {
  fixture_t *f = *state;
  bp_stream_t *s, *def;
  assert_int_equal(bp_stream_create(f->dev1, &s), BP_OK);
  assert_int_equal(bp_stream_get_default(f->dev1, &def), BP_OK);
  assert_int_equal(bp_stream_set_active(f->dev1, s), BP_OK);
  assert_int_equal(bp_device_set_active(f->dev1), BP_OK);
  seen_t other = {.f = f}, callback = {.f = f};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, look_thread, &other), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_int_equal(other.status, BP_OK);
  assert_ptr_equal(other.stream, def);
  assert_ptr_equal(other.device, f->dev0);
  assert_int_equal(bp_stream_add_callback(s, look_callback, &callback), BP_OK);
  assert_int_equal(bp_stream_synchronize(s), BP_OK);
  assert_int_equal(callback.status, BP_OK);
  assert_false(pthread_equal(callback.thread, pthread_self()));
  assert_ptr_equal(callback.stream, def);
  assert_ptr_equal(callback.device, f->dev0);
  /* The caller's own settings are untouched. */
  bp_stream_t *mine;
  bp_device_t *device;
  assert_int_equal(bp_stream_get_active(f->dev1, &mine), BP_OK);
  assert_ptr_equal(mine, s);
  assert_int_equal(bp_device_get_active(f->runtime, "vcpu", &device), BP_OK);
  assert_ptr_equal(device, f->dev1);
  assert_int_equal(bp_stream_set_active(f->dev1, NULL), BP_OK);
  assert_int_equal(bp_stream_destroy(s), BP_OK);
}

enum { THREADS = 4, ITERATIONS = 200 };

typedef struct racer_arg {
  fixture_t *f;
  int index;
  int failures;
} racer_arg_t;

static void *race_settings(void *arg) {
  racer_arg_t *r = arg;
  bp_device_t *device = r->index % 2 ? r->f->dev1 : r->f->dev0;
  bp_stream_t *mine, *seen;
  bp_device_t *active;
  void *d;
  if (bp_stream_create(device, &mine) != BP_OK ||
      bp_device_malloc(device, 256, &d) != BP_OK) {
    r->failures++;
    return NULL;
  }
  unsigned char in[256], out[256];
  for (int i = 0; i < ITERATIONS; ++i) {
    memset(in, (unsigned char)(r->index * 31 + i), sizeof in);
    if (bp_stream_set_active(device, i % 3 ? mine : NULL) != BP_OK ||
        bp_device_set_active(device) != BP_OK ||
        bp_stream_get_active(device, &seen) != BP_OK ||
        (i % 3 && seen != mine) ||
        bp_device_get_active(r->f->runtime, "vcpu", &active) != BP_OK ||
        active != device ||
        bp_copy(device, d, NULL, in, sizeof in, BP_STREAM_ACTIVE) != BP_OK ||
        bp_copy(NULL, out, device, d, sizeof out, BP_STREAM_ACTIVE) != BP_OK ||
        memcmp(in, out, sizeof in) != 0)
      r->failures++;
  }
  bp_stream_set_active(device, NULL);
  bp_device_free(device, d);
  bp_stream_destroy(mine);
  return NULL;
}

static void settings_are_per_thread_under_contention(void **state) {
  fixture_t *f = *state;
  pthread_t threads[THREADS];
  racer_arg_t args[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    args[t] = (racer_arg_t){f, t, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, race_settings, &args[t]),
                     0);
  }
  for (int t = 0; t < THREADS; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(args[t].failures, 0);
  }
}

int main(void) {
  setenv("BACKPLANE_VCPU_JITTER_US", "20", 0);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(active_device_goes_through_the_plugin),
      T(active_device_bad_input),
      T(default_stream_is_the_devices),
      T(active_stream_per_device),
      T(destroyed_active_stream_reverts_to_default),
      T(calls_use_the_active_stream),
      T(other_threads_see_their_own),
      T(settings_are_per_thread_under_contention),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
