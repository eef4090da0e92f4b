/* NCCL, opened at run time (libnccl.so.2) the first time a collective is
 * asked for, so the plugin loads where NCCL is not installed; its xccl_*
 * functions then fail saying so. */
#ifndef BACKPLANE_CUDA_NCCL_LIBRARY_H_
#define BACKPLANE_CUDA_NCCL_LIBRARY_H_

#include <nccl.h>

#include "backplane/device_ext.h"

typedef struct cu_nccl {
  ncclResult_t (*get_unique_id)(ncclUniqueId *id);
  ncclResult_t (*comm_init_rank)(ncclComm_t *comm, int nranks, ncclUniqueId id,
                                 int rank);
  ncclResult_t (*comm_destroy)(ncclComm_t comm);
  ncclResult_t (*comm_abort)(ncclComm_t comm);
  ncclResult_t (*comm_get_async_error)(ncclComm_t comm, ncclResult_t *error);
  ncclResult_t (*all_reduce)(const void *send, void *recv, size_t count,
                             ncclDataType_t type, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*broadcast)(const void *send, void *recv, size_t count,
                            ncclDataType_t type, int root, ncclComm_t comm,
                            cudaStream_t stream);
  ncclResult_t (*reduce)(const void *send, void *recv, size_t count,
                         ncclDataType_t type, ncclRedOp_t op, int root,
                         ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*all_gather)(const void *send, void *recv, size_t count,
                             ncclDataType_t type, ncclComm_t comm,
                             cudaStream_t stream);
  ncclResult_t (*reduce_scatter)(const void *send, void *recv, size_t count,
                                 ncclDataType_t type, ncclRedOp_t op,
                                 ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*send)(const void *send, size_t count, ncclDataType_t type,
                       int peer, ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*recv)(void *recv, size_t count, ncclDataType_t type, int peer,
                       ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  const char *(*get_error_string)(ncclResult_t result);
} cu_nccl_t;

/* The NCCL table, or NULL (with the reason in cu_last_error). Thread-safe;
 * resolved once. */
const cu_nccl_t *cu_nccl(void);

/* cu_fail for a failed NCCL call: "<what>: <ncclGetErrorString>". */
C_Status cu_fail_nccl(const cu_nccl_t *nccl, ncclResult_t result,
                      const char *what);

#endif /* BACKPLANE_CUDA_NCCL_LIBRARY_H_ */
