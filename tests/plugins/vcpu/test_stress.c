/* vcpu plugin under load (label `concurrency`): 32 streams on two devices,
 * several threads issuing mixed commands (copies in every direction, events
 * recorded on one stream and waited on from another, callbacks, queries),
 * while another thread keeps creating and destroying streams and events with
 * work pending. Every byte that travels is checked. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "plugins/vcpu/vcpu_fixture.h"

enum { STREAMS = 32, THREADS = 4, ITERATIONS = 300, BYTES = 6000 };

static C_Stream g_streams[STREAMS]; /* stream s lives on device s % 2 */
static atomic_int g_verified, g_corrupt, g_api_errors, g_churned;

static int device_of(int s) {
  return s % 2;
}

typedef struct check {
  const unsigned char *buffer;
  size_t size;
  uint32_t seed;
} check;

static void verify(C_Device device, C_Stream stream, void *user_data,
                   C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  const check *c = user_data;
  if (vcpu_matches(c->buffer, c->size, c->seed))
    atomic_fetch_add(&g_verified, 1);
  else
    atomic_fetch_add(&g_corrupt, 1);
}

static void expect(C_Status status) {
  if (status != C_SUCCESS)
    atomic_fetch_add(&g_api_errors, 1);
}

typedef struct worker_state {
  int id;
  unsigned char *host_in, *host_out;
  void *source[2], *staged[2];
  C_Event events[2];
  check checks[ITERATIONS];
} worker_state;

static void *issue(void *arg) {
  worker_state *w = arg;
  const C_DeviceInterface *t = &vcpu.table;
  for (int i = 0; i < ITERATIONS; ++i) {
    int a = (w->id * 7 + i) % STREAMS;
    int b = (w->id * 13 + i * 5 + 1) % STREAMS;
    int da = device_of(a), db = device_of(b);
    size_t size = 1 + (size_t)(i * 37 + w->id) % BYTES;
    uint32_t seed = (uint32_t)(w->id * 100000 + i);
    vcpu_fill(w->host_in, size, seed);
    /* a: host -> device da, then mark it. */
    expect(t->async_memory_copy_h2d(vcpu_dev(da), g_streams[a], w->source[da],
                                    w->host_in, size));
    expect(t->record_event(vcpu_dev(da), g_streams[a], w->events[da]));
    /* b: wait for a, pull the bytes over, bring them home, check them. */
    expect(t->stream_wait_event(vcpu_dev(db), g_streams[b], w->events[da]));
    expect(t->async_memory_copy_p2p(vcpu_dev(db), vcpu_dev(da), g_streams[b],
                                    w->staged[db], w->source[da], size));
    expect(t->async_memory_copy_d2d(vcpu_dev(db), g_streams[b], w->staged[db],
                                    w->staged[db], size));
    expect(t->async_memory_copy_d2h(vcpu_dev(db), g_streams[b], w->host_out,
                                    w->staged[db], size));
    w->checks[i] = (check){w->host_out, size, seed};
    expect(t->stream_add_callback(vcpu_dev(db), g_streams[b], verify,
                                  &w->checks[i]));
    C_Status busy = t->query_stream(vcpu_dev(db), g_streams[b]);
    if (busy != C_SUCCESS && busy != C_FAILED)
      atomic_fetch_add(&g_api_errors, 1);
    /* The buffers are reused next time: wait for b to be done with them. */
    expect(t->record_event(vcpu_dev(db), g_streams[b], w->events[db]));
    if (i % 3 == 0)
      expect(t->synchronize_event(vcpu_dev(db), w->events[db]));
    else
      while (t->query_event(vcpu_dev(db), w->events[db]) == C_FAILED)
        ;
  }
  return NULL;
}

static void noop(C_Device device, C_Stream stream, void *user_data,
                 C_Status *status) {
  (void)device;
  (void)stream;
  (void)status;
  atomic_fetch_add((atomic_int *)user_data, 1);
}

