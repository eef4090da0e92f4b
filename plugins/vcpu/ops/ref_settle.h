/* For the few ops that read device data on the caller's thread (an output
 * sized by the data, a result returned to the host): waiting for the work
 * enqueued on the context's stream before them. */
#ifndef BACKPLANE_REF_OPS_SETTLE_H_
#define BACKPLANE_REF_OPS_SETTLE_H_

#include <diopi/diopirt.h>

/* Blocks until the context's stream has run everything enqueued so far;
 * diopiErrorOccurred naming `op` if the context has no stream or the
 * stream failed. */
diopiError_t ref_settle(diopiContextHandle_t ctx, const char *op);

#endif /* BACKPLANE_REF_OPS_SETTLE_H_ */
