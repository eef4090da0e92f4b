/* The fixture of the vcpu collective tests that run under mpirun (one
 * process per rank): MPI started with MPI_THREAD_MULTIPLE, a world of every
 * rank made the way a framework makes one (rank 0 makes the unique id, MPI
 * broadcasts it), and the verdict of every rank. Single-threaded: the test's
 * main thread only. */
#ifndef BACKPLANE_TESTS_COMM_MPI_FIXTURE_H_
#define BACKPLANE_TESTS_COMM_MPI_FIXTURE_H_

#include <stddef.h>

#include "plugins/vcpu/comm/comm_cases.h"
#include "plugins/vcpu/comm/interface.h"

/* Filled by comm_mpi_fixture_main before any test runs. */
extern C_DeviceInterface comm_mpi_xccl;
extern int comm_mpi_rank, comm_mpi_nranks;

/* A world of every rank, its stream and its id (cmocka's group state). */
typedef struct comm_mpi_world {
  C_CCLComm comm;
  test_stream *stream;
  vcpu_comm_unique_id_t id;
} comm_mpi_world;

/* A new communicator of every rank; its id in *id. Fails the test, naming
 * the plugin's error, if it cannot be made. */
C_CCLComm comm_mpi_join(vcpu_comm_unique_id_t *id);

/* Posts this rank's share of a ring on `w`'s stream as one group: `count`
 * elements of `dtype` from `out` to the next rank, into `in` from the
 * previous one. */
void comm_mpi_post_ring(comm_mpi_world *w, void *out, void *in, size_t count,
                        C_DataType dtype);

/* cmocka group setup and teardown: a comm_mpi_world in *state, made with
 * comm_mpi_join, and gone afterwards; the teardown counts the world's
 * segments left in /dev/shm, which fail the run. */
int comm_mpi_world_setup(void **state);
int comm_mpi_world_teardown(void **state);

/* Runs the tests as one cmocka group (with the world setup and teardown when
 * `with_world`) between MPI_Init_thread and MPI_Finalize; every rank returns
 * non-zero if a test failed on any rank. */
int comm_mpi_fixture_main(int argc, char **argv, const struct CMUnitTest *tests,
                          size_t count, bool with_world);

#endif /* BACKPLANE_TESTS_COMM_MPI_FIXTURE_H_ */
