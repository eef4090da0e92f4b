/* The trace layer's record of a framework-face call (core/api_trace.h). */
#include <stdarg.h>
#include <stdio.h>

#include "core/device_table.h"
#include "layers/trace_internal.h"

void bp_trace_api_call(bp_trace_layer_t *layer, bp_device_t *device,
                       const char *name, uint64_t start_ns, bp_status_t status,
                       const char *detail_format, ...) {
  char detail[256];
  va_list args;
  va_start(args, detail_format);
  vsnprintf(detail, sizeof detail, detail_format, args);
  va_end(args);
  bp_trace_record_host(layer, "api", name, &device->c_device, start_ns,
                       bp_status_name(status), detail);
}
