/* vcpu collectives with ranks as threads of one process: every collective,
 * op, type, in-place and out-of-place, counts 0, 1, odd and large, 2..4
 * ranks, checked against host references; groups, send/recv, all_to_all;
 * hundreds of all_reduces in flight at once. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/comm_reference.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/comm_test_streams.h"
#include "plugins/vcpu/comm/interface.h"

enum { MAX_RANKS = 4 };

typedef struct world {
  size_t n;
  C_CCLComm comms[MAX_RANKS];
  test_stream *streams[MAX_RANKS];
} world;

static C_DeviceInterface xccl;

static void world_open(world *w, size_t n) {
  memset(w, 0, sizeof *w);
  w->n = n;
  char bytes[128];
  C_CCLRootId id = {sizeof bytes, bytes};
  size_t size = 0;
  assert_int_equal(xccl.xccl_get_unique_id_size(&size), C_SUCCESS);
  assert_int_equal(size, 128);
  assert_int_equal(xccl.xccl_get_unique_id(&id), C_SUCCESS);
  for (size_t r = 0; r < n; r++) {
    assert_int_equal(xccl.xccl_comm_init_rank(n, &id, r, &w->comms[r]),
                     C_SUCCESS);
    w->streams[r] = test_stream_create();
    assert_non_null(w->streams[r]);
  }
}

static C_Stream stream_of(world *w, size_t r) {
  return test_stream_handle(w->streams[r]);
}

static void world_sync(world *w) {
  for (size_t r = 0; r < w->n; r++)
    test_stream_synchronize(w->streams[r]);
}

static void world_expect_healthy(world *w) {
  for (size_t r = 0; r < w->n; r++) {
    int32_t status = -1;
    char message[512] = "";
    assert_int_equal(vcpu_comm_ext_get_async_error(w->comms[r], &status,
                                                   message, sizeof message),
                     C_SUCCESS);
    if (status != 0)
      fail_msg("rank %zu failed: %s", r, message);
  }
}

static void world_close(world *w) {
  for (size_t r = 0; r < w->n; r++) {
    test_stream_destroy(w->streams[r]);
    assert_int_equal(xccl.xccl_destroy_comm(w->comms[r]), C_SUCCESS);
  }
}

static const C_DataType dtypes[] = {INT8,    INT16,    INT32,   INT64,
                                    UINT8,   UINT16,   UINT32,  UINT64,
                                    FLOAT16, BFLOAT16, FLOAT32, FLOAT64};
static const C_CCLReduceOp ops[] = {SUM, AVG, MAX, MIN, PRODUCT};
static const size_t counts[] = {0, 1, 37, 20011};

static void fill(C_DataType t, void *buf, size_t rank, size_t offset,
                 size_t count) {
  for (size_t i = 0; i < count; i++)
    ref_store(t, buf, i, ref_value(t, rank, offset + i));
}

/* ---- the collectives ---------------------------------------------------- */

static void run_all_reduce(size_t n, C_DataType t, C_CCLReduceOp op,
                           size_t count, bool in_place) {
  world w;
  world_open(&w, n);
  size_t es = ref_dtype_size(t);
  void *send[MAX_RANKS], *recv[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    send[r] = malloc(count * es + 8);
    fill(t, send[r], r, 0, count);
    recv[r] = in_place ? send[r] : malloc(count * es + 8);
  }
  for (size_t r = 0; r < n; r++) /* one thread drives every rank */
    assert_int_equal(xccl.xccl_all_reduce(send[r], recv[r], count, t, op,
                                          w.comms[r], stream_of(&w, r)),
                     C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t r = 0; r < n; r++) {
    for (size_t i = 0; i < count; i++)
      ref_expect_close(t, ref_load(t, recv[r], i),
                       ref_expected_reduction(t, op, n, i), "all_reduce", r, i);
    if (!in_place)
      for (size_t i = 0; i < count; i++)
        assert_true(ref_load(t, send[r], i) == ref_value(t, r, i));
  }
  for (size_t r = 0; r < n; r++) {
    if (!in_place)
      free(recv[r]);
    free(send[r]);
  }
  world_close(&w);
}

