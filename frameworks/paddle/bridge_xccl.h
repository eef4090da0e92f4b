/* Paddle's xccl_* slots on bp_comm (backplane/comm.h): a C_CCLComm is a
 * bp_comm_t*, bound to the device that was current (set_device) when it
 * was created. */
#ifndef BACKPLANE_PADDLE_BRIDGE_XCCL_H_
#define BACKPLANE_PADDLE_BRIDGE_XCCL_H_

#include "paddle/phi/backends/device_ext.h"

/* Fills the xccl_* slots of `in`. */
void bridge_xccl_fill(C_DeviceInterface *in);

#endif /* BACKPLANE_PADDLE_BRIDGE_XCCL_H_ */
