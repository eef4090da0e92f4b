/* The system C compiler at run time: `cc`, or $BACKPLANE_CC (a command,
 * words split at spaces, e.g. "ccache gcc"). */
#ifndef BACKPLANE_TARGET_BUILD_COMPILER_H_
#define BACKPLANE_TARGET_BUILD_COMPILER_H_

#include "backplane/status.h"
#include "backplane/target.h"

/* The compiler command and its `--version` text, joined ("cc\ngcc (Debian
 * 12.2.0) ..."): part of every cache key. Asked once per process and
 * command. The string is static. */
bp_status_t compiler_identity(const char **out_identity);

/* Compiles `source_name` (in directory `dir`, where the compiler runs, so
 * the object does not depend on where it was built) into the shared object
 * `out_path` (absolute) with the flags `target` implies (-O3,
 * -march=<mcpu>, -DBP_NUM_CORES, -DBP_VECTOR_WIDTH).
 * A failed compile is BP_ERR_PLUGIN with the compiler's diagnostics in the
 * message. */
bp_status_t compiler_build_shared(const bp_target_t *target, const char *dir,
                                  const char *source_name,
                                  const char *out_path);

#endif /* BACKPLANE_TARGET_BUILD_COMPILER_H_ */
