/* Waits from inside a host callback (issue 12 item 2), through the public
 * API against the asynchronous vcpu plugin: a call that would wait for the
 * running callback itself (its stream, an event recorded on that stream
 * after the callback, the whole device) is refused at once with
 * BP_ERR_INVALID_ARGUMENT and a message naming the call and the stream;
 * waits on work that does not depend on the callback still succeed, and the
 * stream keeps working afterwards. A hang ends the program with a message
 * instead of blocking CTest (the callback runs on a vcpu stream worker,
 * which cannot be stopped). Label concurrency: TSan. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "support/file_lines.h"
#include "support/runtime_fixture.h"

/* Longest a test waits for a host callback before declaring a hang. */
#define HANG_SECONDS 20
#define N 4096

struct test_context;
typedef void (*inside_fn)(struct test_context *t);

/* What a test shares with its callback. The callback waits for `open`
 * (so the test can enqueue work behind it first), runs `action`, then sets
 * `done`. */
typedef struct test_context {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int open, done;
  inside_fn action;
  bp_device_t *dev0, *dev1;
  bp_stream_t *s;         /* the callback's stream, on dev0 */
  bp_stream_t *other;     /* another stream (of dev0 or another device) */
  bp_event_t *after;      /* recorded on s after the callback */
  bp_event_t *before;     /* recorded on s before the callback */
  bp_event_t *elsewhere;  /* recorded on `other` */
  bp_stream_t *queueless; /* the stub plugin's (no streams) */
  unsigned char *host;    /* N bytes */
  void *device_ptr;       /* N bytes on dev0 */
  /* Results of the calls made inside, in the order the action makes them. */
  bp_status_t status[8];
  char message[8][512];
  int calls;
} test_context_t;

/* Records the result of one call made inside the callback. */
static void note(test_context_t *t, bp_status_t status) {
  assert_true(t->calls < 8);
  t->status[t->calls] = status;
  snprintf(t->message[t->calls], sizeof t->message[0], "%s",
           status == BP_OK ? "" : bp_last_error());
  t->calls++;
}

static void run_inside(void *user_data) {
  test_context_t *t = user_data;
  pthread_mutex_lock(&t->lock);
  while (!t->open)
    pthread_cond_wait(&t->changed, &t->lock);
  pthread_mutex_unlock(&t->lock);
  t->action(t);
  pthread_mutex_lock(&t->lock);
  t->done = 1;
  pthread_cond_broadcast(&t->changed);
  pthread_mutex_unlock(&t->lock);
}

static void context_init(test_context_t *t, bp_device_t *dev0,
                         bp_device_t *dev1, inside_fn action) {
  *t = (test_context_t){.action = action, .dev0 = dev0, .dev1 = dev1};
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->changed, NULL);
  assert_int_equal(bp_stream_create(dev0, &t->s), BP_OK);
  t->host = malloc(N);
  assert_non_null(t->host);
  assert_int_equal(bp_device_malloc(dev0, N, &t->device_ptr), BP_OK);
}

static void context_destroy(test_context_t *t) {
  assert_int_equal(bp_device_free(t->dev0, t->device_ptr), BP_OK);
  assert_int_equal(bp_stream_destroy(t->s), BP_OK);
  free(t->host);
  pthread_mutex_destroy(&t->lock);
  pthread_cond_destroy(&t->changed);
}

static void add_gated_callback(test_context_t *t) {
  assert_int_equal(bp_stream_add_callback(t->s, run_inside, t), BP_OK);
}

/* Opens the gate and waits for the callback to finish; a hang ends the
 * test program (teardown would hang too). */
static void open_and_wait(test_context_t *t, const char *what) {
  pthread_mutex_lock(&t->lock);
  t->open = 1;
  pthread_cond_broadcast(&t->changed);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += HANG_SECONDS;
  int rc = 0;
  while (!t->done && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&t->changed, &t->lock, &deadline);
  int done = t->done;
  pthread_mutex_unlock(&t->lock);
  if (!done) {
    fprintf(stderr,
            "FAIL: %s from a host callback did not return within %d s "
            "(deadlock)\n",
            what, HANG_SECONDS);
    fflush(stderr);
    _exit(1);
  }
}

