/* Generators: (seed, offset) counters, and their state as a tensor. */
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "ops/ops_tensor.h"

BP_API bp_status_t bp_ops_generator_create(uint64_t seed,
                                           diopiGeneratorHandle_t *out) {
  if (!out)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_ops_generator_create: out is NULL");
  struct diopiGenerator *g = calloc(1, sizeof *g);
  if (!g)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_ops_generator_create: out of host memory");
  g->seed = seed;
  *out = g;
  return BP_OK;
}

BP_API void bp_ops_generator_destroy(diopiGeneratorHandle_t g) {
  free(g);
}

/* The state is 16 bytes on the host: seed then offset, native order. */
enum { STATE_BYTES = 2 * sizeof(uint64_t) };

DIOPI_RT_API diopiError_t diopiGeneratorGetState(diopiContextHandle_t ctx,
                                                 diopiConstGeneratorHandle_t g,
                                                 diopiTensorHandle_t *data) {
  if (!ctx || !g || !data)
    return diopiErrorOccurred;
  int64_t n = STATE_BYTES;
  diopiSize_t shape = {&n, 1};
  diopiTensorHandle_t t;
  diopiError_t err =
      diopiRequireTensor(ctx, &t, &shape, NULL, diopi_dtype_uint8, diopi_host);
  if (err != diopiSuccess)
    return err;
  uint64_t state[2] = {g->seed, g->offset};
  memcpy(t->storage, state, STATE_BYTES);
  *data = t;
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t diopiGeneratorSetState(diopiGeneratorHandle_t g,
                                                 diopiConstTensorHandle_t s) {
  if (!g || !s || s->device || s->ndim != 1 ||
      s->shape[0] * (int64_t)bp_ops_dtype_size(s->dtype) != STATE_BYTES)
    return diopiErrorOccurred;
  uint64_t state[2];
  memcpy(state, (const char *)s->storage, STATE_BYTES);
  g->seed = state[0];
  g->offset = state[1];
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t diopiGeneratorGetSeedAndOffset(
    diopiGeneratorHandle_t g, uint64_t *seed, uint64_t *offset) {
  if (!g || !seed || !offset)
    return diopiErrorOccurred;
  *seed = g->seed;
  *offset = g->offset;
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t diopiGeneratorSetSeedAndOffset(
    diopiGeneratorHandle_t g, uint64_t seed, uint64_t offset) {
  if (!g)
    return diopiErrorOccurred;
  g->seed = seed;
  g->offset = offset;
  return diopiSuccess;
}
