#include "alloc_trace.h"

#include <stdlib.h>

#define FLOAT_BYTES 4

typedef struct builder {
  alloc_trace_t *trace;
  bool ok;
} builder_t;

static void emit(builder_t *b, alloc_op_kind_t kind, uint32_t slot,
                 size_t size) {
  alloc_trace_t *t = b->trace;
  if (!b->ok)
    return;
  if (t->count == t->capacity) {
    size_t capacity = t->capacity ? t->capacity * 2 : 256;
    alloc_op_t *ops = realloc(t->ops, capacity * sizeof *ops);
    if (!ops) {
      b->ok = false;
      return;
    }
    t->ops = ops;
    t->capacity = capacity;
  }
  t->ops[t->count++] = (alloc_op_t){kind, slot, size};
  if (slot >= t->slots)
    t->slots = slot + 1;
}

static uint32_t new_slot(builder_t *b) {
  return b->trace->slots++;
}

static uint32_t alloc(builder_t *b, size_t size) {
  uint32_t slot = new_slot(b);
  emit(b, ALLOC_OP_ALLOC, slot, size);
  return slot;
}

static void release(builder_t *b, uint32_t slot) {
  emit(b, ALLOC_OP_FREE, slot, 0);
}

/* A short-lived temporary. */
static void scratch(builder_t *b, size_t size) {
  release(b, alloc(b, size));
}

enum { PARAMS_PER_LAYER = 8, SAVED_PER_LAYER = 7 };

typedef struct layer_slots {
  uint32_t params[PARAMS_PER_LAYER];
  uint32_t saved[SAVED_PER_LAYER];
  uint32_t grads[PARAMS_PER_LAYER];
  uint32_t adam_m[PARAMS_PER_LAYER], adam_v[PARAMS_PER_LAYER];
} layer_slots_t;

bool alloc_trace_training(const alloc_trace_shape_t *shape,
                          alloc_trace_t *out) {
  *out = (alloc_trace_t){0};
  builder_t b = {out, true};
  size_t h = shape->hidden, tokens = shape->batch * shape->sequence;
  size_t f = FLOAT_BYTES;
  layer_slots_t *layers = calloc((size_t)shape->layers, sizeof *layers);
  if (!layers)
    return false;
  const size_t param_sizes[PARAMS_PER_LAYER] = {
      h * 3 * h * f, 3 * h * f, h * h * f,     h * f, /* attention */
      h * 4 * h * f, 4 * h * f, 4 * h * h * f,        /* MLP up, down */
      4 * h * f};                                     /* layer norms */
  /* Setup: embedding and parameters. */
  alloc(&b, shape->vocabulary * h * f); /* embedding */
  for (int l = 0; l < shape->layers; l++)
    for (int p = 0; p < PARAMS_PER_LAYER; p++) {
      layers[l].params[p] = alloc(&b, param_sizes[p]);
      layers[l].adam_m[p] = new_slot(&b);
      layers[l].adam_v[p] = new_slot(&b);
      if (!shape->lazy_optimizer_state) {
        emit(&b, ALLOC_OP_ALLOC, layers[l].adam_m[p], param_sizes[p]);
        emit(&b, ALLOC_OP_ALLOC, layers[l].adam_v[p], param_sizes[p]);
      }
    }
  out->setup_count = out->count;

  /* Forward: saved activations, temporaries. */
  uint32_t input = alloc(&b, tokens * h * f);
  const size_t saved_sizes[SAVED_PER_LAYER] = {
      tokens * h * f,     /* ln out */
      tokens * 3 * h * f, /* qkv */
      shape->batch * shape->heads * shape->sequence * shape->sequence * f,
      shape->batch * shape->heads * shape->sequence * shape->sequence * f,
      tokens * h * f,      /* attn out */
      tokens * 4 * h * f,  /* mlp hidden */
      tokens * 4 * h * f}; /* gelu out */
  for (int l = 0; l < shape->layers; l++) {
    scratch(&b, tokens * f); /* layer-norm statistics */
    for (int s = 0; s < SAVED_PER_LAYER; s++) {
      layers[l].saved[s] = alloc(&b, saved_sizes[s]);
      if (s == 3)
        scratch(&b, tokens * h); /* dropout mask */
    }
  }
  uint32_t logits = alloc(&b, tokens * shape->vocabulary * f);
  scratch(&b, tokens * f); /* loss */

  /* Backward, last layer first. */
  uint32_t grad_logits = alloc(&b, tokens * shape->vocabulary * f);
  release(&b, logits);
  uint32_t grad_embedding = alloc(&b, shape->vocabulary * h * f);
  uint32_t grad_out = alloc(&b, tokens * h * f);
  release(&b, grad_logits);
  for (int l = shape->layers - 1; l >= 0; l--) {
    for (int s = SAVED_PER_LAYER - 1; s >= 0; s--) {
      uint32_t grad = alloc(&b, saved_sizes[s]);
      if (s % 2 == 0) /* parameter gradients as they become ready */
        layers[l].grads[s] = alloc(&b, param_sizes[s]);
      release(&b, layers[l].saved[s]);
      release(&b, grad);
    }
    for (int p = 1; p < PARAMS_PER_LAYER; p += 2)
      layers[l].grads[p] = alloc(&b, param_sizes[p]);
    uint32_t grad_in = alloc(&b, tokens * h * f);
    release(&b, grad_out);
    grad_out = grad_in;
  }
  release(&b, grad_out);
  release(&b, input);

  /* Adam: (lazy) state, temporaries, then drop the gradients. */
  for (int l = 0; l < shape->layers; l++)
    for (int p = 0; p < PARAMS_PER_LAYER; p++) {
      if (shape->lazy_optimizer_state) {
        emit(&b, ALLOC_OP_ALLOC_ONCE, layers[l].adam_m[p], param_sizes[p]);
        emit(&b, ALLOC_OP_ALLOC_ONCE, layers[l].adam_v[p], param_sizes[p]);
      }
      scratch(&b, param_sizes[p]);
      release(&b, layers[l].grads[p]);
    }
  release(&b, grad_embedding);
  free(layers);
  if (!b.ok)
    alloc_trace_destroy(out);
  return b.ok;
}

void alloc_trace_destroy(alloc_trace_t *trace) {
  free(trace->ops);
  *trace = (alloc_trace_t){0};
}

int alloc_trace_run(const alloc_trace_t *trace, bool setup, void **slots,
                    const alloc_trace_target_t *target) {
  size_t begin = setup ? 0 : trace->setup_count;
  size_t end = setup ? trace->setup_count : trace->count;
  for (size_t i = begin; i < end; i++) {
    const alloc_op_t *op = &trace->ops[i];
    int result = 0;
    if (op->kind == ALLOC_OP_FREE) {
      result = target->release(target->context, slots[op->slot]);
      slots[op->slot] = NULL;
    } else if (op->kind == ALLOC_OP_ALLOC || !slots[op->slot]) {
      result = target->allocate(target->context, op->size, &slots[op->slot]);
    }
    if (result)
      return result;
  }
  return 0;
}

int alloc_trace_release_all(const alloc_trace_t *trace, void **slots,
                            const alloc_trace_target_t *target) {
  int result = 0;
  for (uint32_t i = 0; i < trace->slots; i++)
    if (slots[i]) {
      int r = target->release(target->context, slots[i]);
      slots[i] = NULL;
      if (r && !result)
        result = r;
    }
  return result;
}
