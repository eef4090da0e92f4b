/* Finding and loading the conformance kernel library (kernels/) for the
 * kernels check and `bench launch`. */
#ifndef BACKPLANE_CLI_KERNELS_H_
#define BACKPLANE_CLI_KERNELS_H_

#include "backplane/backplane.h"

/* Loads the library on `device`: $BACKPLANE_CHECK_KERNELS if set, else
 * lib/backplane/kernels/libbackplane_check_kernels.so beside the backplane
 * executable (cli_paths.h). BP_ERR_UNSUPPORTED (with bp_last_error) when the
 * plugin has no kernels extension. */
bp_status_t cli_kernels_load(bp_device_t *device, bp_module_t **out_module);

#endif /* BACKPLANE_CLI_KERNELS_H_ */
