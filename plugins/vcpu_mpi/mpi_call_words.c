#include "mpi_call_words.h"

#include <inttypes.h>
#include <string.h>

#include "mpi_wait.h"

void mpi_call_to_words(const vcpu_comm_desc_t *d, uint64_t *words) {
  words[0] = (uint64_t)d->kind;
  words[1] = d->count;
  words[2] = (uint64_t)d->dtype;
  words[3] = (uint64_t)d->op;
  words[4] = d->peer;
  words[5] = d->stage_of;
}

vcpu_comm_desc_t mpi_call_from_words(const uint64_t *words) {
  return (vcpu_comm_desc_t){.kind = (vcpu_comm_kind_t)words[0],
                            .count = (size_t)words[1],
                            .dtype = (C_DataType)words[2],
                            .op = (C_CCLReduceOp)words[3],
                            .peer = (size_t)words[4],
                            .stage_of = words[5]};
}

size_t mpi_call_words_pack(const mpi_world *world, size_t first, size_t end,
                           void *out) {
  size_t block = mpi_call_bytes(end - first);
  memcpy(out, world->calls + first * CALL_WORDS, block);
  return block;
}

int mpi_compare_calls(mpi_world *world, const vcpu_comm_desc_t *d, char *error,
                      size_t capacity) {
  for (size_t r = 0; r < world->nranks; r++) {
    vcpu_comm_desc_t theirs =
        mpi_call_from_words(world->calls + r * CALL_WORDS);
    if (vcpu_comm_same_call(d, &theirs))
      continue;
    world->disagreed = true;
    char a[128], b[128];
    vcpu_comm_describe_call(d, a, sizeof a);
    vcpu_comm_describe_call(&theirs, b, sizeof b);
    return mpi_fail(BP_ERR_INVALID_ARGUMENT, error, capacity,
                    "mismatched collectives at sequence %" PRIu64
                    ": %s %zu called %s but %s %zu called %s",
                    d->seq, world->member, world->rank, a, world->member, r, b);
  }
  return BP_OK;
}
