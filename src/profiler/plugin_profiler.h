/* What the framework-face profiler (profile.c) and the trace layer both need of
 * a plugin's profiler_* functions (internal). */
#ifndef BACKPLANE_PROFILER_PLUGIN_PROFILER_H_
#define BACKPLANE_PROFILER_PLUGIN_PROFILER_H_

#include "backplane/device_ext.h"

/* The name of the first of the six profiler_* functions `table` lacks, or
 * NULL when it has them all. */
const char *bp_plugin_profiler_missing(const C_DeviceInterface *table);

#endif /* BACKPLANE_PROFILER_PLUGIN_PROFILER_H_ */
