/* Failures under mpirun, over MPI and (with BACKPLANE_COMM_RANKS_PER_HOST)
 * on the hybrid transport:
 * - abort: the last rank never calls an all_reduce and rank 0 aborts its
 *   communicator while waiting in it. Rank 0 (and, hybrid, the ranks of its
 *   host, which share its abort flag) end with BP_ERR_ABORTED, the others
 *   with BP_ERR_TIMEOUT.
 * - a peer killed mid-all_reduce: the last rank enqueues a large all_reduce,
 *   tells the others over MPI and SIGKILLs itself while it is in flight; the
 *   others then join that all_reduce and must end it with BP_ERR_TIMEOUT,
 *   except (hybrid) the ranks of its host, whose shared-memory world sees
 *   the process die: BP_ERR_PEER_LOST naming it.
 * Every failure message names the communicator, the operation and its
 * sequence number, and no segment of the world (or of its hosts) may be left
 * in /dev/shm. mpirun must run with --enable-recovery --mca
 * orte_abort_on_non_zero_status 0, or it ends the whole job when a rank dies.
 *
 * Each survivor runs the cmocka tests, prints "survivor rank R: PASS" or
 * "survivor rank R: FAIL", and _exits without MPI_Finalize (which would wait
 * for the dead rank). mpi_failures_check.cmake counts the PASS lines. */
#include <inttypes.h>
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/hybrid.h"
#include "plugins/vcpu/comm/interface.h"

enum { NOTICE_TAG = 7, LARGE_COUNT = 1 << 20 };

static C_DeviceInterface xccl;
static int rank, nranks;

/* A fresh communicator of every rank; its id in *id. The ranks start
 * together: one that left the previous test early must not spend its
 * deadline waiting for one that is still timing out there. */
static C_CCLComm join(vcpu_comm_unique_id_t *id) {
  MPI_Barrier(MPI_COMM_WORLD);
  vcpu_comm_fill_interface(&xccl);
  C_CCLRootId root = {sizeof *id, id};
  if (rank == 0)
    assert_int_equal(xccl.xccl_get_unique_id(&root), C_SUCCESS);
  MPI_Bcast(id, sizeof *id, MPI_BYTE, 0, MPI_COMM_WORLD);
  C_CCLComm comm = NULL;
  if (xccl.xccl_comm_init_rank((size_t)nranks, &root, (size_t)rank, &comm) !=
      C_SUCCESS)
    fail_msg("rank %d: %s", rank, vcpu_comm_last_error());
  bool grouped = getenv("BACKPLANE_COMM_RANKS_PER_HOST") != NULL;
  assert_int_equal(vcpu_comm_hybrid_in_use(comm->world), grouped);
  return comm;
}

/* Whether `message` has a roll call's list "<word> a, b, ... did not
 * answer" that includes `number`. */
static bool roll_call_names(const char *message, const char *word, int number) {
  char head[32];
  snprintf(head, sizeof head, "%s ", word);
  for (const char *at = strstr(message, head); at; at = strstr(at + 1, head)) {
    const char *end = strstr(at, " did not answer");
    if (end == NULL)
      return false;
    const char *p = at + strlen(head);
    while (p < end) {
      char *next;
      long n = strtol(p, &next, 10);
      if (next == p)
        break;
      if (n == number)
        return true;
      p = next[0] == ',' ? next + 2 : next;
    }
  }
  return false;
}

/* Whether `message` names, among a roll call's missing hosts, host `host`
 * with world rank `number` on it: "host H (world ranks a,b) ... did not
 * answer". */
static bool roll_call_names_host(const char *message, int host, int number) {
  char head[48];
  snprintf(head, sizeof head, "host %d (world ranks ", host);
  const char *at = strstr(message, head);
  if (at == NULL || strstr(at, " did not answer") == NULL)
    return false;
  for (const char *p = at + strlen(head); *p != ')';) {
    char *next;
    long n = strtol(p, &next, 10);
    if (next == p)
      return false;
    if (n == number)
      return true;
    p = next[0] == ',' ? next + 1 : next;
  }
  return false;
}

/* Whether `message` names who this rank missed when the last rank never
 * took part: the last rank, as a rank of the MPI world (a roll call); with
 * the hybrid, on the last rank's host, as a rank of that host's
 * shared-memory world ("waiting for rank R" or "peer lost: rank R", R its
 * rank in the host), and on the other hosts as a rank of its host, which
 * this rank met over MPI or the rank of its host that did relayed to it. */
static bool names_the_missing(const char *message) {
  int last = nranks - 1;
  if (roll_call_names(message, "rank", last))
    return true;
  const char *per_host = getenv("BACKPLANE_COMM_RANKS_PER_HOST");
  int k = per_host ? atoi(per_host) : 0;
  if (k <= 0)
    return false;
  if (rank / k != last / k)
    return roll_call_names_host(message, last / k, last);
  char inside[32], lost[40];
  snprintf(inside, sizeof inside, "waiting for rank %d", last % k);
  snprintf(lost, sizeof lost, "peer lost: rank %d (pid", last % k);
  return strstr(message, inside) != NULL || strstr(message, lost) != NULL;
}

