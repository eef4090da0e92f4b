/* The trace layer's record of a framework-face call (core/observer.h). */
#include "core/device_table.h"
#include "layers/trace/trace_internal.h"

void bp_trace_observe_api_call(void *context, bp_device_t *device,
                               const char *name, uint64_t start_ns,
                               bp_status_t status, const char *detail_format,
                               va_list detail_args) {
  bp_trace_record_v(context, BP_TRACE_CATEGORY_API, name, &device->c_device,
                    start_ns, status, detail_format, detail_args);
}