static void run_reduce(size_t n, C_DataType t, C_CCLReduceOp op, size_t count,
                       bool in_place, size_t root) {
  world w;
  world_open(&w, n);
  size_t es = ref_dtype_size(t);
  void *send[MAX_RANKS], *recv[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    send[r] = malloc(count * es + 8);
    fill(t, send[r], r, 0, count);
    /* Non-root ranks pass no receive buffer, as NCCL allows. */
    recv[r] = r != root ? NULL : in_place ? send[r] : malloc(count * es + 8);
  }
  for (size_t r = 0; r < n; r++)
    assert_int_equal(xccl.xccl_reduce(send[r], recv[r], count, t, op, root,
                                      w.comms[r], stream_of(&w, r)),
                     C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t i = 0; i < count; i++)
    ref_expect_close(t, ref_load(t, recv[root], i),
                     ref_expected_reduction(t, op, n, i), "reduce", root, i);
  for (size_t r = 0; r < n; r++) {
    if (recv[r] != send[r])
      free(recv[r]);
    free(send[r]);
  }
  world_close(&w);
}

static void run_broadcast(size_t n, C_DataType t, size_t count, size_t root) {
  world w;
  world_open(&w, n);
  size_t es = ref_dtype_size(t);
  void *buf[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    buf[r] = calloc(1, count * es + 8);
    if (r == root)
      fill(t, buf[r], r, 0, count);
  }
  for (size_t r = 0; r < n; r++)
    assert_int_equal(xccl.xccl_broadcast(buf[r], count, t, root, w.comms[r],
                                         stream_of(&w, r)),
                     C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t r = 0; r < n; r++) {
    for (size_t i = 0; i < count; i++)
      assert_true(ref_load(t, buf[r], i) == ref_value(t, root, i));
    free(buf[r]);
  }
  world_close(&w);
}

static void run_all_gather(size_t n, C_DataType t, size_t count,
                           bool in_place) {
  world w;
  world_open(&w, n);
  size_t es = ref_dtype_size(t);
  void *send[MAX_RANKS], *recv[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    recv[r] = calloc(1, n * count * es + 8);
    /* In place: the input is this rank's slot of the output. */
    send[r] =
        in_place ? (char *)recv[r] + r * count * es : malloc(count * es + 8);
    fill(t, send[r], r, 0, count);
  }
  for (size_t r = 0; r < n; r++)
    assert_int_equal(xccl.xccl_all_gather(send[r], recv[r], count, t,
                                          w.comms[r], stream_of(&w, r)),
                     C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t r = 0; r < n; r++) {
    for (size_t from = 0; from < n; from++)
      for (size_t i = 0; i < count; i++)
        assert_true(ref_load(t, recv[r], from * count + i) ==
                    ref_value(t, from, i));
    if (!in_place)
      free(send[r]);
    free(recv[r]);
  }
  world_close(&w);
}

static void run_reduce_scatter(size_t n, C_DataType t, C_CCLReduceOp op,
                               size_t count, bool in_place) {
  world w;
  world_open(&w, n);
  size_t es = ref_dtype_size(t);
  void *send[MAX_RANKS], *recv[MAX_RANKS];
  for (size_t r = 0; r < n; r++) {
    send[r] = malloc(n * count * es + 8);
    fill(t, send[r], r, 0, n * count);
    recv[r] =
        in_place ? (char *)send[r] + r * count * es : malloc(count * es + 8);
  }
  for (size_t r = 0; r < n; r++)
    assert_int_equal(xccl.xccl_reduce_scatter(send[r], recv[r], count, t, op,
                                              w.comms[r], stream_of(&w, r)),
                     C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t r = 0; r < n; r++) {
    for (size_t i = 0; i < count; i++)
      ref_expect_close(t, ref_load(t, recv[r], i),
                       ref_expected_reduction(t, op, n, r * count + i),
                       "reduce_scatter", r, i);
    if (!in_place)
      free(recv[r]);
    free(send[r]);
  }
  world_close(&w);
}

static void test_all_reduce(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
      for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          for (int in_place = 0; in_place < 2; in_place++)
            run_all_reduce(n, dtypes[d], ops[o], counts[c], in_place);
}

static void test_reduce(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
      for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          for (int in_place = 0; in_place < 2; in_place++)
            run_reduce(n, dtypes[d], ops[o], counts[c], in_place, (c + d) % n);
}

