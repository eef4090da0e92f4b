/* The vcpu collectives over Open MPI (BACKPLANE_COMM_TRANSPORT=mpi), run by
 * CTest under `mpirun --oversubscribe -np N`: every collective, op, type,
 * in-place and out-of-place, counts 0, 1, odd and large, plus send/recv,
 * all_to_all, a mismatched call, and kernel channels refused. Rank 0 makes the
 * unique id and MPI broadcasts it, as a framework would. Each process runs the
 * cmocka group; the test fails if any rank fails.
 *
 * With BACKPLANE_COMM_RANKS_PER_HOST=K the same cases run on the hybrid
 * transport (plugins/vcpu/comm/hybrid.h), rank r on simulated host r / K, and
 * the test checks that the world is hybrid; in both modes no shared-memory
 * segment of the world or of its hosts may outlive the communicator. */
#include <errno.h>
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "comm/comm_mpi_fixture.h"
#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/hybrid.h"
#include "plugins/vcpu/comm/interface.h"
#include "plugins/vcpu/comm/mpi.h"
#include "plugins/vcpu/comm/ops.h"
#include "plugins/vcpu/kernel/kernels.h"
#include "plugins/vcpu/lifetime.h"
#include "plugins/vcpu/memory.h"

/* Hybrid exactly when ranks are grouped into simulated hosts and the hybrid
 * is not turned off. */
static void test_transport(void **state) {
  comm_mpi_world *w = *state;
  const char *hybrid = getenv("BACKPLANE_COMM_HYBRID");
  bool grouped = getenv("BACKPLANE_COMM_RANKS_PER_HOST") != NULL;
  bool off = hybrid != NULL && strcmp(hybrid, "0") == 0;
  assert_int_equal(vcpu_comm_hybrid_in_use(w->comm->world), grouped && !off);
}

/* A malformed setting refuses the communicator on every rank, naming the
 * variable. */
static void test_bad_settings_are_refused(void **state) {
  comm_mpi_world *w = *state;
  static const char *const settings[][2] = {
      {"BACKPLANE_COMM_RANKS_PER_HOST", "two"},
      {"BACKPLANE_COMM_RANKS_PER_HOST", "0"},
      {"BACKPLANE_COMM_HYBRID", "yes"},
  };
  C_CCLRootId id = {sizeof w->id, &w->id};
  for (size_t i = 0; i < sizeof settings / sizeof *settings; i++) {
    const char *saved = getenv(settings[i][0]);
    char *kept = saved ? strdup(saved) : NULL;
    setenv(settings[i][0], settings[i][1], 1);
    C_CCLComm comm = NULL;
    assert_int_equal(
        comm_mpi_xccl.xccl_comm_init_rank((size_t)comm_mpi_nranks, &id,
                                          (size_t)comm_mpi_rank, &comm),
        C_ERROR);
    assert_non_null(strstr(vcpu_comm_last_error(), settings[i][0]));
    if (kept)
      setenv(settings[i][0], kept, 1);
    else
      unsetenv(settings[i][0]);
    free(kept);
  }
}