/* Streams and events come and go with work pending while the others run. */
static void *churn(void *arg) {
  (void)arg;
  const C_DeviceInterface *t = &vcpu.table;
  for (int round = 0; round < 60; ++round) {
    C_Device d = vcpu_dev(round % 2);
    C_Stream stream = NULL;
    C_Event event = NULL;
    atomic_int ran = 0;
    expect(t->create_stream(d, &stream));
    expect(t->create_event(d, &event));
    for (int i = 0; i < 20; ++i)
      expect(t->stream_add_callback(d, stream, noop, &ran));
    expect(t->record_event(d, stream, event));
    expect(t->stream_wait_event(d, g_streams[round % STREAMS], event));
    expect(t->destroy_event(d, event));
    expect(t->destroy_stream(d, stream));
    if (atomic_load(&ran) == 20)
      atomic_fetch_add(&g_churned, 1);
  }
  return NULL;
}

static void test_many_streams_many_threads(void **state) {
  (void)state;
  for (int s = 0; s < STREAMS; ++s)
    assert_int_equal(
        vcpu.table.create_stream(vcpu_dev(device_of(s)), &g_streams[s]),
        C_SUCCESS);
  worker_state *workers = calloc(THREADS, sizeof *workers);
  pthread_t threads[THREADS + 1];
  for (int w = 0; w < THREADS; ++w) {
    workers[w].id = w;
    workers[w].host_in = malloc(BYTES);
    workers[w].host_out = malloc(BYTES);
    for (int d = 0; d < 2; ++d) {
      assert_int_equal(vcpu.table.device_memory_allocate(
                           vcpu_dev(d), &workers[w].source[d], BYTES),
                       C_SUCCESS);
      assert_int_equal(vcpu.table.device_memory_allocate(
                           vcpu_dev(d), &workers[w].staged[d], BYTES),
                       C_SUCCESS);
      assert_int_equal(
          vcpu.table.create_event(vcpu_dev(d), &workers[w].events[d]),
          C_SUCCESS);
    }
    assert_int_equal(pthread_create(&threads[w], NULL, issue, &workers[w]), 0);
  }
  assert_int_equal(pthread_create(&threads[THREADS], NULL, churn, NULL), 0);
  for (int w = 0; w <= THREADS; ++w)
    pthread_join(threads[w], NULL);
  assert_int_equal(vcpu.table.synchronize_device(vcpu_dev(0)), C_SUCCESS);
  assert_int_equal(vcpu.table.synchronize_device(vcpu_dev(1)), C_SUCCESS);

  assert_int_equal(atomic_load(&g_api_errors), 0);
  assert_int_equal(atomic_load(&g_corrupt), 0);
  assert_int_equal(atomic_load(&g_verified), THREADS * ITERATIONS);
  assert_int_equal(atomic_load(&g_churned), 60);

  for (int s = 0; s < STREAMS; ++s)
    assert_int_equal(
        vcpu.table.destroy_stream(vcpu_dev(device_of(s)), g_streams[s]),
        C_SUCCESS);
  for (int w = 0; w < THREADS; ++w) {
    for (int d = 0; d < 2; ++d) {
      assert_int_equal(vcpu.table.device_memory_deallocate(
                           vcpu_dev(d), workers[w].source[d], BYTES),
                       C_SUCCESS);
      assert_int_equal(vcpu.table.device_memory_deallocate(
                           vcpu_dev(d), workers[w].staged[d], BYTES),
                       C_SUCCESS);
      assert_int_equal(
          vcpu.table.destroy_event(vcpu_dev(d), workers[w].events[d]),
          C_SUCCESS);
    }
    free(workers[w].host_in);
    free(workers[w].host_out);
  }
  free(workers);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_many_streams_many_threads),
  };
  return cmocka_run_group_tests_name("vcpu stress", tests, vcpu_setup,
                                     vcpu_teardown);
}
