/* Waiting for a context's stream. */
#include "ref_settle.h"

#include "backplane/stream.h"
#include "ref_error.h"

diopiError_t ref_settle(diopiContextHandle_t ctx, const char *op) {
  diopiStreamHandle_t stream;
  if (diopiGetStream(ctx, &stream) != diopiSuccess || !stream)
    return ref_fail(op, "ctx: no stream (a NULL or foreign context)");
  if (bp_stream_synchronize(stream) != BP_OK)
    return ref_fail(op, "the stream failed before the op: %s", bp_last_error());
  return diopiSuccess;
}
