/* Kernel variants: the best match of an op's variants for a device's
 * canonical target (kernel/variant.h has the rule), and the function
 * queries that say which was chosen and why. */
#include "kernel/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "core/target_hooks.h"

bool bp_variant_listed(const bp_manifest_op_t *op) {
  return op->variant_count > 1 || op->variants[0].index >= 0;
}

char *bp_variant_device_target(bp_device_t *device,
                               const bp_manifest_t *manifest, char *why,
                               size_t capacity) {
  bool listed = false;
  for (size_t i = 0; i < manifest->count && !listed; ++i)
    listed = bp_variant_listed(&manifest->ops[i]);
  char *json = NULL;
  if (listed)
    bp_target_hooks.device_target_json(device, &json, why, capacity);
  return json;
}

/* "variant 2 {predicate}" or "opInfo (default)". */
static void describe(FILE *out, const bp_manifest_variant_t *variant) {
  if (variant->index < 0)
    fputs("opInfo", out);
  else
    fprintf(out, "variant %d", variant->index);
  fprintf(out, " %s", variant->target ? variant->target : "(default)");
}

bp_status_t bp_variant_choose(const char *path, const bp_manifest_op_t *op,
                              const char *device_name, const char *target_json,
                              const char *no_target,
                              const bp_manifest_variant_t **out_variant,
                              char **out_reason) {
  *out_reason = NULL;
  if (!bp_variant_listed(op)) {
    *out_variant = &op->variants[0];
    return BP_OK;
  }
  /* Each variant's verdict: NULL if it holds, else the failed clause. */
  char(*why)[256] = calloc(op->variant_count, sizeof *why);
  if (!why)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory", path,
                    op->op);
  const bp_manifest_variant_t *best = NULL;
  for (size_t i = 0; i < op->variant_count; ++i) {
    const bp_manifest_variant_t *variant = &op->variants[i];
    bool holds = !variant->target;
    if (variant->target && !target_json)
      snprintf(why[i], sizeof why[i], "the device has no target (%s)",
               no_target);
    else if (variant->target)
      holds = bp_target_hooks.match_predicate(target_json, variant->target,
                                              why[i], sizeof why[i]);
    if (holds && (!best || variant->clauses > best->clauses))
      best = variant;
  }
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  bp_status_t status = BP_OK;
  if (!out) {
    status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory",
                      path, op->op);
  } else {
    if (best) {
      describe(out, best);
      fprintf(out, " (%zu clause%s) for %s's target %s", best->clauses,
              best->clauses == 1 ? "" : "s", device_name,
              target_json ? target_json : "(none)");
    } else {
      fprintf(out, "no variant for %s's target %s", device_name,
              target_json ? target_json : "(none)");
    }
    const char *separator = best ? "; not chosen: " : ": ";
    for (size_t i = 0; i < op->variant_count; ++i) {
      if (&op->variants[i] == best)
        continue;
      fputs(separator, out);
      separator = "; ";
      describe(out, &op->variants[i]);
      fprintf(out, ": %s",
              why[i][0]
                  ? why[i]
                  : "holds; the chosen one has more clauses or comes first");
    }
    if (fclose(out) != 0 || !text)
      status = bp_error(BP_ERR_OUT_OF_MEMORY, "%s: op \"%s\": out of memory",
                        path, op->op);
  }
  free(why);
  if (status == BP_OK && !best)
    status =
        bp_error(BP_ERR_NOT_FOUND, "%s: op \"%s\": %s", path, op->op, text);
  if (status != BP_OK) {
    free(text);
    return status;
  }
  *out_variant = best;
  *out_reason = text;
  return BP_OK;
}

bp_status_t bp_variant_note(bp_function_t *function,
                            const bp_manifest_variant_t *variant,
                            char *reason) {
  function->variant = variant->index;
  function->variant_reason = reason;
  if (variant->target && !(function->variant_target = strdup(variant->target)))
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_module_load %s: out of memory",
                    function->module->path);
  return BP_OK;
}

BP_API int32_t bp_function_variant(const bp_function_t *function) {
  return function ? function->variant : -1;
}

BP_API const char *bp_function_variant_target(const bp_function_t *function) {
  return function ? function->variant_target : NULL;
}

BP_API const char *bp_function_variant_reason(const bp_function_t *function) {
  return function ? function->variant_reason : NULL;
}
