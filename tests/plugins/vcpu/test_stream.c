/* vcpu plugin: streams. Work runs on the stream's worker, never on the
 * caller, unless the caller asks to run a callback itself on an idle stream
 * (the stream_inline extension); callbacks run exactly once and in order;
 * query/synchronize see the truth; destroy drains; synchronize_device covers
 * every stream. Also run with BACKPLANE_VCPU_JITTER_US set
 * (vcpu.stream_jitter). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

static C_Stream create_stream(int device) {
  C_Stream stream = NULL;
  assert_int_equal(vcpu.table.create_stream(vcpu_dev(device), &stream),
                   C_SUCCESS);
  assert_non_null(stream);
  return stream;
}

typedef struct sequence_log {
  atomic_int next_slot;
  int order[4096];
  atomic_int runs[4096];
  pthread_t thread[4096];
  C_Stream stream[4096];
  int device[4096];
  C_Device handle[4096];
  int bad_status;
} sequence_log;

typedef struct sequence_entry {
  sequence_log *log;
  int index;
} sequence_entry;

static void record_callback(C_Device device, C_Stream stream, void *user_data,
                            C_Status *status) {
  sequence_entry *entry = user_data;
  sequence_log *log = entry->log;
  int slot = atomic_fetch_add(&log->next_slot, 1);
  log->order[slot] = entry->index;
  atomic_fetch_add(&log->runs[entry->index], 1);
  log->thread[entry->index] = pthread_self();
  log->stream[entry->index] = stream;
  log->device[entry->index] = device ? device->id : -1;
  log->handle[entry->index] = device;
  if (!status || *status != C_SUCCESS)
    log->bad_status = 1;
}

static void test_callbacks_run_once_in_order_off_the_caller(void **state) {
  (void)state;
  enum { COUNT = 3000 }; /* more than the ring holds: producers block */
  sequence_log *log = calloc(1, sizeof *log);
  sequence_entry *entries = calloc(COUNT, sizeof *entries);
  C_Stream stream = create_stream(1);
  for (int i = 0; i < COUNT; ++i) {
    entries[i] = (sequence_entry){log, i};
    assert_int_equal(vcpu.table.stream_add_callback(
                         vcpu_dev(1), stream, record_callback, &entries[i]),
                     C_SUCCESS);
  }
  assert_int_equal(vcpu.table.synchronize_stream(vcpu_dev(1), stream),
                   C_SUCCESS);
  assert_int_equal(atomic_load(&log->next_slot), COUNT);
  for (int i = 0; i < COUNT; ++i) {
    assert_int_equal(log->order[i], i);
    assert_int_equal(atomic_load(&log->runs[i]), 1);
    assert_false(pthread_equal(log->thread[i], pthread_self()));
    assert_ptr_equal(log->stream[i], stream);
    assert_int_equal(log->device[i], 1);
    assert_ptr_equal(log->handle[i], vcpu_dev(1)); /* the caller's handle */
  }
  assert_int_equal(log->bad_status, 0);
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(1), stream), C_SUCCESS);
  assert_int_equal(atomic_load(&log->next_slot), COUNT); /* no rerun */
  free(entries);
  free(log);
}

static void test_query_reports_busy_then_idle(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = create_stream(0);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_SUCCESS);
  vcpu_gate gate = {0};
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, stream, vcpu_gate_callback, &gate),
      C_SUCCESS);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_FAILED);
  vcpu_gate_wait_reached(&gate);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_FAILED);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(vcpu.table.query_stream(d0, stream), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
}

static void add_one(C_Device device, C_Stream stream, void *counter,
                    C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  atomic_fetch_add((atomic_int *)counter, 1);
}

static void *open_gate(void *gate) {
  vcpu_gate_wait_reached(gate);
  vcpu_gate_open(gate);
  return NULL;
}

static void test_destroy_drains_pending_work(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = create_stream(0);
  vcpu_gate gate = {0};
  atomic_int counter = 0;
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, stream, vcpu_gate_callback, &gate),
      C_SUCCESS);
  for (int i = 0; i < 500; ++i)
    assert_int_equal(
        vcpu.table.stream_add_callback(d0, stream, add_one, &counter),
        C_SUCCESS);
  assert_int_equal(atomic_load(&counter), 0);
  pthread_t opener;
  assert_int_equal(pthread_create(&opener, NULL, open_gate, &gate), 0);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
  assert_int_equal(atomic_load(&counter), 500);
  pthread_join(opener, NULL);
}

