#include "train_layers.h"

#include <string.h>

#include "train_error.h"

#define CALL(what, call)                                                       \
  do {                                                                         \
    bp_status_t s_ = (call);                                                   \
    if (s_ != BP_OK)                                                           \
      return train_fail_call(s_, what);                                        \
  } while (0)

#define OP(exec, name, ...)                                                    \
  do {                                                                         \
    diopiError_t e_ = (exec)->ops->name((exec)->ctx, __VA_ARGS__);             \
    if (e_ != diopiSuccess)                                                    \
      return train_op_failed((exec), e_, #name);                               \
  } while (0)

bp_status_t train_op_failed(const train_exec_t *exec, diopiError_t error,
                            const char *op) {
  return train_fail(bp_ops_status(error), "%s on %s: %s: %s", op,
                    bp_device_name(exec->device), bp_ops_error_name(error),
                    bp_ops_library_last_error(exec->ops->library));
}

bp_status_t train_ops_find(const bp_ops_library_t *library,
                           const train_model_t *model, train_ops_t *ops) {
  memset(ops, 0, sizeof *ops);
  bool conv = train_model_uses(model, TRAIN_LAYER_CONV2D);
  bool pool = train_model_uses(model, TRAIN_LAYER_MAX_POOL2D);
  struct {
    const char *name;
    void *slot;
    bool needed;
  } table[] = {
      {"diopiLinear", &ops->linear, true},
      {"diopiLinearBackward", &ops->linear_backward, true},
      {"diopiConvolution2d", &ops->conv2d, conv},
      {"diopiConvolution2dBackward", &ops->conv2d_backward, conv},
      {"diopiMaxPool2dWithIndices", &ops->max_pool2d, pool},
      {"diopiMaxPool2dBackward", &ops->max_pool2d_backward, pool},
      {"diopiReluInp", &ops->relu_inp, true},
      {"diopiThresholdBackward", &ops->threshold_backward, true},
      {"diopiCrossEntropyLoss", &ops->cross_entropy, true},
      {"diopiCrossEntropyLossBackward", &ops->cross_entropy_backward, true},
      {"diopiAdamW", &ops->adamw, true},
      {"diopiArgmax", &ops->argmax, true},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (!table[i].needed)
      continue;
    void *fn;
    bp_status_t s = bp_ops_library_find(library, table[i].name, &fn);
    if (s)
      return train_fail(s, "the op library %s has no %s, which the %s needs",
                        bp_ops_library_path(library), table[i].name,
                        model->name);
    memcpy(table[i].slot, &fn, sizeof fn);
  }
  ops->library = library;
  return BP_OK;
}

static bp_status_t wrap(bp_device_t *device, void *data, diopiDtype_t dtype,
                        int64_t batch, size_t ndim, const int64_t *shape,
                        diopiTensorHandle_t *out) {
  int64_t full[4] = {batch};
  size_t n = 0;
  if (batch >= 0)
    n = 1;
  for (size_t d = 0; d < ndim; d++)
    full[n++] = shape[d];
  CALL("bp_ops_tensor_wrap",
       bp_ops_tensor_wrap(device, data, dtype, n, full, NULL, out));
  return BP_OK;
}

enum { NO_BATCH = -1 };

bp_status_t train_params_wrap(bp_device_t *device, const train_model_t *model,
                              float *params, float *grads,
                              train_params_t *out) {
  memset(out, 0, sizeof *out);
  const diopiDtype_t f32 = diopi_dtype_float32;
  bp_status_t s;
  for (size_t l = 0; l < model->layer_count; l++) {
    const train_layer_t *layer = &model->layers[l];
    if (!layer->param_size)
      continue;
    int64_t width = layer->out_shape[0];
    int64_t shape[4] = {width, layer->in_shape[0], layer->kernel,
                        layer->kernel};
    size_t ndim = layer->kind == TRAIN_LAYER_CONV2D ? 4 : 2;
    float *w = params + layer->param_offset;
    if ((s = wrap(device, w, f32, NO_BATCH, ndim, shape, &out->weight[l])) ||
        (s = wrap(device, w + layer->weight_size, f32, NO_BATCH, 1, &width,
                  &out->bias[l])))
      return s;
    if (!grads)
      continue;
    float *g = grads + layer->param_offset;
    if ((s = wrap(device, g, f32, NO_BATCH, ndim, shape,
                  &out->grad_weight[l])) ||
        (s = wrap(device, g + layer->weight_size, f32, NO_BATCH, 1, &width,
                  &out->grad_bias[l])))
      return s;
  }
  return BP_OK;
}

static void release(diopiTensorHandle_t *tensors, size_t n) {
  for (size_t i = 0; i < n; i++) {
    bp_ops_tensor_destroy(tensors[i]);
    tensors[i] = NULL;
  }
}

void train_params_release(train_params_t *params) {
  release(params->weight, TRAIN_MAX_LAYERS);
  release(params->bias, TRAIN_MAX_LAYERS);
  release(params->grad_weight, TRAIN_MAX_LAYERS);
  release(params->grad_bias, TRAIN_MAX_LAYERS);
}

static bp_status_t alloc(bp_device_t *device, size_t bytes, void **out) {
  CALL("bp_device_malloc", bp_device_malloc(device, bytes, out));
  return BP_OK;
}

bp_status_t train_pass_create(bp_device_t *device, const train_model_t *model,
                              int64_t batch, bool with_grads,
                              train_pass_t *pass) {
  memset(pass, 0, sizeof *pass);
  pass->device = device;
  pass->batch = batch;
  pass->layer_count = model->layer_count;
  const diopiDtype_t f32 = diopi_dtype_float32;
  bp_status_t s;
  for (size_t l = 0; l < model->layer_count; l++) {
    const train_layer_t *layer = &model->layers[l];
    size_t bytes = (size_t)batch * train_layer_out_numel(layer) * sizeof(float);
    if ((s = alloc(device, bytes, &pass->out[l])) ||
        (s = wrap(device, pass->out[l], f32, batch, layer->out_ndim,
                  layer->out_shape, &pass->out_t[l])))
      return s;
    if (with_grads &&
        ((s = alloc(device, bytes, &pass->grad_out[l])) ||
         (s = wrap(device, pass->grad_out[l], f32, batch, layer->out_ndim,
                   layer->out_shape, &pass->grad_out_t[l]))))
      return s;
    if (layer->kind == TRAIN_LAYER_MAX_POOL2D &&
        ((s = alloc(device,
                    (size_t)batch * train_layer_out_numel(layer) *
                        sizeof(int64_t),
                    &pass->indices[l])) ||
         (s = wrap(device, pass->indices[l], diopi_dtype_int64, batch,
                   layer->out_ndim, layer->out_shape, &pass->indices_t[l]))))
      return s;
    if (l == 0)
      continue;
    if ((s = wrap(device, pass->out[l - 1], f32, batch, layer->in_ndim,
                  layer->in_shape, &pass->in_t[l])))
      return s;
    if (with_grads &&
        (s = wrap(device, pass->grad_out[l - 1], f32, batch, layer->in_ndim,
                  layer->in_shape, &pass->grad_in_t[l])))
      return s;
  }
  return BP_OK;
}

void train_pass_destroy(train_pass_t *pass, bp_stream_t *stream) {
  release(pass->out_t, TRAIN_MAX_LAYERS);
  release(pass->grad_out_t, TRAIN_MAX_LAYERS);
  release(pass->in_t, TRAIN_MAX_LAYERS);
  release(pass->grad_in_t, TRAIN_MAX_LAYERS);
  release(pass->indices_t, TRAIN_MAX_LAYERS);
  for (size_t l = 0; pass->device && l < TRAIN_MAX_LAYERS; l++) {
    void *buffers[] = {pass->out[l], pass->grad_out[l], pass->indices[l]};
    for (size_t b = 0; b < 3; b++) {
      if (!buffers[b])
        continue;
      if (stream)
        bp_device_free_async(pass->device, buffers[b], stream);
      else
        bp_device_free(pass->device, buffers[b]);
    }
  }
  memset(pass, 0, sizeof *pass);
}

bp_status_t train_input_wrap(bp_device_t *device, const train_model_t *model,
                             void *data, int64_t batch,
                             diopiTensorHandle_t *out) {
  return wrap(device, data, diopi_dtype_float32, batch, model->input_ndim,
              model->input_shape, out);
}

static diopiSize_t size2(const int64_t *pair) {
  return (diopiSize_t){pair, 2};
}

bp_status_t train_forward(const train_exec_t *exec, const train_model_t *model,
                          const train_params_t *params, train_pass_t *pass,
                          diopiConstTensorHandle_t input) {
  static const int64_t ones[2] = {1, 1};
  for (size_t l = 0; l < model->layer_count; l++) {
    const train_layer_t *layer = &model->layers[l];
    diopiConstTensorHandle_t in = l ? pass->in_t[l] : input;
    const int64_t kernel[2] = {layer->kernel, layer->kernel},
                  stride[2] = {layer->stride, layer->stride},
                  padding[2] = {layer->padding, layer->padding};
    switch (layer->kind) {
    case TRAIN_LAYER_LINEAR:
      OP(exec, linear, pass->out_t[l], in, params->weight[l], params->bias[l]);
      break;
    case TRAIN_LAYER_CONV2D:
      OP(exec, conv2d, pass->out_t[l], in, params->weight[l], params->bias[l],
         size2(stride), size2(padding), size2(ones), 1);
      break;
    case TRAIN_LAYER_MAX_POOL2D:
      OP(exec, max_pool2d, pass->out_t[l], pass->indices_t[l], in,
         size2(kernel), size2(stride), size2(padding), size2(ones), false);
      break;
    }
    if (layer->relu)
      OP(exec, relu_inp, pass->out_t[l]);
  }
  return BP_OK;
}

bp_status_t train_backward_layer(const train_exec_t *exec,
                                 const train_model_t *model,
                                 const train_params_t *params,
                                 train_pass_t *pass,
                                 diopiConstTensorHandle_t input, size_t l) {
  static const int64_t ones[2] = {1, 1};
  static const diopiScalar_t zero = {.stype = diopi_dtype_float64, .fval = 0};
  const train_layer_t *layer = &model->layers[l];
  /* Through the ReLU: its output is positive exactly where it passed. */
  if (layer->relu)
    OP(exec, threshold_backward, pass->grad_out_t[l], pass->grad_out_t[l],
       pass->out_t[l], &zero);
  diopiTensorHandle_t grad_in = l ? pass->grad_in_t[l] : NULL;
  diopiConstTensorHandle_t in = l ? pass->in_t[l] : input;
  const int64_t kernel[2] = {layer->kernel, layer->kernel},
                stride[2] = {layer->stride, layer->stride},
                padding[2] = {layer->padding, layer->padding};
  int64_t width = layer->out_shape[0];
  diopiSize_t bias_sizes = {&width, 1};
  switch (layer->kind) {
  case TRAIN_LAYER_LINEAR:
    OP(exec, linear_backward, grad_in, params->grad_weight[l],
       params->grad_bias[l], pass->grad_out_t[l], in, params->weight[l]);
    break;
  case TRAIN_LAYER_CONV2D:
    OP(exec, conv2d_backward, grad_in, params->grad_weight[l],
       params->grad_bias[l], pass->grad_out_t[l], in, params->weight[l],
       &bias_sizes, size2(stride), size2(padding), size2(ones), 1);
    break;
  case TRAIN_LAYER_MAX_POOL2D:
    if (grad_in) /* nothing to learn: only the input's gradient */
      OP(exec, max_pool2d_backward, grad_in, pass->grad_out_t[l], in,
         size2(kernel), size2(stride), size2(padding), size2(ones), false,
         pass->indices_t[l]);
    break;
  }
  return BP_OK;
}
