/* The target object: typed reads, canonical JSON, equality and hash. */
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "target/target_internal.h"

char **target_strings_split(const char *text) {
  size_t count = *text ? 1 : 0;
  for (const char *p = text; *p; p++)
    count += *p == ',';
  char **strings = calloc(count + 1, sizeof(*strings));
  for (size_t i = 0; strings && i < count; i++) {
    size_t length = strcspn(text, ",");
    strings[i] = strndup(text, length);
    if (!strings[i]) {
      target_strings_free(strings);
      return NULL;
    }
    text += length + (text[length] == ',');
  }
  return strings;
}

void target_strings_free(char **strings) {
  for (size_t i = 0; strings && strings[i]; i++)
    free(strings[i]);
  free(strings);
}

uint64_t target_fnv1a(const void *data, size_t size, uint64_t seed) {
  const unsigned char *bytes = data;
  uint64_t hash = seed;
  for (size_t i = 0; i < size; i++)
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  return hash;
}

void bp_target_destroy(bp_target_t *target) {
  if (!target)
    return;
  for (size_t i = 0; target->values && i < target->kind->attr_count; i++) {
    free(target->values[i].s);
    target_strings_free(target->values[i].strings);
  }
  free(target->values);
  bp_target_destroy(target->host);
  free(target);
}

const char *bp_target_kind(const bp_target_t *target) {
  return target ? target->kind->name : NULL;
}

const bp_target_t *bp_target_host(const bp_target_t *target) {
  return target ? target->host : NULL;
}

/* The value of attribute `name` if present and of `type`, else an error. */
static bp_status_t find_value(const bp_target_t *target, const char *name,
                              BP_TargetAttrType type, const char *function,
                              const target_value_t **out_value) {
  if (!target || !name)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "%s: %s is NULL", function,
                    target ? "name" : "target");
  int index = target_kind_attr_index(target->kind, name);
  if (index < 0)
    return bp_error(BP_ERR_NOT_FOUND, "%s: kind '%s' has no attribute '%s'",
                    function, target->kind->name, name);
  if (target->kind->attrs[index].type != type)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "%s: attribute '%s' of kind '%s' has another type",
                    function, name, target->kind->name);
  if (!target->values[index].present)
    return bp_error(BP_ERR_NOT_FOUND, "%s: attribute '%s' is not set", function,
                    name);
  *out_value = &target->values[index];
  return BP_OK;
}

bp_status_t bp_target_get_int(const bp_target_t *target, const char *name,
                              int64_t *out_value) {
  const target_value_t *value;
  bp_status_t status =
      find_value(target, name, BP_TARGET_ATTR_INT, "bp_target_get_int", &value);
  if (status == BP_OK && !out_value)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_get_int: out_value is NULL");
  if (status == BP_OK)
    *out_value = value->i;
  return status;
}

bp_status_t bp_target_get_string(const bp_target_t *target, const char *name,
                                 const char **out_value) {
  const target_value_t *value;
  bp_status_t status = find_value(target, name, BP_TARGET_ATTR_STRING,
                                  "bp_target_get_string", &value);
  if (status == BP_OK && !out_value)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_get_string: out_value is NULL");
  if (status == BP_OK)
    *out_value = value->s;
  return status;
}

bp_status_t bp_target_get_strings(const bp_target_t *target, const char *name,
                                  const char *const **out_values) {
  const target_value_t *value;
  bp_status_t status = find_value(target, name, BP_TARGET_ATTR_STRING_ARRAY,
                                  "bp_target_get_strings", &value);
  if (status == BP_OK && !out_values)
    return bp_error(BP_ERR_INVALID_ARGUMENT,
                    "bp_target_get_strings: out_values is NULL");
  if (status == BP_OK)
    *out_values = (const char *const *)value->strings;
  return status;
}

static json_t *value_json(const target_attr_def_t *def,
                          const target_value_t *value) {
  switch (def->type) {
  case BP_TARGET_ATTR_INT:
    return json_integer(value->i);
  case BP_TARGET_ATTR_STRING:
    return json_string(value->s);
  case BP_TARGET_ATTR_STRING_ARRAY: {
    json_t *array = json_array();
    for (size_t i = 0; array && value->strings[i]; i++)
      if (json_array_append_new(array, json_string(value->strings[i]))) {
        json_decref(array);
        return NULL;
      }
    return array;
  }
  }
  return NULL;
}

json_t *target_json_object(const bp_target_t *target) {
  json_t *object = json_pack("{s:s}", "kind", target->kind->name);
  for (size_t i = 0; object && i < target->kind->attr_count; i++) {
    if (!target->values[i].present)
      continue;
    json_t *value = value_json(&target->kind->attrs[i], &target->values[i]);
    if (json_object_set_new(object, target->kind->attrs[i].name, value)) {
      json_decref(object);
      return NULL;
    }
  }
  if (object && target->host &&
      json_object_set_new(object, "host", target_json_object(target->host))) {
    json_decref(object);
    return NULL;
  }
  return object;
}

/* Canonical text: compact, keys sorted. NULL when out of memory. */
static char *canonical_text(const bp_target_t *target) {
  json_t *object = target_json_object(target);
  char *text =
      object ? json_dumps(object, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  json_decref(object);
  return text;
}

bp_status_t bp_target_to_json(const bp_target_t *target, char **out_json) {
  if (!target || !out_json)
    return bp_error(BP_ERR_INVALID_ARGUMENT, "bp_target_to_json: %s is NULL",
                    target ? "out_json" : "target");
  char *text = canonical_text(target);
  if (!text)
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_target_to_json: out of memory");
  *out_json = text;
  return BP_OK;
}

static int value_equal(const target_attr_def_t *def, const target_value_t *a,
                       const target_value_t *b) {
  if (a->present != b->present)
    return 0;
  if (!a->present)
    return 1;
  switch (def->type) {
  case BP_TARGET_ATTR_INT:
    return a->i == b->i;
  case BP_TARGET_ATTR_STRING:
    return !strcmp(a->s, b->s);
  case BP_TARGET_ATTR_STRING_ARRAY: {
    size_t i = 0;
    for (; a->strings[i] && b->strings[i]; i++)
      if (strcmp(a->strings[i], b->strings[i]))
        return 0;
    return !a->strings[i] && !b->strings[i];
  }
  }
  return 0;
}

int bp_target_equal(const bp_target_t *a, const bp_target_t *b) {
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind)
    return 0;
  for (size_t i = 0; i < a->kind->attr_count; i++)
    if (!value_equal(&a->kind->attrs[i], &a->values[i], &b->values[i]))
      return 0;
  return bp_target_equal(a->host, b->host);
}

uint64_t bp_target_hash(const bp_target_t *target) {
  char *text = target ? canonical_text(target) : NULL;
  /* Out of memory hashes the kind alone: still equal for equal targets. */
  const char *hashed = text ? text : target ? target->kind->name : "";
  uint64_t hash = target_fnv1a(hashed, strlen(hashed), TARGET_FNV_SEED);
  free(text);
  return hash;
}
