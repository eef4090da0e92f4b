/* Backplane framework face: one C API for every plugged-in device. */
#ifndef BACKPLANE_H_
#define BACKPLANE_H_

#include "backplane/allocator.h"
#include "backplane/comm.h"
#include "backplane/device.h"
#include "backplane/kernel.h"
#include "backplane/layers.h"
#include "backplane/memory.h"
#include "backplane/profiler.h"
#include "backplane/runtime.h"
#include "backplane/status.h"
#include "backplane/stream.h"

#endif /* BACKPLANE_H_ */
