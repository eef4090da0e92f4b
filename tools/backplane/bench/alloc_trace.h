/* A realistic allocation trace of one training iteration of a transformer
 * (fp32): parameters allocated once; per iteration the forward pass saves
 * activations layer by layer (with short-lived temporaries), the backward
 * pass walks the layers in reverse, allocating gradients and freeing the
 * saved activations, and an Adam step uses temporaries, then drops the
 * gradients. Adam's state is allocated with the parameters, or (lazily, as
 * PyTorch does) at the first step: the live set then grows during the second
 * iteration, which is when a steady state begins. Shared by the
 * allocator's replay test and `backplane bench alloc`. */
#ifndef BACKPLANE_TOOLS_ALLOC_TRACE_H_
#define BACKPLANE_TOOLS_ALLOC_TRACE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum alloc_op_kind {
  ALLOC_OP_ALLOC,      /* slot = malloc(size) */
  ALLOC_OP_ALLOC_ONCE, /* the same, only if the slot is empty */
  ALLOC_OP_FREE,       /* free(slot) */
} alloc_op_kind_t;

typedef struct alloc_op {
  alloc_op_kind_t kind;
  uint32_t slot;
  size_t size;
} alloc_op_t;

typedef struct alloc_trace {
  alloc_op_t *ops;
  size_t count, capacity;
  size_t setup_count; /* ops[0, setup_count) run once, before iterations */
  uint32_t slots;     /* slot ids are below this */
} alloc_trace_t;

typedef struct alloc_trace_shape {
  int layers;
  size_t batch, sequence, hidden, heads, vocabulary;
  bool lazy_optimizer_state;
} alloc_trace_shape_t;

/* Builds the trace; false if host memory runs out. */
bool alloc_trace_training(const alloc_trace_shape_t *shape, alloc_trace_t *out);
void alloc_trace_destroy(alloc_trace_t *trace);

/* Where a replay allocates: both return 0 on success. */
typedef struct alloc_trace_target {
  void *context;
  int (*allocate)(void *context, size_t size, void **out_ptr);
  int (*release)(void *context, void *ptr);
} alloc_trace_target_t;

/* Runs the setup ops (`setup`) or one iteration, with `slots` (trace->slots
 * entries, NULL at first) holding the live pointers. Returns the failing
 * callback's result, or 0. */
int alloc_trace_run(const alloc_trace_t *trace, bool setup, void **slots,
                    const alloc_trace_target_t *target);
/* Frees every live slot. */
int alloc_trace_release_all(const alloc_trace_t *trace, void **slots,
                            const alloc_trace_target_t *target);

#endif /* BACKPLANE_TOOLS_ALLOC_TRACE_H_ */