/* The failure names the communicator, the call and, unless it was
 * aborted, who never took part. */
static void expect_failure(const vcpu_comm_unique_id_t *id, const char *message,
                           const char *call) {
  fprintf(stderr, "rank %d: %s\n", rank, message);
  char name[64];
  snprintf(name, sizeof name, "vcpu-comm:%016" PRIx64, id->world_token);
  assert_non_null(strstr(message, name));
  assert_non_null(strstr(message, call));
  if (strstr(message, "aborted") == NULL)
    assert_true(names_the_missing(message));
}

/* Whether `r` shares rank 0's abort flag: itself, or its host (hybrid). */
static bool shares_abort_with_rank0(int r) {
  const char *per_host = getenv("BACKPLANE_COMM_RANKS_PER_HOST");
  return r == 0 || (per_host != NULL && r < atoi(per_host));
}

/* Whether `r` shares the last rank's host (hybrid), so its host's
 * shared-memory world watches the last rank's process. */
static bool shares_host_with_last_rank(int r) {
  const char *per_host = getenv("BACKPLANE_COMM_RANKS_PER_HOST");
  int k = per_host ? atoi(per_host) : 0;
  return k > 0 && r / k == (nranks - 1) / k;
}

static void test_abort_while_a_peer_never_comes(void **state) {
  (void)state;
  vcpu_comm_unique_id_t id;
  C_CCLComm comm = join(&id);
  test_stream *stream = test_stream_create();
  float x[4] = {1, 2, 3, 4};
  if (rank != nranks - 1) {
    assert_int_equal(xccl.xccl_all_reduce(x, x, 4, FLOAT32, SUM, comm,
                                          test_stream_handle(stream)),
                     C_SUCCESS);
    if (rank == 0) {
      usleep(50 * 1000); /* the stream worker waits in the all_reduce */
      assert_int_equal(vcpu_comm_ext_abort(comm), C_SUCCESS);
    }
    char message[512];
    int32_t status = settle(comm, stream, message);
    assert_int_equal(status, shares_abort_with_rank0(rank)
                                 ? BP_COMM_EXT_ABORTED
                                 : BP_COMM_EXT_TIMEOUT);
    expect_failure(&id, message, "all_reduce");
  }
  test_stream_destroy(stream);
  xccl.xccl_destroy_comm(comm);
  assert_int_equal(comm_test_count_world_segments(&id, (size_t)nranks), 0);
}

/* Enqueues the all_reduce, lets the stream start it, tells every other rank
 * and dies. */
static void die_mid_all_reduce(C_CCLComm comm, test_stream *stream,
                               float *data) {
  assert_int_equal(xccl.xccl_all_reduce(data, data, LARGE_COUNT, FLOAT32, SUM,
                                        comm, test_stream_handle(stream)),
                   C_SUCCESS);
  usleep(50 * 1000); /* the stream worker is inside the all_reduce by now */
  char notice = 1;
  for (int peer = 0; peer < rank; peer++)
    MPI_Send(&notice, 1, MPI_CHAR, peer, NOTICE_TAG, MPI_COMM_WORLD);
  raise(SIGKILL);
}

static void test_peer_killed_mid_all_reduce(void **state) {
  (void)state;
  vcpu_comm_unique_id_t id;
  C_CCLComm comm = join(&id);
  test_stream *stream = test_stream_create();
  float *data = calloc(LARGE_COUNT, sizeof *data);
  assert_non_null(data);

  /* Sequence 1 runs whole: every rank joined and the transport works. */
  data[0] = 1.0f;
  assert_int_equal(xccl.xccl_all_reduce(data, data, 1, FLOAT32, SUM, comm,
                                        test_stream_handle(stream)),
                   C_SUCCESS);
  char message[512];
  if (settle(comm, stream, message) != BP_COMM_EXT_OK)
    fail_msg("rank %d: %s", rank, message);
  assert_true(data[0] == (float)nranks);

  if (rank == nranks - 1)
    die_mid_all_reduce(comm, stream, data);
  char notice = 0;
  MPI_Recv(&notice, 1, MPI_CHAR, nranks - 1, NOTICE_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  assert_int_equal(xccl.xccl_all_reduce(data, data, LARGE_COUNT, FLOAT32, SUM,
                                        comm, test_stream_handle(stream)),
                   C_SUCCESS);
  assert_int_equal(settle(comm, stream, message),
                   shares_host_with_last_rank(rank) ? BP_COMM_EXT_PEER_LOST
                                                    : BP_COMM_EXT_TIMEOUT);
  expect_failure(&id, message, "all_reduce sequence 2");

  test_stream_destroy(stream);
  xccl.xccl_destroy_comm(comm);
  assert_int_equal(comm_test_count_world_segments(&id, (size_t)nranks), 0);
  /* `data` stays: MPI cannot cancel the abandoned all_reduce. */
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_abort_while_a_peer_never_comes),
      cmocka_unit_test(test_peer_killed_mid_all_reduce),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  printf("survivor rank %d: %s\n", rank, failed == 0 ? "PASS" : "FAIL");
  fflush(stdout);
  fflush(stderr);
  _exit(failed != 0);
}
