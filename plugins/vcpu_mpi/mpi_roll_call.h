/* Roll calls: naming the ranks missing from a call that timed out.
 *
 * MPI (Open MPI 4.1, without ULFM) does not tell the others which rank died
 * or never came. So after a timeout a rank asks every other rank, on the
 * world's roll communicator, which call it is in; a rank waiting in any call
 * of the world answers at once (mpi_roll_call_answer, run by every wait).
 * Ranks that do not answer within a short grace are the missing ones: dead,
 * or not calling into this world. */
#ifndef BACKPLANE_VCPU_MPI_MPI_ROLL_CALL_H_
#define BACKPLANE_VCPU_MPI_MPI_ROLL_CALL_H_

#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"

/* Makes the world's roll communicator (collective over the world, like
 * MPI_Comm_dup) and answer buffers; false if MPI or memory says no (the
 * world then names no missing rank). Close never frees the communicator
 * (a few kilobytes per world): a question may still be on its way to a rank
 * that left, and must not land in a later communicator. */
bool mpi_roll_call_open(mpi_world *world);
void mpi_roll_call_close(mpi_world *world);

/* Answers the roll calls other ranks sent; cheap when there are none. */
void mpi_roll_call_answer(mpi_world *world);

/* Asks the others after the call at `seq` timed out, and writes what it
 * learnt to `out`: "rank 3 did not answer ...", and ranks that answered
 * from another call. Takes up to the grace period. */
void mpi_roll_call(mpi_world *world, uint64_t seq, char *out, size_t capacity);

#endif /* BACKPLANE_VCPU_MPI_MPI_ROLL_CALL_H_ */
