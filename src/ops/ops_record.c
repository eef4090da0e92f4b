/* DIOPI profiler records (diopiRecordStart/End). */
#include "backplane/diopi/diopirt.h"

/* Profiler records: accepted and ignored for now. The trace layer has no
 * public hook for host ranges yet; when it does, these two calls become its
 * begin and end. */
DIOPI_RT_API diopiError_t diopiRecordStart(const char *record_name,
                                           void **record) {
  if (!record_name || !record)
    return diopiErrorOccurred;
  *record = NULL;
  return diopiSuccess;
}

DIOPI_RT_API diopiError_t diopiRecordEnd(void **record) {
  return record ? diopiSuccess : diopiErrorOccurred;
}
