/* The Open MPI transport of the vcpu collectives, for ranks on several hosts
 * (or whenever BACKPLANE_COMM_TRANSPORT=mpi). It lives in a separate module,
 * libbackplane_vcpu_mpi.so (plugins/vcpu_mpi/), so the plugin itself never
 * depends on MPI: the plugin opens the module only when a world uses MPI.
 *
 * Contract: the processes were started by mpirun; xccl rank r is MPI rank r
 * of MPI_COMM_WORLD and nranks its size. The module initializes MPI with
 * MPI_THREAD_MULTIPLE if nobody did. Every call runs on a stream worker (or
 * on the caller's thread in its stream's turn: `start`), one at a time per
 * world, uses nonblocking MPI, and polls the request until it completes, the
 * deadline passes (BP_ERR_TIMEOUT) or *aborted turns true (BP_ERR_ABORTED).
 * Failures return a bp_status_t with a message in `error` (capacity bytes).
 * MPI cannot cancel a collective: a world whose request was given up keeps
 * its internal buffers until the process ends, and the caller's buffers of
 * that call may still be written if the missing rank shows up later.
 *
 * A world over several hosts some of which hold several ranks is hybrid
 * (comm/hybrid.h): it uses `hosts` and `collective` to talk MPI between
 * hosts, shared memory inside them. */
#ifndef BACKPLANE_VCPU_COMM_MPI_H_
#define BACKPLANE_VCPU_COMM_MPI_H_

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"

#define VCPU_COMM_MPI_MODULE_SYMBOL "BackplaneVcpuCommMpi"
#define VCPU_COMM_MPI_MODULE_FILE "libbackplane_vcpu_mpi.so"

typedef struct vcpu_comm_mpi_module {
  /* A world of nranks over MPI_COMM_WORLD (duplicated); checks that every
   * rank presented the same secret and nranks. `token` (the id's world
   * token) names the world's shared memory on each host. *out_handle on
   * success. */
  int (*create)(uint64_t secret, uint64_t token, size_t nranks, size_t rank,
                uint64_t deadline_ns, void **out_handle, char *error,
                size_t capacity);
  void (*destroy)(void *handle);
  /* One collective (kind < VCPU_COMM_SEND); also detects ranks that called a
   * different operation at the same sequence number. */
  int (*collective)(void *handle, const vcpu_comm_desc_t *desc,
                    uint64_t deadline_ns, const atomic_bool *aborted,
                    char *error, size_t capacity);
  /* Sends and receives progressed together. */
  int (*p2p)(void *handle, const vcpu_comm_desc_t *ops, size_t n,
             uint64_t deadline_ns, const atomic_bool *aborted, char *error,
             size_t capacity);
  /* Groups the world's ranks by host: by processor name, or with
   * ranks_per_host K > 0 rank r is on host r / K (testing on one machine).
   * Fills host_of[nranks] with host indices numbered by each host's lowest
   * rank (its leader). When there are several hosts, *out_rail is a world of
   * the ranks at this rank's place on their hosts (the k-th rank of each
   * host; rank = host index) for `collective` and `destroy`: the leaders'
   * world on a leader; on the others only when every host holds as many
   * ranks; else NULL. Every rank of the world calls it. */
  int (*hosts)(void *handle, size_t ranks_per_host, uint64_t deadline_ns,
               size_t *host_of, void **out_rail, char *error, size_t capacity);
  /* `collective` in steps, for a call that `quick` accepts (a small
   * all_reduce of ranks on one host): `start` begins it and goes on until it
   * ends or `until_ns` passes; then BP_ERR_NOT_READY means the world holds the
   * call half done, and `resume`, on any one thread (the hand-over ordering the
   * threads' accesses), finishes it by its deadline before any other call of
   * the world. NULL in a world that cannot (the hybrid's). */
  bool (*quick)(void *handle, const vcpu_comm_desc_t *desc);
  int (*start)(void *handle, const vcpu_comm_desc_t *desc, uint64_t deadline_ns,
               uint64_t until_ns, const atomic_bool *aborted, char *error,
               size_t capacity);
  int (*resume)(void *handle, const atomic_bool *aborted, char *error,
                size_t capacity);
} vcpu_comm_mpi_module_t;

typedef const vcpu_comm_mpi_module_t *(*vcpu_comm_mpi_module_fn_t)(void);

/* The module, opened on first use from BACKPLANE_VCPU_MPI_MODULE, else from
 * beside the plugin (../libbackplane_vcpu_mpi.so relative to the plugin
 * directory). NULL with vcpu_comm_last_error() set if it cannot be loaded.
 * Thread-safe. */
const vcpu_comm_mpi_module_t *vcpu_comm_mpi_module_load(void);

/* Whether a world of nranks should use MPI: BACKPLANE_COMM_TRANSPORT=mpi, or
 * (unset or "auto") the id was made on another host, or the world is the
 * whole of an mpirun job that spans hosts (Open MPI's OMPI_COMM_WORLD_SIZE is
 * nranks and larger than OMPI_COMM_WORLD_LOCAL_SIZE): every rank of such a
 * job decides alike, also those on the id's host. */
bool vcpu_comm_mpi_wanted(const vcpu_comm_unique_id_t *id, size_t nranks);

#endif /* BACKPLANE_VCPU_COMM_MPI_H_ */
