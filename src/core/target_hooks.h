/* What the target floor answers for its siblings (internal).
 *
 * src/kernel chooses among a manifest's kernel variants by target
 * predicates, but src/kernel and src/target are sibling floors and may not
 * include each other. The core declares this table and src/target defines
 * it (target/target_hooks.c), the way the core's extension table names the
 * target kind's load hooks: src/kernel calls through it and never sees a
 * target object, only canonical JSON text.
 *
 * A predicate is a JSON object (docs/framework-guide.md, "Kernel
 * variants"): "kind" (required) equals the target's kind; `<attr>` equals
 * the attribute (for a string-array attribute such as `keys`: the target's
 * array contains every listed string); `min_<attr>` / `max_<attr>` bound an
 * integer attribute. The functions are thread-safe and set no last error:
 * what is wrong goes to `why` (`capacity` bytes, NUL-terminated). */
#ifndef BACKPLANE_CORE_TARGET_HOOKS_H_
#define BACKPLANE_CORE_TARGET_HOOKS_H_

#include <stddef.h>

#include "backplane/device.h"
#include "backplane/status.h"

typedef struct bp_target_hooks {
  /* Checks the predicate text against its kind's schema: BP_OK, or
   * BP_ERR_INVALID_ARGUMENT naming the unknown attribute, the wrongly typed
   * value or the missing kind. A kind not registered (a plugin's that is not
   * loaded) is accepted unchecked: it matches no device here. */
  bp_status_t (*check_predicate)(const char *predicate, char *why,
                                 size_t capacity);
  /* The device's canonical target (bp_target_from_device) as canonical
   * JSON, the caller's to free(); an error (e.g. no kind describes the
   * device) leaves *out_json NULL and says why. */
  bp_status_t (*device_target_json)(bp_device_t *device, char **out_json,
                                    char *why, size_t capacity);
  /* Nonzero when the target (canonical JSON) satisfies the predicate; zero
   * with `why` naming the first clause that fails. */
  int (*match_predicate)(const char *target_json, const char *predicate,
                         char *why, size_t capacity);
} bp_target_hooks_t;

extern const bp_target_hooks_t bp_target_hooks;

#endif /* BACKPLANE_CORE_TARGET_HOOKS_H_ */