static void test_synchronize_device_waits_for_every_stream(void **state) {
  (void)state;
  enum { STREAMS = 6, EACH = 200 };
  C_Stream streams[STREAMS];
  atomic_int counters[STREAMS];
  vcpu_gate gates[STREAMS];
  for (int s = 0; s < STREAMS; ++s) {
    streams[s] = create_stream(1);
    atomic_init(&counters[s], 0);
    atomic_init(&gates[s].open, 0);
    atomic_init(&gates[s].reached, 0);
    assert_int_equal(vcpu.table.stream_add_callback(vcpu_dev(1), streams[s],
                                                    vcpu_gate_callback,
                                                    &gates[s]),
                     C_SUCCESS);
    for (int i = 0; i < EACH; ++i)
      assert_int_equal(vcpu.table.stream_add_callback(vcpu_dev(1), streams[s],
                                                      add_one, &counters[s]),
                       C_SUCCESS);
  }
  pthread_t openers[STREAMS];
  for (int s = 0; s < STREAMS; ++s)
    assert_int_equal(pthread_create(&openers[s], NULL, open_gate, &gates[s]),
                     0);
  assert_int_equal(vcpu.table.synchronize_device(vcpu_dev(1)), C_SUCCESS);
  for (int s = 0; s < STREAMS; ++s) {
    assert_int_equal(atomic_load(&counters[s]), EACH);
    assert_int_equal(vcpu.table.query_stream(vcpu_dev(1), streams[s]),
                     C_SUCCESS);
  }
  for (int s = 0; s < STREAMS; ++s) {
    pthread_join(openers[s], NULL);
    assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(1), streams[s]),
                     C_SUCCESS);
  }
}

/* Streams are independent: one blocked stream does not hold up another. */
static void test_streams_run_concurrently(void **state) {
  (void)state;
  C_Device d0 = vcpu_dev(0);
  C_Stream blocked = create_stream(0), free_running = create_stream(0);
  vcpu_gate gate = {0};
  atomic_int counter = 0;
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, blocked, vcpu_gate_callback, &gate),
      C_SUCCESS);
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, free_running, add_one, &counter),
      C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_stream(d0, free_running), C_SUCCESS);
  assert_int_equal(atomic_load(&counter), 1);
  assert_int_equal(vcpu.table.query_stream(d0, blocked), C_FAILED);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.destroy_stream(d0, blocked), C_SUCCESS);
  assert_int_equal(vcpu.table.destroy_stream(d0, free_running), C_SUCCESS);
}

typedef struct producer_args {
  C_Stream stream;
  int producer;
  int per_producer;
  int *seen; /* last index seen per producer, written by the worker */
  int out_of_order;
} producer_args;

typedef struct tagged {
  producer_args *args;
  int producer, index;
} tagged;

static void check_order(C_Device device, C_Stream stream, void *user_data,
                        C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  tagged *tag = user_data;
  int *last = &tag->args->seen[tag->producer];
  if (*last + 1 != tag->index)
    tag->args->out_of_order = 1;
  *last = tag->index;
}

typedef struct producer {
  producer_args *shared;
  int id;
  tagged *tags;
} producer;

static void *produce(void *arg) {
  producer *p = arg;
  for (int i = 0; i < p->shared->per_producer; ++i) {
    p->tags[i] = (tagged){p->shared, p->id, i};
    vcpu.table.stream_add_callback(vcpu_dev(0), p->shared->stream, check_order,
                                   &p->tags[i]);
  }
  return NULL;
}

/* Several producers on one stream: each producer's commands run in its order,
 * none is lost. */
static void test_many_producers_one_stream(void **state) {
  (void)state;
  enum { PRODUCERS = 4, EACH = 5000 };
  int seen[PRODUCERS];
  for (int i = 0; i < PRODUCERS; ++i)
    seen[i] = -1;
  producer_args shared = {create_stream(0), 0, EACH, seen, 0};
  producer producers[PRODUCERS];
  pthread_t threads[PRODUCERS];
  for (int i = 0; i < PRODUCERS; ++i) {
    producers[i] = (producer){&shared, i, calloc(EACH, sizeof(tagged))};
    assert_int_equal(pthread_create(&threads[i], NULL, produce, &producers[i]),
                     0);
  }
  for (int i = 0; i < PRODUCERS; ++i)
    pthread_join(threads[i], NULL);
  assert_int_equal(vcpu.table.synchronize_stream(vcpu_dev(0), shared.stream),
                   C_SUCCESS);
  assert_int_equal(shared.out_of_order, 0);
  for (int i = 0; i < PRODUCERS; ++i) {
    assert_int_equal(seen[i], EACH - 1);
    free(producers[i].tags);
  }
  assert_int_equal(vcpu.table.destroy_stream(vcpu_dev(0), shared.stream),
                   C_SUCCESS);
}

