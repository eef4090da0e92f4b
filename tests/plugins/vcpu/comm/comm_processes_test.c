/* vcpu collectives with ranks in separate processes (fork) on one host,
 * through the POSIX shared-memory world segment: every collective, op, type,
 * in-place and out-of-place, counts 0, 1, odd and several staging rounds,
 * with 2, 3 and 4 ranks; send/recv and all_to_all across processes; and the
 * failures: a peer killed with SIGKILL mid-all_reduce with 2, 3 and 4
 * ranks (BP_COMM_EXT_PEER_LOST in well under a second), a live peer that
 * never calls (the deadline), a peer that never joins, a peer killed before
 * every rank joined, a creator killed while alone, a wrong secret, mismatched
 * calls. Nothing may be left in /dev/shm: every test checks its world's
 * segments are gone, and its teardown kills the rank processes still running
 * and removes what a failed test left. Runs with
 * BACKPLANE_COMM_SHM_SLOT_BYTES=131072 so large counts take several rounds, and
 * BACKPLANE_COMM_TIMEOUT_MS=1000 for the failure tests (the correctness tests'
 * ranks raise it, see join_patiently). */
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/comm.h"
#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_reference.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/comm_test_streams.h"
#include "plugins/vcpu/comm/id.h"
#include "plugins/vcpu/comm/interface.h"
#include "plugins/vcpu/comm/ops.h"
#include "plugins/vcpu/device.h"
#include "plugins/vcpu/lifetime.h"
#include "plugins/vcpu/memory.h"

enum { MAX_RANKS = 4 };

static C_DeviceInterface xccl;

/* What a rank process gets. */
typedef struct rank_env {
  size_t rank, n;
  C_CCLRootId *id;
  C_CCLComm comm;
  test_stream *stream;
  int pipe_in;  /* read end of a pipe from the test, or -1 */
  int pipe_out; /* write end of a pipe to the test, or -1 */
} rank_env;

typedef int (*rank_main_fn)(rank_env *env);

/* The current test's rank processes not yet reaped, and the last world it
 * made, for the teardown. */
enum { MAX_CHILDREN = 16 };
static pid_t children[MAX_CHILDREN];
static char last_world_bytes[128];
static C_CCLRootId last_world = {0, NULL};

static void new_id(char bytes[128], C_CCLRootId *id) {
  *id = (C_CCLRootId){128, bytes};
  assert_int_equal(xccl.xccl_get_unique_id(id), C_SUCCESS);
  memcpy(last_world_bytes, bytes, sizeof last_world_bytes);
  last_world = (C_CCLRootId){128, last_world_bytes};
}

static int join(rank_env *env) {
  if (xccl.xccl_comm_init_rank(env->n, env->id, env->rank, &env->comm) !=
      C_SUCCESS) {
    fprintf(stderr, "rank %zu: init failed: %s\n", env->rank,
            vcpu_comm_last_error());
    return 1;
  }
  env->stream = test_stream_create();
  return env->stream ? 0 : 1;
}

/* join() for ranks whose calls must succeed: with a deadline far beyond the
 * failure tests' 1000 ms, so a rank starved of CPU on a loaded machine is
 * late, not failed. */
static int join_patiently(rank_env *env) {
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "60000", 1);
  return join(env);
}

static void leave(rank_env *env) {
  test_stream_destroy(env->stream);
  xccl.xccl_destroy_comm(env->comm);
}

static pid_t spawn(rank_main_fn fn, rank_env env) {
  fflush(NULL); /* nothing buffered here is printed again by the child */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(fn(&env));
  for (size_t c = 0; c < MAX_CHILDREN; c++) {
    if (children[c] == 0) {
      children[c] = pid;
      return pid;
    }
  }
  kill(pid, SIGKILL);
  fail_msg("more than %d rank processes in one test", MAX_CHILDREN);
  return pid;
}