static void test_every_collective(void **state) {
  comm_mpi_world *w = *state;
  static const size_t counts[] = {0, 1, 37, 20011};
  int failures = 0;
  for (int k = CASE_ALL_REDUCE; k <= CASE_REDUCE_SCATTER; k++) {
    bool reduces = k != CASE_BROADCAST && k != CASE_ALL_GATHER;
    for (size_t d = 0; d < COMM_CASE_DTYPES; d++)
      for (size_t o = 0; o < (reduces ? COMM_CASE_OPS : 1); o++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          for (int in_place = 0; in_place < 2; in_place++)
            failures += comm_case_run(
                &comm_mpi_xccl, w->comm, w->stream, (size_t)comm_mpi_rank,
                (size_t)comm_mpi_nranks, (comm_case_kind)k, comm_case_dtypes[d],
                comm_case_ops[o], counts[c], in_place,
                (d + c) % (size_t)comm_mpi_nranks, NULL);
  }
  assert_int_equal(failures, 0);
}

static void test_ring_and_all_to_all(void **state) {
  comm_mpi_world *w = *state;
  size_t n = (size_t)comm_mpi_nranks, me = (size_t)comm_mpi_rank,
         count = 100003;
  C_Stream s = test_stream_handle(w->stream);
  uint16_t *out = malloc(count * 2), *in = calloc(count, 2);
  for (size_t i = 0; i < count; i++)
    out[i] = (uint16_t)(me * 10000 + i % 9999);
  comm_mpi_post_ring(w, out, in, count, BFLOAT16);
  const void *sends[8];
  void *recvs[8];
  size_t counts[8];
  C_DataType types[8];
  int64_t a2a_out[8][4], a2a_in[8][4];
  for (size_t p = 0; p < n; p++) {
    sends[p] = a2a_out[p];
    recvs[p] = a2a_in[p];
    counts[p] = 4;
    types[p] = INT64;
    for (size_t i = 0; i < 4; i++)
      a2a_out[p][i] = (int64_t)(me * 100 + p * 10 + i);
  }
  assert_int_equal(comm_mpi_xccl.xccl_all_to_all(sends, counts, types, recvs,
                                                 counts, types, me, n, w->comm,
                                                 s),
                   C_SUCCESS);
  char message[512];
  if (settle(w->comm, w->stream, message) != 0)
    fail_msg("rank %zu: %s", me, message);
  size_t from = (me + n - 1) % n;
  for (size_t i = 0; i < count; i++)
    assert_int_equal(in[i], from * 10000 + i % 9999);
  for (size_t p = 0; p < n; p++)
    for (size_t i = 0; i < 4; i++)
      assert_int_equal(a2a_in[p][i], p * 100 + me * 10 + i);
  free(out);
  free(in);
}

/* Float sums whose value depends on the order of the additions (1e8 + 1 is
 * 1e8 in float32): whichever algorithm serves a count, small or not, every
 * rank gets the same bits, and they are one of the sums the order allows. */
static void test_all_reduce_gives_every_rank_the_same_bits(void **state) {
  comm_mpi_world *w = *state;
  /* 16 KiB and just over; 1 MiB (on rails under the hybrid) */
  static const size_t counts[] = {1, 4096, 4097, 262144};
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    size_t count = counts[c];
    float *x = malloc(count * sizeof *x);
    for (size_t i = 0; i < count; i++)
      x[i] = (comm_mpi_rank + (int)i) % 2 == 0 ? 1e8f : 1.0f;
    if (comm_mpi_rank % 4 == 2)
      for (size_t i = 0; i < count; i++)
        x[i] = -x[i];
    assert_int_equal(
        comm_mpi_xccl.xccl_all_reduce(x, x, count, FLOAT32, SUM, w->comm,
                                      test_stream_handle(w->stream)),
        C_SUCCESS);
    char message[512];
    if (settle(w->comm, w->stream, message) != 0)
      fail_msg("rank %d: %s", comm_mpi_rank, message);
    uint32_t *bits = malloc(count * sizeof *bits);
    uint32_t *lowest = malloc(count * sizeof *lowest);
    uint32_t *highest = malloc(count * sizeof *highest);
    memcpy(bits, x, count * sizeof *bits);
    MPI_Allreduce(bits, lowest, (int)count, MPI_UINT32_T, MPI_MIN,
                  MPI_COMM_WORLD);
    MPI_Allreduce(bits, highest, (int)count, MPI_UINT32_T, MPI_MAX,
                  MPI_COMM_WORLD);
    for (size_t i = 0; i < count; i++) {
      if (lowest[i] != highest[i])
        fail_msg("count %zu, element %zu: the ranks hold different sums", count,
                 i);
      /* Each term is +-1e8 or 1: any order gives a whole number of at most
       * the ranks' count in magnitude, or +-1e8 plus a few ones. */
      float v = x[i];
      assert_true(v == (float)(int)v);
    }
    free(bits);
    free(lowest);
    free(highest);
    free(x);
  }
}

