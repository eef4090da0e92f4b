/* Host-staged collectives: staging, the order of copies and callbacks, and
 * groups. */
#include "comm.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "comm/interface.h"
#include "comm/ops.h"
#include "copy.h"
#include "memory.h"
#include "reduce/reduce.h"
#include "stream.h"
#include "target.h"

/* One call's staging: a pinned host buffer holding the send part, then the
 * receive part (the same bytes for broadcast, which is in place). */
typedef struct staging {
  struct staging *next; /* the thread's group list */
  C_Stream stream;
  ocl_device_t *dev;
  unsigned char *host; /* NULL when the call moves no bytes */
  size_t bytes;
  void *send, *recv; /* host pointers into `host` (or NULL) */
  size_t send_bytes, recv_bytes;
  void *device_recv; /* where `recv` goes back; NULL for none */
} staging_t;

typedef struct group {
  unsigned depth;
  staging_t *pending; /* calls whose copies out wait for the group end */
} group_t;

static _Thread_local group_t group;

enum { RECV_ALIGN = 64 };

static void free_staging(C_Device device, C_Stream stream, void *user_data,
                         C_Status *status) {
  (void)device;
  (void)stream;
  staging_t *s = user_data;
  if (s->host)
    ocl_host_memory_deallocate(&s->dev->handle, s->host, s->bytes);
  free(s);
  *status = C_SUCCESS;
}

/* Enqueues the copy out (when `copy_out`) and the release of the staging.
 * If the release cannot be enqueued, waits for the stream and frees here. */
static bp_status_t finish(staging_t *s, bool copy_out) {
  bp_status_t status = BP_OK;
  C_Device device = &s->dev->handle;
  if (copy_out && s->device_recv &&
      ocl_async_memory_copy_h2d(device, s->stream, s->device_recv, s->recv,
                                s->recv_bytes) != C_SUCCESS)
    status = vcpu_comm_reject(BP_ERR_PLUGIN,
                              "copying the staged result back on %s: %s",
                              s->dev->name, ocl_last_error());
  if (ocl_stream_add_callback(device, s->stream, free_staging, s) !=
      C_SUCCESS) {
    C_Status ignored;
    ocl_synchronize_stream(device, s->stream);
    free_staging(device, s->stream, s, &ignored);
  }
  return status;
}

/* Element counts of the call's device input and output. */
static void spans(const vcpu_comm_desc_t *d, size_t nranks, size_t rank,
                  size_t *in, size_t *out) {
  switch (d->kind) {
  case VCPU_COMM_ALL_GATHER:
    *in = d->count, *out = d->count * nranks;
    break;
  case VCPU_COMM_REDUCE_SCATTER:
    *in = d->count * nranks, *out = d->count;
    break;
  case VCPU_COMM_REDUCE:
    *in = d->count, *out = d->peer == rank ? d->count : 0;
    break;
  case VCPU_COMM_SEND:
    *in = d->count, *out = 0;
    break;
  case VCPU_COMM_RECV:
    *in = 0, *out = d->count;
    break;
  case VCPU_COMM_BROADCAST: /* in place: `out` is the same bytes */
    *in = d->peer == rank ? d->count : 0, *out = d->count;
    break;
  default:
    *in = d->count, *out = d->count;
  }
}

/* Checks what staging needs before anything is enqueued; the library checks
 * the rest (op, root, peer, a failed communicator). */
static bp_status_t check(C_CCLComm comm, const vcpu_comm_desc_t *d,
                         C_Stream stream, struct C_Stream_st **out_stream) {
  const char *what = vcpu_comm_kind_name(d->kind);
  if (!comm)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "%s: comm is NULL", what);
  *out_stream = ocl_stream_any(stream);
  if (!*out_stream)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT, "%s on %s: %s", what,
                            comm->name, ocl_last_error());
  size_t size = vcpu_comm_dtype_size(d->dtype);
  if (size == 0)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "%s on %s: data type %d is not supported", what,
                            comm->name, (int)d->dtype);
  if (d->count > SIZE_MAX / size / 2 / comm->nranks)
    return vcpu_comm_reject(BP_ERR_INVALID_ARGUMENT,
                            "%s on %s: count %zu overflows the address space",
                            what, comm->name, d->count);
  return BP_OK;
}

