/* bp_stream_add_inline_callback on vcpu, through the public API: on an idle
 * stream the callback runs on the calling thread before the call returns;
 * behind pending work it waits its turn on the stream's worker; either way it
 * is a callback of its stream (later work runs after it, queries see it
 * pending, a wait for its own stream is refused inside it); and with a layer
 * wrapping the plugin's callbacks it always goes through the stream's queue.
 * Label concurrency: TSan. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "support/runtime_fixture.h"

/* What one callback saw. */
typedef struct run {
  atomic_int runs;
  pthread_t thread;
  int order; /* its place among the runs of a test (from 1) */
} run_t;

static atomic_int g_next_order;

static void record_run(void *user_data) {
  run_t *run = user_data;
  run->thread = pthread_self();
  run->order = atomic_fetch_add(&g_next_order, 1) + 1;
  atomic_fetch_add(&run->runs, 1);
}

/* A callback that blocks its stream until the test opens it. */
typedef struct gate {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  bool open;
  run_t run;
} gate_t;

static void wait_at_gate(void *user_data) {
  gate_t *gate = user_data;
  pthread_mutex_lock(&gate->lock);
  while (!gate->open)
    pthread_cond_wait(&gate->changed, &gate->lock);
  pthread_mutex_unlock(&gate->lock);
  record_run(&gate->run);
}

static void open_gate(gate_t *gate) {
  pthread_mutex_lock(&gate->lock);
  gate->open = true;
  pthread_cond_broadcast(&gate->changed);
  pthread_mutex_unlock(&gate->lock);
}

typedef struct fixture_stream {
  bp_runtime_t *runtime;
  bp_device_t *device;
  bp_stream_t *stream;
} fixture_stream_t;

static fixture_stream_t open_stream(const bp_layer_options_t *layers) {
  fixture_stream_t f;
  f.runtime = layers ? fixture_layered_runtime(BP_VCPU_PLUGIN, layers)
                     : fixture_runtime(BP_VCPU_PLUGIN);
  assert_int_equal(bp_device_at(f.runtime, 0, &f.device), BP_OK);
  assert_int_equal(bp_stream_create(f.device, &f.stream), BP_OK);
  atomic_store(&g_next_order, 0);
  return f;
}

static void close_stream(fixture_stream_t *f) {
  assert_int_equal(bp_stream_destroy(f->stream), BP_OK);
  bp_runtime_destroy(f->runtime);
}

static void test_runs_on_the_calling_thread_while_idle(void **state) {
  (void)state;
  fixture_stream_t f = open_stream(NULL);
  run_t run = {0};
  assert_int_equal(
      bp_stream_add_inline_callback(f.stream, record_run, &run, "inline"),
      BP_OK);
  /* Done before the call returned, with nothing left pending. */
  assert_int_equal(atomic_load(&run.runs), 1);
  assert_true(pthread_equal(run.thread, pthread_self()));
  assert_int_equal(bp_stream_query(f.stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(f.stream), BP_OK);
  assert_int_equal(atomic_load(&run.runs), 1);
  close_stream(&f);
}

static void test_waits_its_turn_behind_pending_work(void **state) {
  (void)state;
  fixture_stream_t f = open_stream(NULL);
  gate_t gate = {.lock = PTHREAD_MUTEX_INITIALIZER,
                 .changed = PTHREAD_COND_INITIALIZER};
  run_t run = {0};
  assert_int_equal(bp_stream_add_callback(f.stream, wait_at_gate, &gate),
                   BP_OK);
  assert_int_equal(
      bp_stream_add_inline_callback(f.stream, record_run, &run, "inline"),
      BP_OK);
  /* The gate holds the stream: the callback cannot have run. */
  assert_int_equal(atomic_load(&run.runs), 0);
  assert_int_equal(bp_stream_query(f.stream), BP_ERR_NOT_READY);
  open_gate(&gate);
  assert_int_equal(bp_stream_synchronize(f.stream), BP_OK);
  assert_int_equal(atomic_load(&run.runs), 1);
  assert_int_equal(gate.run.order, 1);
  assert_int_equal(run.order, 2);
  assert_false(pthread_equal(run.thread, pthread_self()));
  close_stream(&f);
}

/* What the inline callback of the next test does and sees inside. */
typedef struct inside {
  bp_stream_t *stream;
  run_t later; /* enqueued from inside */
  atomic_bool finished;
  bool later_saw_it_finished;
  bp_status_t query, synchronize;
  char synchronize_message[512];
} inside_t;

static void later_work(void *user_data) {
  inside_t *inside = user_data;
  inside->later_saw_it_finished = atomic_load(&inside->finished);
  record_run(&inside->later);
}

static void act_inside(void *user_data) {
  inside_t *inside = user_data;
  assert_int_equal(bp_stream_add_callback(inside->stream, later_work, inside),
                   BP_OK);
  inside->query = bp_stream_query(inside->stream);
  inside->synchronize = bp_stream_synchronize(inside->stream);
  snprintf(inside->synchronize_message, sizeof inside->synchronize_message,
           "%s", bp_last_error());
  atomic_store(&inside->finished, true);
}

static void test_is_a_callback_of_its_stream(void **state) {
  (void)state;
  fixture_stream_t f = open_stream(NULL);
  inside_t inside = {.stream = f.stream};
  assert_int_equal(
      bp_stream_add_inline_callback(f.stream, act_inside, &inside, "inline"),
      BP_OK);
  assert_true(atomic_load(&inside.finished));
  /* It holds its place: pending while it runs, later work after it. */
  assert_int_equal(inside.query, BP_ERR_NOT_READY);
  assert_int_equal(inside.synchronize, BP_ERR_INVALID_ARGUMENT);
  assert_contains(inside.synchronize_message, "called from a host callback");
  assert_int_equal(bp_stream_synchronize(f.stream), BP_OK);
  assert_int_equal(atomic_load(&inside.later.runs), 1);
  assert_true(inside.later_saw_it_finished);
  close_stream(&f);
}

static void test_goes_through_the_queue_under_a_layer(void **state) {
  (void)state;
  bp_layer_options_t validation = fixture_layer_options("validation", "");
  fixture_stream_t f = open_stream(&validation);
  run_t run = {0};
  assert_int_equal(
      bp_stream_add_inline_callback(f.stream, record_run, &run, "inline"),
      BP_OK);
  assert_int_equal(bp_stream_synchronize(f.stream), BP_OK);
  assert_int_equal(atomic_load(&run.runs), 1);
  assert_false(pthread_equal(run.thread, pthread_self()));
  close_stream(&f);
}

static void never_runs(void *user_data) {
  (void)user_data;
  fail_msg("a refused callback ran");
}

static void test_refuses_what_add_callback_refuses(void **state) {
  (void)state;
  fixture_stream_t f = open_stream(NULL);
  assert_int_equal(bp_stream_add_inline_callback(NULL, never_runs, NULL, "x"),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("bp_stream_add_inline_callback");
  assert_int_equal(bp_stream_add_inline_callback(f.stream, NULL, NULL, "x"),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("stream or fn is NULL");
  close_stream(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs_on_the_calling_thread_while_idle),
      cmocka_unit_test(test_waits_its_turn_behind_pending_work),
      cmocka_unit_test(test_is_a_callback_of_its_stream),
      cmocka_unit_test(test_goes_through_the_queue_under_a_layer),
      cmocka_unit_test(test_refuses_what_add_callback_refuses),
  };
  return cmocka_run_group_tests_name("inline callbacks", tests, NULL, NULL);
}
