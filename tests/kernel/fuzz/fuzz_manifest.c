/* libFuzzer target: the op-info manifest parser on arbitrary bytes, with
 * the target floor's real predicate checker (built-in kinds). Every input
 * must either parse into ops whose variants have non-empty fields that stay
 * inside the manifest's folder, at most one default each and predicates the
 * checker accepts, or fail with a message naming the file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/status.h"
#include "core/target_hooks.h"
#include "kernel/manifest.h"
#include "target/target_internal.h"

/* manifest.c checks predicates only; loading (which matches) is not
 * fuzzed here. */
const bp_target_hooks_t bp_target_hooks = {.check_predicate =
                                               target_predicate_check};

#define PATH "/fuzz/folder/ops.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bp_manifest_t *manifest = NULL;
  bp_status_t status =
      bp_manifest_parse((const char *)data, size, PATH, false, &manifest);
  if (status != BP_OK) {
    if (manifest || !strstr(bp_last_error(), PATH))
      abort();
    return 0;
  }
  if (!manifest || manifest->count == 0)
    abort();
  char why[256];
  for (size_t i = 0; i < manifest->count; ++i) {
    const bp_manifest_op_t *op = &manifest->ops[i];
    size_t defaults = 0;
    if (!op->op[0] || op->variant_count == 0)
      abort();
    for (size_t v = 0; v < op->variant_count; ++v) {
      const bp_manifest_variant_t *variant = &op->variants[v];
      if (!variant->function[0] || !variant->library[0] ||
          strncmp(variant->kernel_so, "/fuzz/folder/", 13) != 0 ||
          strstr(variant->kernel_so, "/../") ||
          (variant->target &&
           target_predicate_check(variant->target, why, sizeof why) != BP_OK))
        abort();
      defaults += variant->target == NULL;
    }
    if (defaults > 1)
      abort();
  }
  bp_manifest_free(manifest);
  return 0;
}
