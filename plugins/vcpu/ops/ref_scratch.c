/* Scratch from the context. */
#include "ref_scratch.h"

#include <stdint.h>

#include "ref_error.h"

diopiError_t ref_scratch(diopiContextHandle_t ctx, const char *op, size_t bytes,
                         void **out) {
  diopiTensorHandle_t t;
  if (bytes > (size_t)INT64_MAX ||
      diopiRequireBuffer(ctx, &t, (int64_t)bytes + 64, diopi_device) !=
          diopiSuccess ||
      diopiGetTensorData(t, out) != diopiSuccess)
    return ref_fail(op, "out of device memory for %zu bytes of scratch", bytes);
  return diopiSuccess;
}
