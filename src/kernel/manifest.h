/* Op-info manifests (seed 004), parsed (internal).
 *
 *   {"<OpName>": {"opInfo": {"opKernelLib": "AICPUKernel",
 *                            "kernelSo": "<file>", "functionName": "<fn>"}}}
 *
 * Several ops per file, in file order. opKernelLib must be "AICPUKernel" or
 * "CUSTAICPUKernel"; kernelSo is joined to the manifest's folder and, unless
 * allowed, may be neither absolute nor contain a ".." component. Other keys
 * are ignored (GE's full entries carry more). Errors set bp_last_error() to
 * "<manifest>: op \"<op>\": <reason>" and leave nothing allocated. */
#ifndef BACKPLANE_KERNEL_MANIFEST_H_
#define BACKPLANE_KERNEL_MANIFEST_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/status.h"

typedef struct bp_manifest_op {
  char *op;
  char *library;   /* opKernelLib */
  char *kernel_so; /* resolved: folder of the manifest + kernelSo */
  char *function;
} bp_manifest_op_t;

typedef struct bp_manifest {
  bp_manifest_op_t *ops;
  size_t count;
} bp_manifest_t;

/* Parses `size` bytes of `text` (need not be NUL-terminated) as the manifest
 * at `path`. BP_ERR_INVALID_ARGUMENT for anything malformed. */
bp_status_t bp_manifest_parse(const char *text, size_t size, const char *path,
                              bool allow_outside_folder,
                              bp_manifest_t **out_manifest);

/* Reads and parses the file: refuses group/other-writable files, empty ones
 * and ones larger than BP_MANIFEST_MAX_BYTES (without reading them);
 * BP_ERR_NOT_FOUND when it cannot be opened. */
bp_status_t bp_manifest_read(const char *path, bool allow_outside_folder,
                             bp_manifest_t **out_manifest);

/* NULL is a no-op. */
void bp_manifest_free(bp_manifest_t *manifest);

#endif /* BACKPLANE_KERNEL_MANIFEST_H_ */
