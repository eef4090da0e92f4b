/* The target floor's side of core/target_hooks.h: predicates and a device's
 * canonical target, for src/kernel's kernel variants. */
#include <stdio.h>
#include <stdlib.h>

#include "backplane/status.h"
#include "core/target_hooks.h"
#include "target/target_internal.h"

static bp_status_t device_target_json(bp_device_t *device, char **out_json,
                                      char *why, size_t capacity) {
  *out_json = NULL;
  bp_target_t *target = NULL;
  bp_status_t status = bp_target_from_device(device, &target);
  if (status == BP_OK)
    status = bp_target_to_json(target, out_json);
  if (status != BP_OK && capacity)
    snprintf(why, capacity, "%s", bp_last_error());
  bp_target_destroy(target);
  return status;
}

const bp_target_hooks_t bp_target_hooks = {
    .check_predicate = target_predicate_check,
    .device_target_json = device_target_json,
    .match_predicate = target_predicate_match,
};