/* Asserts that call `i` inside was refused as a deadlock naming `call`. */
static void assert_refused(const test_context_t *t, int i, const char *call) {
  assert_true(i < t->calls);
  if (t->status[i] != BP_ERR_INVALID_ARGUMENT)
    fail_msg("%s inside the callback returned %s (\"%s\"), not a refusal", call,
             bp_status_name(t->status[i]), t->message[i]);
  assert_contains(t->message[i], call);
  assert_contains(t->message[i], "host callback of stream vcpu:0/s");
  assert_contains(t->message[i], "deadlock");
}

static void assert_ok_inside(const test_context_t *t, int i, const char *call) {
  assert_true(i < t->calls);
  if (t->status[i] != BP_OK)
    fail_msg("%s inside the callback returned %s (\"%s\")", call,
             bp_status_name(t->status[i]), t->message[i]);
}

/* The stream still orders work: a round trip through the device on s. */
static void assert_stream_works(test_context_t *t, bp_stream_t *stream) {
  unsigned char *back = calloc(1, N);
  assert_non_null(back);
  for (size_t i = 0; i < N; i++)
    t->host[i] = (unsigned char)(i * 13u + 5u);
  assert_int_equal(bp_copy(t->dev0, t->device_ptr, NULL, t->host, N, stream),
                   BP_OK);
  assert_int_equal(bp_copy(NULL, back, t->dev0, t->device_ptr, N, stream),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_memory_equal(back, t->host, N);
  free(back);
}

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

/* ---- the callback's own stream ---- */

static void sync_and_destroy_own(test_context_t *t) {
  note(t, bp_stream_synchronize(t->s));
  note(t, bp_stream_destroy(t->s));
  note(t, bp_memset(t->dev0, t->device_ptr, 0, N, t->s)); /* drains first */
  note(t, bp_stream_query(t->s)); /* no wait: pending work, not done */
}

static void own_stream_waits_are_refused(void **state) {
  fixture_t *f = *state;
  test_context_t t;
  context_init(&t, f->dev0, f->dev1, sync_and_destroy_own);
  add_gated_callback(&t);
  open_and_wait(&t, "bp_stream_synchronize/bp_stream_destroy of its stream");
  assert_refused(&t, 0, "bp_stream_synchronize");
  assert_refused(&t, 1, "bp_stream_destroy");
  assert_refused(&t, 2, "bp_memset");
  assert_true(t.status[3] == BP_OK || t.status[3] == BP_ERR_NOT_READY);
  /* The refused destroy left the stream as it was. */
  assert_int_equal(bp_stream_synchronize(t.s), BP_OK);
  assert_stream_works(&t, t.s);
  context_destroy(&t);
}

/* ---- events ---- */

static void wait_for_events(test_context_t *t) {
  note(t, bp_event_synchronize(t->after));
  note(t, bp_event_destroy(t->after));
  note(t, bp_event_synchronize(t->before));
  note(t, bp_event_synchronize(t->elsewhere));
  note(t, bp_event_query(t->after)); /* no wait */
}

static void event_recorded_after_the_callback_is_refused(void **state) {
  fixture_t *f = *state;
  test_context_t t;
  context_init(&t, f->dev0, f->dev1, wait_for_events);
  assert_int_equal(bp_stream_create(f->dev0, &t.other), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &t.before), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &t.after), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &t.elsewhere), BP_OK);
  assert_int_equal(bp_copy(f->dev0, t.device_ptr, NULL, t.host, N, t.s), BP_OK);
  assert_int_equal(bp_event_record(t.before, t.s), BP_OK);
  add_gated_callback(&t);
  assert_int_equal(bp_event_record(t.after, t.s), BP_OK);
  void *other_ptr; /* s writes device_ptr meanwhile */
  assert_int_equal(bp_device_malloc(f->dev0, N, &other_ptr), BP_OK);
  assert_int_equal(bp_copy(f->dev0, other_ptr, NULL, t.host, N, t.other),
                   BP_OK);
  assert_int_equal(bp_event_record(t.elsewhere, t.other), BP_OK);
  open_and_wait(&t, "bp_event_synchronize/bp_event_destroy");
  assert_refused(&t, 0, "bp_event_synchronize");
  assert_refused(&t, 1, "bp_event_destroy");
  assert_ok_inside(&t, 2, "bp_event_synchronize of an event before it");
  assert_ok_inside(&t, 3, "bp_event_synchronize of another stream's event");
  assert_true(t.status[4] == BP_OK || t.status[4] == BP_ERR_NOT_READY);
  /* The refused destroy left the event usable. */
  assert_int_equal(bp_event_synchronize(t.after), BP_OK);
  assert_int_equal(bp_event_query(t.after), BP_OK);
  assert_int_equal(bp_event_record(t.after, t.s), BP_OK);
  assert_stream_works(&t, t.s);
  assert_int_equal(bp_event_destroy(t.after), BP_OK);
  assert_int_equal(bp_event_destroy(t.before), BP_OK);
  assert_int_equal(bp_event_destroy(t.elsewhere), BP_OK);
  assert_int_equal(bp_stream_destroy(t.other), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, other_ptr), BP_OK);
  context_destroy(&t);
}

