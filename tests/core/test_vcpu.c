/* The core against the asynchronous vcpu plugin: work enqueued on a stream
 * really runs later, so ordering, waits, events and callbacks are observable.
 * A callback that blocks its stream until the test opens a gate holds work
 * back while the test checks that nothing has happened yet. */
#include <pthread.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"

typedef struct gate {
  pthread_mutex_t lock;
  pthread_cond_t opened;
  int open;
  int ran;
  pthread_t thread;
} gate_t;

static void gate_init(gate_t *gate) {
  pthread_mutex_init(&gate->lock, NULL);
  pthread_cond_init(&gate->opened, NULL);
  gate->open = gate->ran = 0;
}

static void gate_open(gate_t *gate) {
  pthread_mutex_lock(&gate->lock);
  gate->open = 1;
  pthread_cond_broadcast(&gate->opened);
  pthread_mutex_unlock(&gate->lock);
}

static void gate_destroy(gate_t *gate) {
  pthread_mutex_destroy(&gate->lock);
  pthread_cond_destroy(&gate->opened);
}

/* A stream callback: blocks its stream until the gate opens. */
static void wait_at_gate(void *user_data) {
  gate_t *gate = user_data;
  pthread_mutex_lock(&gate->lock);
  gate->ran++;
  gate->thread = pthread_self();
  while (!gate->open)
    pthread_cond_wait(&gate->opened, &gate->lock);
  pthread_mutex_unlock(&gate->lock);
}

static int setup(void **state) {
  return fixture_open_two_devices(state, BP_VCPU_PLUGIN);
}

static int teardown(void **state) {
  return fixture_close(state);
}

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (unsigned char)(i * 13u + seed);
}

static void plugin_info(void **state) {
  fixture_t *f = *state;
  bp_plugin_info_t info;
  assert_int_equal(bp_runtime_plugin_info(f->runtime, 0, &info), BP_OK);
  assert_string_equal(info.device_type, "vcpu");
  assert_true(fixture_lists(info.native_functions, "async_memory_copy_h2d"));
  assert_true(fixture_lists(info.native_functions, "stream_add_callback"));
  assert_true(fixture_lists(info.extensions, "event_timing"));
  assert_true(fixture_lists(info.extensions, "device_attributes"));
}

/* Copies wait behind the blocked stream; the destination is checked before
 * and after the gate opens. */
static void async_copies_are_ordered(void **state) {
  fixture_t *f = *state;
  enum { N = 1 << 16 };
  unsigned char *src = malloc(N), *dst = calloc(1, N), *zeros = calloc(1, N);
  fill(src, N, 1);
  void *d;
  bp_stream_t *stream;
  bp_event_t *done;
  gate_t gate;
  gate_init(&gate);
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &done), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d), BP_OK);
  assert_int_equal(bp_stream_add_callback(stream, wait_at_gate, &gate), BP_OK);
  /* The host buffers stay valid until the stream drains: the plugin's
   * asynchronous copies, not bp_copy's capture, are under test. */
  assert_int_equal(bp_copy_async_unsafe(f->dev0, d, NULL, src, N, stream),
                   BP_OK);
  assert_int_equal(bp_copy_async_unsafe(NULL, dst, f->dev0, d, N, stream),
                   BP_OK);
  assert_int_equal(bp_event_record(done, stream), BP_OK);
  assert_int_equal(bp_event_query(done), BP_ERR_NOT_READY);
  assert_int_equal(bp_stream_query(stream), BP_ERR_NOT_READY);
  assert_memory_equal(dst, zeros, N);
  gate_open(&gate);
  assert_int_equal(bp_event_synchronize(done), BP_OK);
  assert_int_equal(bp_event_query(done), BP_OK);
  assert_memory_equal(dst, src, N);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(bp_stream_query(stream), BP_OK);
  /* The callback ran once, on a runtime thread, not on the caller. */
  assert_int_equal(gate.ran, 1);
  assert_false(pthread_equal(gate.thread, pthread_self()));
  assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
  assert_int_equal(bp_event_destroy(done), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  gate_destroy(&gate);
  free(src);
  free(dst);
  free(zeros);
}

