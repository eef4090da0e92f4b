/* Source compatibility for Paddle runtime plugins that include Paddle's path:
 * the ABI lives in <backplane/device_ext.h>. */
#ifndef BACKPLANE_PADDLE_DEVICE_EXT_FORWARD_H_
#define BACKPLANE_PADDLE_DEVICE_EXT_FORWARD_H_
#include "backplane/device_ext.h"
#endif