static void test_broadcast(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
      for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (size_t root = 0; root < n; root++)
          run_broadcast(n, dtypes[d], counts[c], root);
}

static void test_all_gather(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
      for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
        for (int in_place = 0; in_place < 2; in_place++)
          run_all_gather(n, dtypes[d], counts[c], in_place);
}

static void test_reduce_scatter(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
      for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          for (int in_place = 0; in_place < 2; in_place++)
            run_reduce_scatter(n, dtypes[d], ops[o], counts[c], in_place);
}

/* ---- point to point ----------------------------------------------------- */

/* Every rank sends to the next and receives from the previous, all in one
 * group driven by this one thread: only works if sends never block recvs. */
static void test_ring_exchange_in_one_group(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++) {
    world w;
    world_open(&w, n);
    int32_t out[MAX_RANKS][33], in[MAX_RANKS][33];
    for (size_t r = 0; r < n; r++)
      for (size_t i = 0; i < 33; i++)
        out[r][i] = (int32_t)(r * 1000 + i);
    assert_int_equal(xccl.xccl_group_start(), C_SUCCESS);
    for (size_t r = 0; r < n; r++) {
      assert_int_equal(xccl.xccl_send(out[r], 33, INT32, (r + 1) % n,
                                      w.comms[r], stream_of(&w, r)),
                       C_SUCCESS);
      assert_int_equal(xccl.xccl_recv(in[r], 33, INT32, (r + n - 1) % n,
                                      w.comms[r], stream_of(&w, r)),
                       C_SUCCESS);
    }
    assert_int_equal(xccl.xccl_group_end(), C_SUCCESS);
    world_sync(&w);
    world_expect_healthy(&w);
    for (size_t r = 0; r < n; r++)
      for (size_t i = 0; i < 33; i++)
        assert_int_equal(in[r][i], ((r + n - 1) % n) * 1000 + i);
    world_close(&w);
  }
}

/* More messages to one peer than the mailbox holds, then a collective on the
 * same communicator: ordering and sequence numbers stay intact. */
static void test_many_sends_then_collective(void **state) {
  (void)state;
  world w;
  world_open(&w, 2);
  enum { MESSAGES = 40 };
  double out[MESSAGES], in[MESSAGES];
  for (size_t k = 0; k < MESSAGES; k++)
    out[k] = (double)k * 1.5;
  assert_int_equal(xccl.xccl_group_start(), C_SUCCESS);
  for (size_t k = 0; k < MESSAGES; k++) {
    assert_int_equal(
        xccl.xccl_send(&out[k], 1, FLOAT64, 1, w.comms[0], stream_of(&w, 0)),
        C_SUCCESS);
    assert_int_equal(
        xccl.xccl_recv(&in[k], 1, FLOAT64, 0, w.comms[1], stream_of(&w, 1)),
        C_SUCCESS);
  }
  assert_int_equal(xccl.xccl_group_end(), C_SUCCESS);
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  assert_int_equal(
      xccl.xccl_all_reduce(a, a, 3, FLOAT32, SUM, w.comms[0], stream_of(&w, 0)),
      C_SUCCESS);
  assert_int_equal(
      xccl.xccl_all_reduce(b, b, 3, FLOAT32, SUM, w.comms[1], stream_of(&w, 1)),
      C_SUCCESS);
  world_sync(&w);
  world_expect_healthy(&w);
  for (size_t k = 0; k < MESSAGES; k++)
    assert_true(in[k] == (double)k * 1.5);
  assert_true(a[0] == 11 && a[2] == 33 && b[1] == 22);
  world_close(&w);
}

typedef struct rank_thread {
  world *w;
  size_t rank;
  int64_t data[1001];
  int64_t received[1001];
} rank_thread;

/* Each rank's own thread: blocking-style send/recv outside a group, in an
 * order that matches (lower rank sends first), then an all_reduce. */
static void *rank_main(void *argument) {
  rank_thread *t = argument;
  world *w = t->w;
  size_t peer = 1 - t->rank;
  C_Stream s = stream_of(w, t->rank);
  if (t->rank == 0) {
    xccl.xccl_send(t->data, 1001, INT64, peer, w->comms[0], s);
    xccl.xccl_recv(t->received, 1001, INT64, peer, w->comms[0], s);
  } else {
    xccl.xccl_recv(t->received, 1001, INT64, peer, w->comms[1], s);
    xccl.xccl_send(t->data, 1001, INT64, peer, w->comms[1], s);
  }
  xccl.xccl_all_reduce(t->data, t->data, 1001, INT64, MAX, w->comms[t->rank],
                       s);
  test_stream_synchronize(w->streams[t->rank]);
  return NULL;
}