/* Allocates the staging of `d` and enqueues its copy in. */
static bp_status_t stage_in(C_CCLComm comm, const vcpu_comm_desc_t *d,
                            struct C_Stream_st *stream, staging_t **out) {
  size_t size = vcpu_comm_dtype_size(d->dtype), in, out_count;
  spans(d, comm->nranks, comm->rank, &in, &out_count);
  bool in_place = d->kind == VCPU_COMM_BROADCAST;
  size_t send_bytes = in * size, recv_bytes = out_count * size;
  size_t recv_at =
      in_place ? 0 : (send_bytes + RECV_ALIGN - 1) / RECV_ALIGN * RECV_ALIGN;
  staging_t *s = calloc(1, sizeof *s);
  if (!s)
    return vcpu_comm_reject(BP_ERR_OUT_OF_MEMORY, "%s: out of host memory",
                            comm->name);
  *s = (staging_t){.stream = stream,
                   .dev = stream->dev,
                   .bytes = in_place ? recv_bytes : recv_at + recv_bytes,
                   .send_bytes = send_bytes,
                   .recv_bytes = recv_bytes,
                   .device_recv = recv_bytes ? d->recv : NULL};
  C_Device device = &s->dev->handle;
  if (s->bytes && ocl_host_memory_allocate(device, (void **)&s->host,
                                           s->bytes) != C_SUCCESS) {
    bp_status_t status = vcpu_comm_reject(
        BP_ERR_OUT_OF_MEMORY, "%s rank %zu: no pinned staging of %zu bytes: %s",
        comm->name, comm->rank, s->bytes, ocl_last_error());
    free(s);
    return status;
  }
  s->send = send_bytes ? s->host : NULL;
  s->recv = recv_bytes ? s->host + recv_at : NULL;
  if (send_bytes && ocl_async_memory_copy_d2h(device, stream, s->send, d->send,
                                              send_bytes) != C_SUCCESS) {
    bp_status_t status = vcpu_comm_reject(
        BP_ERR_INVALID_ARGUMENT, "%s rank %zu: staging the input: %s",
        comm->name, comm->rank, ocl_last_error());
    finish(s, false);
    return status;
  }
  *out = s;
  return BP_OK;
}

/* One call: stage in, hand the staged call to the library, then copy out
 * now or at the group end. */
static C_Status call(vcpu_comm_desc_t d, C_CCLComm comm, C_Stream handle) {
  struct C_Stream_st *stream = NULL;
  staging_t *s = NULL;
  bp_status_t status = check(comm, &d, handle, &stream);
  if (status == BP_OK)
    status = stage_in(comm, &d, stream, &s);
  if (status != BP_OK)
    return vcpu_comm_c_status(vcpu_comm_group_note(status));
  vcpu_comm_desc_t staged = d;
  staged.send = d.kind == VCPU_COMM_BROADCAST ? s->recv : s->send;
  staged.recv = s->recv;
  status = d.kind >= VCPU_COMM_SEND
               ? vcpu_comm_call_p2p(comm, staged, stream)
               : vcpu_comm_call_collective(comm, staged, stream);
  if (status != BP_OK || group.depth == 0) {
    bp_status_t copied = finish(s, status == BP_OK);
    return vcpu_comm_c_status(status != BP_OK ? status : copied);
  }
  s->next = group.pending;
  group.pending = s;
  return C_SUCCESS;
}

static C_Status group_start(void) {
  group.depth++;
  vcpu_comm_group_start();
  return C_SUCCESS;
}

/* The outermost end enqueues the group's collectives (the library), then
 * the copies out; if the group failed nothing ran, so nothing is copied. */
static C_Status group_end(void) {
  bp_status_t status = vcpu_comm_group_end();
  if (group.depth == 0)
    return vcpu_comm_c_status(status);
  if (--group.depth != 0)
    return vcpu_comm_c_status(status);
  staging_t *pending = group.pending;
  group.pending = NULL;
  /* Calls were pushed last first: copy out in call order. */
  staging_t *ordered = NULL;
  while (pending) {
    staging_t *next = pending->next;
    pending->next = ordered;
    ordered = pending;
    pending = next;
  }
  while (ordered) {
    staging_t *next = ordered->next;
    bp_status_t copied = finish(ordered, status == BP_OK);
    if (status == BP_OK)
      status = copied;
    ordered = next;
  }
  return vcpu_comm_c_status(status);
}

/* Communicators whose every data-moving call is staged. */
static C_Status init_rank(size_t nranks, C_CCLRootId *unique_id, size_t rank,
                          C_CCLComm *comm) {
  return vcpu_comm_init_rank_calling(nranks, unique_id, rank, call, comm);
}

void ocl_comm_fill_interface(C_DeviceInterface *table) {
  vcpu_comm_fill_interface(table);
  table->xccl_comm_init_rank = init_rank;
  table->xccl_group_start = group_start;
  table->xccl_group_end = group_end;
  table->xccl_all_to_all = NULL;
}

const BP_CommExtension ocl_comm_extension = {
    .base = {.struct_size = sizeof(BP_CommExtension),
             .type = BP_EXTENSION_COMM,
             .next = &ocl_target_kind.base},
    .comm_abort = vcpu_comm_ext_abort,
    .comm_get_async_error = vcpu_comm_ext_get_async_error,
    .last_error = vcpu_comm_last_error,
    .description = "host-staged: device data is copied to pinned host memory "
                   "and back around vcpu's transports (threads, shared "
                   "memory, Open MPI)",
};
