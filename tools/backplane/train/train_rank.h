/* One rank of the trainer: its device, its two streams, its communicator,
 * every device buffer and tensor handle it uses (all made once, at
 * creation), and the enqueueing of the pieces of a step. Internal to
 * tools/backplane/train; driven by train_session.c from one thread. */
#ifndef BACKPLANE_TRAIN_RANK_H_
#define BACKPLANE_TRAIN_RANK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"

#include "train_layers.h"
#include "train_model.h"

enum {
  TRAIN_RING = 3, /* steps in flight: the host runs at most this far ahead */
};

/* Events of one step in flight, for ordering and for the time split. */
typedef struct train_step_events {
  bp_event_t *start, *backward_done, *update_start, *end;
  /* Per all-reduce bucket (a layer with parameters), in the order they
   * run: last layer first. */
  bp_event_t *grad_ready[TRAIN_MAX_LAYERS]; /* compute -> comm */
  bp_event_t *comm_start[TRAIN_MAX_LAYERS], *comm_end[TRAIN_MAX_LAYERS];
  size_t reduces; /* all-reduces this step ran (1 or the model's buckets) */
  bool overlapped;
} train_step_events_t;

typedef struct train_rank {
  bp_device_t *device;
  bp_stream_t *compute, *comm_stream;
  bp_comm_t *comm;
  diopiContextHandle_t ctx;
  train_exec_t exec; /* ops, ctx and device together */
  const train_model_t *model;
  int64_t batch; /* per rank */
  size_t global_rank;

  /* Device memory (bp_device_malloc, held for the session). */
  float *params, *grads, *exp_avg, *exp_avg_sq;
  float *epoch_x, *loss, *one;
  int64_t *epoch_y;
  size_t epoch_capacity; /* samples epoch_x holds */

  /* Tensor handles over that memory. */
  train_params_t layer_params; /* per-layer views of params and grads */
  train_pass_t pass;           /* activations of the rank's batch */
  diopiTensorHandle_t params_t, grads_t, exp_avg_t, exp_avg_sq_t;
  diopiTensorHandle_t loss_t[TRAIN_RING], one_t;
  diopiTensorHandle_t *batch_x, *batch_y; /* one per step of an epoch */
  size_t steps_per_epoch;

  train_step_events_t events[TRAIN_RING];
  bp_event_t *epoch_staged; /* after the epoch's upload */
  /* Pinned (bp_host_malloc): the loss's copy back is enqueued, a copy into
   * pageable memory would wait for the stream inside every step. */
  float *loss_host; /* TRAIN_RING */
} train_rank_t;

/* Creates streams, events, buffers and tensors for a rank on `device`.
 * `batch_offset(j)` of the epoch's sample order is where step j's shard
 * starts: j * global_batch + global_rank * batch. */
bp_status_t train_rank_create(train_rank_t *rank, bp_device_t *device,
                              const train_ops_t *ops,
                              const train_model_t *model, int64_t batch,
                              size_t global_rank, size_t global_batch,
                              size_t steps_per_epoch, size_t epoch_capacity);
/* Synchronizes and releases; safe on a partly created (zeroed) rank. */
void train_rank_destroy(train_rank_t *rank);

/* Forward, loss and the loss's gradient of epoch step `j` into ring slot
 * `slot`; then the caller runs each layer's backward, last layer first,
 * starting the all-reduce of a layer's gradient as soon as it is done. */
bp_status_t train_rank_forward(train_rank_t *rank, size_t j, size_t slot);
bp_status_t train_rank_backward_layer(train_rank_t *rank, size_t j, size_t l);
/* AdamW on the flat buffers, then the loss copied to the host. */
bp_status_t train_rank_update(train_rank_t *rank, size_t slot, int64_t step,
                              float lr, float weight_decay);

#endif /* BACKPLANE_TRAIN_RANK_H_ */