static void forget_child(pid_t pid) {
  for (size_t c = 0; c < MAX_CHILDREN; c++)
    if (children[c] == pid)
      children[c] = 0;
}

static int exit_code(pid_t pid) {
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  forget_child(pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Reads the `size` bytes rank process `writer` sends the test through `fd`.
 * Fails the test, naming the process, when it ends before writing them:
 * siblings forked later hold the pipe's write end too, so a plain read would
 * wait for them instead of seeing end-of-file. */
static void read_from_rank(pid_t writer, int fd, void *buffer, size_t size) {
  size_t got = 0;
  while (got < size) {
    struct pollfd ready = {.fd = fd, .events = POLLIN};
    if (poll(&ready, 1, 100) > 0) {
      ssize_t n = read(fd, (char *)buffer + got, size - got);
      if (n <= 0)
        fail_msg("rank process %d: its pipe closed after %zu of %zu bytes",
                 (int)writer, got, size);
      got += (size_t)n;
      continue;
    }
    siginfo_t ended = {0};
    if (waitid(P_PID, (id_t)writer, &ended, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        ended.si_pid == writer && poll(&ready, 1, 0) == 0)
      fail_msg("rank process %d ended (%s %d) before writing to the test",
               (int)writer,
               ended.si_code == CLD_EXITED ? "exit code" : "signal",
               ended.si_status);
  }
}

static void expect_no_segment(const C_CCLRootId *id) {
  comm_test_expect_no_segment(id);
}

/* Runs fn as every rank of an n-rank world, each in its own process, and
 * expects every one to exit 0. */
static void run_world(size_t n, rank_main_fn fn) {
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  pid_t pids[MAX_RANKS];
  for (size_t r = 0; r < n; r++)
    pids[r] = spawn(fn, (rank_env){r, n, &id, NULL, NULL, -1, -1});
  for (size_t r = 0; r < n; r++) {
    int code = exit_code(pids[r]);
    if (code != 0)
      fail_msg("%zu ranks: rank %zu exited with %d", n, r, code);
  }
  expect_no_segment(&id);
}

/* ---- correctness -------------------------------------------------------- */

static int every_collective(rank_env *env) {
  if (join_patiently(env) != 0)
    return 1;
  int failures = 0;
  static const size_t counts[] = {0, 1, 37, 33333};
  for (int k = CASE_ALL_REDUCE; k <= CASE_REDUCE_SCATTER && !failures; k++) {
    bool reduces = k != CASE_BROADCAST && k != CASE_ALL_GATHER;
    size_t op_count = reduces ? COMM_CASE_OPS : 1;
    for (size_t d = 0; d < COMM_CASE_DTYPES; d++)
      for (size_t o = 0; o < op_count; o++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++)
          for (int in_place = 0; in_place < 2; in_place++)
            failures += comm_case_run(
                &xccl, env->comm, env->stream, env->rank, env->n,
                (comm_case_kind)k, comm_case_dtypes[d], comm_case_ops[o],
                counts[c], in_place, (d + c) % env->n, NULL);
  }
  leave(env);
  return failures != 0;
}

static void test_every_collective(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    run_world(n, every_collective);
}

/* The rank's virtual device, whose memory holds the cases' buffers. */
static struct C_Device_st rank_device = {0};

/* Every collective on device memory, large enough for the single-copy path
 * through the peers' mapped arenas; then checks that path was taken. */
static int single_copy_collectives(rank_env *env) {
  static const vcpu_runners_t runners = {.comm_task = vcpu_comm_run_task};
  if (vcpu_initialize(&runners) != C_SUCCESS ||
      vcpu_init_device(&rank_device) != C_SUCCESS || join_patiently(env) != 0)
    return 1;
  int failures = 0;
  for (int k = CASE_ALL_REDUCE; k <= CASE_REDUCE_SCATTER; k++)
    for (int in_place = 0; in_place < 2; in_place++)
      failures += comm_case_run(&xccl, env->comm, env->stream, env->rank,
                                env->n, (comm_case_kind)k, FLOAT32,
                                k == CASE_REDUCE ? MAX : AVG, 100003, in_place,
                                env->n - 1, &rank_device);
  uint64_t single = atomic_load(&env->comm->single_copy_calls);
  if (single != 10) {
    fprintf(stderr, "rank %zu: %llu of 10 collectives went single-copy\n",
            env->rank, (unsigned long long)single);
    failures++;
  }
  leave(env);
  vcpu_deinit_device(&rank_device);
  vcpu_finalize();
  return failures != 0;
}

static void test_single_copy_through_device_arenas(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    run_world(n, single_copy_collectives);
}

/* A ring shift of a message bigger than a pair's staging buffer, then an
 * all_to_all with counts that differ per pair, each as one group. */
static int p2p_exchange(rank_env *env) {
  if (join_patiently(env) != 0)
    return 1;
  size_t n = env->n, me = env->rank, count = 300007;
  C_Stream s = test_stream_handle(env->stream);
  int32_t *out = malloc(count * sizeof *out), *in = malloc(count * sizeof *in);
  for (size_t i = 0; i < count; i++)
    out[i] = (int32_t)(me * 1000000 + i);
  xccl.xccl_group_start();
  xccl.xccl_send(out, count, INT32, (me + 1) % n, env->comm, s);
  xccl.xccl_recv(in, count, INT32, (me + n - 1) % n, env->comm, s);
  xccl.xccl_group_end();
  const void *sends[MAX_RANKS];
  void *recvs[MAX_RANKS];
  size_t send_counts[MAX_RANKS], recv_counts[MAX_RANKS];
  C_DataType types[MAX_RANKS] = {FLOAT64, FLOAT64, FLOAT64, FLOAT64};
  double *a2a_out = malloc(100 * n * sizeof(double));
  double *a2a_in = calloc(100 * n, sizeof(double));
  for (size_t p = 0; p < n; p++) {
    send_counts[p] = 10 * (me + p + 1);
    recv_counts[p] = 10 * (p + me + 1);
    sends[p] = a2a_out + 100 * p;
    recvs[p] = a2a_in + 100 * p;
    for (size_t i = 0; i < send_counts[p]; i++)
      a2a_out[100 * p + i] = (double)(me * 10 + p) + 0.5;
  }
  xccl.xccl_all_to_all(sends, send_counts, types, recvs, recv_counts, types, me,
                       n, env->comm, s);
  char message[512];
  int failures = settle(env->comm, env->stream, message) != 0;
  if (failures)
    fprintf(stderr, "rank %zu: %s\n", me, message);
  size_t from = (me + n - 1) % n;
  for (size_t i = 0; i < count && !failures; i++)
    failures = in[i] != (int32_t)(from * 1000000 + i);
  for (size_t p = 0; p < n && !failures; p++)
    for (size_t i = 0; i < recv_counts[p]; i++)
      failures |= a2a_in[100 * p + i] != (double)(p * 10 + me) + 0.5;
  free(out);
  free(in);
  free(a2a_out);
  free(a2a_in);
  leave(env);
  return failures;
}

static void test_send_recv_and_all_to_all(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    run_world(n, p2p_exchange);
}

/* ---- failures ------------------------------------------------------------ */

static int expect_status(rank_env *env, int32_t want, const char *part) {
  char message[512];
  int32_t status = settle(env->comm, env->stream, message);
  if (status == want && strstr(message, part) != NULL)
    return 0;
  fprintf(stderr,
          "rank %zu: status %d (want %d), message \"%s\" lacks \"%s\"\n",
          env->rank, (int)status, (int)want, message, part);
  return 1;
}

static void signal_test(rank_env *env) {
  char byte = 1;
  if (write(env->pipe_out, &byte, 1) != 1)
    _exit(3);
}

static void wait_for_test(rank_env *env) {
  char byte;
  if (read(env->pipe_in, &byte, 1) != 1)
    _exit(4);
}

/* Joins, tells the test, and sleeps until killed. */
static int joins_then_sleeps(rank_env *env) {
  if (join(env) != 0)
    return 1;
  signal_test(env);
  for (;;)
    pause();
}

/* What a survivor of a killed peer tells the test. */
typedef struct survivor_report {
  int32_t status;        /* the communicator's, BP_CommExtStatus */
  uint64_t detected_ns;  /* CLOCK_MONOTONIC when its all_reduce ended */
  int32_t later_refused; /* a later all_reduce failed at once, saying why */
  char message[512];
} survivor_report;

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The last rank: one all_reduce, then tells the test and sleeps until
 * killed. */
static int victim(rank_env *env) {
  if (join_patiently(env) != 0)
    return 1;
  float x[8] = {1};
  xccl.xccl_all_reduce(x, x, 8, FLOAT32, SUM, env->comm,
                       test_stream_handle(env->stream));
  char message[512];
  if (settle(env->comm, env->stream, message) != 0)
    return 1;
  signal_test(env);
  for (;;)
    pause();
}

/* The other ranks: one all_reduce, then a second one during which the last
 * rank is killed, then a third on the failed communicator; reports how the
 * second ended, and when, to the test. The deadline is a minute away, so
 * only the death can end the second call within the test's bound. */
static int survivor(rank_env *env) {
  if (join_patiently(env) != 0)
    return 1;
  float x[8] = {1};
  C_Stream s = test_stream_handle(env->stream);
  xccl.xccl_all_reduce(x, x, 8, FLOAT32, SUM, env->comm, s);
  survivor_report report = {0};
  if (settle(env->comm, env->stream, report.message) != 0 ||
      x[0] != (float)env->n)
    return 1;
  signal_test(env);
  wait_for_test(env); /* every rank is done with the first one */
  xccl.xccl_all_reduce(x, x, 8, FLOAT32, SUM, env->comm, s);
  signal_test(env); /* the test kills the last rank now */
  report.status = settle(env->comm, env->stream, report.message);
  report.detected_ns = monotonic_ns();
  report.later_refused =
      xccl.xccl_all_reduce(x, x, 8, FLOAT32, SUM, env->comm, s) != C_SUCCESS &&
      strstr(vcpu_comm_last_error(), "peer lost") != NULL;
  test_stream_synchronize(env->stream);
  if (write(env->pipe_out, &report, sizeof report) != (ssize_t)sizeof report)
    return 3;
  leave(env);
  return 0;
}

/* n ranks, one process each; the last is SIGKILLed while the others wait
 * for it in an all_reduce: they must fail with BP_COMM_EXT_PEER_LOST naming
 * it and its pid, well before the deadline (within 100 ms by design; the
 * bound asserted is 1 s for loaded machines, the figure is printed). The
 * victim is reaped only afterwards: an unreaped zombie is dead too. */
static void peer_killed_mid_all_reduce(size_t n) {
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  int to[MAX_RANKS][2], from[MAX_RANKS][2], from_victim[2];
  assert_int_equal(pipe(from_victim), 0);
  pid_t victim_pid =
      spawn(victim, (rank_env){n - 1, n, &id, NULL, NULL, -1, from_victim[1]});
  pid_t pids[MAX_RANKS];
  for (size_t r = 0; r + 1 < n; r++) {
    assert_int_equal(pipe(to[r]), 0);
    assert_int_equal(pipe(from[r]), 0);
    pids[r] = spawn(survivor,
                    (rank_env){r, n, &id, NULL, NULL, to[r][0], from[r][1]});
  }
  char byte;
  read_from_rank(victim_pid, from_victim[0], &byte, 1);
  for (size_t r = 0; r + 1 < n; r++)
    read_from_rank(pids[r], from[r][0], &byte, 1);
  for (size_t r = 0; r + 1 < n; r++)
    assert_int_equal(write(to[r][1], &byte, 1), 1);
  for (size_t r = 0; r + 1 < n; r++)
    read_from_rank(pids[r], from[r][0], &byte, 1);
  uint64_t killed_ns = monotonic_ns();
  assert_int_equal(kill(victim_pid, SIGKILL), 0);
  char named[64];
  snprintf(named, sizeof named, "peer lost: rank %zu (pid %d)", n - 1,
           (int)victim_pid);
  for (size_t r = 0; r + 1 < n; r++) {
    survivor_report report;
    read_from_rank(pids[r], from[r][0], &report, sizeof report);
    double ms = (double)(report.detected_ns - killed_ns) / 1e6;
    printf("%zu processes: rank %zu saw rank %zu's death after %.2f ms\n", n, r,
           n - 1, ms);
    if (report.status != BP_COMM_EXT_PEER_LOST ||
        !strstr(report.message, named))
      fail_msg("rank %zu: status %d (want %d), \"%s\" lacks \"%s\"", r,
               (int)report.status, (int)BP_COMM_EXT_PEER_LOST, report.message,
               named);
    assert_true(report.detected_ns > killed_ns);
    assert_true(ms < 1000.0);
    assert_true(report.later_refused);
  }
  for (size_t r = 0; r + 1 < n; r++)
    assert_int_equal(exit_code(pids[r]), 0);
  assert_int_equal(exit_code(victim_pid), 128 + SIGKILL);
  expect_no_segment(&id);
  for (int i = 0; i < 2; i++) {
    close(from_victim[i]);
    for (size_t r = 0; r + 1 < n; r++) {
      close(to[r][i]);
      close(from[r][i]);
    }
  }
}

static void test_peer_killed_mid_all_reduce(void **state) {
  (void)state;
  for (size_t n = 2; n <= MAX_RANKS; n++)
    peer_killed_mid_all_reduce(n);
}

/* Rank 0 of 2: a broadcast its live peer never calls. */
static int waits_for_a_live_peer(rank_env *env) {
  if (join(env) != 0)
    return 1;
  wait_for_test(env); /* the peer has joined */
  int64_t x = 5;
  xccl.xccl_broadcast(&x, 1, INT64, 0, env->comm,
                      test_stream_handle(env->stream));
  int failures = expect_status(env, BP_COMM_EXT_TIMEOUT,
                               "rank 1 has not called any collective");
  leave(env);
  return failures;
}

/* A peer that is alive but never calls is caught by the deadline, not taken
 * for dead. */
static void test_live_but_hung_peer_times_out(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  int to_waiter[2], from_peer[2];
  assert_int_equal(pipe(to_waiter), 0);
  assert_int_equal(pipe(from_peer), 0);
  pid_t waiter = spawn(waits_for_a_live_peer,
                       (rank_env){0, 2, &id, NULL, NULL, to_waiter[0], -1});
  pid_t peer = spawn(joins_then_sleeps,
                     (rank_env){1, 2, &id, NULL, NULL, -1, from_peer[1]});
  char byte;
  read_from_rank(peer, from_peer[0], &byte, 1);
  assert_int_equal(write(to_waiter[1], &byte, 1), 1);
  assert_int_equal(exit_code(waiter), 0);
  assert_int_equal(kill(peer, SIGKILL), 0);
  assert_int_equal(exit_code(peer), 128 + SIGKILL);
  expect_no_segment(&id);
  for (int i = 0; i < 2; i++) {
    close(to_waiter[i]);
    close(from_peer[i]);
  }
}

static int lonely(rank_env *env) {
  if (join(env) != 0)
    return 1;
  int64_t x = 5;
  xccl.xccl_broadcast(&x, 1, INT64, 0, env->comm,
                      test_stream_handle(env->stream));
  int failures = expect_status(env, BP_COMM_EXT_TIMEOUT, "rank 1 never joined");
  leave(env);
  return failures;
}

static void test_peer_never_joins(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  pid_t pid = spawn(lonely, (rank_env){0, 2, &id, NULL, NULL, -1, -1});
  assert_int_equal(exit_code(pid), 0);
  expect_no_segment(&id);
}

/* Rank 0 joins, tells the test, and waits until the forger has been
 * refused. */
static int host_rank(rank_env *env) {
  if (join(env) != 0)
    return 1;
  signal_test(env);
  wait_for_test(env);
  leave(env);
  return 0;
}

static int forger(rank_env *env) {
  C_CCLComm comm = NULL;
  if (xccl.xccl_comm_init_rank(env->n, env->id, env->rank, &comm) != C_ERROR ||
      comm != NULL)
    return 1;
  if (strstr(vcpu_comm_last_error(), "wrong secret") == NULL) {
    fprintf(stderr, "forger: %s\n", vcpu_comm_last_error());
    return 1;
  }
  return 0;
}

static void test_wrong_secret_is_refused(void **state) {
  (void)state;
  char bytes[128], forged_bytes[128];
  C_CCLRootId id, forged_id = {128, forged_bytes};
  new_id(bytes, &id);
  memcpy(forged_bytes, bytes, sizeof forged_bytes);
  ((vcpu_comm_unique_id_t *)(void *)forged_bytes)->secret ^= 0x77;
  int to_host[2], from_host[2];
  assert_int_equal(pipe(to_host), 0);
  assert_int_equal(pipe(from_host), 0);
  pid_t host = spawn(
      host_rank, (rank_env){0, 2, &id, NULL, NULL, to_host[0], from_host[1]});
  char byte;
  read_from_rank(host, from_host[0], &byte, 1);
  pid_t forger_pid =
      spawn(forger, (rank_env){1, 2, &forged_id, NULL, NULL, -1, -1});
  assert_int_equal(exit_code(forger_pid), 0);
  assert_int_equal(write(to_host[1], &byte, 1), 1);
  assert_int_equal(exit_code(host), 0);
  expect_no_segment(&id);
  for (int i = 0; i < 2; i++) {
    close(to_host[i]);
    close(from_host[i]);
  }
}

/* Rank 0 of 3: joins, tells the test, and once told (rank 1 has joined and
 * been killed, rank 2 never comes) waits for its peers: rank 1 is lost. */
static int joins_then_waits(rank_env *env) {
  if (join(env) != 0)
    return 1;
  signal_test(env);
  wait_for_test(env);
  int64_t x = 5;
  xccl.xccl_broadcast(&x, 1, INT64, 0, env->comm,
                      test_stream_handle(env->stream));
  int failures =
      expect_status(env, BP_COMM_EXT_PEER_LOST, "peer lost: rank 1 (pid");
  leave(env);
  return failures;
}

static void test_peer_killed_before_all_joined(void **state) {
  (void)state;
  char bytes[128];
  C_CCLRootId id;
  new_id(bytes, &id);
  int to_waiter[2], from_waiter[2], from_victim[2];
  assert_int_equal(pipe(to_waiter), 0);
  assert_int_equal(pipe(from_waiter), 0);
  assert_int_equal(pipe(from_victim), 0);
  pid_t waiter =
      spawn(joins_then_waits,
            (rank_env){0, 3, &id, NULL, NULL, to_waiter[0], from_waiter[1]});
  char byte;
  read_from_rank(waiter, from_waiter[0], &byte, 1);
  pid_t victim_pid = spawn(
      joins_then_sleeps, (rank_env){1, 3, &id, NULL, NULL, -1, from_victim[1]});
  read_from_rank(victim_pid, from_victim[0], &byte, 1);
  assert_int_equal(kill(victim_pid, SIGKILL), 0);
  assert_int_equal(exit_code(victim_pid), 128 + SIGKILL);
  assert_int_equal(write(to_waiter[1], &byte, 1), 1);
  assert_int_equal(exit_code(waiter), 0);
  expect_no_segment(&id);
  for (int i = 0; i < 2; i++) {
    close(to_waiter[i]);
    close(from_waiter[i]);
    close(from_victim[i]);
  }
}

/* A world of one rank: joins and leaves. */
static int alone(rank_env *env) {
  if (join(env) != 0)
    return 1;
  leave(env);
  return 0;
}

/* The creator of a world is killed before any peer joins, and none ever
 * does: its segment is an orphan, removed when the next world is made. */
static void test_creator_killed_while_alone(void **state) {
  (void)state;
  char bytes[128], other_bytes[128];
  C_CCLRootId id, other;
  new_id(bytes, &id);
  int from_creator[2];
  assert_int_equal(pipe(from_creator), 0);
  pid_t creator = spawn(joins_then_sleeps,
                        (rank_env){0, 2, &id, NULL, NULL, -1, from_creator[1]});
  char byte;
  read_from_rank(creator, from_creator[0], &byte, 1);
  assert_int_equal(kill(creator, SIGKILL), 0);
  assert_int_equal(exit_code(creator), 128 + SIGKILL);
  size_t orphans = comm_test_count_segments(&id);
  assert_int_equal(orphans, 1); /* the name is there, nobody holds it */
  new_id(other_bytes, &other);
  pid_t next = spawn(alone, (rank_env){0, 1, &other, NULL, NULL, -1, -1});
  assert_int_equal(exit_code(next), 0);
  expect_no_segment(&id);
  expect_no_segment(&other);
  for (int i = 0; i < 2; i++)
    close(from_creator[i]);
}

static int mismatched(rank_env *env) {
  if (join(env) != 0)
    return 1;
  double x[4] = {1, 2, 3, 4};
  xccl.xccl_all_reduce(x, x, 4, FLOAT64, env->rank == 0 ? SUM : MAX, env->comm,
                       test_stream_handle(env->stream));
  int failures = expect_status(env, BP_COMM_EXT_INVALID_USAGE,
                               "mismatched collectives at sequence 1");
  leave(env);
  return failures;
}

static void test_mismatched_collectives(void **state) {
  (void)state;
  run_world(2, mismatched);
}

static int setup(void **state) {
  (void)state;
  vcpu_comm_fill_interface(&xccl);
  return 0;
}

/* Kills the rank processes a failed test left running, then removes its
 * last world's segments; fails if there were any. */
static int teardown(void **state) {
  (void)state;
  for (size_t c = 0; c < MAX_CHILDREN; c++) {
    if (children[c] != 0) {
      kill(children[c], SIGKILL);
      waitpid(children[c], NULL, 0);
      children[c] = 0;
    }
  }
  size_t left = last_world.data ? comm_test_remove_segments(&last_world) : 0;
  last_world = (C_CCLRootId){0, NULL};
  return left == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_every_collective, teardown),
      cmocka_unit_test_teardown(test_single_copy_through_device_arenas,
                                teardown),
      cmocka_unit_test_teardown(test_send_recv_and_all_to_all, teardown),
      cmocka_unit_test_teardown(test_peer_killed_mid_all_reduce, teardown),
      cmocka_unit_test_teardown(test_peer_never_joins, teardown),
      cmocka_unit_test_teardown(test_peer_killed_before_all_joined, teardown),
      cmocka_unit_test_teardown(test_live_but_hung_peer_times_out, teardown),
      cmocka_unit_test_teardown(test_creator_killed_while_alone, teardown),
      cmocka_unit_test_teardown(test_wrong_secret_is_refused, teardown),
      cmocka_unit_test_teardown(test_mismatched_collectives, teardown),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
