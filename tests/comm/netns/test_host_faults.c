/* A host's link cut in the middle of all-reduces, run by
 * tests/comm/netns/mpirun_on_hosts.sh with cut_link.sh beside it (2 hosts x
 * K ranks; HOSTS_DIR is the harness's directory, shared by every host):
 *
 *   1. every rank runs 4 MiB all-reduces back to back; rank 0 writes
 *      HOSTS_DIR/cut after the first, and cut_link.sh takes the last host's
 *      link down;
 *   2. every rank's pending all-reduce fails within the deadline
 *      (BACKPLANE_COMM_TIMEOUT_MS), naming the call and a rank it did not
 *      hear from, and no segment is left in /dev/shm; each rank writes
 *      HOSTS_DIR/failed.R;
 *   3. once all have failed, cut_link.sh brings the link up and writes
 *      HOSTS_DIR/up; a new communicator's all-reduce is exact.
 *
 * Ranks leave with _exit (MPI_Finalize would wait for the abandoned calls)
 * after printing "rank R: PASS" or "rank R: FAIL"; run with
 * mpirun_on_hosts.sh -p, which passes only when every rank printed PASS. */
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

#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/comm_shm_check.h"
#include "plugins/vcpu/comm/interface.h"

enum { COUNT = 1 << 20 };

static C_DeviceInterface xccl;
static int rank, nranks;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void touch(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("HOSTS_DIR"), name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
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

static C_CCLComm join(vcpu_comm_unique_id_t *id) {
  C_CCLRootId root = {sizeof *id, id};
  if (rank == 0)
    assert_int_equal(xccl.xccl_get_unique_id(&root), C_SUCCESS);
  MPI_Bcast(id, sizeof *id, MPI_BYTE, 0, MPI_COMM_WORLD);
  C_CCLComm comm = NULL;
  if (xccl.xccl_comm_init_rank((size_t)nranks, &root, (size_t)rank, &comm) !=
      C_SUCCESS)
    fail_msg("rank %d: %s", rank, vcpu_comm_last_error());
  return comm;
}

static int32_t all_reduce(C_CCLComm comm, test_stream *stream, float *data,
                          char message[512]) {
  for (size_t i = 0; i < COUNT; i++)
    data[i] = (float)(rank + 1);
  assert_int_equal(xccl.xccl_all_reduce(data, data, COUNT, FLOAT32, SUM, comm,
                                        test_stream_handle(stream)),
                   C_SUCCESS);
  return settle(comm, stream, message);
}

static void expect_sum(const float *data) {
  float sum = (float)(nranks * (nranks + 1) / 2);
  for (size_t i = 0; i < COUNT; i++)
    if (data[i] != sum)
      fail_msg("rank %d: element %zu is %g, not %g", rank, i, data[i], sum);
}

static void test_link_cut_mid_all_reduce(void **state) {
  (void)state;
  vcpu_comm_fill_interface(&xccl);
  vcpu_comm_unique_id_t id;
  C_CCLComm comm = join(&id);
  test_stream *stream = test_stream_create();
  float *data = malloc(COUNT * sizeof *data);
  char message[512];
  if (all_reduce(comm, stream, data, message) != BP_COMM_EXT_OK)
    fail_msg("rank %d: %s", rank, message);
  expect_sum(data);
  if (rank == 0)
    touch("cut");

  /* Until the cut stops one: bounded, in case the cut never comes. */
  const char *timeout_ms = getenv("BACKPLANE_COMM_TIMEOUT_MS");
  double deadline_s = atof(timeout_ms ? timeout_ms : "0") / 1000.0;
  int32_t status = BP_COMM_EXT_OK;
  double started = 0, took = 0;
  for (double end = now_s() + 60; status == BP_COMM_EXT_OK && now_s() < end;) {
    started = now_s();
    status = all_reduce(comm, stream, data, message);
    took = now_s() - started;
  }
  fprintf(stderr, "rank %d: failed after %.2f s: %s\n", rank, took, message);
  assert_int_equal(status, BP_COMM_EXT_TIMEOUT);
  /* The deadline, plus the roll call's grace and a loaded machine's slack. */
  assert_true(took < 2 * deadline_s + 1.0);
  char name[64];
  snprintf(name, sizeof name, "vcpu-comm:%016" PRIx64, id.world_token);
  assert_non_null(strstr(message, name));
  assert_non_null(strstr(message, "all_reduce"));
  assert_true(strstr(message, "did not answer") != NULL ||
              strstr(message, "waiting for rank") != NULL);
  test_stream_destroy(stream);
  xccl.xccl_destroy_comm(comm);
  assert_int_equal(comm_test_count_world_segments(&id, (size_t)nranks), 0);
  /* `data` stays: MPI cannot cancel the abandoned all_reduce. */

  char failed[32];
  snprintf(failed, sizeof failed, "failed.%d", rank);
  touch(failed);
  assert_true(await_file("up", 30));

  /* TCP resends what the cut held back at its next retransmission, which
   * backs off while the link is down: the new communicator gets a deadline
   * longer than that backoff. */
  setenv("BACKPLANE_COMM_TIMEOUT_MS", "30000", 1);

  vcpu_comm_unique_id_t again_id;
  C_CCLComm again = join(&again_id);
  test_stream *again_stream = test_stream_create();
  float *fresh = malloc(COUNT * sizeof *fresh);
  if (all_reduce(again, again_stream, fresh, message) != BP_COMM_EXT_OK)
    fail_msg("rank %d: after the link came back: %s", rank, message);
  expect_sum(fresh);
  test_stream_destroy(again_stream);
  xccl.xccl_destroy_comm(again);
  assert_int_equal(comm_test_count_world_segments(&again_id, (size_t)nranks),
                   0);
  free(fresh);
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_link_cut_mid_all_reduce),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  printf("rank %d: %s\n", rank, failed == 0 ? "PASS" : "FAIL");
  fflush(stdout);
  fflush(stderr);
  _exit(failed != 0);
}