/* A small all-reduce's step sends the call words of the ranks its sender
 * stands for (48 bytes each) and the data as one message of at most 4032
 * bytes and the rest as a second (plugins/vcpu_mpi/mpi_all_reduce_small.c,
 * SMALL_FIRST_BYTES; a first message of exactly that size announces a
 * second, then maybe empty): int8 sums whose words and data come to one
 * byte under, exactly at and one over that size, for every number of ranks
 * a message can stand for, are exact. */
static void test_small_all_reduce_across_its_first_message_end(void **state) {
  comm_mpi_world *w = *state;
  const size_t first_message = 4032, words = 48;
  int failures = 0;
  for (size_t ranks = 1; ranks <= (size_t)comm_mpi_nranks; ranks++)
    for (size_t total = first_message - 1; total <= first_message + 1; total++)
      for (int in_place = 0; in_place < 2; in_place++)
        failures += comm_case_run(
            &comm_mpi_xccl, w->comm, w->stream, (size_t)comm_mpi_rank,
            (size_t)comm_mpi_nranks, CASE_ALL_REDUCE, INT8, SUM,
            total - ranks * words, in_place, 0, NULL);
  assert_int_equal(failures, 0);
}

/* A small all-reduce runs on its caller's thread when the stream is idle
 * (plugins/vcpu/comm/caller.h), but never keeps its caller waiting for its
 * peers: here the other ranks make their call only after rank 0 told them,
 * by a message it sends once its own call returned. Rank 0 would otherwise
 * wait for them until the deadline. */
