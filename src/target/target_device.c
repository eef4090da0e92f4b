/* bp_target_from_device: the canonical target of a live device (TVM's
 * target canonicalizer). The only place a target reads a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backplane/vendor_access.h"
#include "base/status.h"
#include "target/target_internal.h"

/* Device attributes that fill target attributes of the same meaning, when
 * the kind has them and the device answers. */
static const struct {
  bp_device_attr_t attr;
  const char *target_attr;
} generic_map[] = {
    {BP_DEVICE_ATTR_MULTI_PROCESSOR_COUNT, "num_cores"},
    {BP_DEVICE_ATTR_MAX_THREADS_PER_BLOCK, "max_num_threads"},
    {BP_DEVICE_ATTR_WARP_SIZE, "warp_size"},
    {BP_DEVICE_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, "max_shared_memory_per_block"},
    {BP_DEVICE_ATTR_GCN_ARCH, "arch"},
    {BP_DEVICE_ATTR_COMPUTE_VERSION, "arch"},
};

/* Adds what the device reports; an attribute it cannot answer is left to
 * the default. */
static bp_status_t add_generic(bp_device_t *device, const target_kind_t *kind,
                               json_t *object) {
  for (size_t i = 0; i < sizeof(generic_map) / sizeof(generic_map[0]); i++) {
    int index = target_kind_attr_index(kind, generic_map[i].target_attr);
    if (index < 0 || json_object_get(object, generic_map[i].target_attr))
      continue;
    bp_device_attr_value_t value;
    if (bp_device_attribute(device, generic_map[i].attr, &value) != BP_OK)
      continue;
    json_t *json = NULL;
    BP_TargetAttrType type = kind->attrs[index].type;
    if (value.kind == BP_DEVICE_ATTR_VALUE_INT && type == BP_TARGET_ATTR_INT &&
        value.i64 >= kind->attrs[index].min_int)
      json = json_integer(value.i64);
    else if (value.kind == BP_DEVICE_ATTR_VALUE_INT &&
             type == BP_TARGET_ATTR_STRING)
      json = json_sprintf("%lld", (long long)value.i64);
    else if (value.kind == BP_DEVICE_ATTR_VALUE_STRING &&
             type == BP_TARGET_ATTR_STRING)
      json = json_stringn(value.str, strnlen(value.str, sizeof(value.str)));
    if (json && json_object_set_new(object, generic_map[i].target_attr, json))
      return bp_error(BP_ERR_OUT_OF_MEMORY,
                      "bp_target_from_device: out of memory");
  }
  return BP_OK;
}

/* Adds the kind's own from_device answer (a JSON object). */
static bp_status_t add_hook(bp_device_t *device, const target_kind_t *kind,
                            json_t *object) {
  if (!kind->from_device)
    return BP_OK;
  char text[4096] = "";
  C_Status result =
      kind->from_device(bp_device_c_handle(device), text, sizeof(text));
  text[sizeof(text) - 1] = '\0';
  if (result != C_SUCCESS)
    return bp_error(BP_ERR_PLUGIN,
                    "bp_target_from_device: kind '%s' from_device failed on "
                    "%s",
                    kind->name, bp_device_name(device));
  json_error_t error;
  json_t *answer = json_loads(text, JSON_REJECT_DUPLICATES, &error);
  if (!json_is_object(answer)) {
    json_decref(answer);
    return bp_error(BP_ERR_PLUGIN,
                    "bp_target_from_device: kind '%s' from_device on %s "
                    "wrote no JSON object",
                    kind->name, bp_device_name(device));
  }
  json_object_del(answer, "kind");
  int failed = json_object_update(object, answer);
  json_decref(answer);
  return failed ? bp_error(BP_ERR_OUT_OF_MEMORY,
                           "bp_target_from_device: out of memory")
                : BP_OK;
}

bp_status_t bp_target_from_device(bp_device_t *device,
                                  bp_target_t **out_target) {
  if (!device || !out_target)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_from_device: %s is NULL",
                    device ? "out_target" : "device");
  const target_kind_t *kind = target_kind_for_device(bp_device_type(device));
  if (!kind)
    return bp_error(BP_ERR_NOT_FOUND,
                    "bp_target_from_device: no target kind describes device "
                    "type '%s' (%s)",
                    bp_device_type(device), bp_device_name(device));
  json_t *object = json_pack("{s:s}", "kind", kind->name);
  if (!object)
    return bp_error(BP_ERR_OUT_OF_MEMORY,
                    "bp_target_from_device: out of memory");
  bp_status_t status = add_hook(device, kind, object);
  if (status == BP_OK)
    status = add_generic(device, kind, object);
  char what[128];
  snprintf(what, sizeof(what), "bp_target_from_device(%s)",
           bp_device_name(device));
  if (status == BP_OK)
    status = target_from_json_object(object, what, out_target);
  json_decref(object);
  return status;
}
