/* Choosing a communicator's transport: Open MPI (with the hybrid transport
 * inside it) when BACKPLANE_COMM_TRANSPORT or the id asks for it, else this
 * host's shared memory. */
#include "comm/transport.h"

#include <stdlib.h>

#include "comm/create.h"
#include "comm/hybrid.h"
#include "comm/mpi.h"

/* A world over MPI: one per communicator, no segment. */
static bp_status_t mpi_world_create(const vcpu_comm_unique_id_t *id,
                                    size_t nranks, size_t rank,
                                    uint64_t deadline_ns,
                                    vcpu_comm_world_t **out_world) {
  const vcpu_comm_mpi_module_t *mpi = vcpu_comm_mpi_module_load();
  if (mpi == NULL)
    return BP_ERR_UNSUPPORTED;
  vcpu_comm_world_t *world = calloc(1, sizeof *world);
  if (world == NULL)
    return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY,
                            "xccl_comm_init_rank: out of memory");
  char error[512] = "";
  int status =
      mpi->create(id->secret, id->world_token, nranks, rank, deadline_ns,
                  &world->mpi_handle, error, sizeof error);
  if (status != BP_OK) {
    free(world);
    return vcpu_comm_reject((bp_status_t)status, "xccl_comm_init_rank: %s",
                            error);
  }
  world->mpi = mpi;
  world->token = id->world_token;
  world->secret = id->secret;
  world->nranks = nranks;
  world->attached = 1;
  world->aborted = &world->local_aborted;
  world->signal = &world->local_signal;
  bp_status_t hybrid = vcpu_comm_hybrid_setup(world, id, rank, deadline_ns);
  if (hybrid != BP_OK) {
    mpi->destroy(world->mpi_handle);
    free(world);
    return hybrid;
  }
  *out_world = world;
  return BP_OK;
}

bp_status_t vcpu_comm_create(size_t nranks, const C_CCLRootId *root,
                             size_t rank, C_CCLComm *out_comm) {
  vcpu_comm_unique_id_t id;
  if (out_comm == NULL)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: comm is NULL");
  if (!vcpu_comm_unique_id_parse(root, &id))
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_comm_init_rank: the unique id is not a vcpu id "
        "(NULL, wrong size or wrong magic)");
  if (nranks == 0 || rank >= nranks)
    return vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT,
        "xccl_comm_init_rank: rank %zu out of range for nranks "
        "%zu",
        rank, nranks);
  if (nranks > 4096)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "xccl_comm_init_rank: nranks %zu exceeds 4096",
                            nranks);
  if (vcpu_comm_mpi_wanted(&id, nranks))
    return vcpu_comm_create_in(nranks, &id, rank, mpi_world_create, out_comm);
  return vcpu_comm_create_on_host(nranks, &id, rank, out_comm);
}
