/* Detail formats of trace events (internal): which printf conversions a
 * format holds, parsed once per format and kept in a process-wide cache
 * keyed by the format's address. A detail format is a string literal (it
 * outlives every trace, see trace_thread_buffer.h), so its address names
 * its text for the life of the process. */
#ifndef BACKPLANE_LAYERS_TRACE_TRACE_FORMAT_H_
#define BACKPLANE_LAYERS_TRACE_TRACE_FORMAT_H_

#include <stdbool.h>
#include <stdint.h>

/* Raw arguments an event keeps. */
enum { BP_TRACE_DETAIL_ARGS = 6 };

/* One conversion of a detail format. */
typedef enum bp_trace_conversion {
  BP_TRACE_CONV_NONE, /* end of format */
  BP_TRACE_CONV_POINTER,
  BP_TRACE_CONV_STRING,
  BP_TRACE_CONV_INT,
  BP_TRACE_CONV_UNSIGNED,
  BP_TRACE_CONV_SIZE,
  BP_TRACE_CONV_LONG,
  BP_TRACE_CONV_ULONG,
  BP_TRACE_CONV_LLONG,
  BP_TRACE_CONV_ULLONG,
  BP_TRACE_CONV_OTHER, /* not kept raw: the event is formatted at once */
} bp_trace_conversion_t;

typedef struct bp_trace_format_plan {
  const char *format;
  bool raw;      /* every conversion kept raw, at most BP_TRACE_DETAIL_ARGS */
  uint8_t count; /* conversions, when raw */
  uint8_t conversions[BP_TRACE_DETAIL_ARGS];
} bp_trace_format_plan_t;

/* The plan of `format`: the cached one, or, when the cache's slot holds
 * another format (or memory runs out), one parsed into `*scratch`.
 * Lock-free and thread-safe; cached plans live as long as the process. */
const bp_trace_format_plan_t *
bp_trace_format_plan(const char *format, bp_trace_format_plan_t *scratch);

/* The conversion at or after `*at` (advanced past it); "%%" is text. The
 * spec (from '%' to the conversion letter) is [*spec_start, *at). */
bp_trace_conversion_t bp_trace_next_conversion(const char **at,
                                               const char **spec_start);

#endif /* BACKPLANE_LAYERS_TRACE_TRACE_FORMAT_H_ */
