/* A host lost in the middle of all-reduces, run by
 * tests/comm/netns/mpirun_on_hosts.sh -p on 2 hosts x K ranks with a fault
 * script beside it (HOSTS_DIR is the harness's directory, shared by every
 * host). The first argument names the fault:
 *
 *   link_cut   link_cut.sh takes the last host's link down;
 *   kill_host  kill_host.sh SIGKILLs every rank of the last host (the pids
 *              the ranks wrote to HOSTS_DIR/pid.R).
 *
 *   1. every rank runs 1 MiB all-reduces back to back; once every rank
 *      finished the first, rank 0 writes HOSTS_DIR/fault and the script
 *      strikes;
 *   2. every rank still alive fails its pending all-reduce within the
 *      deadline (BACKPLANE_COMM_TIMEOUT_MS), with a message naming the call
 *      and what it waited for (below), and no segment is left in /dev/shm;
 *      each writes HOSTS_DIR/failed.R;
 *   3. link_cut only: once every rank failed, link_cut.sh brings the link up
 *      and writes HOSTS_DIR/up; a new communicator's all-reduce is exact.
 *      (Without ULFM, MPI cannot make a world of fewer ranks than mpirun
 *      started: after kill_host nothing is made again.)
 *
 * What a message names, on every rank: every rank of the other host, as
 * ranks that did not answer a roll call (MPI), or as the host that did not
 * answer with its ranks (hybrid: the leader's roll call among the leaders).
 * A hybrid rank left waiting inside its host for a rank that met the fault
 * over MPI reports what that rank met, relayed to it.
 *
 * Ranks leave with _exit (MPI_Finalize would wait for the abandoned calls)
 * after printing "rank R: PASS" or "rank R: FAIL"; mpirun_on_hosts.sh -p
 * passes only when every rank that should live printed PASS. */
#include <inttypes.h>
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "comm/comm_mpi_fixture.h"
#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/interface.h"

enum { COUNT = 1 << 18 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Writes HOSTS_DIR/<name> with `text` in it. */
static void write_file(const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("HOSTS_DIR"), name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Polls for a file the fault script writes; false after `limit_s`. */
static bool await_file(const char *name, double limit_s) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("HOSTS_DIR"), name);
  for (double end = now_s() + limit_s; now_s() < end; usleep(10000))
    if (access(path, F_OK) == 0)
      return true;
  return false;
}

static int32_t all_reduce(C_CCLComm comm, test_stream *stream, float *data,
                          char message[512]) {
  for (size_t i = 0; i < COUNT; i++)
    data[i] = (float)(comm_mpi_rank + 1);
  assert_int_equal(comm_mpi_xccl.xccl_all_reduce(data, data, COUNT, FLOAT32,
                                                 SUM, comm,
                                                 test_stream_handle(stream)),
                   C_SUCCESS);
  return settle(comm, stream, message);
}

static void expect_sum(const float *data) {
  float sum = (float)(comm_mpi_nranks * (comm_mpi_nranks + 1) / 2);
  for (size_t i = 0; i < COUNT; i++)
    if (data[i] != sum)
      fail_msg("rank %d: element %zu is %g, not %g", comm_mpi_rank, i, data[i],
               sum);
}

/* Marks the ranks listed from `p` on: numbers apart by commas and spaces,
 * up to anything else or `end`. */
static void mark_ranks(const char *p, const char *end, bool named[64]) {
  for (char *next; p < end; p = next) {
    long rank = strtol(p, &next, 10);
    if (next == p || next > end)
      return;
    if (rank >= 0 && rank < 64)
      named[rank] = true;
    while (next < end && (*next == ',' || *next == ' '))
      next++;
  }
}

/* Whether every rank of host `host` (2 hosts of `per_host` ranks) is named
 * in `message` as one that did not answer a roll call. The list follows the
 * last ": " before " did not answer": "rank 2, 3" (MPI), or "host 1 (world
 * ranks 2,3)" (the host leaders of the hybrid transport, and the ranks their
 * leader told). */
static bool names_host(const char *message, size_t host, size_t per_host) {
  bool named[64] = {false};
  for (const char *end = strstr(message, " did not answer"); end != NULL;
       end = strstr(end + 1, " did not answer")) {
    const char *list = message;
    for (const char *at = strstr(message, ": "); at != NULL && at < end;
         at = strstr(at + 1, ": "))
      list = at + 2;
    if (strncmp(list, "rank ", 5) == 0)
      mark_ranks(list + 5, end, named);
    else if (strncmp(list, "host ", 5) == 0)
      for (const char *group = strstr(list, "(world ranks ");
           group != NULL && group < end;
           group = strstr(group + 1, "(world ranks "))
        mark_ranks(group + strlen("(world ranks "), end, named);
  }
  for (size_t r = host * per_host; r < (host + 1) * per_host; r++)
    if (r >= 64 || !named[r])
      return false;
  return true;
}

/* An all-reduce that must work and be exact (`when` for the message). */
static void exact_all_reduce(C_CCLComm comm, test_stream *stream, float *data,
                             const char *when) {
  char message[512];
  if (all_reduce(comm, stream, data, message) != BP_COMM_EXT_OK)
    fail_msg("rank %d: %s: %s", comm_mpi_rank, when, message);
  expect_sum(data);
}

