/* The framework-face communicator API (backplane/comm.h) over the vcpu
 * plugin: init_all and init_rank, every collective on device memory and
 * streams, groups, all_to_all, and the failure paths (mismatch, a peer that
 * never joins, abort from another thread, wrong stream, bad arguments). */
#include <pthread.h>
#include <stdlib.h>

#include "support/runtime_fixture.h"

enum { N = 3, COUNT = 1001 };

typedef struct comm_fixture {
  bp_runtime_t *runtime;
  bp_device_t *devices[N];
  bp_stream_t *streams[N];
  bp_comm_t *comms[N];
} comm_fixture_t;

static int setup(void **state) {
  comm_fixture_t *f = calloc(1, sizeof *f);
  f->runtime = fixture_runtime(BP_VCPU_PLUGIN);
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_device_get(f->runtime, "vcpu", r, &f->devices[r]),
                     BP_OK);
    assert_int_equal(bp_stream_create(f->devices[r], &f->streams[r]), BP_OK);
  }
  assert_int_equal(bp_comm_init_all(f->devices, N, f->comms), BP_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
    assert_int_equal(bp_comm_destroy(f->comms[r]), BP_OK);
    assert_int_equal(bp_stream_destroy(f->streams[r]), BP_OK);
  }
  bp_runtime_destroy(f->runtime);
  free(f);
  return 0;
}

static void *to_device(comm_fixture_t *f, size_t r, const void *host,
                       size_t size) {
  void *ptr = NULL;
  assert_int_equal(bp_device_malloc(f->devices[r], size, &ptr), BP_OK);
  assert_int_equal(bp_copy(f->devices[r], ptr, NULL, host, size, NULL), BP_OK);
  return ptr;
}

static void to_host(comm_fixture_t *f, size_t r, void *host, const void *ptr,
                    size_t size) {
  assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
  assert_int_equal(bp_copy(NULL, host, f->devices[r], ptr, size, NULL), BP_OK);
}

static void sync_all(comm_fixture_t *f) {
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
    assert_int_equal(bp_comm_async_error(f->comms[r]), BP_OK);
  }
}

static void test_identity(void **state) {
  comm_fixture_t *f = *state;
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_comm_rank(f->comms[r]), r);
    assert_int_equal(bp_comm_size(f->comms[r]), N);
    assert_ptr_equal(bp_comm_device(f->comms[r]), f->devices[r]);
  }
}

static void test_all_reduce_avg_then_broadcast(void **state) {
  comm_fixture_t *f = *state;
  float host[COUNT];
  float *buf[N];
  for (size_t r = 0; r < N; r++) {
    for (size_t i = 0; i < COUNT; i++)
      host[i] = (float)(3 * r) + (float)i;
    buf[r] = to_device(f, r, host, sizeof host);
  }
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_all_reduce(buf[r], buf[r], COUNT, BP_DTYPE_FLOAT32,
                                        BP_REDUCE_AVG, f->comms[r],
                                        f->streams[r]),
                     BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) { /* avg of 3r+i over r=0..2 is 3+i */
    to_host(f, r, host, buf[r], sizeof host);
    for (size_t i = 0; i < COUNT; i++)
      assert_true(host[i] == 3.0f + (float)i);
  }
  /* Rank 1 overwrites, then broadcasts in place. */
  for (size_t i = 0; i < COUNT; i++)
    host[i] = -(float)i;
  assert_int_equal(
      bp_copy(f->devices[1], buf[1], NULL, host, sizeof host, f->streams[1]),
      BP_OK);
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_broadcast(buf[r], COUNT, BP_DTYPE_FLOAT32, 1,
                                       f->comms[r], f->streams[r]),
                     BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) {
    to_host(f, r, host, buf[r], sizeof host);
    for (size_t i = 0; i < COUNT; i++)
      assert_true(host[i] == -(float)i);
    assert_int_equal(bp_device_free(f->devices[r], buf[r]), BP_OK);
  }
}