/* ---- other streams and devices ---- */

static void wait_for_other_work(test_context_t *t) {
  note(t, bp_stream_synchronize(t->other));
  note(t, bp_device_synchronize(t->dev1));
  note(t, bp_device_synchronize(t->dev0));
  note(t, bp_stream_sync_from_to(t->s, t->other)); /* device-side: no wait */
}

static void waits_on_other_work_succeed(void **state) {
  fixture_t *f = *state;
  test_context_t t;
  context_init(&t, f->dev0, f->dev1, wait_for_other_work);
  assert_int_equal(bp_stream_create(f->dev0, &t.other), BP_OK);
  bp_stream_t *peer;
  assert_int_equal(bp_stream_create(f->dev1, &peer), BP_OK);
  void *peer_ptr;
  assert_int_equal(bp_device_malloc(f->dev1, N, &peer_ptr), BP_OK);
  add_gated_callback(&t);
  assert_int_equal(bp_copy(f->dev0, t.device_ptr, NULL, t.host, N, t.other),
                   BP_OK);
  assert_int_equal(bp_copy(f->dev1, peer_ptr, NULL, t.host, N, peer), BP_OK);
  open_and_wait(&t, "waits on other streams and devices");
  assert_ok_inside(&t, 0, "bp_stream_synchronize of another stream");
  assert_ok_inside(&t, 1, "bp_device_synchronize of another device");
  assert_refused(&t, 2, "bp_device_synchronize");
  assert_ok_inside(&t, 3, "bp_stream_sync_from_to(s, other)");
  assert_stream_works(&t, t.s);
  assert_stream_works(&t, t.other);
  assert_int_equal(bp_device_free(f->dev1, peer_ptr), BP_OK);
  assert_int_equal(bp_stream_destroy(peer), BP_OK);
  assert_int_equal(bp_stream_destroy(t.other), BP_OK);
  context_destroy(&t);
}

/* ---- host-side waits across plugins (the stub has no streams) ---- */

static void ran_on_caller(void *user_data) {
  *(int *)user_data = 1;
}

static int ran;

static void host_side_waits(test_context_t *t) {
  note(t, bp_stream_sync_from_to(t->s, t->queueless));
  note(t, bp_stream_wait_event(t->queueless, t->after));
  note(t, bp_stream_wait_event(t->queueless, t->before));
  note(t, bp_stream_query(t->queueless)); /* drains the stub device */
  note(t, bp_stream_add_callback(t->queueless, ran_on_caller, &ran));
}

