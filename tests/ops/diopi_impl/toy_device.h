/* A toy accelerator for the DIOPI-IMPL adapter tests: "device" memory is
 * host malloc, a stream is a worker thread running its queue in order, and
 * a few ops (diopiAdd, diopiFill, diopiMm; float32, diopiFill also int64)
 * are enqueued on the context's stream, which must be one of these streams
 * (anything else is refused: that is how a test sees which stream
 * diopiGetStream handed out). Built twice, once per registration style. */
#ifndef TOY_DEVICE_H_
#define TOY_DEVICE_H_

#include <diopi/diopirt.h>

void *toy_malloc(uint64_t bytes);
void toy_free(void *ptr);
int32_t toy_stream_create(diopiStreamHandle_t *stream);
int32_t toy_stream_destroy(diopiStreamHandle_t stream);
int32_t toy_stream_synchronize(diopiStreamHandle_t stream);
/* Copies in the order of `stream` (host memory on both sides). */
int32_t toy_memcpy_async(diopiStreamHandle_t stream, void *dst, const void *src,
                         uint64_t bytes);
const char *toy_last_error(void);

#endif /* TOY_DEVICE_H_ */