static void test_reduce_gather_scatter(void **state) {
  comm_fixture_t *f = *state;
  int64_t host[N * COUNT];
  int64_t *send[N], *recv[N];
  for (size_t r = 0; r < N; r++) {
    for (size_t i = 0; i < N * COUNT; i++)
      host[i] = (int64_t)(r + 1) * (int64_t)i;
    send[r] = to_device(f, r, host, sizeof host);
    recv[r] = to_device(f, r, host, sizeof host);
  }
  /* reduce (max) to rank 2, out of place */
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_reduce(send[r], recv[r], COUNT, BP_DTYPE_INT64,
                                    BP_REDUCE_MAX, 2, f->comms[r],
                                    f->streams[r]),
                     BP_OK);
  sync_all(f);
  to_host(f, 2, host, recv[2], COUNT * sizeof(int64_t));
  for (size_t i = 0; i < COUNT; i++)
    assert_int_equal(host[i], 3 * (int64_t)i);
  /* reduce_scatter (sum): rank r gets sum over ranks of chunk r */
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_reduce_scatter(send[r], recv[r], COUNT,
                                            BP_DTYPE_INT64, BP_REDUCE_SUM,
                                            f->comms[r], f->streams[r]),
                     BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) {
    to_host(f, r, host, recv[r], COUNT * sizeof(int64_t));
    for (size_t i = 0; i < COUNT; i++)
      assert_int_equal(host[i], 6 * (int64_t)(r * COUNT + i));
  }
  /* all_gather in place: each rank's first COUNT of send into slot r */
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_copy(f->devices[r], recv[r] + r * COUNT, f->devices[r],
                             send[r], COUNT * sizeof(int64_t), f->streams[r]),
                     BP_OK);
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_all_gather(recv[r] + r * COUNT, recv[r], COUNT,
                                        BP_DTYPE_INT64, f->comms[r],
                                        f->streams[r]),
                     BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) {
    to_host(f, r, host, recv[r], sizeof host);
    for (size_t from = 0; from < N; from++)
      for (size_t i = 0; i < COUNT; i++)
        assert_int_equal(host[from * COUNT + i],
                         (int64_t)(from + 1) * (int64_t)i);
    assert_int_equal(bp_device_free(f->devices[r], send[r]), BP_OK);
    assert_int_equal(bp_device_free(f->devices[r], recv[r]), BP_OK);
  }
}

static void test_group_send_recv_and_all_to_all(void **state) {
  comm_fixture_t *f = *state;
  uint8_t host[N * 16];
  uint8_t *send[N], *recv[N];
  for (size_t r = 0; r < N; r++) {
    for (size_t i = 0; i < N * 16; i++)
      host[i] = (uint8_t)(r * 50 + i / 16);
    send[r] = to_device(f, r, host, sizeof host);
    recv[r] = to_device(f, r, host, sizeof host);
  }
  /* A ring shift in one group driven by this thread. */
  assert_int_equal(bp_comm_group_start(f->runtime), BP_OK);
  for (size_t r = 0; r < N; r++) {
    assert_int_equal(bp_comm_send(send[r], 16, BP_DTYPE_UINT8, (r + 1) % N,
                                  f->comms[r], f->streams[r]),
                     BP_OK);
    assert_int_equal(bp_comm_recv(recv[r], 16, BP_DTYPE_UINT8, (r + N - 1) % N,
                                  f->comms[r], f->streams[r]),
                     BP_OK);
  }
  assert_int_equal(bp_comm_group_end(f->runtime), BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) {
    to_host(f, r, host, recv[r], 16);
    assert_int_equal(host[0], ((r + N - 1) % N) * 50);
  }
  /* all_to_all: chunk p of rank r lands in chunk r of rank p. */
  const void *sends[N][N];
  void *recvs[N][N];
  size_t counts[N] = {16, 16, 16};
  for (size_t r = 0; r < N; r++)
    for (size_t p = 0; p < N; p++) {
      sends[r][p] = send[r] + p * 16;
      recvs[r][p] = recv[r] + p * 16;
    }
  assert_int_equal(bp_comm_group_start(f->runtime), BP_OK);
  for (size_t r = 0; r < N; r++)
    assert_int_equal(bp_comm_all_to_all(sends[r], counts, recvs[r], counts,
                                        BP_DTYPE_UINT8, f->comms[r],
                                        f->streams[r]),
                     BP_OK);
  assert_int_equal(bp_comm_group_end(f->runtime), BP_OK);
  sync_all(f);
  for (size_t r = 0; r < N; r++) {
    to_host(f, r, host, recv[r], sizeof host);
    for (size_t p = 0; p < N; p++)
      assert_int_equal(host[p * 16 + 5], p * 50 + r);
    assert_int_equal(bp_device_free(f->devices[r], send[r]), BP_OK);
    assert_int_equal(bp_device_free(f->devices[r], recv[r]), BP_OK);
  }
}