/* stream_wait_event across devices: the second stream's copy waits. */
static void wait_event_orders_streams(void **state) {
  fixture_t *f = *state;
  enum { N = 4096 };
  unsigned char src[N], dst[N], zeros[N] = {0};
  fill(src, N, 2);
  memset(dst, 0, N);
  void *d0, *d1;
  bp_stream_t *s0, *s1;
  bp_event_t *event;
  gate_t gate;
  gate_init(&gate);
  assert_int_equal(bp_stream_create(f->dev0, &s0), BP_OK);
  assert_int_equal(bp_stream_create(f->dev1, &s1), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &event), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &d1), BP_OK);
  assert_int_equal(bp_stream_add_callback(s0, wait_at_gate, &gate), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d0, NULL, src, N, s0), BP_OK);
  assert_int_equal(bp_event_record(event, s0), BP_OK);
  assert_int_equal(bp_stream_wait_event(s1, event), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d1, f->dev0, d0, N, s1), BP_OK);
  /* Into a buffer kept valid: bp_copy would wait for the gate. */
  assert_int_equal(bp_copy_async_unsafe(NULL, dst, f->dev1, d1, N, s1), BP_OK);
  assert_int_equal(bp_stream_query(s1), BP_ERR_NOT_READY);
  assert_memory_equal(dst, zeros, N);
  gate_open(&gate);
  assert_int_equal(bp_stream_synchronize(s1), BP_OK);
  assert_memory_equal(dst, src, N);
  assert_int_equal(bp_device_free(f->dev0, d0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
  assert_int_equal(bp_event_destroy(event), BP_OK);
  assert_int_equal(bp_stream_destroy(s0), BP_OK);
  assert_int_equal(bp_stream_destroy(s1), BP_OK);
  gate_destroy(&gate);
}

static void sync_from_to_orders_streams(void **state) {
  fixture_t *f = *state;
  enum { N = 4096, ROUNDS = 100 };
  unsigned char src[N], dst[N], zeros[N] = {0};
  fill(src, N, 3);
  memset(dst, 0, N);
  void *d;
  bp_stream_t *from, *to;
  gate_t gate;
  gate_init(&gate);
  assert_int_equal(bp_stream_create(f->dev0, &from), BP_OK);
  assert_int_equal(bp_stream_create(f->dev0, &to), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d), BP_OK);
  assert_int_equal(bp_stream_add_callback(from, wait_at_gate, &gate), BP_OK);
  assert_int_equal(bp_copy(f->dev0, d, NULL, src, N, from), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(from, to), BP_OK);
  /* Into a buffer kept valid: bp_copy would wait for the gate. */
  assert_int_equal(bp_copy_async_unsafe(NULL, dst, f->dev0, d, N, to), BP_OK);
  assert_int_equal(bp_stream_query(to), BP_ERR_NOT_READY);
  assert_memory_equal(dst, zeros, N);
  gate_open(&gate);
  assert_int_equal(bp_stream_synchronize(to), BP_OK);
  assert_memory_equal(dst, src, N);
  /* Many internal events in a row stay correct and are reclaimed. */
  for (int i = 0; i < ROUNDS; ++i) {
    assert_int_equal(bp_stream_sync_from_to(from, to), BP_OK);
    assert_int_equal(bp_stream_sync_from_to(to, from), BP_OK);
  }
  assert_int_equal(bp_device_synchronize(f->dev0), BP_OK);
  assert_int_equal(bp_device_free(f->dev0, d), BP_OK);
  assert_int_equal(bp_stream_destroy(from), BP_OK);
  assert_int_equal(bp_stream_destroy(to), BP_OK);
  gate_destroy(&gate);
}

