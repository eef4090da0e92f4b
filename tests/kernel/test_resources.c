/* bp_comm_kernel_resources on vcpu: every rank sees every rank's buffer and
 * a channel per peer; bad buffers and arguments are refused. */
#include <pthread.h>

#include "kernel_fixture.h"

typedef struct rank_call {
  bp_comm_t *comm;
  void *buffer;
  uint32_t ids[2];
  bp_kernel_resources_t out;
  bp_status_t status;
} rank_call_t;

static void *prepare(void *arg) {
  rank_call_t *call = arg;
  call->status = bp_comm_kernel_resources(
      call->comm, "test-world", call->buffer, 4096, call->ids, 2, &call->out);
  return NULL;
}

static void every_rank_sees_every_buffer(void **state) {
  kernel_fixture_t *f = *state;
  bp_device_t *devices[2] = {f->dev0, f->dev1};
  bp_comm_t *comms[2];
  assert_int_equal(bp_comm_init_all(devices, 2, comms), BP_OK);
  rank_call_t calls[2];
  pthread_t threads[2];
  for (int r = 0; r < 2; ++r) {
    calls[r] = (rank_call_t){.comm = comms[r], .ids = {7u + r, 9u + r}};
    assert_int_equal(bp_device_malloc(devices[r], 4096, &calls[r].buffer),
                     BP_OK);
    assert_int_equal(pthread_create(&threads[r], NULL, prepare, &calls[r]), 0);
  }
  for (int r = 0; r < 2; ++r)
    assert_int_equal(pthread_join(threads[r], NULL), 0);
  for (int r = 0; r < 2; ++r) {
    const bp_kernel_resources_t *out = &calls[r].out;
    assert_int_equal(calls[r].status, BP_OK);
    assert_int_equal(out->rank, r);
    assert_int_equal(out->nranks, 2);
    assert_ptr_equal(out->local.addr, calls[r].buffer);
    for (int peer = 0; peer < 2; ++peer) {
      assert_ptr_equal(out->remote[peer].addr, calls[peer].buffer);
      assert_int_equal(out->remote[peer].size, 4096);
    }
    assert_true(out->channel[r] == 0);
    assert_true(out->channel[1 - r] != 0);
    assert_int_equal(out->notify_count, 2);
    assert_int_equal(out->notify_ids[1], 9u + r);
  }
  for (int r = 0; r < 2; ++r) {
    assert_int_equal(bp_device_free(devices[r], calls[r].buffer), BP_OK);
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
  }
}

static void bad_buffers_and_arguments_are_refused(void **state) {
  kernel_fixture_t *f = *state;
  bp_device_t *devices[2] = {f->dev0, f->dev1};
  bp_comm_t *comms[2];
  assert_int_equal(bp_comm_init_all(devices, 2, comms), BP_OK);
  bp_kernel_resources_t out;
  char host[64];
  assert_int_equal(
      bp_comm_kernel_resources(comms[0], "w", host, sizeof host, NULL, 0, &out),
      BP_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(bp_last_error(), "not device memory"));
  uint32_t ids[BP_KERNEL_NOTIFY_SLOTS + 1] = {0};
  assert_int_equal(bp_comm_kernel_resources(comms[0], "w", host, sizeof host,
                                            ids, BP_KERNEL_NOTIFY_SLOTS + 1,
                                            &out),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_kernel_resources(comms[0], NULL, host, sizeof host,
                                            NULL, 0, &out),
                   BP_ERR_INVALID_ARGUMENT);
  for (int r = 0; r < 2; ++r)
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(every_rank_sees_every_buffer,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
      cmocka_unit_test_setup_teardown(bad_buffers_and_arguments_are_refused,
                                      kernel_fixture_open,
                                      kernel_fixture_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