static void test_send_recv_from_rank_threads(void **state) {
  (void)state;
  world w;
  world_open(&w, 2);
  rank_thread threads[2];
  pthread_t ids[2];
  for (size_t r = 0; r < 2; r++) {
    threads[r].w = &w;
    threads[r].rank = r;
    for (size_t i = 0; i < 1001; i++)
      threads[r].data[i] = (int64_t)(r == 0 ? i : 5000 - i);
    pthread_create(&ids[r], NULL, rank_main, &threads[r]);
  }
  for (size_t r = 0; r < 2; r++)
    pthread_join(ids[r], NULL);
  world_expect_healthy(&w);
  for (size_t i = 0; i < 1001; i++) {
    assert_int_equal(threads[0].received[i], 5000 - (int64_t)i);
    assert_int_equal(threads[1].received[i], (int64_t)i);
    int64_t max =
        (int64_t)i > 5000 - (int64_t)i ? (int64_t)i : 5000 - (int64_t)i;
    assert_int_equal(threads[0].data[i], max);
    assert_int_equal(threads[1].data[i], max);
  }
  world_close(&w);
}

/* ---- back-to-back all_reduce ------------------------------------------- */

/* Each rank's own thread issues PIPELINED_CALLS all_reduces with no
 * synchronization between them, so a fast rank runs into its next call while
 * a slow peer still reduces the last one: catches a rank overwriting its
 * small-call input copy (comm/small.h) before every peer has reduced from
 * it. Calls mix in place and out of place, small (1 KiB) and staged
 * (24 KiB) sizes, SUM and MAX, each with its own inputs and output. */
enum {
  PIPELINED_RANKS = 3,
  PIPELINED_CALLS = 300,
  PIPELINED_SMALL_COUNT = 256,  /* 1 KiB of int32 */
  PIPELINED_LARGE_COUNT = 6144, /* 24 KiB of int32, over the small path */
};

static size_t pipelined_count(size_t call) {
  return call % 5 == 4 ? PIPELINED_LARGE_COUNT : PIPELINED_SMALL_COUNT;
}

static bool pipelined_in_place(size_t call) {
  return call % 2 == 0;
}

static C_CCLReduceOp pipelined_op(size_t call) {
  return call % 3 == 2 ? MAX : SUM;
}

/* Rank r's element i of call `call`: differs between calls and ranks. */
static int32_t pipelined_value(size_t call, size_t rank, size_t i) {
  return (int32_t)((call * 7919 + rank * 104729 + i * 31) % 2001) - 1000;
}

static int32_t pipelined_expected(size_t call, size_t i) {
  int32_t result = pipelined_value(call, 0, i);
  for (size_t r = 1; r < PIPELINED_RANKS; r++) {
    int32_t v = pipelined_value(call, r, i);
    result = pipelined_op(call) == SUM ? result + v : v > result ? v : result;
  }
  return result;
}

typedef struct pipelined_rank {
  world *w;
  size_t rank;
  int32_t *send[PIPELINED_CALLS];
  int32_t *recv[PIPELINED_CALLS]; /* == send[call] in place */
  C_Status status[PIPELINED_CALLS];
} pipelined_rank;

static void *pipelined_rank_main(void *argument) {
  pipelined_rank *t = argument;
  C_Stream s = stream_of(t->w, t->rank);
  for (size_t call = 0; call < PIPELINED_CALLS; call++)
    t->status[call] = xccl.xccl_all_reduce(
        t->send[call], t->recv[call], pipelined_count(call), INT32,
        pipelined_op(call), t->w->comms[t->rank], s);
  test_stream_synchronize(t->w->streams[t->rank]);
  return NULL;
}