static void test_small_all_reduce_never_holds_its_caller(void **state) {
  comm_mpi_world *w = *state;
  int32_t x[5] = {comm_mpi_rank, 1, 2, 3, 4}, go = 1;
  C_Stream s = test_stream_handle(w->stream);
  test_stream_synchronize(w->stream); /* an idle stream */
  if (comm_mpi_rank != 0)
    MPI_Recv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  assert_int_equal(
      comm_mpi_xccl.xccl_all_reduce(x, x, 5, INT32, SUM, w->comm, s),
      C_SUCCESS);
  if (comm_mpi_rank == 0)
    for (int r = 1; r < comm_mpi_nranks; r++)
      MPI_Send(&go, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
  char message[512];
  if (settle(w->comm, w->stream, message) != 0)
    fail_msg("rank %d: %s", comm_mpi_rank, message);
  int n = comm_mpi_nranks;
  assert_int_equal(x[0], n * (n - 1) / 2);
  for (int i = 1; i < 5; i++)
    assert_int_equal(x[i], i * n);
}

/* Ranks of one host (simulated hosts included: their processor names
 * agree) may run a small all-reduce on the caller's thread; a world over
 * several hosts may not (tests/comm/netns/test_multihost.c). The hybrid's
 * world has no `quick`. */
static void test_small_calls_on_one_host_may_run_on_the_caller(void **state) {
  comm_mpi_world *w = *state;
  const vcpu_comm_world_t *world = w->comm->world;
  vcpu_comm_desc_t one_kib = {
      .kind = VCPU_COMM_ALL_REDUCE, .count = 256, .dtype = FLOAT32, .op = SUM};
  assert_non_null(world->mpi);
  assert_int_equal(world->mpi->quick != NULL &&
                       world->mpi->quick(world->mpi_handle, &one_kib),
                   !vcpu_comm_hybrid_in_use(world));
}

/* Small calls queued back to back, never waited for between them: a rank
 * may run one call ahead of another. Between ranks of one host their
 * messages go through two mailbox slots per pair, by the sequence number's
 * parity (plugins/vcpu_mpi/mpi_mailbox.h), which must never overwrite a
 * message not yet read: every all-reduce (each of its own values) and every
 * broadcast between them (whose call check takes the same slots) ends
 * exact. */
static void test_back_to_back_small_calls_stay_exact(void **state) {
  comm_mpi_world *w = *state;
  enum { CALLS = 48, COUNT = 256 };
  int32_t(*x)[COUNT] = malloc(CALLS * sizeof *x);
  C_Stream s = test_stream_handle(w->stream);
  for (int c = 0; c < CALLS; c++) {
    for (int i = 0; i < COUNT; i++)
      x[c][i] = c % 3 == 2 ? (comm_mpi_rank == 0 ? c * 1000 + i : -1)
                           : c * 1000 + i + comm_mpi_rank;
    C_Status posted =
        c % 3 == 2
            ? comm_mpi_xccl.xccl_broadcast(x[c], COUNT, INT32, 0, w->comm, s)
            : comm_mpi_xccl.xccl_all_reduce(x[c], x[c], COUNT, INT32, SUM,
                                            w->comm, s);
    assert_int_equal(posted, C_SUCCESS);
  }
  char message[512];
  if (settle(w->comm, w->stream, message) != 0)
    fail_msg("rank %d: %s", comm_mpi_rank, message);
  int n = comm_mpi_nranks, wrong = 0;
  for (int c = 0; c < CALLS; c++)
    for (int i = 0; i < COUNT; i++) {
      int32_t expected =
          c % 3 == 2 ? c * 1000 + i : n * (c * 1000 + i) + n * (n - 1) / 2;
      wrong += x[c][i] != expected;
    }
  free(x);
  assert_int_equal(wrong, 0);
}

/* All-reduce over 4 MiB goes in pieces of at most 4 MiB (its scratch
 * buffer's size), broadcast and reduce to Open MPI as several collectives of
 * at most 4 MiB each (a 64 MiB one overflowed a stream worker's stack inside
 * libnbc): every element, on both sides of each cut, still holds its own
 * result. Integer values keep the sums exact. Flat MPI
 * only: the hybrid's leaders run the same code between hosts, and moving
 * 4 MiB through its host segments as well costs CTest 10-20 s. */
static void test_collectives_over_4_mib_are_whole(void **state) {
  comm_mpi_world *w = *state;
  if (vcpu_comm_hybrid_in_use(w->comm->world))
    skip();
  const size_t count = (4u << 20) / sizeof(int32_t) + 37; /* 2 pieces */
  const size_t root = (size_t)comm_mpi_nranks - 1;
  int32_t *x = malloc(count * sizeof *x), *y = malloc(count * sizeof *y);
  assert_non_null(x);
  assert_non_null(y);
  long long ranks = comm_mpi_nranks, rank_sum = ranks * (ranks - 1) / 2;
  char message[512];
  for (int kind = 0; kind < 3; kind++) {
    for (size_t i = 0; i < count; i++)
      x[i] = (int32_t)(i % 1000) + comm_mpi_rank;
    memset(y, 0xff, count * sizeof *y);
    C_Status called =
        kind == 0
            ? comm_mpi_xccl.xccl_all_reduce(x, y, count, INT32, SUM, w->comm,
                                            test_stream_handle(w->stream))
        : kind == 1
            ? comm_mpi_xccl.xccl_broadcast(x, count, INT32, root, w->comm,
                                           test_stream_handle(w->stream))
            : comm_mpi_xccl.xccl_reduce(x, y, count, INT32, SUM, root, w->comm,
                                        test_stream_handle(w->stream));
    assert_int_equal(called, C_SUCCESS);
    if (settle(w->comm, w->stream, message) != 0)
      fail_msg("rank %d, kind %d: %s", comm_mpi_rank, kind, message);
    for (size_t i = 0; i < count; i++) {
      long long base = (long long)(i % 1000), want, got;
      if (kind == 1) {
        want = base + (long long)root;
        got = x[i];
      } else if (kind == 0 || (size_t)comm_mpi_rank == root) {
        want = base * ranks + rank_sum;
        got = y[i];
      } else {
        break; /* a reduce's non-root ranks receive nothing */
      }
      if (got != want)
        fail_msg("rank %d, kind %d, element %zu: %lld, not %lld", comm_mpi_rank,
                 kind, i, got, want);
    }
  }
  free(x);
  free(y);
}

/* This rank's virtual device 1, whose memory holds the cases' buffers
 * (device 1: the group's stream lives on device 0, whose streams
 * vcpu_deinit_device would end). */
static struct C_Device_st rank_device = {.id = 1};

/* Hybrid: on device memory the stages inside a host go single copy through
 * the host's mapped arenas, as ranks of one host do without MPI, and every
 * result stays exact: all_reduce (a reduce and a broadcast inside the host)
 * and broadcast (one stage) out of place and in place, 6 single-copy calls
 * (reduce, into a leader's scratch buffer when the root is not a leader,
 * stays staged; its result is checked too). */
static void test_host_stages_go_single_copy_on_device_memory(void **state) {
  comm_mpi_world *w = *state;
  if (!vcpu_comm_hybrid_in_use(w->comm->world))
    skip();
  /* NULL on a rank alone on its host, which only takes part. */
  C_CCLComm host = vcpu_comm_hybrid_host_comm(w->comm->world);
  static const vcpu_runners_t runners = {.comm_task = vcpu_comm_run_task};
  assert_int_equal(vcpu_initialize(&runners), C_SUCCESS);
  assert_int_equal(vcpu_init_device(&rank_device), C_SUCCESS);
  static const comm_case_kind kinds[] = {CASE_ALL_REDUCE, CASE_BROADCAST,
                                         CASE_REDUCE};
  uint64_t before = host ? atomic_load(&host->single_copy_calls) : 0;
  int failures = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (int in_place = 0; in_place < 2; in_place++)
      failures += comm_case_run(
          &comm_mpi_xccl, w->comm, w->stream, (size_t)comm_mpi_rank,
          (size_t)comm_mpi_nranks, kinds[k], FLOAT32,
          kinds[k] == CASE_REDUCE ? MAX : AVG, 100003, in_place,
          (size_t)comm_mpi_nranks - 1, &rank_device);
  uint64_t single = host ? atomic_load(&host->single_copy_calls) - before : 6;
  vcpu_deinit_device(&rank_device);
  vcpu_finalize();
  assert_int_equal(failures, 0);
  assert_int_equal(single, 6);
}

/* Hybrid with every host holding as many ranks: an all_reduce of at least
 * 1 MiB whose count the ranks per host divide runs on rails (a
 * reduce_scatter inside each host, each slice's all_reduce among the ranks
 * at its place over MPI, an all_gather); one element more goes through the
 * host leaders. Both exact, in place and not, sum and average, on host
 * memory and on device memory (single copy inside the host). */
static void test_large_all_reduce_on_rails_and_through_leaders(void **state) {
  comm_mpi_world *w = *state;
  if (!vcpu_comm_hybrid_in_use(w->comm->world))
    skip();
  bool even = comm_mpi_nranks % 2 == 0; /* 2 ranks on every host */
  static const vcpu_runners_t runners = {.comm_task = vcpu_comm_run_task};
  assert_int_equal(vcpu_initialize(&runners), C_SUCCESS);
  assert_int_equal(vcpu_init_device(&rank_device), C_SUCCESS);
  int failures = 0;
  static const size_t counts[] = {262144, 262145}; /* 1 MiB of float32 */
  for (size_t c = 0; c < 2; c++) {
    vcpu_comm_desc_t d = {.kind = VCPU_COMM_ALL_REDUCE,
                          .count = counts[c],
                          .dtype = FLOAT32,
                          .op = SUM};
    assert_int_equal(vcpu_comm_hybrid_on_rails(w->comm->world, &d),
                     even && c == 0);
    for (int in_place = 0; in_place < 2; in_place++)
      for (int on_device = 0; on_device < 2; on_device++)
        for (int avg = 0; avg < 2; avg++)
          failures += comm_case_run(
              &comm_mpi_xccl, w->comm, w->stream, (size_t)comm_mpi_rank,
              (size_t)comm_mpi_nranks, CASE_ALL_REDUCE, FLOAT32,
              avg ? AVG : SUM, counts[c], in_place, 0,
              on_device ? &rank_device : NULL);
  }
  vcpu_deinit_device(&rank_device);
  vcpu_finalize();
  assert_int_equal(failures, 0);
}

/* Mismatched calls at one sequence number, each on a communicator of its
 * own (a mismatch poisons it): every rank fails naming the mismatch, small
 * or not, whether the odd rank leads its host or not, for a broadcast whose
 * root differs, and for a broadcast against an all_reduce (over MPI each
 * collective's first message carries the call, so neither side waits for
 * the other's data until the deadline). Under the hybrid the calls are
 * checked without a message of their own (plugins/vcpu/comm/hybrid.h): the
 * host's ranks at their first meeting, the leaders beside their data, and a
 * leader whose host disagreed still tells the other hosts. */
static void test_mismatch_is_detected(void **state) {
  (void)state;
  const int last = comm_mpi_nranks - 1;
  const struct {
    const char *what;
    int odd_rank;
    bool broadcast, odd_broadcast;
    size_t count, odd_count;
    C_CCLReduceOp odd_op;
  } cases[] = {
      {"rank 0 asks for max", 0, false, false, 3, 3, MAX},
      {"the last rank asks for max", last, false, false, 3, 3, MAX},
      {"rank 0 asks for max, 32 KiB", 0, false, false, 8192, 8192, MAX},
      {"the last rank asks for max, 32 KiB", last, false, false, 8192, 8192,
       MAX},
      /* Larger all-reduces take what a partner sends into a buffer of
       * their own until the calls are known to agree. */
      {"rank 0 sends one more, 32 KiB", 0, false, false, 8192, 8193, SUM},
      {"the last rank sends 3 KiB less, 32 KiB", last, false, false, 8192, 7424,
       SUM},
      {"the last rank's broadcast has root 1", last, true, true, 3, 3, SUM},
      {"rank 0 broadcasts, the others all_reduce", 0, false, true, 3, 3, SUM},
      {"the last rank broadcasts, the others all_reduce", last, false, true,
       1000, 1000, SUM},
      /* An all-reduce over 16 KiB runs the others' call check beside its
       * own messages: against any other call it names the mismatch
       * instead of waiting for data that never comes. */
      {"the last rank broadcasts 32 KiB, the others all_reduce 32 KiB", last,
       false, true, 8192, 8192, SUM},
      {"rank 0 broadcasts 32 KiB, the others all_reduce 32 KiB", 0, false, true,
       8192, 8192, SUM},
      {"the last rank all_reduces 3 KiB, the others 32 KiB", last, false, false,
       8192, 768, SUM},
      {"rank 0 all_reduces 32 KiB, the others 3 KiB", 0, false, false, 768,
       8192, SUM},
      /* Under the hybrid a 1 MiB all_reduce runs on rails (every rank over
       * MPI): the others learn of the last host's disagreement from their
       * leaders, who stop their host's ranks and relay the mismatch. */
      {"the last rank broadcasts 1 MiB, the others all_reduce 1 MiB", last,
       false, true, 262144, 262144, SUM},
      {"rank 0 broadcasts 1 MiB, the others all_reduce 1 MiB", 0, false, true,
       262144, 262144, SUM},
  };
  float *x = calloc(262144, sizeof *x);
  assert_non_null(x);
  /* The first failure, reported once every rank has passed every case's
   * barrier: a rank leaving at its failure would hold the others there. */
  char failure[768] = "";
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vcpu_comm_unique_id_t id;
    C_CCLComm comm = comm_mpi_join(&id);
    bool hybrid = vcpu_comm_hybrid_in_use(comm->world);
    test_stream *stream = test_stream_create();
    bool odd = comm_mpi_rank == cases[i].odd_rank;
    bool broadcast = odd ? cases[i].odd_broadcast : cases[i].broadcast;
    C_Stream s = test_stream_handle(stream);
    C_Status posted = broadcast
                          ? comm_mpi_xccl.xccl_broadcast(
                                x, cases[i].count, FLOAT32,
                                odd && cases[i].broadcast ? 1 : 0, comm, s)
                          : comm_mpi_xccl.xccl_all_reduce(
                                x, x, odd ? cases[i].odd_count : cases[i].count,
                                FLOAT32, odd ? cases[i].odd_op : SUM, comm, s);
    assert_int_equal(posted, C_SUCCESS);
    char message[512];
    int32_t settled = settle(comm, stream, message);
    test_stream_destroy(stream);
    comm_mpi_xccl.xccl_destroy_comm(comm);
    bool named = settled == BP_COMM_EXT_INVALID_USAGE &&
                 strstr(message, "mismatched collectives") != NULL;
    /* Rank 0's own call and the others' named beside each other. */
    if (i == 0)
      named = named &&
              strstr(message, "all_reduce(count=3, float32, sum)") != NULL &&
              strstr(message, "all_reduce(count=3, float32, max)") != NULL;
    /* Over MPI every rank names both calls; under the hybrid a host
     * whose ranks agree learns only that another host's disagreed. */
    if (cases[i].odd_broadcast != cases[i].broadcast && !hybrid)
      named = named && strstr(message, "broadcast(") != NULL &&
              strstr(message, "all_reduce(") != NULL;
    if (!named && failure[0] == '\0')
      snprintf(failure, sizeof failure, "rank %d, %s: status %d: %s",
               comm_mpi_rank, cases[i].what, (int)settled, message);
    /* A host's ranks may fail while another host's are still joining
     * their host world (its name goes once they all joined). */
    MPI_Barrier(MPI_COMM_WORLD);
    assert_int_equal(
        comm_test_count_world_segments(&id, (size_t)comm_mpi_nranks), 0);
  }
  free(x);
  if (failure[0] != '\0')
    fail_msg("%s", failure);
}

