/* dropout of whole channels (PyTorch's dropout2d/dropout3d, feature
 * dropout), the form DIOPI's tests call diopiDropout in: the mask has the
 * input's leading dims and 1 for the rest ([N, C, 1, 1] for [N, C, H, W]),
 * and each mask element keeps or zeroes its channel. */
#ifndef BACKPLANE_REF_OPS_DROPOUT_CHANNELS_H_
#define BACKPLANE_REF_OPS_DROPOUT_CHANNELS_H_

#include <stdbool.h>

#include "ref_tensor.h"

/* Whether `mask` is a channel mask of `input` (see above) and not input's
 * own shape. */
bool ref_dropout_is_channel_mask(const ref_view_t *mask,
                                 const ref_view_t *input);

/* out = input * mask / (1 - p) with mask drawn per channel (u >= p keeps
 * one) from the generator's next mask.numel draws (NULL generator: a
 * library-wide counter); not `train`: out = input and mask = 1. out has
 * input's shape (the caller checked it and p). */
diopiError_t ref_dropout_channels(diopiContextHandle_t ctx, const char *op,
                                  const ref_view_t *out, const ref_view_t *mask,
                                  const ref_view_t *input, double p, bool train,
                                  diopiGeneratorHandle_t generator);

#endif /* BACKPLANE_REF_OPS_DROPOUT_CHANNELS_H_ */