static void test_back_to_back_all_reduces(void **state) {
  (void)state;
  world w;
  world_open(&w, PIPELINED_RANKS);
  pipelined_rank ranks[PIPELINED_RANKS];
  for (size_t r = 0; r < PIPELINED_RANKS; r++) {
    ranks[r].w = &w;
    ranks[r].rank = r;
    for (size_t call = 0; call < PIPELINED_CALLS; call++) {
      size_t count = pipelined_count(call);
      int32_t *send = malloc(count * sizeof *send);
      assert_non_null(send);
      for (size_t i = 0; i < count; i++)
        send[i] = pipelined_value(call, r, i);
      ranks[r].send[call] = send;
      ranks[r].recv[call] = pipelined_in_place(call)
                                ? send
                                : calloc(count, sizeof *ranks[r].recv[call]);
      assert_non_null(ranks[r].recv[call]);
    }
  }
  pthread_t ids[PIPELINED_RANKS];
  for (size_t r = 0; r < PIPELINED_RANKS; r++)
    assert_int_equal(
        pthread_create(&ids[r], NULL, pipelined_rank_main, &ranks[r]), 0);
  for (size_t r = 0; r < PIPELINED_RANKS; r++)
    assert_int_equal(pthread_join(ids[r], NULL), 0);
  world_expect_healthy(&w);
  for (size_t r = 0; r < PIPELINED_RANKS; r++)
    for (size_t call = 0; call < PIPELINED_CALLS; call++) {
      assert_int_equal(ranks[r].status[call], C_SUCCESS);
      for (size_t i = 0; i < pipelined_count(call); i++) {
        if (ranks[r].recv[call][i] != pipelined_expected(call, i))
          fail_msg("rank %zu call %zu element %zu: %d, want %d", r, call, i,
                   ranks[r].recv[call][i], pipelined_expected(call, i));
        if (!pipelined_in_place(call))
          assert_int_equal(ranks[r].send[call][i], pipelined_value(call, r, i));
      }
      if (!pipelined_in_place(call))
        free(ranks[r].recv[call]);
      free(ranks[r].send[call]);
    }
  world_close(&w);
}

static void test_all_to_all(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++) {
    world w;
    world_open(&w, n);
    /* Rank r sends (r + dst + 1) * 3 elements of value r*100+dst to dst. */
    uint16_t *out[MAX_RANKS][MAX_RANKS], *in[MAX_RANKS][MAX_RANKS];
    size_t send_count[MAX_RANKS][MAX_RANKS], recv_count[MAX_RANKS][MAX_RANKS];
    C_DataType types[MAX_RANKS] = {UINT16, UINT16, UINT16, UINT16};
    for (size_t r = 0; r < n; r++)
      for (size_t p = 0; p < n; p++) {
        send_count[r][p] = (r + p + 1) * 3;
        recv_count[r][p] = (p + r + 1) * 3;
        out[r][p] = malloc(send_count[r][p] * 2);
        in[r][p] = calloc(recv_count[r][p], 2);
        for (size_t i = 0; i < send_count[r][p]; i++)
          out[r][p][i] = (uint16_t)(r * 100 + p);
      }
    assert_int_equal(xccl.xccl_group_start(), C_SUCCESS);
    for (size_t r = 0; r < n; r++)
      assert_int_equal(
          xccl.xccl_all_to_all((const void **)out[r], send_count[r], types,
                               (void **)in[r], recv_count[r], types, r, n,
                               w.comms[r], stream_of(&w, r)),
          C_SUCCESS);
    assert_int_equal(xccl.xccl_group_end(), C_SUCCESS);
    world_sync(&w);
    world_expect_healthy(&w);
    for (size_t r = 0; r < n; r++)
      for (size_t p = 0; p < n; p++) {
        for (size_t i = 0; i < recv_count[r][p]; i++)
          assert_int_equal(in[r][p][i], p * 100 + r);
        free(out[r][p]);
        free(in[r][p]);
      }
    world_close(&w);
  }
}

static int setup(void **state) {
  (void)state;
  vcpu_comm_fill_interface(&xccl);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_all_reduce, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_reduce, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_broadcast, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_all_gather, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_reduce_scatter, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_ring_exchange_in_one_group,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_many_sends_then_collective,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_send_recv_from_rank_threads,
                                comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_all_to_all, comm_test_no_segment_left),
      cmocka_unit_test_teardown(test_back_to_back_all_reduces,
                                comm_test_no_segment_left),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
