#include "train_rank.h"

#include <stdlib.h>
#include <string.h>

#include "train.h"
#include "train_error.h"

#define OP(rank, name, ...)                                                    \
  do {                                                                         \
    diopiError_t e_ = (rank)->exec.ops->name((rank)->ctx, __VA_ARGS__);        \
    if (e_ != diopiSuccess)                                                    \
      return train_op_failed(&(rank)->exec, e_, #name);                        \
  } while (0)

#define CALL(what, call)                                                       \
  do {                                                                         \
    bp_status_t s_ = (call);                                                   \
    if (s_ != BP_OK)                                                           \
      return train_fail_call(s_, what);                                        \
  } while (0)

static bp_status_t wrap(train_rank_t *rank, void *data, diopiDtype_t dtype,
                        size_t ndim, int64_t d0, int64_t d1,
                        diopiTensorHandle_t *out) {
  int64_t shape[2] = {d0, d1};
  CALL("bp_ops_tensor_wrap",
       bp_ops_tensor_wrap(rank->device, data, dtype, ndim, shape, NULL, out));
  return BP_OK;
}

static bp_status_t alloc(train_rank_t *rank, size_t bytes, void *out) {
  void *p;
  CALL("bp_device_malloc", bp_device_malloc(rank->device, bytes, &p));
  memcpy(out, &p, sizeof p);
  return BP_OK;
}

static bp_status_t create_events(train_rank_t *rank) {
  for (int s = 0; s < TRAIN_RING; s++) {
    train_step_events_t *e = &rank->events[s];
    bp_event_t **all[] = {&e->start, &e->backward_done, &e->update_start,
                          &e->end};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
      CALL("bp_event_create", bp_event_create(rank->device, all[k]));
    for (size_t l = 0; l < rank->model->buckets; l++) {
      CALL("bp_event_create", bp_event_create(rank->device, &e->grad_ready[l]));
      CALL("bp_event_create", bp_event_create(rank->device, &e->comm_start[l]));
      CALL("bp_event_create", bp_event_create(rank->device, &e->comm_end[l]));
    }
  }
  CALL("bp_event_create", bp_event_create(rank->device, &rank->epoch_staged));
  return BP_OK;
}

static bp_status_t create_buffers(train_rank_t *rank) {
  const train_model_t *model = rank->model;
  size_t pbytes = model->param_count * sizeof(float);
  bp_status_t s;
  if ((s = alloc(rank, pbytes, &rank->params)) ||
      (s = alloc(rank, pbytes, &rank->grads)) ||
      (s = alloc(rank, pbytes, &rank->exp_avg)) ||
      (s = alloc(rank, pbytes, &rank->exp_avg_sq)) ||
      (s = alloc(rank, rank->epoch_capacity * TRAIN_INPUTS * sizeof(float),
                 &rank->epoch_x)) ||
      (s = alloc(rank, rank->epoch_capacity * sizeof(int64_t),
                 &rank->epoch_y)) ||
      (s = alloc(rank, TRAIN_RING * sizeof(float), &rank->loss)) ||
      (s = alloc(rank, sizeof(float), &rank->one)))
    return s;
  if ((s = train_pass_create(rank->device, model, rank->batch, true,
                             &rank->pass)))
    return s;
  void *pinned;
  CALL("bp_host_malloc",
       bp_host_malloc(rank->device, TRAIN_RING * sizeof(float), &pinned));
  rank->loss_host = pinned;
  static const float one = 1.0f;
  CALL("bp_copy",
       bp_copy(rank->device, rank->one, NULL, &one, sizeof one, NULL));
  CALL("bp_memset", bp_memset(rank->device, rank->exp_avg, 0, pbytes, NULL));
  CALL("bp_memset", bp_memset(rank->device, rank->exp_avg_sq, 0, pbytes, NULL));
  return BP_OK;
}

static bp_status_t create_tensors(train_rank_t *rank, size_t global_batch) {
  const train_model_t *model = rank->model;
  const diopiDtype_t f32 = diopi_dtype_float32;
  int64_t p = (int64_t)model->param_count;
  bp_status_t s;
  if ((s = wrap(rank, rank->params, f32, 1, p, 0, &rank->params_t)) ||
      (s = wrap(rank, rank->grads, f32, 1, p, 0, &rank->grads_t)) ||
      (s = wrap(rank, rank->exp_avg, f32, 1, p, 0, &rank->exp_avg_t)) ||
      (s = wrap(rank, rank->exp_avg_sq, f32, 1, p, 0, &rank->exp_avg_sq_t)) ||
      (s = wrap(rank, rank->one, f32, 0, 0, 0, &rank->one_t)) ||
      (s = train_params_wrap(rank->device, model, rank->params, rank->grads,
                             &rank->layer_params)))
    return s;
  for (int k = 0; k < TRAIN_RING; k++)
    if ((s = wrap(rank, rank->loss + k, f32, 0, 0, 0, &rank->loss_t[k])))
      return s;
  rank->batch_x = calloc(rank->steps_per_epoch, sizeof *rank->batch_x);
  rank->batch_y = calloc(rank->steps_per_epoch, sizeof *rank->batch_y);
  if (!rank->batch_x || !rank->batch_y)
    return train_fail(BP_ERR_OUT_OF_MEMORY, "out of host memory");
  for (size_t j = 0; j < rank->steps_per_epoch; j++) {
    size_t first = j * global_batch + rank->global_rank * (size_t)rank->batch;
    if ((s = train_input_wrap(rank->device, model,
                              rank->epoch_x + first * TRAIN_INPUTS, rank->batch,
                              &rank->batch_x[j])) ||
        (s = wrap(rank, rank->epoch_y + first, diopi_dtype_int64, 1,
                  rank->batch, 0, &rank->batch_y[j])))
      return s;
  }
  return BP_OK;
}

bp_status_t train_rank_create(train_rank_t *rank, bp_device_t *device,
                              const train_ops_t *ops,
                              const train_model_t *model, int64_t batch,
                              size_t global_rank, size_t global_batch,
                              size_t steps_per_epoch, size_t epoch_capacity) {
  memset(rank, 0, sizeof *rank);
  rank->device = device;
  rank->model = model;
  rank->batch = batch;
  rank->global_rank = global_rank;
  rank->steps_per_epoch = steps_per_epoch;
  rank->epoch_capacity = epoch_capacity;
  bp_status_t s;
  CALL("bp_stream_create", bp_stream_create(device, &rank->compute));
  CALL("bp_stream_create", bp_stream_create(device, &rank->comm_stream));
  CALL("bp_ops_context_create",
       bp_ops_context_create(device, rank->compute, &rank->ctx));
  rank->exec = (train_exec_t){.ops = ops, .ctx = rank->ctx, .device = device};
  if ((s = create_events(rank)) || (s = create_buffers(rank)) ||
      (s = create_tensors(rank, global_batch)))
    return s;
  return BP_OK;
}

static void destroy_tensors(diopiTensorHandle_t *tensors, size_t n) {
  for (size_t i = 0; tensors && i < n; i++)
    bp_ops_tensor_destroy(tensors[i]);
}

void train_rank_destroy(train_rank_t *rank) {
  if (rank->compute)
    bp_stream_synchronize(rank->compute);
  if (rank->comm_stream)
    bp_stream_synchronize(rank->comm_stream);
  destroy_tensors(rank->batch_x, rank->steps_per_epoch);
  destroy_tensors(rank->batch_y, rank->steps_per_epoch);
  free(rank->batch_x);
  free(rank->batch_y);
  diopiTensorHandle_t singles[] = {rank->params_t, rank->grads_t,
                                   rank->exp_avg_t, rank->exp_avg_sq_t,
                                   rank->one_t};
  destroy_tensors(singles, sizeof singles / sizeof singles[0]);
  destroy_tensors(rank->loss_t, TRAIN_RING);
  train_params_release(&rank->layer_params);
  train_pass_destroy(&rank->pass, NULL);
  bp_ops_context_destroy(rank->ctx);
  if (rank->comm)
    bp_comm_destroy(rank->comm);
  for (int s = 0; s < TRAIN_RING; s++) {
    train_step_events_t *e = &rank->events[s];
    bp_event_destroy(e->start);
    bp_event_destroy(e->backward_done);
    bp_event_destroy(e->update_start);
    bp_event_destroy(e->end);
    for (size_t l = 0; l < TRAIN_MAX_LAYERS; l++) {
      bp_event_destroy(e->grad_ready[l]);
      bp_event_destroy(e->comm_start[l]);
      bp_event_destroy(e->comm_end[l]);
    }
  }
  bp_event_destroy(rank->epoch_staged);
  void *buffers[] = {rank->params,     rank->grads,   rank->exp_avg,
                     rank->exp_avg_sq, rank->epoch_x, rank->epoch_y,
                     rank->loss,       rank->one};
  for (size_t i = 0; rank->device && i < sizeof buffers / sizeof buffers[0];
       i++)
    bp_device_free(rank->device, buffers[i]);
  if (rank->loss_host)
    bp_host_free(rank->device, rank->loss_host);
  bp_stream_destroy(rank->comm_stream);
  bp_stream_destroy(rank->compute);
  memset(rank, 0, sizeof *rank);
}

bp_status_t train_rank_forward(train_rank_t *rank, size_t j, size_t slot) {
  CALL("bp_event_record",
       bp_event_record(rank->events[slot].start, rank->compute));
  bp_status_t s = train_forward(&rank->exec, rank->model, &rank->layer_params,
                                &rank->pass, rank->batch_x[j]);
  if (s)
    return s;
  size_t last = rank->model->layer_count - 1;
  OP(rank, cross_entropy, rank->loss_t[slot], rank->pass.out_t[last],
     rank->batch_y[j], NULL, ReductionMean, -100, 0.0);
  OP(rank, cross_entropy_backward, rank->pass.grad_out_t[last], rank->one_t,
     rank->pass.out_t[last], rank->batch_y[j], NULL, ReductionMean, -100, 0.0);
  return BP_OK;
}

bp_status_t train_rank_backward_layer(train_rank_t *rank, size_t j, size_t l) {
  return train_backward_layer(&rank->exec, rank->model, &rank->layer_params,
                              &rank->pass, rank->batch_x[j], l);
}

bp_status_t train_rank_update(train_rank_t *rank, size_t slot, int64_t step,
                              float lr, float weight_decay) {
  OP(rank, adamw, rank->params_t, rank->grads_t, rank->exp_avg_t,
     rank->exp_avg_sq_t, NULL, lr, 0.9f, 0.999f, 1e-8f, weight_decay, step,
     false);
  CALL("bp_copy", bp_copy(NULL, rank->loss_host + slot, rank->device,
                          rank->loss + slot, sizeof(float), rank->compute));
  CALL("bp_event_record",
       bp_event_record(rank->events[slot].end, rank->compute));
  bp_ops_context_clear(rank->ctx); /* scratch the ops took, stream-ordered */
  return BP_OK;
}
