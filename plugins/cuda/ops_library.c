/* The native stream the op-library extension hands out. */
#include "ops_library.h"

#include "stream.h"

C_Status cu_native_stream(const C_Device device, C_Stream handle,
                          void **out_native) {
  struct C_Stream_st *stream = cu_stream_of(cu_device_get(device), handle);
  if (!stream)
    return C_ERROR;
  if (!out_native)
    return cu_fail(C_ERROR, "cuda native_stream: out_native is NULL");
  *out_native = (void *)stream->stream;
  return C_SUCCESS;
}
