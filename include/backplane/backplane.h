/* Backplane framework face: one C API for every plugged-in device. Only
 * bp_/BP_-prefixed names (and DLPack's), so it can be included beside any
 * other header; the vendor ABI (device_ext.h) and the escape hatches that
 * hand out its types (vendor_access.h) are separate, opt-in headers. */
#ifndef BACKPLANE_H_
#define BACKPLANE_H_

#include "backplane/allocator.h"
#include "backplane/build.h"
#include "backplane/comm.h"
#include "backplane/device.h"
#include "backplane/dtype.h"
#include "backplane/kernel.h"
#include "backplane/layers.h"
#include "backplane/memory.h"
#include "backplane/memory_history.h"
#include "backplane/profiler.h"
#include "backplane/runtime.h"
#include "backplane/status.h"
#include "backplane/stream.h"
#include "backplane/target.h"
#include "backplane/version.h"

#endif /* BACKPLANE_H_ */
