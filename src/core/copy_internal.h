/* bp_copy for the core's own use (internal): the same body, never a slice
 * of the trace (core/observer.h). */
#ifndef BACKPLANE_CORE_COPY_INTERNAL_H_
#define BACKPLANE_CORE_COPY_INTERNAL_H_

#include "backplane/memory.h"

bp_status_t bp_copy_internal(bp_device_t *dst_device, void *dst,
                             bp_device_t *src_device, const void *src,
                             size_t size, bp_stream_t *stream);

#endif /* BACKPLANE_CORE_COPY_INTERNAL_H_ */
