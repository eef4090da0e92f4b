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

enum {
  TRAIN_LAYERS = 3,
  TRAIN_RING = 3, /* steps in flight: the host runs at most this far ahead */
};

/* The op functions the trainer calls, found once in the library. */
typedef struct train_ops {
  const bp_ops_library_t *library; /* for its error messages */
  __typeof__(&diopiLinear) linear;
  __typeof__(&diopiLinearBackward) linear_backward;
  __typeof__(&diopiReluInp) relu_inp;
  __typeof__(&diopiThresholdBackward) threshold_backward;
  __typeof__(&diopiCrossEntropyLoss) cross_entropy;
  __typeof__(&diopiCrossEntropyLossBackward) cross_entropy_backward;
  __typeof__(&diopiAdamW) adamw;
  __typeof__(&diopiArgmax) argmax;
} train_ops_t;

/* The model's shape: layer l maps in[l] features to out[l]; its weight
 * [out, in] then bias [out] sit at offset[l] in the flat parameter buffer. */
typedef struct train_layout {
  int64_t in[TRAIN_LAYERS], out[TRAIN_LAYERS];
  size_t offset[TRAIN_LAYERS], size[TRAIN_LAYERS];
  size_t param_count;
} train_layout_t;

void train_layout_init(train_layout_t *layout);

/* Events of one step in flight, for ordering and for the time split. */
typedef struct train_step_events {
  bp_event_t *start, *backward_done, *update_start, *end;
  bp_event_t *grad_ready[TRAIN_LAYERS]; /* compute -> comm */
  bp_event_t *comm_start[TRAIN_LAYERS], *comm_end[TRAIN_LAYERS];
  size_t reduces; /* all-reduces this step ran (1 or TRAIN_LAYERS) */
  bool overlapped;
} train_step_events_t;

typedef struct train_rank {
  bp_device_t *device;
  bp_stream_t *compute, *comm_stream;
  bp_comm_t *comm;
  diopiContextHandle_t ctx;
  const train_ops_t *ops;
  const train_layout_t *layout;
  int64_t batch; /* per rank */
  size_t global_rank;

  /* Device memory (bp_device_malloc, held for the session). */
  float *params, *grads, *exp_avg, *exp_avg_sq;
  float *epoch_x, *act[TRAIN_LAYERS], *grad_act[TRAIN_LAYERS], *loss, *one;
  int64_t *epoch_y;
  size_t epoch_capacity; /* samples epoch_x holds */

  /* Tensor handles over that memory. */
  diopiTensorHandle_t weight[TRAIN_LAYERS], bias[TRAIN_LAYERS];
  diopiTensorHandle_t grad_weight[TRAIN_LAYERS], grad_bias[TRAIN_LAYERS];
  diopiTensorHandle_t act_t[TRAIN_LAYERS], grad_act_t[TRAIN_LAYERS];
  diopiTensorHandle_t params_t, grads_t, exp_avg_t, exp_avg_sq_t;
  diopiTensorHandle_t loss_t[TRAIN_RING], one_t;
  diopiTensorHandle_t *batch_x, *batch_y; /* one per step of an epoch */
  size_t steps_per_epoch;

  train_step_events_t events[TRAIN_RING];
  bp_event_t *epoch_staged; /* after the epoch's upload */
  float loss_host[TRAIN_RING];
} train_rank_t;

/* Creates streams, events, buffers and tensors for a rank on `device`.
 * `batch_offset(j)` of the epoch's sample order is where step j's shard
 * starts: j * global_batch + global_rank * batch. */
bp_status_t train_rank_create(train_rank_t *rank, bp_device_t *device,
                              const train_ops_t *ops,
                              const train_layout_t *layout, int64_t batch,
                              size_t global_rank, size_t global_batch,
                              size_t steps_per_epoch, size_t epoch_capacity);
/* Synchronizes and releases; safe on a partly created (zeroed) rank. */
void train_rank_destroy(train_rank_t *rank);

/* Forward, loss and backward of epoch step `j` into ring slot `slot`; after
 * the backward of each layer (last layer first) calls `layer_done(l)` so
 * the caller can start that layer's all-reduce. */
bp_status_t train_rank_forward(train_rank_t *rank, size_t j, size_t slot);
bp_status_t train_rank_backward_layer(train_rank_t *rank, size_t j, size_t slot,
                                      int layer);
/* AdamW on the flat buffers, then the loss copied to the host. */
bp_status_t train_rank_update(train_rank_t *rank, size_t slot, int64_t step,
                              float lr, float weight_decay);

#endif /* BACKPLANE_TRAIN_RANK_H_ */