/* Kernel channels (kernel_ext.h) map peers' device memory through this
 * host's shared memory: an MPI world, whose ranks may be on other hosts, is
 * refused with the reason. */
static void test_kernel_channels_are_refused(void **state) {
  comm_mpi_world *w = *state;
  struct C_Device_st device = {0};
  float local[4];
  bp_kernel_resources_t resources;
  assert_int_equal(vk_comm_kernel_resources(&device, w->comm, "p2p", local,
                                            sizeof local, &resources),
                   C_ERROR);
  if (strstr(vk_last_error(), "runs over MPI") == NULL)
    fail_msg("rank %d: %s", comm_mpi_rank, vk_last_error());
}

/* A write to a peer whose end is gone (Open MPI's TCP transport writing to
 * a host that died) fails with EPIPE instead of ending the process by
 * SIGPIPE, so the rank can report the lost peer (comm.multihost_kill_host_*:
 * a host leader died silently mid-call). */
static void test_a_write_to_a_lost_peer_fails_not_the_process(void **state) {
  (void)state;
  int ends[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0);
  close(ends[1]);
  char byte = 1;
  errno = 0;
  assert_int_equal(write(ends[0], &byte, 1), -1);
  assert_int_equal(errno, EPIPE);
  close(ends[0]);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transport),
      cmocka_unit_test(test_bad_settings_are_refused),
      cmocka_unit_test(test_every_collective),
      cmocka_unit_test(test_ring_and_all_to_all),
      cmocka_unit_test(test_all_reduce_gives_every_rank_the_same_bits),
      cmocka_unit_test(test_small_all_reduce_across_its_first_message_end),
      cmocka_unit_test(test_small_all_reduce_never_holds_its_caller),
      cmocka_unit_test(test_small_calls_on_one_host_may_run_on_the_caller),
      cmocka_unit_test(test_back_to_back_small_calls_stay_exact),
      cmocka_unit_test(test_collectives_over_4_mib_are_whole),
      cmocka_unit_test(test_host_stages_go_single_copy_on_device_memory),
      cmocka_unit_test(test_large_all_reduce_on_rails_and_through_leaders),
      cmocka_unit_test(test_mismatch_is_detected),
      cmocka_unit_test(test_kernel_channels_are_refused),
      cmocka_unit_test(test_a_write_to_a_lost_peer_fails_not_the_process),
  };
  return comm_mpi_fixture_main(argc, argv, tests, sizeof tests / sizeof *tests,
                               true);
}