static void host_side_waits_across_plugins(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN ":" STUB_PLUGIN);
  bp_device_t *dev0 = NULL, *dev1 = NULL, *stub = NULL;
  assert_int_equal(bp_device_get(runtime, "vcpu", 0, &dev0), BP_OK);
  assert_int_equal(bp_device_get(runtime, "vcpu", 1, &dev1), BP_OK);
  assert_int_equal(bp_device_get(runtime, "stub", 0, &stub), BP_OK);
  test_context_t t;
  context_init(&t, dev0, dev1, host_side_waits);
  assert_int_equal(bp_stream_create(stub, &t.queueless), BP_OK);
  assert_int_equal(bp_event_create(dev0, &t.before), BP_OK);
  assert_int_equal(bp_event_create(dev0, &t.after), BP_OK);
  assert_int_equal(bp_event_record(t.before, t.s), BP_OK);
  add_gated_callback(&t);
  assert_int_equal(bp_event_record(t.after, t.s), BP_OK);
  ran = 0;
  open_and_wait(&t, "host-side waits across plugins");
  assert_refused(&t, 0, "bp_stream_sync_from_to");
  assert_refused(&t, 1, "bp_stream_wait_event");
  assert_ok_inside(&t, 2, "bp_stream_wait_event of an event before it");
  assert_ok_inside(&t, 3, "bp_stream_query of another plugin's stream");
  assert_ok_inside(&t, 4, "bp_stream_add_callback on another plugin");
  assert_int_equal(ran, 1);
  assert_int_equal(bp_stream_sync_from_to(t.s, t.queueless), BP_OK);
  assert_int_equal(bp_stream_wait_event(t.queueless, t.after), BP_OK);
  assert_stream_works(&t, t.s);
  assert_int_equal(bp_event_destroy(t.after), BP_OK);
  assert_int_equal(bp_event_destroy(t.before), BP_OK);
  assert_int_equal(bp_stream_destroy(t.queueless), BP_OK);
  context_destroy(&t);
  bp_runtime_destroy(runtime);
}

/* ---- with the validation layer: one line per refusal ---- */

static void destroy_own(test_context_t *t) {
  note(t, bp_stream_destroy(t->s));
  note(t, bp_event_synchronize(t->after));
}

static void refusal_is_one_validation_line(void **state) {
  (void)state;
  char log[] = "/tmp/bp-callback-waits-XXXXXX";
  int fd = mkstemp(log);
  assert_true(fd >= 0);
  close(fd);
  bp_layer_options_t layers = fixture_layer_options("validation", "");
  layers.validation_log = log;
  bp_runtime_t *runtime = fixture_layered_runtime(BP_VCPU_PLUGIN, &layers);
  bp_device_t *dev0 = NULL, *dev1 = NULL;
  assert_int_equal(bp_device_at(runtime, 0, &dev0), BP_OK);
  assert_int_equal(bp_device_at(runtime, 1, &dev1), BP_OK);
  test_context_t t;
  context_init(&t, dev0, dev1, destroy_own);
  assert_int_equal(bp_event_create(dev0, &t.after), BP_OK);
  add_gated_callback(&t);
  assert_int_equal(bp_event_record(t.after, t.s), BP_OK);
  open_and_wait(&t, "bp_stream_destroy under validation");
  assert_refused(&t, 0, "bp_stream_destroy");
  assert_refused(&t, 1, "bp_event_synchronize");
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 2);
  assert_stream_works(&t, t.s);
  assert_int_equal(bp_event_destroy(t.after), BP_OK);
  context_destroy(&t);
  assert_int_equal(fixture_layer_stats(runtime).validation_reports, 2);
  bp_runtime_destroy(runtime);
  assert_int_equal(file_lines_with(log, "backplane validation: "), 2);
  assert_int_equal(file_lines_with(log, "bp_stream_destroy"), 1);
  assert_int_equal(file_lines_with(log, "bp_event_synchronize"), 1);
  assert_int_equal(file_lines_with(log, "deadlock"), 2);
  unlink(log);
}

int main(void) {
  /* A deadlock the per-test deadline misses still ends the run. */
  alarm(4 * HANG_SECONDS);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(own_stream_waits_are_refused),
      T(event_recorded_after_the_callback_is_refused),
      T(waits_on_other_work_succeed),
      cmocka_unit_test(host_side_waits_across_plugins),
      cmocka_unit_test(refusal_is_one_validation_line),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
