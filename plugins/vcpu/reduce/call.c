/* Names and comparisons of collective calls (contracts in call.h). */
#include "reduce/call.h"

#include <stdio.h>

#include "reduce/reduce.h"

const char *comm_kind_name(comm_kind kind) {
  switch (kind) {
  case COMM_ALL_REDUCE:
    return "all_reduce";
  case COMM_BROADCAST:
    return "broadcast";
  case COMM_REDUCE:
    return "reduce";
  case COMM_ALL_GATHER:
    return "all_gather";
  case COMM_REDUCE_SCATTER:
    return "reduce_scatter";
  case COMM_SEND:
    return "send";
  case COMM_RECV:
    return "recv";
  }
  return "unknown";
}

static bool is_reduction(comm_kind kind) {
  return kind == COMM_ALL_REDUCE || kind == COMM_REDUCE ||
         kind == COMM_REDUCE_SCATTER;
}

static bool is_rooted(comm_kind kind) {
  return kind == COMM_BROADCAST || kind == COMM_REDUCE;
}

void comm_describe_call(const comm_desc *d, char *out, size_t capacity) {
  int n = snprintf(out, capacity, "%s(count=%zu, %s", comm_kind_name(d->kind),
                   d->count, comm_dtype_name(d->dtype));
  if (n > 0 && (size_t)n < capacity && is_reduction(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", %s", comm_op_name(d->op));
  if (n > 0 && (size_t)n < capacity && is_rooted(d->kind))
    n += snprintf(out + n, capacity - (size_t)n, ", root=%zu", d->peer);
  if (n > 0 && (size_t)n < capacity)
    snprintf(out + n, capacity - (size_t)n, ")");
}

bool comm_same_call(const comm_desc *a, const comm_desc *b) {
  if (a->kind != b->kind || a->count != b->count || a->dtype != b->dtype)
    return false;
  if (is_reduction(a->kind) && a->op != b->op)
    return false;
  return !is_rooted(a->kind) || a->peer == b->peer;
}
