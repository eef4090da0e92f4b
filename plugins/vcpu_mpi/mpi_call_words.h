/* The call check's words (internal to libbackplane_vcpu_mpi.so): each rank's
 * call at a sequence number as CALL_WORDS words (kind, count, dtype, op,
 * peer, and a hybrid stage's whole call), kept per rank in world->calls so
 * that a rank can name another that called something else. */
#ifndef BACKPLANE_VCPU_MPI_MPI_CALL_WORDS_H_
#define BACKPLANE_VCPU_MPI_MPI_CALL_WORDS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_world.h"

void mpi_call_to_words(const vcpu_comm_desc_t *d, uint64_t *words);
vcpu_comm_desc_t mpi_call_from_words(const uint64_t *words);

/* The bytes of `ranks` ranks' words. */
static inline size_t mpi_call_bytes(size_t ranks) {
  return ranks * CALL_WORDS * sizeof(uint64_t);
}

/* Copies the words of world ranks [first, end) from world->calls to `out`
 * (world->small_out, or a mailbox slot); returns their bytes. */
size_t mpi_call_words_pack(const mpi_world *world, size_t first, size_t end,
                           void *out);

/* Names (in `error`, BP_ERR_INVALID_ARGUMENT) a rank whose call in
 * world->calls differs from `d`, with what each called, and marks the world
 * disagreed; BP_OK if none. */
int mpi_compare_calls(mpi_world *world, const vcpu_comm_desc_t *d, char *error,
                      size_t capacity);

#endif /* BACKPLANE_VCPU_MPI_MPI_CALL_WORDS_H_ */
