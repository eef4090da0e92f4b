/* device_ext.h must be self-contained C11: it is the first include here. */
#include "backplane/device_ext.h"
#include "backplane/device_layouts.h"

#include <string.h>

#include "abi/abi_layout.h"

#define ABI_LAYOUT_FN abi_layout_from_c11
#include "abi/abi_layout_fill.inc"
