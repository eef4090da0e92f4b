/* Choosing an op's kernel variant for a device (internal).
 *
 * The rule (docs/framework-guide.md, "Kernel variants"): among the variants
 * whose predicate the device's canonical target satisfies, and the default
 * (opInfo or a variant without "target"), the one with the most clauses
 * wins; ties go to the earlier one in the file ("variants" in order, opInfo
 * last). Predicates are matched through core/target_hooks.h. */
#ifndef BACKPLANE_KERNEL_VARIANT_H_
#define BACKPLANE_KERNEL_VARIANT_H_

#include <stdbool.h>

#include "backplane/status.h"
#include "kernel/kernel_internal.h"
#include "kernel/manifest.h"

/* Whether the op lists "variants" (else it is a plain seed-004 op). */
bool bp_variant_listed(const bp_manifest_op_t *op);

/* The device's canonical target as JSON (the caller's to free) when an op
 * of `manifest` lists variants and the device has a target; else NULL, and
 * `why` says why not when it was needed. */
char *bp_variant_device_target(bp_device_t *device,
                               const bp_manifest_t *manifest, char *why,
                               size_t capacity);

/* Chooses op's variant for the device `device_name` of canonical target
 * `target_json` (NULL when the device has none: `no_target` says why).
 * *out_reason (the caller's to free; NULL for an op without "variants")
 * names the target, the choice and why each other variant lost. No match is
 * BP_ERR_NOT_FOUND naming the manifest `path`, the op, the device, its
 * target and each predicate with the clause that failed. */
bp_status_t bp_variant_choose(const char *path, const bp_manifest_op_t *op,
                              const char *device_name, const char *target_json,
                              const char *no_target,
                              const bp_manifest_variant_t **out_variant,
                              char **out_reason);

/* Records the chosen variant in `function` (filled by the module), which
 * takes `reason` in every case. */
bp_status_t bp_variant_note(bp_function_t *function,
                            const bp_manifest_variant_t *variant, char *reason);

#endif /* BACKPLANE_KERNEL_VARIANT_H_ */
