/* Detail formats parsed once (contract in trace_format.h). */
#include "layers/trace/trace_format.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

bp_trace_conversion_t bp_trace_next_conversion(const char **at,
                                               const char **spec_start) {
  const char *p = *at;
  for (;;) {
    p = strchr(p, '%');
    if (!p) {
      *at = p;
      return BP_TRACE_CONV_NONE;
    }
    if (p[1] != '%')
      break;
    p += 2;
  }
  *spec_start = p++;
  int longs = 0;
  bool size = false;
  if (*p == 'z') {
    size = true;
    ++p;
  }
  while (*p == 'l' && longs < 2) {
    ++longs;
    ++p;
  }
  char letter = *p;
  *at = *p ? p + 1 : p;
  if (letter == 'p' && !size && !longs)
    return BP_TRACE_CONV_POINTER;
  if (letter == 's' && !size && !longs)
    return BP_TRACE_CONV_STRING;
  if (letter != 'd' && letter != 'u')
    return BP_TRACE_CONV_OTHER;
  bool is_signed = letter == 'd';
  if (size)
    return is_signed || longs ? BP_TRACE_CONV_OTHER : BP_TRACE_CONV_SIZE;
  if (longs == 2)
    return is_signed ? BP_TRACE_CONV_LLONG : BP_TRACE_CONV_ULLONG;
  if (longs == 1)
    return is_signed ? BP_TRACE_CONV_LONG : BP_TRACE_CONV_ULONG;
  return is_signed ? BP_TRACE_CONV_INT : BP_TRACE_CONV_UNSIGNED;
}

static void parse(const char *format, bp_trace_format_plan_t *plan) {
  *plan = (bp_trace_format_plan_t){.format = format, .raw = true};
  const char *at = format, *spec;
  for (;;) {
    bp_trace_conversion_t c = bp_trace_next_conversion(&at, &spec);
    if (c == BP_TRACE_CONV_NONE)
      return;
    if (c == BP_TRACE_CONV_OTHER || plan->count == BP_TRACE_DETAIL_ARGS) {
      plan->raw = false;
      plan->count = 0;
      return;
    }
    plan->conversions[plan->count++] = (uint8_t)c;
  }
}

/* Direct-mapped by address; a slot, once filled, keeps its plan. */
enum { PLAN_SLOTS = 256 };
static _Atomic(bp_trace_format_plan_t *) plans[PLAN_SLOTS];

static size_t slot_of(const char *format) {
  uint64_t key = (uint64_t)(uintptr_t)format * 0x9e3779b97f4a7c15u;
  return (size_t)(key >> 56) % PLAN_SLOTS;
}

const bp_trace_format_plan_t *
bp_trace_format_plan(const char *format, bp_trace_format_plan_t *scratch) {
  _Atomic(bp_trace_format_plan_t *) *slot = &plans[slot_of(format)];
  bp_trace_format_plan_t *cached =
      atomic_load_explicit(slot, memory_order_acquire);
  if (cached && cached->format == format)
    return cached;
  parse(format, scratch);
  if (cached)
    return scratch; /* the slot is another format's */
  bp_trace_format_plan_t *plan = malloc(sizeof *plan);
  if (!plan)
    return scratch;
  *plan = *scratch;
  if (atomic_compare_exchange_strong_explicit(
          slot, &cached, plan, memory_order_acq_rel, memory_order_acquire))
    return plan;
  free(plan); /* another thread filled the slot first */
  return scratch;
}
