/* Finding and loading the conformance kernel library (kernels/) for the
 * kernels check and `bench launch`. */
#ifndef BACKPLANE_CLI_KERNELS_H_
#define BACKPLANE_CLI_KERNELS_H_

#include "backplane/backplane.h"

/* Loads the library on `device`: $BACKPLANE_CHECK_KERNELS if set, else
 * lib/backplane/kernels/libbackplane_check_kernels.so beside the backplane
 * executable (cli_paths.h), or, when the plugin refuses that, the same
 * kernels in OpenCL C (conformance_kernels.cl beside it). BP_ERR_UNSUPPORTED
 * (with bp_last_error) when the plugin has no kernels extension. */
bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module);

/* The shared object cli_kernels_load tries first into out:
 * $BACKPLANE_CHECK_KERNELS if set (returns 1), else the one beside the
 * executable (returns 0). */
int cli_kernels_path(char *out, size_t size);

#endif /* BACKPLANE_CLI_KERNELS_H_ */
