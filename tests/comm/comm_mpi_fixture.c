/* The fixture of the vcpu collective tests under mpirun (comm_mpi_fixture.h).
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "comm_mpi_fixture.h"
#include "plugins/vcpu/comm/comm_shm_check.h"

C_DeviceInterface comm_mpi_xccl;
int comm_mpi_rank, comm_mpi_nranks;

/* Segments found after the group's world was destroyed. */
static size_t leftover_segments;

C_CCLComm comm_mpi_join(vcpu_comm_unique_id_t *id) {
  C_CCLRootId root = {sizeof *id, id};
  if (comm_mpi_rank == 0)
    assert_int_equal(comm_mpi_xccl.xccl_get_unique_id(&root), C_SUCCESS);
  MPI_Bcast(id, sizeof *id, MPI_BYTE, 0, MPI_COMM_WORLD);
  C_CCLComm comm = NULL;
  if (comm_mpi_xccl.xccl_comm_init_rank((size_t)comm_mpi_nranks, &root,
                                        (size_t)comm_mpi_rank,
                                        &comm) != C_SUCCESS)
    fail_msg("rank %d: %s", comm_mpi_rank, vcpu_comm_last_error());
  return comm;
}

void comm_mpi_post_ring(comm_mpi_world *w, void *out, void *in, size_t count,
                        C_DataType dtype) {
  size_t n = (size_t)comm_mpi_nranks, me = (size_t)comm_mpi_rank;
  C_Stream s = test_stream_handle(w->stream);
  assert_int_equal(comm_mpi_xccl.xccl_group_start(), C_SUCCESS);
  assert_int_equal(
      comm_mpi_xccl.xccl_send(out, count, dtype, (me + 1) % n, w->comm, s),
      C_SUCCESS);
  assert_int_equal(
      comm_mpi_xccl.xccl_recv(in, count, dtype, (me + n - 1) % n, w->comm, s),
      C_SUCCESS);
  assert_int_equal(comm_mpi_xccl.xccl_group_end(), C_SUCCESS);
}

int comm_mpi_world_setup(void **state) {
  comm_mpi_world *w = calloc(1, sizeof *w);
  assert_non_null(w);
  *state = w;
  w->comm = comm_mpi_join(&w->id);
  w->stream = test_stream_create();
  return 0;
}

int comm_mpi_world_teardown(void **state) {
  comm_mpi_world *w = *state;
  if (w == NULL)
    return 0;
  test_stream_destroy(w->stream);
  comm_mpi_xccl.xccl_destroy_comm(w->comm);
  leftover_segments =
      comm_test_count_world_segments(&w->id, (size_t)comm_mpi_nranks);
  if (leftover_segments != 0)
    fprintf(stderr, "rank %d: %zu segments left in /dev/shm\n", comm_mpi_rank,
            leftover_segments);
  free(w);
  return 0;
}

int comm_mpi_fixture_main(int argc, char **argv, const struct CMUnitTest *tests,
                          size_t count, bool with_world) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm_mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &comm_mpi_nranks);
  vcpu_comm_fill_interface(&comm_mpi_xccl);
  int failed = _cmocka_run_group_tests(
      "comm_mpi", tests, count, with_world ? comm_mpi_world_setup : NULL,
      with_world ? comm_mpi_world_teardown : NULL);
  failed += leftover_segments != 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed != 0;
}