/* The world's first all-reduce works; then rank 0 calls the fault in and
 * every rank runs all-reduces until one fails, which must happen within the
 * deadline, for the right reason, leaving nothing in /dev/shm. */
static void run_into_the_fault(void) {
  /* Open MPI connects a pair of ranks over TCP at their first message,
   * which a loaded machine can stretch past the short deadline: every pair
   * is connected before the world is made. */
  int *everyone = calloc((size_t)comm_mpi_nranks, sizeof *everyone);
  int *from_everyone = calloc((size_t)comm_mpi_nranks, sizeof *from_everyone);
  assert_non_null(everyone);
  assert_non_null(from_everyone);
  MPI_Alltoall(everyone, 1, MPI_INT, from_everyone, 1, MPI_INT, MPI_COMM_WORLD);
  free(everyone);
  free(from_everyone);
  vcpu_comm_unique_id_t id;
  C_CCLComm comm = comm_mpi_join(&id);
  test_stream *stream = test_stream_create();
  float *data = malloc(COUNT * sizeof *data);
  exact_all_reduce(comm, stream, data, "before the fault");
  /* Every rank is done with it before the fault: a rank can finish an
   * all-reduce while another still receives its part. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm_mpi_rank == 0)
    write_file("fault", "");

  /* Until the fault stops one: bounded, in case it never comes. */
  const char *timeout_ms = getenv("BACKPLANE_COMM_TIMEOUT_MS");
  double deadline_s = atof(timeout_ms ? timeout_ms : "0") / 1000.0;
  int32_t status = BP_COMM_EXT_OK;
  char message[512];
  double started = 0, took = 0;
  for (double end = now_s() + 60; status == BP_COMM_EXT_OK && now_s() < end;) {
    started = now_s();
    status = all_reduce(comm, stream, data, message);
    took = now_s() - started;
  }
  fprintf(stderr, "rank %d: failed after %.2f s: %s\n", comm_mpi_rank, took,
          message);
  assert_int_equal(status, BP_COMM_EXT_TIMEOUT);
  /* The deadline, plus the roll call's grace and a loaded machine's slack. */
  assert_true(took < 2 * deadline_s + 1.0);
  char name[64];
  snprintf(name, sizeof name, "vcpu-comm:%016" PRIx64, id.world_token);
  assert_non_null(strstr(message, name));
  assert_non_null(strstr(message, "all_reduce"));
  size_t per_host = (size_t)comm_mpi_nranks / 2;
  size_t other_host = (size_t)comm_mpi_rank / per_host == 0 ? 1 : 0;
  if (!names_host(message, other_host, per_host))
    fail_msg("rank %d: does not name every rank of host %zu as lost: %s",
             comm_mpi_rank, other_host, message);
  test_stream_destroy(stream);
  comm_mpi_xccl.xccl_destroy_comm(comm);
  assert_int_equal(comm_test_count_world_segments(&id, (size_t)comm_mpi_nranks),
                   0);
  /* `data` stays: MPI cannot cancel the abandoned all_reduce. */
  char failed[32];
  snprintf(failed, sizeof failed, "failed.%d", comm_mpi_rank);
  write_file(failed, "");
}

static void test_link_cut_mid_all_reduce(void **state) {
  (void)state;
  run_into_the_fault();
  assert_true(await_file("up", 30));

  /* TCP resends what the cut held back at its next retransmission, which
   * backs off while the link is down: the new communicator gets a deadline
   * longer than that backoff. */
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "30000", 1);
  vcpu_comm_unique_id_t id;
  C_CCLComm again = comm_mpi_join(&id);
  test_stream *stream = test_stream_create();
  float *fresh = malloc(COUNT * sizeof *fresh);
  exact_all_reduce(again, stream, fresh, "after the link came back");
  test_stream_destroy(stream);
  comm_mpi_xccl.xccl_destroy_comm(again);
  assert_int_equal(comm_test_count_world_segments(&id, (size_t)comm_mpi_nranks),
                   0);
  free(fresh);
}

/* The ranks of the last host are killed; those of host 0 must fail. */
static void test_host_killed_mid_all_reduce(void **state) {
  (void)state;
  char name[32], pid[32];
  snprintf(name, sizeof name, "pid.%d", comm_mpi_rank);
  snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  write_file(name, pid);
  run_into_the_fault();
}

int main(int argc, char **argv) {
  bool kill_host = argc > 1 && strcmp(argv[1], "kill_host") == 0;
  if (argc < 2 || (!kill_host && strcmp(argv[1], "link_cut") != 0)) {
    fprintf(stderr, "usage: %s link_cut|kill_host\n", argv[0]);
    return 2;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm_mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &comm_mpi_nranks);
  vcpu_comm_fill_interface(&comm_mpi_xccl);
  const struct CMUnitTest link_cut[] = {
      cmocka_unit_test(test_link_cut_mid_all_reduce),
  };
  const struct CMUnitTest killed[] = {
      cmocka_unit_test(test_host_killed_mid_all_reduce),
  };
  int failed = kill_host ? cmocka_run_group_tests(killed, NULL, NULL)
                         : cmocka_run_group_tests(link_cut, NULL, NULL);
  printf("rank %d: %s\n", comm_mpi_rank, failed == 0 ? "PASS" : "FAIL");
  fflush(stdout);
  fflush(stderr);
  _exit(failed != 0);
}
