/* Op-info manifests (seed 004), parsed (internal).
 *
 *   {"<OpName>": {"opInfo": {"opKernelLib": "AICPUKernel",
 *                            "kernelSo": "<file>", "functionName": "<fn>"}}}
 *
 * Several ops per file, in file order. opKernelLib must be "AICPUKernel" or
 * "CUSTAICPUKernel"; kernelSo is joined to the manifest's folder and, unless
 * allowed, may be neither absolute nor contain a ".." component. Other keys
 * are ignored (GE's full entries carry more).
 *
 * Kernel variants: an op may also list, beside or instead of opInfo,
 *   "variants": [{"target": {"kind": "vcpu", "min_num_cores": 4},
 *                 "kernelSo": "<file>", "functionName": "<fn>"}, ...]
 * each with a target predicate (core/target_hooks.h), checked here against
 * the kinds' schemas; "opKernelLib" is optional (default: opInfo's, else
 * "AICPUKernel"). A variant without "target" is the op's default, as is
 * opInfo; an op has at most one default. Module loading chooses
 * (kernel/variant.h).
 *
 * The text is read by a pull scanner (kernel/json_scan.h), not into a JSON
 * document: a 10,000-op manifest loads in milliseconds. It must be valid
 * JSON throughout; an op named twice, or a key the manifest uses given twice
 * in one object, is refused (duplicates among ignored keys are not looked
 * for).
 *
 * Errors set bp_last_error() to "<manifest>: op \"<op>\": <reason>" (with
 * "variant <i>" for an entry of "variants") and leave nothing allocated. */
#ifndef BACKPLANE_KERNEL_MANIFEST_H_
#define BACKPLANE_KERNEL_MANIFEST_H_

#include <stdbool.h>
#include <stddef.h>

#include "backplane/status.h"

/* At most this many entries in an op's "variants". */
#define BP_MANIFEST_MAX_VARIANTS 64

/* One kernel of an op: opInfo or an entry of "variants". */
typedef struct bp_manifest_variant {
  int index;       /* in "variants"; -1 for opInfo */
  char *library;   /* opKernelLib */
  char *kernel_so; /* resolved: folder of the manifest + kernelSo */
  char *function;
  char *target;   /* the predicate, compact JSON, keys sorted; NULL: default */
  size_t clauses; /* the predicate's keys, "kind" included; 0 for default */
} bp_manifest_variant_t;

typedef struct bp_manifest_op {
  char *op;
  /* "variants" in file order, then opInfo if present; at least one. */
  bp_manifest_variant_t *variants;
  size_t variant_count;
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

/* Reads and parses the file at `path` (absolute): refuses group/other-
 * writable files, empty ones and ones larger than `max_bytes` (without
 * reading them); BP_ERR_NOT_FOUND when it cannot be opened. */
bp_status_t bp_manifest_read(const char *path, bool allow_outside_folder,
                             size_t max_bytes, bp_manifest_t **out_manifest);

/* NULL is a no-op. */
void bp_manifest_free(bp_manifest_t *manifest);

#endif /* BACKPLANE_KERNEL_MANIFEST_H_ */
