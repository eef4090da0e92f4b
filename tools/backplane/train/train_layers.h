/* Forward and backward through a model's layers (train_model.h) with the
 * DIOPI functions of an op library, on one device and one op context. A
 * pass holds the activations (and, for training, their gradients) of one
 * batch size; parameters are views over the flat parameter and gradient
 * buffers. Everything is enqueued on the context's stream; nothing here
 * waits. Internal to tools/backplane/train; one thread per rank. */
#ifndef BACKPLANE_TRAIN_LAYERS_H_
#define BACKPLANE_TRAIN_LAYERS_H_

#include <stdbool.h>

#include "backplane/backplane.h"
#include "backplane/diopi/functions.h"
#include "backplane/ops.h"

#include "train_model.h"

/* The op functions the trainer calls, found once in the library (those of
 * layer kinds the model does not use may stay NULL). */
typedef struct train_ops {
  const bp_ops_library_t *library; /* for its error messages */
  __typeof__(&diopiLinear) linear;
  __typeof__(&diopiLinearBackward) linear_backward;
  __typeof__(&diopiConvolution2d) conv2d;
  __typeof__(&diopiConvolution2dBackward) conv2d_backward;
  __typeof__(&diopiMaxPool2dWithIndices) max_pool2d;
  __typeof__(&diopiMaxPool2dBackward) max_pool2d_backward;
  __typeof__(&diopiReluInp) relu_inp;
  __typeof__(&diopiThresholdBackward) threshold_backward;
  __typeof__(&diopiCrossEntropyLoss) cross_entropy;
  __typeof__(&diopiCrossEntropyLossBackward) cross_entropy_backward;
  __typeof__(&diopiAdamW) adamw;
  __typeof__(&diopiArgmax) argmax;
} train_ops_t;

/* Finds the ops `model` needs in `library`; a missing one is
 * BP_ERR_UNSUPPORTED naming it and the library. */
bp_status_t train_ops_find(const bp_ops_library_t *library,
                           const train_model_t *model, train_ops_t *out_ops);

/* Where ops run: the functions, the context (its stream) and the device
 * (for messages). */
typedef struct train_exec {
  const train_ops_t *ops;
  diopiContextHandle_t ctx;
  bp_device_t *device;
} train_exec_t;

/* Tensor views of each layer's weight and bias in `params`, and of their
 * gradients in `grads` (NULL: none). Layers without parameters: NULL. */
typedef struct train_params {
  diopiTensorHandle_t weight[TRAIN_MAX_LAYERS], bias[TRAIN_MAX_LAYERS];
  diopiTensorHandle_t grad_weight[TRAIN_MAX_LAYERS],
      grad_bias[TRAIN_MAX_LAYERS];
} train_params_t;

bp_status_t train_params_wrap(bp_device_t *device, const train_model_t *model,
                              float *params, float *grads,
                              train_params_t *out_params);
void train_params_release(train_params_t *params);

/* One batch size's activations: out[l] is layer l's output [batch, ...];
 * in_t[l] (l > 0) views out[l - 1] in the shape layer l takes. With
 * gradients, grad_out[l] and grad_in_t[l] likewise. */
typedef struct train_pass {
  bp_device_t *device;
  int64_t batch;
  void *out[TRAIN_MAX_LAYERS], *grad_out[TRAIN_MAX_LAYERS],
      *indices[TRAIN_MAX_LAYERS];
  diopiTensorHandle_t out_t[TRAIN_MAX_LAYERS], grad_out_t[TRAIN_MAX_LAYERS];
  diopiTensorHandle_t in_t[TRAIN_MAX_LAYERS], grad_in_t[TRAIN_MAX_LAYERS];
  diopiTensorHandle_t indices_t[TRAIN_MAX_LAYERS];
  size_t layer_count;
} train_pass_t;

/* Allocates the pass's device memory (held until destroy). */
bp_status_t train_pass_create(bp_device_t *device, const train_model_t *model,
                              int64_t batch, bool with_grads,
                              train_pass_t *out_pass);
/* Frees the memory once `stream`'s work so far is done (NULL: now; the
 * caller has synchronized). Safe on a zeroed or partly made pass. */
void train_pass_destroy(train_pass_t *pass, bp_stream_t *stream);

/* Wraps `data` ([batch, model input]) as the first layer's input. */
bp_status_t train_input_wrap(bp_device_t *device, const train_model_t *model,
                             void *data, int64_t batch,
                             diopiTensorHandle_t *out_tensor);

/* Every layer's forward: pass->out_t[last] holds the logits. */
bp_status_t train_forward(const train_exec_t *exec, const train_model_t *model,
                          const train_params_t *params, train_pass_t *pass,
                          diopiConstTensorHandle_t input);
/* Layer `l`'s backward, from pass->grad_out_t[l] (d loss / d output of
 * layer l, before its ReLU) to the gradients of its parameters and, for
 * l > 0, of its input. */
bp_status_t train_backward_layer(const train_exec_t *exec,
                                 const train_model_t *model,
                                 const train_params_t *params,
                                 train_pass_t *pass,
                                 diopiConstTensorHandle_t input, size_t l);

/* An op's failure as a trainer error: "<op> on <device>: <error>: <the
 * library's message>". */
bp_status_t train_op_failed(const train_exec_t *exec, diopiError_t error,
                            const char *op);

#endif /* BACKPLANE_TRAIN_LAYERS_H_ */