static void test_bad_arguments(void **state) {
  comm_fixture_t *f = *state;
  float x = 0;
  assert_int_equal(bp_comm_all_reduce(&x, &x, 1, BP_DTYPE_FLOAT32,
                                      BP_REDUCE_SUM, f->comms[0],
                                      f->streams[1]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("the stream belongs to vcpu:1");
  assert_int_equal(bp_comm_all_reduce(&x, &x, 1, BP_DTYPE_FLOAT32,
                                      BP_REDUCE_SUM, NULL, f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_all_reduce(&x, &x, 1, BP_DTYPE_BOOL, BP_REDUCE_SUM,
                                      f->comms[0], f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("data type bool");
  /* Values outside the framework's enumerations stop in the core. */
  assert_int_equal(bp_comm_all_reduce(&x, &x, 1, BP_DTYPE_UNDEFINED,
                                      BP_REDUCE_SUM, f->comms[0],
                                      f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("dtype 0 is not a data type");
  assert_int_equal(
      bp_comm_send(&x, 1, (bp_dtype_t)99, 1, f->comms[0], f->streams[0]),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("dtype 99 is not a data type");
  assert_int_equal(bp_comm_reduce(&x, &x, 1, BP_DTYPE_FLOAT32,
                                  BP_REDUCE_OP_COUNT, 0, f->comms[0],
                                  f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("reduce op 5 is not a reduce op");
  assert_int_equal(
      bp_comm_broadcast(&x, 1, BP_DTYPE_FLOAT32, N, f->comms[0], f->streams[0]),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("root 3 out of range");
  size_t size = 0;
  assert_int_equal(bp_comm_unique_id_size(f->devices[0], &size), BP_OK);
  assert_int_equal(size, 128);
  char id[64];
  assert_int_equal(bp_comm_get_unique_id(f->devices[0], id, sizeof id),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_get_unique_id(NULL, id, sizeof id),
                   BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_init_all(NULL, 2, NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_abort(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_async_error(NULL), BP_ERR_INVALID_ARGUMENT);
  assert_int_equal(bp_comm_destroy(NULL), BP_OK);
  assert_int_equal(bp_comm_group_start(NULL), BP_ERR_INVALID_ARGUMENT);
}

/* A two-rank world made with init_rank, with a deadline set for the test. */
static void two_ranks(comm_fixture_t *f, const char *timeout_ms,
                      bp_comm_t *out[2], size_t joining) {
  setenv("BACKPLANE_COMM_TIMEOUT_MS", timeout_ms, 1);
  char id[128];
  assert_int_equal(bp_comm_get_unique_id(f->devices[0], id, sizeof id), BP_OK);
  for (size_t r = 0; r < joining; r++)
    assert_int_equal(
        bp_comm_init_rank(f->devices[r], 2, id, sizeof id, r, &out[r]), BP_OK);
  /* A wrong secret is refused with the plugin's reason. */
  id[9] ^= 1;
  bp_comm_t *intruder = NULL;
  assert_int_equal(
      bp_comm_init_rank(f->devices[2], 2, id, sizeof id, 1, &intruder),
      BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("wrong secret");
  assert_null(intruder);
}

static void test_mismatch_is_reported(void **state) {
  comm_fixture_t *f = *state;
  bp_comm_t *comms[2];
  two_ranks(f, "2000", comms, 2);
  float x[2] = {1, 2};
  assert_int_equal(bp_comm_all_reduce(x, x, 1, BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                      comms[0], f->streams[0]),
                   BP_OK);
  assert_int_equal(bp_comm_all_reduce(x + 1, x + 1, 1, BP_DTYPE_FLOAT32,
                                      BP_REDUCE_MIN, comms[1], f->streams[1]),
                   BP_OK);
  for (size_t r = 0; r < 2; r++) {
    assert_int_equal(bp_stream_synchronize(f->streams[r]), BP_OK);
    assert_int_equal(bp_comm_async_error(comms[r]), BP_ERR_INVALID_ARGUMENT);
    assert_error_mentions("mismatched collectives at sequence 1");
  }
  /* Later calls fail with the communicator's own failure. */
  assert_int_equal(bp_comm_all_reduce(x, x, 1, BP_DTYPE_FLOAT32, BP_REDUCE_SUM,
                                      comms[0], f->streams[0]),
                   BP_ERR_INVALID_ARGUMENT);
  assert_error_mentions("mismatched");
  for (size_t r = 0; r < 2; r++)
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
}

static void test_peer_never_joins(void **state) {
  comm_fixture_t *f = *state;
  bp_comm_t *comms[2];
  two_ranks(f, "300", comms, 1);
  double x = 1;
  assert_int_equal(bp_comm_all_reduce(&x, &x, 1, BP_DTYPE_FLOAT64,
                                      BP_REDUCE_SUM, comms[0], f->streams[0]),
                   BP_OK);
  assert_int_equal(bp_stream_synchronize(f->streams[0]), BP_OK);
  assert_int_equal(bp_comm_async_error(comms[0]), BP_ERR_TIMEOUT);
  assert_error_mentions("all_reduce sequence 1 timed out after 300 ms");
  assert_error_mentions("rank 1 never joined");
  assert_int_equal(bp_comm_destroy(comms[0]), BP_OK);
}

static void *abort_main(void *comm) {
  assert_int_equal(bp_comm_abort(comm), BP_OK);
  return NULL;
}

static void test_abort_from_another_thread(void **state) {
  comm_fixture_t *f = *state;
  bp_comm_t *comms[2];
  two_ranks(f, "60000", comms, 2);
  int32_t x = 1;
  assert_int_equal(
      bp_comm_broadcast(&x, 1, BP_DTYPE_INT32, 1, comms[0], f->streams[0]),
      BP_OK);
  pthread_t thread;
  pthread_create(&thread, NULL, abort_main, comms[1]);
  pthread_join(thread, NULL);
  assert_int_equal(bp_stream_synchronize(f->streams[0]), BP_OK);
  assert_int_equal(bp_comm_async_error(comms[0]), BP_ERR_ABORTED);
  assert_error_mentions("broadcast sequence 1 aborted");
  for (size_t r = 0; r < 2; r++)
    assert_int_equal(bp_comm_destroy(comms[r]), BP_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identity),
      cmocka_unit_test(test_all_reduce_avg_then_broadcast),
      cmocka_unit_test(test_reduce_gather_scatter),
      cmocka_unit_test(test_group_send_recv_and_all_to_all),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_mismatch_is_reported),
      cmocka_unit_test(test_peer_never_joins),
      cmocka_unit_test(test_abort_from_another_thread),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
