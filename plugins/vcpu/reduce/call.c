/* Names and comparisons of collective calls (contracts in call.h). */
#include "reduce/call.h"

#include <stdio.h>
#include <string.h>

#include "reduce/reduce.h"

const char *vcpu_comm_kind_name(vcpu_comm_kind_t kind) {
  switch (kind) {
  case VCPU_COMM_ALL_REDUCE:
    return "all_reduce";
  case VCPU_COMM_BROADCAST:
    return "broadcast";
  case VCPU_COMM_REDUCE:
    return "reduce";
  case VCPU_COMM_ALL_GATHER:
    return "all_gather";
  case VCPU_COMM_REDUCE_SCATTER:
    return "reduce_scatter";
  case VCPU_COMM_SEND:
    return "send";
  case VCPU_COMM_RECV:
    return "recv";
  }
  return "unknown";
}

static bool is_reduction(vcpu_comm_kind_t kind) {
  return kind == VCPU_COMM_ALL_REDUCE || kind == VCPU_COMM_REDUCE ||
         kind == VCPU_COMM_REDUCE_SCATTER;
}

static bool is_rooted(vcpu_comm_kind_t kind) {
  return kind == VCPU_COMM_BROADCAST || kind == VCPU_COMM_REDUCE;
}

/* stage_of's bits: 1 (a stage), disagreed, kind (3), op (3), root. */
enum {
  STAGE_BIT = 1,
  DISAGREED_BIT = 2,
  KIND_SHIFT = 2,
  OP_SHIFT = 5,
  ROOT_SHIFT = 8
};

uint64_t vcpu_comm_stage_of(const vcpu_comm_desc_t *whole, bool disagreed) {
  return STAGE_BIT | (disagreed ? DISAGREED_BIT : 0) |
         (uint64_t)whole->kind << KIND_SHIFT | (uint64_t)whole->op << OP_SHIFT |
         (uint64_t)whole->peer << ROOT_SHIFT;
}

void vcpu_comm_describe_call(const vcpu_comm_desc_t *d, char *out,
                             size_t capacity) {
  if (d->stage_of != 0) {
    vcpu_comm_desc_t whole = *d;
    whole.kind = (vcpu_comm_kind_t)(d->stage_of >> KIND_SHIFT & 7);
    whole.op = (C_CCLReduceOp)(d->stage_of >> OP_SHIFT & 7);
    whole.peer = (size_t)(d->stage_of >> ROOT_SHIFT);
    whole.stage_of = 0;
    vcpu_comm_describe_call(&whole, out, capacity);
    if (d->stage_of & DISAGREED_BIT) {
      size_t used = strlen(out);
      snprintf(out + used, capacity - used, ", on a host that disagreed");
    }
    return;
  }
  int n =
      snprintf(out, capacity, "%s(count=%zu, %s", vcpu_comm_kind_name(d->kind),
               d->count, vcpu_comm_dtype_name(d->dtype));
  if (n > 0 && (size_t)n < capacity && is_reduction(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", %s",
                  vcpu_comm_op_name(d->op));
  if (n > 0 && (size_t)n < capacity && is_rooted(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", root=%zu", d->peer);
  if (n > 0 && (size_t)n < capacity)
    snprintf(out + n, capacity - (size_t)n, ")");
}

bool vcpu_comm_same_call(const vcpu_comm_desc_t *a, const vcpu_comm_desc_t *b) {
  if (a->kind != b->kind || a->count != b->count || a->dtype != b->dtype ||
      a->stage_of != b->stage_of)
    return false;
  if (is_reduction(a->kind) && a->op != b->op)
    return false;
  return !is_rooted(a->kind) || a->peer == b->peer;
}