static void event_timing(void **state) {
  fixture_t *f = *state;
  bp_stream_t *stream;
  bp_event_t *start, *end, *never, *other;
  gate_t gate;
  gate_init(&gate);
  float ms = -1.0f;
  assert_int_equal(bp_stream_create(f->dev0, &stream), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &start), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &end), BP_OK);
  assert_int_equal(bp_event_create(f->dev0, &never), BP_OK);
  assert_int_equal(bp_event_create(f->dev1, &other), BP_OK);
  assert_int_equal(bp_event_record(start, stream), BP_OK);
  assert_int_equal(bp_stream_add_callback(stream, wait_at_gate, &gate), BP_OK);
  assert_int_equal(bp_event_record(end, stream), BP_OK);
  assert_int_equal(bp_event_elapsed_time(start, end, &ms), BP_ERR_NOT_READY);
  gate_open(&gate);
  assert_int_equal(bp_event_synchronize(end), BP_OK);
  assert_int_equal(bp_event_elapsed_time(start, end, &ms), BP_OK);
  assert_true(ms >= 0.0f);
  assert_int_equal(bp_event_elapsed_time(start, never, &ms),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("never recorded");
  assert_int_equal(bp_event_elapsed_time(start, other, &ms),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_event_destroy(start), BP_OK);
  assert_int_equal(bp_event_destroy(end), BP_OK);
  assert_int_equal(bp_event_destroy(never), BP_OK);
  assert_int_equal(bp_event_destroy(other), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  gate_destroy(&gate);
}

static void memset_and_peer_copy(void **state) {
  fixture_t *f = *state;
  enum { N = 100000 };
  unsigned char *back = malloc(N);
  void *d0, *d1;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev1, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev0, N, &d0), BP_OK);
  assert_int_equal(bp_device_malloc(f->dev1, N, &d1), BP_OK);
  assert_int_equal(bp_memset(f->dev0, d0, 0x3c, N, NULL), BP_OK);
  assert_int_equal(bp_copy(f->dev1, d1, f->dev0, d0, N, stream), BP_OK);
  assert_int_equal(bp_memset(f->dev1, d1, 0x99, 10, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, f->dev1, d1, N, stream), BP_OK);
  assert_int_equal(bp_stream_synchronize(stream), BP_OK);
  assert_int_equal(back[0], 0x99);
  assert_int_equal(back[9], 0x99);
  assert_int_equal(back[10], 0x3c);
  assert_int_equal(back[N - 1], 0x3c);
  assert_int_equal(bp_device_free(f->dev0, d0), BP_OK);
  assert_int_equal(bp_device_free(f->dev1, d1), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  free(back);
}

static void host_unified_and_out_of_memory(void **state) {
  fixture_t *f = *state;
  void *host, *unified, *big = NULL;
  assert_int_equal(bp_host_malloc(f->dev0, 1 << 20, &host), BP_OK);
  assert_int_equal(bp_unified_malloc(f->dev0, 1 << 20, &unified), BP_OK);
  memset(host, 1, 1 << 20);
  memset(unified, 2, 1 << 20);
  assert_int_equal(bp_unified_free(f->dev0, unified), BP_OK);
  assert_int_equal(bp_host_free(f->dev0, host), BP_OK);
  /* main() limits each vcpu device to 64 MiB. */
  assert_int_equal(bp_device_malloc(f->dev0, (size_t)256 << 20, &big),
                   BP_ERR_OUT_OF_MEMORY);
  assert_null(big);
  size_t total = 0, free_bytes = 0;
  assert_int_equal(bp_device_memory_info(f->dev0, &total, &free_bytes), BP_OK);
  assert_int_equal(total, (size_t)64 << 20);
  bp_device_attr_value_t value;
  assert_int_equal(
      bp_device_attribute(f->dev0, BP_DEVICE_ATTR_TOTAL_GLOBAL_MEMORY, &value),
      BP_OK);
  assert_int_equal(value.kind, BP_DEVICE_ATTR_VALUE_INT);
  assert_int_equal(value.i64, (int64_t)64 << 20);
  assert_int_equal(bp_device_attribute(f->dev0, BP_DEVICE_ATTR_EXIST, &value),
                   BP_OK);
  assert_int_equal(value.i64, 1);
}

