/* Finding and loading the conformance kernel library (kernels/) for the
 * kernels check and `bench launch`. */
#ifndef BACKPLANE_CLI_KERNELS_H_
#define BACKPLANE_CLI_KERNELS_H_

#include "backplane/backplane.h"

/* Loads the conformance kernels on `device`: $BACKPLANE_CHECK_KERNELS if
 * set; else, for a device type that builds source (cli_kernels_source),
 * that source file beside the backplane executable
 * (lib/backplane/kernels/, cli_paths.h); else the shared object
 * lib/backplane/kernels/libbackplane_check_kernels.so there or, when the
 * plugin refuses that, the OpenCL C version (conformance_kernels.cl).
 * BP_ERR_UNSUPPORTED (with bp_last_error) when the plugin has no kernels
 * extension. */
bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module);

/* The source file of the conformance kernels that plugins of `device_type`
 * build (a name in lib/backplane/kernels/: "conformance_kernels.cl" for
 * opencl, "conformance_kernels.cu" for cuda), or NULL when they load the
 * shared object. */
const char *cli_kernels_source(const char *device_type);

/* The shared object cli_kernels_load tries first into out:
 * $BACKPLANE_CHECK_KERNELS if set (returns 1), else the one beside the
 * executable (returns 0). */
int cli_kernels_path(char *out, size_t size);

#endif /* BACKPLANE_CLI_KERNELS_H_ */
