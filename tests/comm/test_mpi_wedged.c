/* Open MPI wedged inside a poll, as its TCP transport wedges when a peer
 * dies mid-transfer (plugins/vcpu_mpi/mpi_watchdog.h): the vcpu MPI
 * module's watchdog must end the process with a message naming the call,
 * instead of leaving the rank hung for good.
 *
 * One rank under mpirun, BACKPLANE_COMM_TRANSPORT=mpi. This program's own
 * MPI_Testall (exported, so it stands in for Open MPI's in the module)
 * passes through to PMPI_Testall until `wedged` is set, and then never
 * returns. A first broadcast must leave the data whole; the second, started
 * wedged, must never return: mpi_wedged_check.cmake passes only when the
 * process ended with the watchdog's status and message, within the deadline
 * plus the watchdog's grace and a loaded machine's slack. */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "comm/comm_mpi_fixture.h"

/* A broadcast polls Open MPI's collective even with one rank (an
 * all_reduce of one rank, point to point, sends nothing and polls
 * nothing). */
enum { COUNT = 8192 };

static atomic_bool wedged;

int MPI_Testall(int count, MPI_Request requests[], int *flag,
                MPI_Status statuses[]) {
  while (atomic_load(&wedged))
    pause();
  return PMPI_Testall(count, requests, flag, statuses);
}

static void test_wedged_broadcast_ends_the_process(void **state) {
  (void)state;
  vcpu_comm_unique_id_t id;
  C_CCLComm comm = comm_mpi_join(&id);
  test_stream *stream = test_stream_create();
  float data[COUNT];
  for (size_t i = 0; i < COUNT; i++)
    data[i] = (float)i;
  char message[512];
  assert_int_equal(comm_mpi_xccl.xccl_broadcast(data, COUNT, FLOAT32, 0, comm,
                                                test_stream_handle(stream)),
                   C_SUCCESS);
  assert_int_equal(settle(comm, stream, message), BP_COMM_EXT_OK);
  for (size_t i = 0; i < COUNT; i++)
    assert_true(data[i] == (float)i); /* one rank: the root's own data */

  atomic_store(&wedged, true);
  fprintf(stderr, "wedging MPI_Testall\n");
  assert_int_equal(comm_mpi_xccl.xccl_broadcast(data, COUNT, FLOAT32, 0, comm,
                                                test_stream_handle(stream)),
                   C_SUCCESS);
  settle(comm, stream, message);
  fail_msg("the wedged broadcast returned: %s", message);
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm_mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &comm_mpi_nranks);
  vcpu_comm_fill_interface(&comm_mpi_xccl);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_wedged_broadcast_ends_the_process),
  };
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  printf("rank %d: %s\n", comm_mpi_rank, failed == 0 ? "PASS" : "FAIL");
  fflush(stdout);
  _exit(1); /* reaching here at all is a failure: the watchdog ends it */
}
