#include "train_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "train.h"
#include "train_error.h"
#include "train_rng.h"

/* A layer as the model's table gives it: the output's width (features or
 * channels) and the window; shapes are worked out in order. */
typedef struct layer_spec {
  train_layer_kind_t kind;
  int64_t width, kernel, stride, padding;
  bool relu;
} layer_spec_t;

static const layer_spec_t mlp_layers[] = {
    {TRAIN_LAYER_LINEAR, TRAIN_HIDDEN, 0, 0, 0, true},
    {TRAIN_LAYER_LINEAR, TRAIN_HIDDEN, 0, 0, 0, true},
    {TRAIN_LAYER_LINEAR, TRAIN_CLASSES, 0, 0, 0, false},
};

static const layer_spec_t cnn_layers[] = {
    {TRAIN_LAYER_CONV2D, 16, 3, 1, 1, true},
    {TRAIN_LAYER_MAX_POOL2D, 0, 2, 2, 0, false},
    {TRAIN_LAYER_CONV2D, 32, 3, 1, 1, true},
    {TRAIN_LAYER_MAX_POOL2D, 0, 2, 2, 0, false},
    {TRAIN_LAYER_LINEAR, 64, 0, 0, 0, true},
    {TRAIN_LAYER_LINEAR, TRAIN_CLASSES, 0, 0, 0, false},
};

static const struct {
  const char *name, *label;
  const layer_spec_t *layers;
  size_t count;
  size_t input_ndim;
  int64_t input_shape[3];
} models[] = {
    {"mlp",
     "MLP",
     mlp_layers,
     sizeof mlp_layers / sizeof mlp_layers[0],
     1,
     {TRAIN_INPUTS, 0, 0}},
    {"cnn",
     "CNN",
     cnn_layers,
     sizeof cnn_layers / sizeof cnn_layers[0],
     3,
     {1, 8, 8}},
};

const char *train_model_names(void) {
  return "mlp|cnn";
}

static size_t numel(size_t ndim, const int64_t *shape) {
  size_t n = 1;
  for (size_t d = 0; d < ndim; d++)
    n *= (size_t)shape[d];
  return n;
}

size_t train_layer_out_numel(const train_layer_t *layer) {
  return numel(layer->out_ndim, layer->out_shape);
}

size_t train_layer_in_numel(const train_layer_t *layer) {
  return numel(layer->in_ndim, layer->in_shape);
}

bool train_model_uses(const train_model_t *model, train_layer_kind_t kind) {
  for (size_t l = 0; l < model->layer_count; l++)
    if (model->layers[l].kind == kind)
      return true;
  return false;
}

/* Fills `layer`'s shapes and parameter sizes from its input shape. */
static void shape_layer(const layer_spec_t *spec, size_t in_ndim,
                        const int64_t *in_shape, train_layer_t *layer) {
  layer->kind = spec->kind;
  layer->relu = spec->relu;
  layer->kernel = spec->kernel;
  layer->stride = spec->stride;
  layer->padding = spec->padding;
  if (spec->kind == TRAIN_LAYER_LINEAR) {
    layer->in_ndim = 1;
    layer->in_shape[0] = (int64_t)numel(in_ndim, in_shape);
    layer->out_ndim = 1;
    layer->out_shape[0] = spec->width;
    layer->fan_in = (size_t)layer->in_shape[0];
    layer->weight_size = (size_t)(spec->width * layer->in_shape[0]);
    layer->param_size = layer->weight_size + (size_t)spec->width;
    return;
  }
  layer->in_ndim = 3;
  memcpy(layer->in_shape, in_shape, 3 * sizeof *in_shape);
  layer->out_ndim = 3;
  for (int d = 1; d < 3; d++)
    layer->out_shape[d] =
        (in_shape[d] + 2 * spec->padding - spec->kernel) / spec->stride + 1;
  if (spec->kind == TRAIN_LAYER_MAX_POOL2D) {
    layer->out_shape[0] = in_shape[0];
    return;
  }
  layer->out_shape[0] = spec->width;
  layer->fan_in = (size_t)(in_shape[0] * spec->kernel * spec->kernel);
  layer->weight_size = (size_t)spec->width * layer->fan_in;
  layer->param_size = layer->weight_size + (size_t)spec->width;
}

bp_status_t train_model_init(const char *name, train_model_t *out) {
  size_t m = 0, known = sizeof models / sizeof models[0];
  while (m < known && (!name || strcmp(models[m].name, name) != 0))
    m++;
  if (m == known)
    return train_fail(BP_ERR_INVALID_ARGUMENT,
                      "model '%s' is not known (give %s)", name ? name : "",
                      train_model_names());
  memset(out, 0, sizeof *out);
  out->name = models[m].name;
  out->layer_count = models[m].count;
  out->input_ndim = models[m].input_ndim;
  memcpy(out->input_shape, models[m].input_shape, sizeof out->input_shape);
  size_t ndim = out->input_ndim;
  const int64_t *shape = out->input_shape;
  for (size_t l = 0; l < out->layer_count; l++) {
    train_layer_t *layer = &out->layers[l];
    shape_layer(&models[m].layers[l], ndim, shape, layer);
    layer->param_offset = out->param_count;
    out->param_count += layer->param_size;
    out->buckets += layer->param_size > 0;
    ndim = layer->out_ndim;
    shape = layer->out_shape;
  }
  /* "MLP 64-256-256-10": the input, then each layer's output width. */
  int at = snprintf(out->description, sizeof out->description, "%s %zu",
                    models[m].label, numel(out->input_ndim, out->input_shape));
  for (size_t l = 0; l < out->layer_count; l++) {
    const train_layer_t *layer = &out->layers[l];
    const char *what = layer->kind == TRAIN_LAYER_CONV2D       ? "c"
                       : layer->kind == TRAIN_LAYER_MAX_POOL2D ? "p"
                                                               : "";
    if (layer->kind == TRAIN_LAYER_MAX_POOL2D)
      at +=
          snprintf(out->description + at, sizeof out->description - (size_t)at,
                   "-%s%lld", what, (long long)layer->kernel);
    else
      at +=
          snprintf(out->description + at, sizeof out->description - (size_t)at,
                   "-%s%lld", what, (long long)layer->out_shape[0]);
  }
  return BP_OK;
}

void train_model_init_params(const train_model_t *model, uint64_t seed,
                             float *params) {
  uint64_t rng = seed ^ 0x6d6c7020696e6974ull; /* "mlp init" */
  for (size_t l = 0; l < model->layer_count; l++) {
    const train_layer_t *layer = &model->layers[l];
    if (!layer->param_size)
      continue;
    float bound = 1.0f / sqrtf((float)layer->fan_in);
    for (size_t i = 0; i < layer->param_size; i++)
      params[layer->param_offset + i] =
          (2.0f * train_rng_unit(&rng) - 1.0f) * bound;
  }
}
