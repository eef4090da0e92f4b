/* The models `backplane train` knows, as descriptions the rank code walks:
 * an ordered list of layers, each with its per-sample input and output
 * shapes and its slice of the flat parameter buffer (weight, then bias).
 * Forward and backward of a layer are DIOPI ops (train_layers.h); the
 * gradient of each layer with parameters is one all-reduce bucket.
 *
 *   mlp: linear 64->256, ReLU, linear 256->256, ReLU, linear 256->10
 *   cnn: LeNet-style on the 1x8x8 image: conv 3x3 1->16 (pad 1), ReLU,
 *        max-pool 2, conv 3x3 16->32 (pad 1), ReLU, max-pool 2,
 *        linear 128->64, ReLU, linear 64->10
 *
 * A model is plain data, built once and read by every rank (immutable, so
 * thread-safe to share). */
#ifndef BACKPLANE_TRAIN_MODEL_H_
#define BACKPLANE_TRAIN_MODEL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backplane/backplane.h"

enum { TRAIN_MAX_LAYERS = 8 };

typedef enum train_layer_kind {
  TRAIN_LAYER_LINEAR = 0, /* diopiLinear: [N, in] -> [N, out] */
  TRAIN_LAYER_CONV2D,     /* diopiConvolution2d, square kernel */
  TRAIN_LAYER_MAX_POOL2D, /* diopiMaxPool2dWithIndices, square window */
} train_layer_kind_t;

typedef struct train_layer {
  train_layer_kind_t kind;
  bool relu;                       /* a ReLU on the output, in place */
  int64_t kernel, stride, padding; /* conv and pool */
  /* Per-sample shapes: [features] (ndim 1) or [C, H, W] (ndim 3). A linear
   * layer after a conv or pool sees its input flattened. */
  size_t in_ndim, out_ndim;
  int64_t in_shape[3], out_shape[3];
  /* Parameters (param_size 0: none): weight [out, in] or [oc, ic, k, k]
   * at param_offset, then bias [out] right after it. */
  size_t param_offset, param_size, weight_size;
  size_t fan_in; /* inputs per output, for the initialization */
} train_layer_t;

typedef struct train_model {
  const char *name;     /* "mlp", "cnn" */
  char description[96]; /* e.g. "MLP 64-256-256-10" */
  size_t layer_count;
  train_layer_t layers[TRAIN_MAX_LAYERS];
  size_t param_count;
  size_t buckets; /* layers with parameters: all-reduces per step */
  size_t input_ndim;
  int64_t input_shape[3];
} train_model_t;

/* Builds the model called `name` ("mlp" or "cnn"); another name is
 * BP_ERR_INVALID_ARGUMENT with a message listing the known ones. */
bp_status_t train_model_init(const char *name, train_model_t *out_model);
/* "mlp|cnn", for usage text. */
const char *train_model_names(void);

/* Elements of one sample's output of layer `l` (input of layer l + 1). */
size_t train_layer_out_numel(const train_layer_t *layer);
size_t train_layer_in_numel(const train_layer_t *layer);
/* Whether any layer of the model is of `kind`. */
bool train_model_uses(const train_model_t *model, train_layer_kind_t kind);

/* PyTorch's default initialization of nn.Linear and nn.Conv2d: weight and
 * bias uniform in +-1/sqrt(fan_in), drawn from `seed`, the same on every
 * rank. `params` holds param_count floats. */
void train_model_init_params(const train_model_t *model, uint64_t seed,
                             float *params);

#endif /* BACKPLANE_TRAIN_MODEL_H_ */
