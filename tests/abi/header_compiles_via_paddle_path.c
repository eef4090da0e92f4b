/* Paddle plugins include <paddle/phi/backends/device_ext.h>; the forwarder
 * must give them the same ABI. It is the first include here. */
#include "paddle/phi/backends/device_ext.h"

#include <string.h>

#include "abi/abi_layout.h"

#define ABI_LAYOUT_FN abi_layout_from_paddle_path
#include "abi/abi_layout_fill.inc"
