/* vcpu collectives failing the right way: a peer that never joins or never
 * calls, a wrong secret, abort from another thread, mismatched collectives
 * and sends, bad arguments. Each ends with the right status and a message
 * naming the communicator, operation, sequence number and rank, within the
 * short deadline this test sets (BACKPLANE_COMM_TIMEOUT_MS=300). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/comm_test_streams.h"
#include "plugins/vcpu/comm/id.h"
#include "plugins/vcpu/comm/interface.h"

static C_DeviceInterface xccl;

typedef struct rank {
  C_CCLComm comm;
  test_stream *stream;
} rank;

static void new_id(char bytes[128], C_CCLRootId *id) {
  *id = (C_CCLRootId){128, bytes};
  assert_int_equal(xccl.xccl_get_unique_id(id), C_SUCCESS);
}

static void join(C_CCLRootId *id, size_t nranks, size_t r, rank *out) {
  assert_int_equal(xccl.xccl_comm_init_rank(nranks, id, r, &out->comm),
                   C_SUCCESS);
  out->stream = test_stream_create();
  assert_non_null(out->stream);
}

/* Two ranks of a fresh 2-rank world. */
static void join_pair(rank ranks[2]) {
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  join(&id, 2, 0, &ranks[0]);
  join(&id, 2, 1, &ranks[1]);
}

static void leave(rank *r) {
  test_stream_destroy(r->stream);
  assert_int_equal(xccl.xccl_destroy_comm(r->comm), C_SUCCESS);
}

static C_Stream s(rank *r) {
  return test_stream_handle(r->stream);
}

/* Waits for the rank's stream and returns its async error and message. */
static int async_error(rank *r, char message[512]) {
  test_stream_synchronize(r->stream);
  int32_t status = -1;
  message[0] = '\0';
  assert_int_equal(
      vcpu_comm_ext_get_async_error(r->comm, &status, message, 512), C_SUCCESS);
  return status;
}