/* What the inline callback of the next test sees and leaves behind. */
typedef struct inline_run {
  C_Stream stream;
  atomic_int runs;
  pthread_t thread;
  C_Status query_inside;
  atomic_int finished;
  atomic_int later_runs, later_saw_finished;
} inline_run;

static void later_command(C_Device device, C_Stream stream, void *user_data,
                          C_Status *status) {
  (void)device, (void)stream, (void)status;
  inline_run *run = user_data;
  atomic_store(&run->later_saw_finished, atomic_load(&run->finished));
  atomic_fetch_add(&run->later_runs, 1);
}

static void inline_callback(C_Device device, C_Stream stream, void *user_data,
                            C_Status *status) {
  inline_run *run = user_data;
  assert_true(status && *status == C_SUCCESS);
  assert_ptr_equal(stream, run->stream);
  run->thread = pthread_self();
  /* Work enqueued now waits behind this callback's place. */
  assert_int_equal(
      vcpu.table.stream_add_callback(device, stream, later_command, run),
      C_SUCCESS);
  run->query_inside = vcpu.table.query_stream(device, stream);
  atomic_fetch_add(&run->runs, 1);
  atomic_store(&run->finished, 1);
}

/* run_callback_if_idle runs the callback on the caller while the stream is
 * idle, in the stream's order, and declines while work is pending; under
 * jitter it always declines (every command goes through the worker). */
static void test_run_if_idle_runs_on_the_caller_in_order(void **state) {
  (void)state;
  bool jitter = getenv("BACKPLANE_VCPU_JITTER_US") != NULL;
  C_Device d0 = vcpu_dev(0);
  C_Stream stream = create_stream(0);
  inline_run run = {.stream = stream};
  C_Status ran = vcpu.stream_inline->run_callback_if_idle(
      d0, stream, inline_callback, &run);
  assert_int_equal(ran, jitter ? C_FAILED : C_SUCCESS);
  assert_int_equal(atomic_load(&run.runs), jitter ? 0 : 1);
  if (!jitter) {
    assert_true(pthread_equal(run.thread, pthread_self()));
    assert_int_equal(run.query_inside, C_FAILED); /* itself pending */
  }
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(atomic_load(&run.later_runs), jitter ? 0 : 1);
  assert_int_equal(atomic_load(&run.later_saw_finished), jitter ? 0 : 1);

  /* Pending work: declined, nothing run. */
  vcpu_gate gate = {0};
  assert_int_equal(
      vcpu.table.stream_add_callback(d0, stream, vcpu_gate_callback, &gate),
      C_SUCCESS);
  inline_run behind = {.stream = stream};
  assert_int_equal(vcpu.stream_inline->run_callback_if_idle(
                       d0, stream, inline_callback, &behind),
                   C_FAILED);
  vcpu_gate_open(&gate);
  assert_int_equal(vcpu.table.synchronize_stream(d0, stream), C_SUCCESS);
  assert_int_equal(atomic_load(&behind.runs), 0);

  /* Another device's stream, or no callback: C_ERROR. */
  assert_int_equal(vcpu.stream_inline->run_callback_if_idle(
                       vcpu_dev(1), stream, inline_callback, &behind),
                   C_ERROR);
  assert_int_equal(
      vcpu.stream_inline->run_callback_if_idle(d0, stream, NULL, &behind),
      C_ERROR);
  assert_int_equal(atomic_load(&behind.runs), 0);
  assert_int_equal(vcpu.table.destroy_stream(d0, stream), C_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_callbacks_run_once_in_order_off_the_caller),
      cmocka_unit_test(test_query_reports_busy_then_idle),
      cmocka_unit_test(test_destroy_drains_pending_work),
      cmocka_unit_test(test_synchronize_device_waits_for_every_stream),
      cmocka_unit_test(test_streams_run_concurrently),
      cmocka_unit_test(test_many_producers_one_stream),
      cmocka_unit_test(test_run_if_idle_runs_on_the_caller_in_order),
  };
  return cmocka_run_group_tests_name("vcpu streams", tests, vcpu_setup,
                                     vcpu_teardown);
}
