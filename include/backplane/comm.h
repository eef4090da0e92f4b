/* Collectives: communicators over any plugin's xccl_* functions (NCCL's
 * semantics; docs/collectives.md).
 *
 * A communicator is one rank of a group of `nranks`, bound to one device.
 * Collectives are enqueued on a stream of that device and return at once;
 * failures that happen later on the stream (a peer that never arrives, a
 * mismatched call, an abort) are reported by bp_comm_async_error() and by
 * every later call on the communicator. In-place conventions are NCCL's:
 * all_reduce, broadcast and reduce with send == recv; all_gather with
 * send == recv + rank * count; reduce_scatter with recv == send + rank *
 * count. Counts are elements: per rank for all_gather and reduce_scatter,
 * total for the others.
 *
 * Abort, async errors and detailed messages need the plugin's collectives
 * extension (comm_ext.h); without it bp_comm_abort and bp_comm_async_error
 * are BP_ERR_UNSUPPORTED. A plugin lacking xccl_all_to_all gets Paddle's
 * fallback over send/recv. Every call is thread-safe except destroy.
 */
#ifndef BACKPLANE_COMM_H_
#define BACKPLANE_COMM_H_

#include <stddef.h>

#include "backplane/device.h"
#include "backplane/dtype.h"
#include "backplane/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bp_comm bp_comm_t;

/* How a reduction combines the ranks' elements (NCCL's ncclRedOp_t). AVG is
 * the sum divided by the rank count. */
typedef enum bp_reduce_op {
  BP_REDUCE_SUM = 0,
  BP_REDUCE_AVG = 1,
  BP_REDUCE_MAX = 2,
  BP_REDUCE_MIN = 3,
  BP_REDUCE_PRODUCT = 4,
  BP_REDUCE_OP_COUNT = 5,
} bp_reduce_op_t;

/* Bytes of a unique id of `device`'s plugin (128 for vcpu). */
BP_API bp_status_t bp_comm_unique_id_size(bp_device_t *device,
                                          size_t *out_size);
/* Writes a fresh unique id into `id` (`size` must be at least the unique-id
 * size). Hand the bytes to every rank (any transport), then each calls
 * bp_comm_init_rank with them. */
BP_API bp_status_t bp_comm_get_unique_id(bp_device_t *device, void *id,
                                         size_t size);

/* Creates rank `rank` of `nranks` on `device` from the id's bytes. The
 * plugin decides whether this waits for the peers (vcpu does not: a peer that
 * never joins is reported by the first collective that needs it). */
BP_API bp_status_t bp_comm_init_rank(bp_device_t *device, size_t nranks,
                                     const void *id, size_t id_size,
                                     size_t rank, bp_comm_t **out_comm);

/* One communicator per device, all of one plugin, rank i on devices[i]
 * (NCCL's CommInitAll). out_comms receives ndevices handles, or nothing on
 * failure. */
BP_API bp_status_t bp_comm_init_all(bp_device_t *const *devices,
                                    size_t ndevices, bp_comm_t **out_comms);

/* Releases the communicator. vcpu first waits for the calls already enqueued
 * to run (as NCCL's destroy finalizes first); with other plugins, synchronize
 * its streams first. NULL is a no-op. */
BP_API bp_status_t bp_comm_destroy(bp_comm_t *comm);

/* Ends the communicator's pending and later collectives with BP_ERR_ABORTED,
 * on every rank the plugin reaches. Any thread, returns promptly. */
BP_API bp_status_t bp_comm_abort(bp_comm_t *comm);

/* BP_OK while healthy; else the first failure of the communicator, with
 * bp_last_error() naming the communicator, operation, sequence number and
 * missing rank. */
BP_API bp_status_t bp_comm_async_error(bp_comm_t *comm);

BP_API size_t bp_comm_rank(const bp_comm_t *comm);
BP_API size_t bp_comm_size(const bp_comm_t *comm);
BP_API bp_device_t *bp_comm_device(const bp_comm_t *comm);

/* The collectives. `stream` must belong to the communicator's device. A
 * dtype or op out of range is BP_ERR_INVALID_ARGUMENT. */
BP_API bp_status_t bp_comm_all_reduce(const void *send, void *recv,
                                      size_t count, bp_dtype_t dtype,
                                      bp_reduce_op_t op, bp_comm_t *comm,
                                      bp_stream_t *stream);
BP_API bp_status_t bp_comm_broadcast(void *buf, size_t count, bp_dtype_t dtype,
                                     size_t root, bp_comm_t *comm,
                                     bp_stream_t *stream);
/* recv may be NULL on ranks other than root. */
BP_API bp_status_t bp_comm_reduce(const void *send, void *recv, size_t count,
                                  bp_dtype_t dtype, bp_reduce_op_t op,
                                  size_t root, bp_comm_t *comm,
                                  bp_stream_t *stream);
BP_API bp_status_t bp_comm_all_gather(const void *send, void *recv,
                                      size_t count, bp_dtype_t dtype,
                                      bp_comm_t *comm, bp_stream_t *stream);
BP_API bp_status_t bp_comm_reduce_scatter(const void *send, void *recv,
                                          size_t count, bp_dtype_t dtype,
                                          bp_reduce_op_t op, bp_comm_t *comm,
                                          bp_stream_t *stream);
BP_API bp_status_t bp_comm_send(const void *send, size_t count,
                                bp_dtype_t dtype, size_t peer, bp_comm_t *comm,
                                bp_stream_t *stream);
BP_API bp_status_t bp_comm_recv(void *recv, size_t count, bp_dtype_t dtype,
                                size_t peer, bp_comm_t *comm,
                                bp_stream_t *stream);
/* Rank r's send_bufs[p] (send_counts[p] elements) goes to rank p's
 * recv_bufs[r]; every pair must agree on the count. */
BP_API bp_status_t bp_comm_all_to_all(const void *const *send_bufs,
                                      const size_t *send_counts,
                                      void *const *recv_bufs,
                                      const size_t *recv_counts,
                                      bp_dtype_t dtype, bp_comm_t *comm,
                                      bp_stream_t *stream);

/* Groups (per calling thread, nestable): between start and end, calls are
 * recorded and issued together at the outermost end, so one thread can drive
 * several ranks and sends/receives in the group never block each other.
 * Applies to every plugin of `runtime` that has groups. */
BP_API bp_status_t bp_comm_group_start(bp_runtime_t *runtime);
BP_API bp_status_t bp_comm_group_end(bp_runtime_t *runtime);

#ifdef __cplusplus
}
#endif

#endif /* BACKPLANE_COMM_H_ */
