/* broadcast, reduce, all_gather and reduce_scatter over Open MPI (internal
 * to libbackplane_vcpu_mpi.so): each maps to its nonblocking MPI collective
 * (MPI_IN_PLACE for the in-place forms), polled with the deadline and the
 * abort flag (mpi_wait.h); float16/bfloat16 travel as 2-byte derived types
 * reduced by user ops, AVG as a sum divided once. */
#ifndef BACKPLANE_VCPU_MPI_MPI_COLLECTIVES_H_
#define BACKPLANE_VCPU_MPI_MPI_COLLECTIVES_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"

/* Makes the derived types and user ops, once per process (MPI must be
 * initialized). */
void mpi_collectives_init(void);

/* One collective other than all_reduce, to its end; names a rank that
 * called something else at this sequence number. */
int mpi_rooted_or_gathering(mpi_world *world, const vcpu_comm_desc_t *d,
                            uint64_t deadline_ns, const atomic_bool *aborted,
                            char *error, size_t capacity);

#endif /* BACKPLANE_VCPU_MPI_MPI_COLLECTIVES_H_ */