/* A plugin's failure is reported with plugin, function and device. */
static void plugin_errors_name_the_call(void **state) {
  fixture_t *f = *state;
  unsigned char src[16] = {0}, not_device_memory[16];
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(f->dev1, &stream), BP_OK);
  assert_int_equal(
      bp_copy(f->dev1, not_device_memory, NULL, src, sizeof src, NULL),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("vcpu: memory_copy_h2d on vcpu:1 returned C_ERROR");
  /* bp_copy runs a small copy on an idle stream on the calling thread. */
  assert_int_equal(
      bp_copy(f->dev1, not_device_memory, NULL, src, sizeof src, stream),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("vcpu: memory_copy_h2d on vcpu:1 returned C_ERROR");
  assert_int_equal(bp_copy_async_unsafe(f->dev1, not_device_memory, NULL, src,
                                        sizeof src, stream),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions(
      "vcpu: async_memory_copy_h2d on vcpu:1 returned C_ERROR");
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
}

/* vcpu and the stub in one runtime: copies between plugins bounce through
 * the host. */
static void copy_between_plugins(void **state) {
  (void)state;
  bp_runtime_t *runtime = fixture_runtime(BP_VCPU_PLUGIN ":" STUB_PLUGIN);
  assert_int_equal(bp_runtime_plugin_count(runtime), 2);
  bp_device_t *vcpu, *stub;
  assert_int_equal(bp_device_get(runtime, "vcpu", 1, &vcpu), BP_OK);
  assert_int_equal(bp_device_get(runtime, "stub", 0, &stub), BP_OK);
  enum { N = 70000 };
  unsigned char *src = malloc(N), *back = calloc(1, N);
  fill(src, N, 9);
  void *dv, *ds;
  bp_stream_t *stream;
  assert_int_equal(bp_stream_create(vcpu, &stream), BP_OK);
  assert_int_equal(bp_device_malloc(vcpu, N, &dv), BP_OK);
  assert_int_equal(bp_device_malloc(stub, N, &ds), BP_OK);
  assert_int_equal(bp_copy(vcpu, dv, NULL, src, N, stream), BP_OK);
  assert_int_equal(bp_copy(stub, ds, vcpu, dv, N, stream), BP_OK);
  assert_int_equal(bp_copy(NULL, back, stub, ds, N, NULL), BP_OK);
  assert_memory_equal(back, src, N);
  memset(back, 0, N);
  assert_int_equal(bp_copy(vcpu, dv, stub, ds, N, NULL), BP_OK);
  assert_int_equal(bp_copy(NULL, back, vcpu, dv, N, NULL), BP_OK);
  assert_memory_equal(back, src, N);
  /* An event of one plugin waited for by the other's stream: host wait. */
  bp_event_t *event;
  bp_stream_t *stub_stream;
  assert_int_equal(bp_event_create(vcpu, &event), BP_OK);
  assert_int_equal(bp_stream_create(stub, &stub_stream), BP_OK);
  assert_int_equal(bp_event_record(event, stream), BP_OK);
  assert_int_equal(bp_stream_wait_event(stub_stream, event), BP_OK);
  assert_int_equal(bp_event_query(event), BP_OK);
  assert_int_equal(bp_stream_sync_from_to(stream, stub_stream), BP_OK);
  assert_int_equal(bp_event_destroy(event), BP_OK);
  assert_int_equal(bp_stream_destroy(stub_stream), BP_OK);
  assert_int_equal(bp_device_free(vcpu, dv), BP_OK);
  assert_int_equal(bp_device_free(stub, ds), BP_OK);
  assert_int_equal(bp_stream_destroy(stream), BP_OK);
  bp_runtime_destroy(runtime);
  free(src);
  free(back);
}

int main(void) {
  setenv("BACKPLANE_VCPU_MEMORY", "64M", 1);
  setenv("BACKPLANE_VCPU_DEVICES", "2", 1);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(plugin_info),
      T(async_copies_are_ordered),
      T(wait_event_orders_streams),
      T(sync_from_to_orders_streams),
      T(event_timing),
      T(memset_and_peer_copy),
      T(host_unified_and_out_of_memory),
      T(plugin_errors_name_the_call),
      cmocka_unit_test(copy_between_plugins),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