static void expect_contains(const char *text, const char *part) {
  if (strstr(text, part) == NULL)
    fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static void test_peer_never_joins(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  rank ranks[2];
  join(&id, 3, 0, &ranks[0]);
  join(&id, 3, 1, &ranks[1]);
  float data[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  for (size_t r = 0; r < 2; r++)
    assert_int_equal(xccl.xccl_all_reduce(data[r], data[r], 4, FLOAT32, SUM,
                                          ranks[r].comm, s(&ranks[r])),
                     C_SUCCESS);
  for (size_t r = 0; r < 2; r++) {
    char message[512];
    assert_int_equal(async_error(&ranks[r], message), BP_COMM_EXT_TIMEOUT);
    expect_contains(message, "vcpu-comm:");
    expect_contains(message, "all_reduce sequence 1");
    expect_contains(message, "rank 2 never joined");
    expect_contains(message, "timed out after 300 ms");
  }
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static void test_peer_never_calls(void **state) {
  (void)state;
  rank ranks[2];
  join_pair(ranks);
  int32_t data[3] = {1, 2, 3};
  assert_int_equal(
      xccl.xccl_broadcast(data, 3, INT32, 0, ranks[0].comm, s(&ranks[0])),
      C_SUCCESS);
  char message[512];
  assert_int_equal(async_error(&ranks[0], message), BP_COMM_EXT_TIMEOUT);
  expect_contains(message, "broadcast sequence 1");
  expect_contains(message, "rank 1 has not called any collective");
  /* The communicator is poisoned: later calls fail at once, repeating why. */
  assert_int_not_equal(
      xccl.xccl_broadcast(data, 3, INT32, 0, ranks[0].comm, s(&ranks[0])),
      C_SUCCESS);
  expect_contains(vcpu_comm_last_error(), "failed earlier");
  expect_contains(vcpu_comm_last_error(), "rank 1 has not called");
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static void test_wrong_secret_is_refused(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  rank first;
  join(&id, 2, 0, &first);
  char forged_bytes[128];
  memcpy(forged_bytes, bytes, sizeof forged_bytes);
  vcpu_comm_unique_id_t *forged = (vcpu_comm_unique_id_t *)(void *)forged_bytes;
  forged->secret ^= 0x5a5a;
  C_CCLRootId forged_id = {128, forged_bytes};
  C_CCLComm comm = NULL;
  assert_int_equal(xccl.xccl_comm_init_rank(2, &forged_id, 1, &comm), C_ERROR);
  assert_null(comm);
  expect_contains(vcpu_comm_last_error(), "wrong secret");
  leave(&first);
}

typedef struct abort_job {
  C_CCLComm comm;
} abort_job;

static void *abort_main(void *argument) {
  abort_job *job = argument;
  assert_int_equal(vcpu_comm_ext_abort(job->comm), C_SUCCESS);
  return NULL;
}

static void test_abort_from_another_thread(void **state) {
  (void)state;
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "60000", 1); /* abort, not timeout */
  rank ranks[2];
  join_pair(ranks);
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "300", 1);
  double data[5] = {0};
  assert_int_equal(xccl.xccl_all_reduce(data, data, 5, FLOAT64, MAX,
                                        ranks[0].comm, s(&ranks[0])),
                   C_SUCCESS);
  abort_job job = {ranks[1].comm};
  pthread_t thread;
  pthread_create(&thread, NULL, abort_main, &job);
  pthread_join(thread, NULL);
  char message[512];
  assert_int_equal(async_error(&ranks[0], message), BP_COMM_EXT_ABORTED);
  expect_contains(message, "all_reduce sequence 1 aborted");
  expect_contains(message, "rank 1");
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static void check_mismatch(size_t nranks, void (*call)(rank *r, size_t index),
                           const char *part_a, const char *part_b) {
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  rank ranks[3];
  for (size_t r = 0; r < nranks; r++)
    join(&id, nranks, r, &ranks[r]);
  for (size_t r = 0; r < nranks; r++)
    call(&ranks[r], r);
  for (size_t r = 0; r < nranks; r++) {
    char message[512];
    assert_int_equal(async_error(&ranks[r], message),
                     BP_COMM_EXT_INVALID_USAGE);
    expect_contains(message, "mismatched");
    expect_contains(message, part_a);
    expect_contains(message, part_b);
  }
  for (size_t r = 0; r < nranks; r++)
    leave(&ranks[r]);
}

static float scratch[3][16];

static void sum_or_max(rank *r, size_t index) {
  assert_int_equal(xccl.xccl_all_reduce(scratch[index], scratch[index], 4,
                                        FLOAT32, index == 2 ? MAX : SUM,
                                        r->comm, s(r)),
                   C_SUCCESS);
}

static void reduce_or_broadcast(rank *r, size_t index) {
  C_Status status =
      index == 0
          ? xccl.xccl_all_reduce(scratch[0], scratch[0], 4, FLOAT32, SUM,
                                 r->comm, s(r))
          : xccl.xccl_broadcast(scratch[index], 4, FLOAT32, 0, r->comm, s(r));
  assert_int_equal(status, C_SUCCESS);
}

static void different_counts(rank *r, size_t index) {
  assert_int_equal(xccl.xccl_all_gather(scratch[index], scratch[index],
                                        index + 1, INT32, r->comm, s(r)),
                   C_SUCCESS);
}

static void test_mismatched_collectives(void **state) {
  (void)state;
  check_mismatch(3, sum_or_max, "sequence 1",
                 "all_reduce(count=4, float32, max)");
  check_mismatch(2, reduce_or_broadcast, "all_reduce(count=4, float32, sum)",
                 "broadcast(count=4, float32, root=0)");
  check_mismatch(2, different_counts, "all_gather(count=1, int32)",
                 "all_gather(count=2, int32)");
}

static void test_mismatched_send_recv(void **state) {
  (void)state;
  rank ranks[2];
  join_pair(ranks);
  float out[5] = {1, 2, 3, 4, 5}, in[5];
  assert_int_equal(
      xccl.xccl_send(out, 4, FLOAT32, 1, ranks[0].comm, s(&ranks[0])),
      C_SUCCESS);
  assert_int_equal(
      xccl.xccl_recv(in, 5, FLOAT32, 0, ranks[1].comm, s(&ranks[1])),
      C_SUCCESS);
  for (size_t r = 0; r < 2; r++) {
    char message[512];
    assert_int_equal(async_error(&ranks[r], message),
                     BP_COMM_EXT_INVALID_USAGE);
    expect_contains(message, "mismatched");
    expect_contains(message, r == 0 ? "send #0" : "recv #0");
  }
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static void test_unmatched_recv_times_out(void **state) {
  (void)state;
  rank ranks[2];
  join_pair(ranks);
  uint8_t in[8];
  assert_int_equal(xccl.xccl_recv(in, 8, UINT8, 1, ranks[0].comm, s(&ranks[0])),
                   C_SUCCESS);
  char message[512];
  assert_int_equal(async_error(&ranks[0], message), BP_COMM_EXT_TIMEOUT);
  expect_contains(message, "recv #0 from rank 1");
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static void test_bad_arguments(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  rank ranks[2];
  join(&id, 2, 0, &ranks[0]);
  join(&id, 2, 1, &ranks[1]);
  C_CCLComm comm = ranks[0].comm;
  float data[4] = {0};

  assert_int_equal(xccl.xccl_get_unique_id_size(NULL), C_ERROR);
  C_CCLRootId small = {64, bytes};
  assert_int_equal(xccl.xccl_get_unique_id(&small), C_ERROR);
  C_CCLComm other = NULL;
  assert_int_equal(xccl.xccl_comm_init_rank(2, &id, 2, &other), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "out of range");
  assert_int_equal(xccl.xccl_comm_init_rank(3, &id, 1, &other), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "nranks=3");
  assert_int_equal(xccl.xccl_comm_init_rank(2, &id, 1, &other), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "already joined");
  char junk[128] = {0};
  C_CCLRootId junk_id = {128, junk};
  assert_int_equal(xccl.xccl_comm_init_rank(2, &junk_id, 0, &other), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "not a vcpu id");
  assert_null(other);

  assert_int_equal(
      xccl.xccl_all_reduce(data, data, 4, FLOAT32, SUM, NULL, s(&ranks[0])),
      C_ERROR);
  expect_contains(vcpu_comm_last_error(), "comm is NULL");
  assert_int_equal(
      xccl.xccl_all_reduce(data, data, 4, FLOAT32, SUM, comm, NULL), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "stream is NULL");
  assert_int_equal(
      xccl.xccl_all_reduce(data, data, 4, BOOL, SUM, comm, s(&ranks[0])),
      C_ERROR);
  expect_contains(vcpu_comm_last_error(), "bool");
  assert_int_equal(xccl.xccl_all_reduce(data, data, 4, FLOAT32,
                                        (C_CCLReduceOp)9, comm, s(&ranks[0])),
                   C_ERROR);
  expect_contains(vcpu_comm_last_error(), "reduce op 9");
  assert_int_equal(xccl.xccl_broadcast(data, 4, FLOAT32, 2, comm, s(&ranks[0])),
                   C_ERROR);
  expect_contains(vcpu_comm_last_error(), "root 2 out of range");
  assert_int_equal(
      xccl.xccl_all_reduce(NULL, data, 4, FLOAT32, SUM, comm, s(&ranks[0])),
      C_ERROR);
  expect_contains(vcpu_comm_last_error(), "buffer is NULL");
  assert_int_equal(xccl.xccl_all_gather(data, data, SIZE_MAX / 2, FLOAT32, comm,
                                        s(&ranks[0])),
                   C_ERROR);
  expect_contains(vcpu_comm_last_error(), "overflows");
  assert_int_equal(xccl.xccl_send(data, 4, FLOAT32, 7, comm, s(&ranks[0])),
                   C_ERROR);
  expect_contains(vcpu_comm_last_error(), "peer rank 7");
  assert_int_equal(xccl.xccl_group_end(), C_ERROR);
  expect_contains(vcpu_comm_last_error(), "without a matching");
  const void *sends[2] = {data, data};
  void *recvs[2] = {data, data};
  size_t counts[2] = {1, 1};
  C_DataType types[2] = {FLOAT32, FLOAT32};
  assert_int_equal(xccl.xccl_all_to_all(sends, counts, types, recvs, counts,
                                        types, 1, 2, comm, s(&ranks[0])),
                   C_ERROR);
  expect_contains(vcpu_comm_last_error(), "rank 1 of 2 given");
  assert_int_equal(vcpu_comm_ext_abort(NULL), C_ERROR);

  /* Rejected calls consumed no sequence number: the ranks still agree. */
  float a[2] = {1, 2}, b[2] = {3, 4};
  assert_int_equal(
      xccl.xccl_all_reduce(a, a, 2, FLOAT32, SUM, comm, s(&ranks[0])),
      C_SUCCESS);
  assert_int_equal(
      xccl.xccl_all_reduce(b, b, 2, FLOAT32, SUM, ranks[1].comm, s(&ranks[1])),
      C_SUCCESS);
  char message[512];
  assert_int_equal(async_error(&ranks[0], message), 0);
  assert_int_equal(async_error(&ranks[1], message), 0);
  assert_true(a[0] == 4 && a[1] == 6 && b[0] == 4 && b[1] == 6);
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

/* A rejected call inside a group fails the group: nothing of it runs and the
 * communicators it touched are poisoned rather than left out of step. */
static void test_failed_group_poisons(void **state) {
  (void)state;
  rank ranks[2];
  join_pair(ranks);
  float data[4] = {1, 2, 3, 4};
  assert_int_equal(xccl.xccl_group_start(), C_SUCCESS);
  assert_int_equal(xccl.xccl_all_reduce(data, data, 4, FLOAT32, SUM,
                                        ranks[0].comm, s(&ranks[0])),
                   C_SUCCESS);
  assert_int_equal(xccl.xccl_all_reduce(data, data, 4, BOOL, SUM, ranks[1].comm,
                                        s(&ranks[1])),
                   C_ERROR);
  assert_int_not_equal(xccl.xccl_group_end(), C_SUCCESS);
  expect_contains(vcpu_comm_last_error(), "bool");
  char message[512];
  assert_int_equal(async_error(&ranks[0], message), BP_COMM_EXT_INVALID_USAGE);
  expect_contains(message, "a call of its group failed");
  assert_true(data[0] == 1 && data[3] == 4);
  for (size_t r = 0; r < 2; r++)
    leave(&ranks[r]);
}

static int setup(void **state) {
  (void)state;
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "300", 1);
  vcpu_comm_fill_interface(&xccl);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_peer_never_joins,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_peer_never_calls,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_wrong_secret_is_refused,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_abort_from_another_thread,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_mismatched_collectives,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_mismatched_send_recv,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_unmatched_recv_times_out,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_bad_arguments, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_failed_group_poisons,
                                comm_test_no_segment_left),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
